"""Your own models, layers, datasets and readers, without editing tomlrun: one registry each and
one way in (docs/models.md#plugins).

In a module of your own::

    from runner import plugins

    @plugins.model("wide_mlp", defaults={"width": 512})
    def wide_mlp(input_shape, num_classes, width=512):      # -> a core.nn.Layer
        ...

    @plugins.layer()                                         # usable as type = "Swish2"
    class Swish2(core.nn.Layer): ...

    @plugins.dataset("my_data")
    def my_data(seed, path=""):                              # -> {"train": ..., "test": ...}
        ...

    @plugins.reader("tsv")                                   # data=files data.reader=tsv
    def read_tsv(path): ...

tomlrun imports such a module when an installed package names it in the ``tomlrun.plugins``
entry-point group, or when the config lists it (``plugins=[my_module]``). A name registered
twice is an error naming both places. No ``_target_`` import strings: configs name things only
by their registered names.
"""
from __future__ import annotations

import importlib
import inspect
import os
import sys
import traceback
from collections.abc import Callable
from importlib import metadata

from runner.errors import UserError

ENTRY_POINT_GROUP = "tomlrun.plugins"
KINDS = ("model", "layer", "dataset", "reader")
BUILT_IN = "tomlrun itself"


class PluginError(UserError):
    """A plugin that cannot be loaded or registered (a user mistake with a clear message)."""


class Registry:
    """Names to objects of one kind, each remembering where it was registered."""

    def __init__(self, kind: str):
        self.kind = kind
        self._items: dict[str, tuple[object, str]] = {}

    def add(self, name: str, item: object, source: str) -> None:
        if not isinstance(name, str) or not name:
            raise PluginError(f"a {self.kind} plugin needs a non-empty string name, got "
                              f"{name!r} from {source}.")
        known = self._items.get(name)
        if known is not None and known[0] is not item:
            raise PluginError(f"the {self.kind} name '{name}' is registered twice: by "
                              f"{known[1]} and by {source}; rename one of them.")
        self._items[name] = (item, source)

    def get(self, name: str):
        found = self._items.get(name)
        return None if found is None else found[0]

    def source(self, name: str) -> str:
        return self._items[name][1] if name in self._items else ""

    def names(self) -> list[str]:
        return sorted(self._items)

    def __contains__(self, name: str) -> bool:
        return name in self._items


REGISTRIES = {kind: Registry(kind) for kind in KINDS}
# Group -> option name -> the option's default keys: entry-point plugins become group options
# (model=NAME, data=NAME) through Hydra's ConfigStore (runner.config.hydra_setup).
OPTION_DEFAULTS: dict[str, dict[str, dict]] = {"model": {}, "data": {}}


def _caller_module(item) -> str:
    return f"module {getattr(item, '__module__', '?')}"


def model(name: str, defaults: dict | None = None) -> Callable:
    """Register ``builder(input_shape, num_classes, **options) -> Layer`` as ``model=name``.

    ``defaults`` become the option's keys (``model.width=...`` overrides them); a builder that
    takes ``vocab_size`` also gets the data's vocabulary size.
    """
    def register(builder: Callable) -> Callable:
        REGISTRIES["model"].add(name, builder, _caller_module(builder))
        OPTION_DEFAULTS["model"][name] = dict(defaults or {})
        return builder
    return register


def layer(name: str | None = None) -> Callable:
    """Register a ``core.nn.Layer`` subclass as a layer type of the TOML spec (its class name by
    default); its constructor arguments are the keys of its table."""
    def register(cls):
        from core.nn import Layer  # noqa: PLC0415 - the plugin module imports core anyway

        if not (inspect.isclass(cls) and issubclass(cls, Layer)):
            raise PluginError(f"plugins.layer registers core.nn.Layer subclasses; "
                              f"{cls!r} from {_caller_module(cls)} is not one.")
        REGISTRIES["layer"].add(name or cls.__name__, cls, _caller_module(cls))
        return cls
    return register


def dataset(name: str, defaults: dict | None = None) -> Callable:
    """Register ``builder(seed, **options) -> {"train": ds, "valid": ds or None, "test": ds}``
    as ``data=name``; its keyword arguments are the option's keys (``defaults`` their values)."""
    def register(builder: Callable) -> Callable:
        REGISTRIES["dataset"].add(name, builder, _caller_module(builder))
        OPTION_DEFAULTS["data"][name] = dict(defaults or {})
        return builder
    return register


def reader(name: str) -> Callable:
    """Register ``reader(path) -> iterable of samples`` as ``data.reader=name`` (data=files);
    the same registry as ``core.data.register_reader``."""
    def register(function: Callable) -> Callable:
        from core.data.files import get_reader, register_reader  # noqa: PLC0415

        try:
            known = get_reader(name)
        except (KeyError, ValueError):
            known = None
        if known is not None and known is not function:
            raise PluginError(f"the reader name '{name}' is registered twice: by "
                              f"{_caller_module(known)} and by {_caller_module(function)}; "
                              "rename one of them.")
        register_reader(name)(function)
        REGISTRIES["reader"].add(name, function, _caller_module(function))
        return function
    return register


def get(kind: str, name: str):
    """The registered object, or None."""
    return REGISTRIES[kind].get(name)


def call(kind: str, name: str, *args, **kwargs):
    """Call the registered ``kind`` plugin ``name`` (a model or dataset builder). Whatever it
    raises is the plugin's own code failing, which the user fixes in their module: one
    paragraph naming the plugin and the line that raised, not a traceback through tomlrun."""
    item = get(kind, name)
    _check_callable_as(kind, name, item, args, kwargs)
    try:
        return item(*args, **kwargs)
    except Exception as exc:  # noqa: BLE001 - any failure of a user's code is reported whole
        raise failure(kind, name, exc) from exc


# How tomlrun calls each kind's builder, for the error when a builder cannot be called so.
_CALLED_AS = {"model": "builder(input_shape, num_classes, **options)",
              "dataset": "builder(seed, **options)"}


def _check_callable_as(kind: str, name: str, item, args: tuple, kwargs: dict) -> None:
    """A builder whose signature does not take what tomlrun passes fails inside tomlrun's own
    call, so the traceback's line is tomlrun's; name the user's ``def`` line instead."""
    try:
        signature = inspect.signature(item)
    except (TypeError, ValueError):  # a builtin or C callable: let the call itself tell
        return
    try:
        signature.bind(*args, **kwargs)
    except TypeError as exc:
        passed = ", ".join([*(type(a).__name__ for a in args), *(f"{k}=..." for k in kwargs)])
        raise PluginError(
            f"the {kind} plugin '{name}' ({REGISTRIES[kind].source(name)}) cannot be called as "
            f"tomlrun calls a {kind} builder, {_CALLED_AS.get(kind, 'builder(...)')}: "
            f"{getattr(item, '__name__', name)}{signature}{_defined_at(item)} was given "
            f"({passed}) and says: {exc}. Change the builder's parameters to match.") from None


def _defined_at(item) -> str:
    """`` (FILE:LINE)``: where the plugin's ``def`` is, when Python knows."""
    try:
        return f" (at {inspect.getsourcefile(item)}:{inspect.getsourcelines(item)[1]})"
    except (OSError, TypeError):
        return ""


def failure(kind: str, name: str, exc: Exception) -> UserError:
    """The error for plugin ``name`` raising ``exc``; a UserError it raised on purpose is kept."""
    if isinstance(exc, UserError):
        return exc
    item = get(kind, name)
    return PluginError(f"the {kind} plugin '{name}' ({REGISTRIES[kind].source(name)}) failed"
                       f"{_raised_at(item, exc)}: {type(exc).__name__}: {exc}. Fix the plugin "
                       "(or its options) and run again.")


def _raised_at(item, exc: Exception) -> str:
    """`` at FILE:LINE``: the innermost line of the plugin's own file that the exception went
    through (the frames below it, in core or numpy, are rarely where the mistake is)."""
    frames = traceback.extract_tb(exc.__traceback__)
    module = sys.modules.get(getattr(item, "__module__", ""))
    own = os.path.realpath(getattr(module, "__file__", None) or "?")
    mine = [frame for frame in frames if os.path.realpath(frame.filename) == own]
    frame = (mine or frames or [None])[-1]
    return "" if frame is None else f" at {frame.filename}:{frame.lineno}"


def load_module(module: str, why: str) -> None:
    """Import a plugin module (registering what it defines); a clear error if it fails."""
    if module in sys.modules:
        return
    if module.endswith(".py") or "/" in module or os.sep in module:
        raise PluginError(_file_not_module(module, why))
    try:
        importlib.import_module(module)
    except PluginError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure of a user's module is reported whole
        raise PluginError(f"the plugin module '{module}' ({why}) could not be imported: "
                          f"{type(exc).__name__}: {exc}. Check that it is installed or on "
                          "PYTHONPATH and imports without errors.") from exc


def _file_not_module(path: str, why: str) -> str:
    """Plugins are modules by their import name; a file path (my_layers.py, ./my_layers.py)
    is what users write first, and importlib's own error does not say what to write."""
    name = os.path.splitext(os.path.basename(path))[0]
    folder = os.path.dirname(os.path.abspath(path))
    here = folder == os.getcwd()
    return (f"the plugin module '{path}' ({why}) is a file path, but plugins names modules as "
            f"Python imports them: write plugins=[{name}]"
            + (f" (the file {name}.py is in the launch folder, where tomlrun finds it)." if here
               else f" and make {folder} importable (PYTHONPATH={folder}, or launch from that "
                    "folder)."))


_entry_points_loaded = False


def load_entry_points() -> None:
    """Import every module named in the ``tomlrun.plugins`` entry-point group (once)."""
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for entry in metadata.entry_points(group=ENTRY_POINT_GROUP):
        load_module(entry.value.split(":")[0],
                    f"entry point '{entry.name}' of {entry.dist.name if entry.dist else '?'}")


def load(modules=(), why: str = "listed in plugins") -> None:
    """The entry-point plugins, then the modules a config lists (``why``: how the error for
    one that fails to import says where it was named)."""
    load_entry_points()
    if isinstance(modules, str):  # plugins=NAME on the command line: one module, not letters
        modules = [modules]
    for module in modules:
        load_module(str(module), why)


def modules_in_argv(argv: list[str]) -> list[str]:
    """The modules of a ``plugins=[a,b]`` (or ``plugins=a``) command-line override, so that
    they are imported before Hydra composes (their models are then group options)."""
    found: list[str] = []
    for arg in argv:
        key, sep, value = arg.lstrip("+").partition("=")
        if sep and key == "plugins":
            found += [v.strip().strip("'\"") for v in value.strip("[]").split(",") if v.strip()]
    return found
