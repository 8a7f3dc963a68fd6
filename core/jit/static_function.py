"""``to_static`` and the switches around it. core has no graph compiler: a decorated function
runs eagerly, with the results it gives undecorated (what Paddle does after
``enable_to_static(False)``). What the decoration adds is Paddle's input checking against
``input_spec`` and the record of the inputs it was called with, which ``jit.save`` reads.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import threading
import types
import weakref

from core.jit import specs as spec_tools
from core.nn.layer import Layer

_STATE = {"enabled": True}
_QUIET = threading.local()  # a TranslatedLayer checks its inputs itself: no second check


def enable_to_static(enable_to_static_bool: bool) -> None:
    """Paddle's ``paddle.jit.enable_to_static(enable_to_static_bool)``.

    False makes functions decorated with ``to_static`` plain eager calls: their inputs are not
    checked against ``input_spec`` nor recorded, and ``jit.save`` refuses to run (as Paddle's).
    core runs eagerly either way, so results do not change.
    """
    if not isinstance(enable_to_static_bool, bool):
        raise TypeError("enable_to_static: enable_to_static_bool must be True or False, got "
                        f"{enable_to_static_bool!r}.")
    _STATE["enabled"] = enable_to_static_bool


def to_static_enabled() -> bool:
    return _STATE["enabled"]


@contextlib.contextmanager
def quiet():
    """Calls inside skip the input check of decorated functions (already checked)."""
    depth = getattr(_QUIET, "depth", 0)
    _QUIET.depth = depth + 1
    try:
        yield
    finally:
        _QUIET.depth = depth


class StaticFunction:
    """What ``to_static`` returns for a function or method (Paddle's ``StaticFunction``).

    Calling it calls the function eagerly. ``input_spec`` (a tuple of InputSpec, or None) is
    checked against each call's inputs while ``enable_to_static`` is on, and the exact specs of
    the last call are kept for ``jit.save``. Used as a method decorator it binds to each
    instance (``layer.forward``) like a function does.
    """

    def __init__(self, function, input_spec=None, instance=None):
        self._function = function
        self._instance = instance
        self._input_spec = input_spec
        self._traced_spec = None
        self._bound = weakref.WeakKeyDictionary() if instance is None else None
        self._signature = None  # of the callable, made on the first checked call
        functools.update_wrapper(self, function)

    # ----- binding ----------------------------------------------------------------------------
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:  # an unhashable instance (its class defines __eq__ only)
            return StaticFunction(self._function, self._input_spec, instance)
        if bound is None:  # one per instance, so that what a call records stays with it
            bound = StaticFunction(self._function, self._input_spec, instance)
            self._bound[instance] = bound
        return bound

    def __set_name__(self, owner, name):
        self.__name__ = name

    # ----- calling ----------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        function = self._callable()
        if not _STATE["enabled"] or getattr(_QUIET, "depth", 0):
            return function(*args, **kwargs)
        if self._signature is None:
            self._signature = inspect.signature(function)
        owner = f"to_static({self.__name__})"
        if self._input_spec is not None:
            values = spec_tools.bind(self._signature, args, kwargs, self._input_spec, owner)
        else:
            values = _positional(self._signature, args, kwargs)
        self._record(values)
        return function(*args, **kwargs)

    def _callable(self):
        function = self._function
        return function if self._instance is None else types.MethodType(function, self._instance)

    def _record(self, values: tuple) -> None:
        """The exact specs of this call's tensor inputs (constants as they are), by name."""
        names = spec_tools.positional_names(self._signature)[0]
        traced = []
        for i, value in enumerate(values):
            if isinstance(value, spec_tools.TENSORS):
                traced.append(spec_tools.spec_of(value, names[i] if i < len(names) else None))
            else:
                traced.append(value)
        self._traced_spec = tuple(traced)

    # ----- Paddle's attributes ----------------------------------------------------------------
    @property
    def dygraph_function(self):
        """The decorated function (bound to its instance for a method)."""
        return self._callable()

    @property
    def input_spec(self):
        """The ``input_spec`` given to ``to_static`` (a tuple), or None."""
        return self._input_spec

    @property
    def code(self) -> str:
        """The decorated function's source. Paddle gives its translated static-graph code;
        core translates nothing, so this is the code that runs."""
        return inspect.getsource(self._function)

    def rollback(self):
        """Undo the decoration: a method becomes the instance's plain method again (Paddle's
        ``rollback``); returns the plain function or bound method."""
        plain = self._callable()
        if self._instance is not None:
            setattr(self._instance, self.__name__, plain)
        return plain

    def traced_input_spec(self):
        """The exact specs of the last checked call (None before one): what ``jit.save`` uses
        when it is given no ``input_spec`` and ``to_static`` had none."""
        return self._traced_spec

    def __repr__(self) -> str:
        return f"StaticFunction({self.__name__}, input_spec={self._input_spec})"


def _positional(signature: inspect.Signature, args: tuple, kwargs: dict) -> tuple:
    """The call's positional values (defaults filled in), without checking them."""
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return tuple(args)  # the call itself will raise Python's error
    return tuple(spec_tools.positional_values(bound)[0])


def to_static(function=None, input_spec=None, build_strategy=None, backend=None,
              full_graph: bool = False, **kwargs):
    """Paddle's ``paddle.jit.to_static(function=None, input_spec=None, build_strategy=None,
    backend=None, full_graph=False, **kwargs)``.

    ``function``: a function, a method (as a decorator in a class body), or a Layer, whose
    ``forward`` is then replaced by the decorated one and the Layer is returned. Without
    ``function`` it returns a decorator. The result runs eagerly, exactly as undecorated (core
    has no static graph); it checks each call against ``input_spec`` (errors where Paddle raises,
    a warning where Paddle warns) and records the inputs for ``core.jit.save``.
    ``build_strategy`` must be None and ``backend`` None or ``'CINN'``, and ``full_graph`` and
    ``kwargs['property']`` must be False: they configure a compiler core does not have.
    """
    specs = None if input_spec is None else spec_tools.as_specs(input_spec, "to_static")
    _check_options(build_strategy, backend, full_graph, kwargs)

    def decorate(target):
        if isinstance(target, Layer):
            forward = target.forward
            plain = forward._callable() if isinstance(forward, StaticFunction) else forward
            target.forward = StaticFunction(plain.__func__, specs, target)
            return target
        if isinstance(target, StaticFunction):
            target = target._callable()
        if not callable(target):
            raise TypeError(f"to_static: function must be a function, a method or a core.nn."
                            f"Layer, got {type(target).__name__} {target!r:.80}.")
        if inspect.ismethod(target):
            return StaticFunction(target.__func__, specs, target.__self__)
        return StaticFunction(target, specs)

    return decorate if function is None else decorate(function)


def _check_options(build_strategy, backend, full_graph, kwargs: dict) -> None:
    if build_strategy is not None:
        raise ValueError(f"to_static: build_strategy={build_strategy!r} configures Paddle's "
                         "graph compiler; core runs eagerly and has none (leave it None).")
    if backend not in (None, "CINN"):
        raise ValueError(f"to_static: backend={backend!r}; Paddle takes 'CINN' or None (core "
                         "compiles nothing with either).")
    if not isinstance(full_graph, bool):
        raise TypeError(f"to_static: full_graph must be True or False, got {full_graph!r}.")
    unknown = sorted(set(kwargs) - {"property"})
    if unknown:
        raise TypeError(f"to_static: unexpected keyword argument(s) {unknown}; Paddle's extra "
                        "keyword is 'property'.")
    if kwargs.get("property", False) is not False:
        raise ValueError(f"to_static: property={kwargs['property']!r}: exporting a Python "
                         "property is part of Paddle's static export; core's jit.save saves "
                         "forward only (leave property=False).")


def not_to_static(func=None):
    """Paddle's ``paddle.jit.not_to_static(func=None)``: keep ``func`` out of the translation to
    a static graph. core translates nothing, so ``func`` is returned as it is; it must be
    callable. Without ``func`` it returns the decorator."""
    if func is None:
        return not_to_static
    if not callable(func):
        raise TypeError(f"not_to_static: func must be callable, got {type(func).__name__} "
                        f"{func!r:.80}.")
    return func


def ignore_module(modules: list) -> None:
    """Paddle's ``paddle.jit.ignore_module(modules)``: modules whose functions the translator
    leaves untranslated. core translates nothing, so this only checks that ``modules`` is a
    list or tuple of modules."""
    if not isinstance(modules, (list, tuple)):
        raise TypeError(f"ignore_module: modules must be a list of modules, got "
                        f"{type(modules).__name__} {modules!r:.80}.")
    for module in modules:
        if not isinstance(module, types.ModuleType):
            raise TypeError(f"ignore_module: {module!r:.80} is a {type(module).__name__}, not a "
                            "module.")


def set_code_level(level: int = 100, also_to_stdout: bool = False) -> None:
    """Paddle's ``paddle.jit.set_code_level(level=100, also_to_stdout=False)``: log the code
    the translator produces. core produces none (it runs the code as written), so this only
    checks its arguments."""
    _check_log_level("set_code_level", level, also_to_stdout)


def set_verbosity(level: int = 0, also_to_stdout: bool = False) -> None:
    """Paddle's ``paddle.jit.set_verbosity(level=0, also_to_stdout=False)``: how much the
    translator logs. core has no translator to log, so this only checks its arguments."""
    _check_log_level("set_verbosity", level, also_to_stdout)


def _check_log_level(owner: str, level, also_to_stdout) -> None:
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"{owner}: level must be an int, got {level!r}.")
    if not isinstance(also_to_stdout, bool):
        raise TypeError(f"{owner}: also_to_stdout must be True or False, got "
                        f"{also_to_stdout!r}.")
