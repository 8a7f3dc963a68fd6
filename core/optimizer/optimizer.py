"""The ``Optimizer`` base: everything an update rule shares, so each rule is one method.

``step()`` runs, for every trainable parameter that has a gradient, in this order (Paddle's):
gradient clipping (``grad_clip``, if given) -> regularization (the parameter's own
``regularizer`` if it has one, else the optimizer's ``weight_decay``) -> the rule's ``_update``
with ``lr = get_lr() * param.optimize_attr["learning_rate"]``. State is created per parameter on
first use with ``xp.zeros_like`` (Chainer's way), so it lives on the parameter's device and a
state dict lacking entries simply lets them start from zero. State is keyed by parameter NAME.

Parameter groups (Paddle's ``parameters=[{'params': ..., 'learning_rate': 0.1, ...}, ...]``)
follow Paddle's ``_add_param_group``: a group's ``learning_rate`` (default 1.0) is stored as
each of its parameters' ``optimize_attr['learning_rate']``, a multiplier of the global rate;
its ``weight_decay`` (default: the optimizer's; a float is an ``L2Decay``) becomes each
parameter's ``regularizer`` (AdamW: the group's decoupled-decay coefficient instead); its
``grad_clip`` clips that group's gradients; the rule's own settings (``beta1``, ``epsilon``,
``momentum``, ...: ``_group_options``) hold while that group is updated. A plain list of
parameters takes the single-group path unchanged (no per-group work).

Master weights (Paddle's ``multi_precision=True``, which ``paddle.amp.decorate(level='O2')``
turns on): a float16 (or bfloat16) parameter keeps a float32 copy, its master weight. For
each step the parameter holds its master and a float32 copy of its gradient while
regularization and the rule run (so the rule's state is float32 too), then gets the rounded
result back in its own array: updates smaller than float16's spacing add up in the master
instead of being lost. The masters are saved under ``state_dict()["master_weights"]``
(``{parameter name: float32 Tensor}``, Paddle's key) and restored by ``set_state_dict``.
"""
from __future__ import annotations

import contextlib
import math
import numbers
import warnings

import numpy as np

from core import backend
from core.optimizer import sparse_rows
from core.optimizer.lr import LRScheduler
from core.profiler.recorder import recorded_step
from core.regularizer import L2Decay, WeightDecayRegularizer
from core.row_sparse import RowSparseGrad
from core.tensor import Tensor, no_grad

_OWN_CLIP = object()  # _apply's default: the optimizer's grad_clip (a group may give None)
LR_SCHEDULER_KEY = "LR_Scheduler"  # Paddle's key for the scheduler's state in a state dict
STATE_KEY = "state"
MASTER_WEIGHTS_KEY = "master_weights"  # Paddle's key for the float32 master weights


class Optimizer:
    """Base class. Subclasses set ``_accumulators`` and define ``_update``.

    Args:
        learning_rate: a float >= 0 or an ``LRScheduler`` (stepped by the training loop).
        parameters: the Parameters to update (e.g. ``model.parameters()``); names must be unique.
        weight_decay: ``None``, a float (L2Decay with that coefficient) or an ``L2Decay`` /
            ``L1Decay``; a parameter's own ``regularizer`` takes precedence.
        grad_clip: ``None`` or a callable ``clip(params_grads) -> params_grads`` over a list of
            ``(param, grad Tensor)`` pairs (Paddle's ClipGradBy* classes); applied first.
    """

    # Names of the per-parameter state arrays; ``_initial_value`` says how each starts.
    _accumulators: tuple[str, ...] = ()
    # Per-parameter numbers a rule carries from step to step (name -> initial value), kept as
    # Python floats beside the step counter, not as device arrays: NAdam's running product of
    # its momentum factors, which has no closed form in t.
    _scalars: dict[str, float] = {}
    # Whether ``_update`` is element-wise (each element's new value depends on that element
    # alone): then a row-sparse update may run on parts of its rows at once (sparse_rows.py).
    _elementwise = True
    # The rule's settings a parameter group may override: group key -> attribute (Paddle's
    # ``_default_dict`` / ``_update_param_group``).
    _group_options: dict[str, str] = {}
    # Whether a group's ``weight_decay`` becomes its parameters' regularizer (Paddle's base
    # rule); AdamW reads it as its decoupled-decay coefficient instead.
    _group_decay_is_regularizer = True

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name: str | None = None):  # Paddle's base has no default learning_rate
        owner = type(self).__name__
        self._parameter_list, groups = _check_parameters(owner, parameters)
        self._by_name = {p.name: p for p in self._parameter_list}
        self._learning_rate = _check_learning_rate(owner, learning_rate)
        self.regularization = _as_regularizer(owner, weight_decay)
        if grad_clip is not None and not callable(grad_clip):
            raise TypeError(f"{owner}: grad_clip must be None or callable on a list "
                            f"of (param, grad) pairs, got {type(grad_clip).__name__}")
        self._grad_clip = grad_clip
        self._name = name
        self._state: dict[str, dict] = {}
        self._multi_precision = False  # a rule taking Paddle's multi_precision sets it
        self._master_weights: dict = {}  # parameter name -> float32 master (multi_precision)
        self._raw_groups = groups  # checked and applied by _init_groups, once subclasses are set
        self._param_groups = self._parameter_list  # Paddle's attribute: the groups, or the list

    def _init_groups(self) -> None:
        """Paddle's ``_add_param_group`` for each group given (called at the end of a rule's
        ``__init__``, when its defaults exist): fill each group from the defaults, check it,
        and set its parameters' learning-rate multiplier and regularizer."""
        groups, self._raw_groups = self._raw_groups, None
        if groups is None:
            return
        owner = type(self).__name__
        defaults = self._group_defaults()
        self._param_groups = []
        for index, group in enumerate(groups):
            group = {**defaults, **group}
            for key, value in group.items():
                if key not in defaults and key not in ("params", "learning_rate"):
                    allowed = ", ".join(["params", "learning_rate", *defaults])
                    raise ValueError(f"{owner}: parameter group {index} has the key {key!r}; "
                                     f"allowed: {allowed}.")
                if key != "params":
                    group[key] = _group_value(owner, index, key, value,
                                              self._group_decay_is_regularizer)
            for param in group["params"]:
                param.optimize_attr["learning_rate"] = group.get("learning_rate", 1.0)
                if self._group_decay_is_regularizer:
                    param.regularizer = group["weight_decay"]
            self._param_groups.append(group)

    def _group_defaults(self) -> dict:
        """Each group key's value when a group does not give it (the optimizer's own)."""
        out = {"weight_decay": self.regularization, "grad_clip": self._grad_clip}
        out.update({key: getattr(self, attr) for key, attr in self._group_options.items()})
        return out

    @contextlib.contextmanager
    def _group_settings(self, group: dict | None):
        """The rule's settings overridden by ``group``'s while the block runs (None: as
        they are)."""
        if group is None:
            yield
            return
        saved = {attr: getattr(self, attr) for attr in self._group_options.values()}
        try:
            for key, attr in self._group_options.items():
                setattr(self, attr, group[key])
            yield
        finally:
            for attr, value in saved.items():
                setattr(self, attr, value)

    def _groups(self) -> list | None:
        """The parameter groups (dicts), or None for a plain list of parameters."""
        if self._raw_groups is not None:
            raise RuntimeError(f"{type(self).__name__}.__init__ must call self._init_groups() "
                               "at its end (parameter groups were given).")
        groups = self._param_groups
        return groups if groups is not self._parameter_list else None

    def _set_multi_precision(self, multi_precision) -> None:
        """Paddle's ``multi_precision`` argument: keep float32 master weights for float16
        (and bfloat16) parameters (module docstring)."""
        if not isinstance(multi_precision, bool):
            raise TypeError(f"{type(self).__name__}: multi_precision must be True or False, "
                            f"got {multi_precision!r}")
        self._multi_precision = multi_precision

    # ----- the one method a rule defines ---------------------------------------------------
    def _update(self, param, grad, state: dict, lr: float) -> None:
        """Update ``param.data`` in place from ``grad`` (raw array); ``state["step"]`` is t."""
        raise NotImplementedError(f"{type(self).__name__} must define _update()")

    def _initial_value(self, name: str) -> float:
        """The value state array ``name`` starts at (0 unless a rule says otherwise)."""
        del name
        return 0.0

    def _accumulators_for(self, param) -> tuple[str, ...]:
        del param
        return self._accumulators

    # ----- learning rate -------------------------------------------------------------------
    def get_lr(self) -> float:
        """The current global learning rate (the scheduler's value when one is used)."""
        if isinstance(self._learning_rate, LRScheduler):
            return float(self._learning_rate())
        return self._learning_rate

    def set_lr(self, value: float) -> None:
        """Set a float learning rate (not allowed when the optimizer follows a scheduler)."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError(f"{type(self).__name__}.set_lr: the learning rate follows an "
                               "LRScheduler; step the scheduler or use set_lr_scheduler()")
        self._learning_rate = _check_learning_rate(type(self).__name__, value)

    def set_lr_scheduler(self, scheduler: LRScheduler) -> None:
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"{type(self).__name__}.set_lr_scheduler: expected an LRScheduler, "
                            f"got {type(scheduler).__name__}")
        self._learning_rate = scheduler

    # ----- stepping ------------------------------------------------------------------------
    @recorded_step  # an Optimization range while core.profiler records
    def step(self) -> None:
        """Apply one update to every trainable parameter that has a gradient (group by group,
        each with its own settings, when parameter groups were given)."""
        groups = self._groups()
        if groups is None:
            self._apply(self._parameter_list)
            return
        for group in groups:
            with self._group_settings(group):
                self._apply(group["params"], group["grad_clip"])

    @recorded_step
    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None) -> tuple:
        """Paddle's dygraph ``minimize(loss, startup_program=None, parameters=None,
        no_grad_set=None)``: the caller has run ``loss.backward()``; this updates
        ``parameters`` (Parameters or their names; default: all of this optimizer's) except
        those in ``no_grad_set`` (Parameters or names).

        Returns Paddle's ``(optimize_ops, params_grads)``: ``[]`` (no static-graph operators)
        and the ``(param, grad)`` pairs it updated from, the gradients as they were before
        clipping and regularization. ``startup_program`` is a static-graph argument, ignored
        in dynamic-graph mode as in Paddle.
        """
        del loss, startup_program  # dynamic graph: the gradients are already on the parameters
        skip = {getattr(p, "name", p) for p in (no_grad_set or ())}
        params = [p for p in self._resolve(parameters) if p.name not in skip]
        params_grads = [(p, p.grad) for p in params if p.grad_data is not None and _trainable(p)]
        groups = self._groups()
        if groups is None:
            self._apply(params)
            return [], params_grads
        chosen = {p.name for p in params}
        for group in groups:
            with self._group_settings(group):
                self._apply([p for p in group["params"] if p.name in chosen], group["grad_clip"])
        return [], params_grads

    def _resolve(self, parameters) -> list:
        """``minimize``'s ``parameters``: None (all of this optimizer's), or Parameters and
        names of this optimizer's parameters (Paddle takes either)."""
        if parameters is None:
            return list(self._parameter_list)
        out = []
        for item in parameters:
            if isinstance(item, str):
                if item not in self._by_name:
                    raise ValueError(f"{type(self).__name__}.minimize: parameters names "
                                     f"{item!r}, which is not one of this optimizer's "
                                     f"parameters ({sorted(self._by_name)})")
                item = self._by_name[item]
            out.append(item)
        return out

    @no_grad()
    def _apply(self, parameters, grad_clip=_OWN_CLIP) -> None:
        params_grads = [(p, p.grad_data) for p in parameters
                        if p.grad_data is not None and _trainable(p)]
        params_grads = sparse_rows.coalesce_all(params_grads)  # Embedding(sparse=True) grads
        grad_clip = self._grad_clip if grad_clip is _OWN_CLIP else grad_clip  # a group's own
        if grad_clip is not None and params_grads:
            params_grads = sparse_rows.clip(grad_clip, params_grads)
        swapped = []
        if self._multi_precision:  # float16 parameters hold their float32 masters meanwhile
            params_grads, swapped = self._to_masters(params_grads)
        try:
            self._apply_rule(params_grads)
        finally:
            self._from_masters(swapped)

    def _apply_rule(self, params_grads: list) -> None:
        """Regularization and the rule for each ``(param, grad)`` of a step."""
        base_lr = self.get_lr()
        dense = []
        for param, grad in params_grads:
            regularizer = getattr(param, "regularizer", None) or self.regularization
            if isinstance(grad, RowSparseGrad):  # lazy: only the touched rows (sparse_rows.py)
                sparse_rows.lazy_update(self, param, grad, regularizer,
                                        base_lr * _lr_scale(param))
                continue
            if regularizer is not None:
                grad = grad + regularizer(param.data)  # a new array: param.grad stays as computed
            state = self._state_for(param)
            state["step"] = state.get("step", 0) + 1
            dense.append((param, grad, state, base_lr * _lr_scale(param)))
        self._update_all(dense)

    def _to_masters(self, params_grads: list) -> tuple[list, list]:
        """Each float16 (bfloat16) parameter's data swapped for its float32 master, its
        gradient cast to float32; returns the new pairs and what ``_from_masters`` restores."""
        out, swapped = [], []
        for param, grad in params_grads:
            low = param.data
            if self._keeps_master(param):
                param.data = self._master_for(param)
                swapped.append((param, low))
                grad = grad.astype("float32")
            out.append((param, grad))
        return out, swapped

    def _keeps_master(self, param) -> bool:
        """Whether ``param`` is updated through a float32 master (its state is float32)."""
        dtype = param.data.dtype
        return self._multi_precision and dtype.kind == "f" and dtype.itemsize < 4

    def _master_for(self, param):
        """``param``'s float32 master: made from its values on first use; where an element
        no longer rounds to the parameter's (``set_value``, a model loaded without this
        optimizer's state) it restarts from the parameter's value. One element-wise pass on
        the device, no read to the host."""
        low = param.data
        master = self._master_weights.get(param.name)
        if master is None or tuple(master.shape) != tuple(low.shape):
            master = self._master_weights[param.name] = low.astype("float32")
        else:
            backend.array_module(low).copyto(master, low, where=master.astype(low.dtype) != low)
        return master

    def _from_masters(self, swapped: list) -> None:
        """The rounded masters back into the parameters' own arrays, in place."""
        for param, low in swapped:
            self._master_weights[param.name] = master = param.data
            low[...] = master
            param.data = low

    def _update_all(self, updates: list) -> None:
        """``_update`` for each ``(param, grad, state, lr)`` of a step's dense gradients; a
        rule that gains from seeing them all at once (Adam: one split over threads for every
        parameter) overrides this."""
        for param, grad, state, lr in updates:
            self._update(param, grad, state, lr)

    def clear_grad(self, set_to_zero: bool = False) -> None:
        """Drop every gradient (or, with ``set_to_zero``, zero the arrays in place)."""
        for param in self._parameter_list:
            if set_to_zero and param.grad_data is not None:
                param.grad_data[...] = 0
            else:
                param.grad_data = None

    clear_gradients = clear_grad

    def _state_for(self, param) -> dict:
        state = self._state.setdefault(param.name, {})
        for name in self._accumulators_for(param):
            if name not in state:
                state[name] = _full_like(param.data, self._initial_value(name))
        for name, initial in self._scalars.items():
            state.setdefault(name, initial)
        return state

    # ----- state ---------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """``{"state": {param name: {array name: Tensor, "step": int}}, "LR_Scheduler": ...,
        "master_weights": {param name: float32 Tensor}}`` (the last only with master weights).

        Arrays are Tensors sharing memory with the live state (as ``Layer.state_dict``); the
        step counter and a rule's scalars (``_scalars``) stay Python numbers.
        """
        state = {name: {k: (Tensor(v) if hasattr(v, "shape") else v) for k, v in entries.items()}
                 for name, entries in self._state.items()}
        out = {STATE_KEY: state}
        if self._master_weights:
            out[MASTER_WEIGHTS_KEY] = {name: Tensor(v) for name, v in self._master_weights.items()}
        if isinstance(self._learning_rate, LRScheduler):
            out[LR_SCHEDULER_KEY] = self._learning_rate.state_dict()
        return out

    def set_state_dict(self, state_dict: dict) -> None:
        """Copy state in by parameter name (Tensors or numpy arrays, e.g. from ``load``).

        Entries the dict lacks start from their initial value on the next step (a missing
        master weight from its parameter). Entries for unknown parameters or unknown state
        names are ignored with a warning; a shape mismatch raises ``ValueError``.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"{type(self).__name__}.set_state_dict: expected a dict, got "
                            f"{type(state_dict).__name__}")
        state_dict = _from_paddle_accumulators(self, state_dict)
        if LR_SCHEDULER_KEY in state_dict and isinstance(self._learning_rate, LRScheduler):
            self._learning_rate.set_state_dict(state_dict[LR_SCHEDULER_KEY])
        ignored = []
        for name, entries in (state_dict.get(STATE_KEY) or {}).items():
            param = self._by_name.get(name)
            if param is None:
                ignored.append(name)
                continue
            with self._group_settings(self._group_of(param)):  # its group's state arrays
                ignored += self._load_param_state(param, entries)
        ignored += self._load_master_weights(state_dict.get(MASTER_WEIGHTS_KEY) or {})
        if ignored:
            warnings.warn(f"{type(self).__name__}.set_state_dict ignored entries that match no "
                          f"parameter or state of this optimizer: {ignored}", stacklevel=2)

    set_dict = set_state_dict

    def _group_of(self, param) -> dict | None:
        groups = self._groups()
        if groups is None:
            return None
        return next((g for g in groups if any(p is param for p in g["params"])), None)

    def _load_param_state(self, param, entries: dict) -> list[str]:
        known, ignored = self._accumulators_for(param), []
        state = self._state.setdefault(param.name, {})
        dtype = "float32" if self._keeps_master(param) else None  # the state of a master
        for key, value in entries.items():
            if key == "step":
                state["step"] = int(np.asarray(backend.to_numpy(_raw(value))))
            elif key in self._scalars:
                state[key] = float(np.asarray(backend.to_numpy(_raw(value))))
            elif key in known:
                state[key] = _copy_like(value, param, key, dtype)
            else:
                ignored.append(f"{param.name}.{key}")
        return ignored

    def _load_master_weights(self, masters: dict) -> list[str]:
        """Private float32 copies of saved master weights, by parameter name; returns the
        names of those that match no parameter."""
        ignored = []
        for name, value in masters.items():
            param = self._by_name.get(name)
            if param is None:
                ignored.append(f"{MASTER_WEIGHTS_KEY}.{name}")
                continue
            self._master_weights[name] = _copy_like(value, param, MASTER_WEIGHTS_KEY,
                                                    "float32")
        return ignored

    def state_nbytes(self) -> int:
        """Bytes held by the optimizer's state arrays and master weights (step counters are
        Python ints)."""
        return sum(int(v.nbytes) for entries in self._state.values()
                   for v in entries.values() if hasattr(v, "nbytes")) + sum(
            int(v.nbytes) for v in self._master_weights.values())

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(lr={self.get_lr()}, "
                f"parameters={len(self._parameter_list)})")


def _trainable(param) -> bool:
    return bool(getattr(param, "trainable", not param.stop_gradient)) and not param.stop_gradient


def _lr_scale(param) -> float:
    return float((getattr(param, "optimize_attr", None) or {}).get("learning_rate", 1.0))


def _from_paddle_accumulators(opt: Optimizer, state_dict: dict) -> dict:
    """``state_dict`` in core's form. A ``.pdopt`` written by Paddle keys each accumulator by
    its variable name at the top level: ``<parameter name>_<accumulator>_<N>``
    (``linear_0.w_0_moment1_0``; N counts the optimizers that made that accumulator in
    Paddle's process, from unique_name), plus the Adam family's ``beta1_pow_acc`` /
    ``beta2_pow_acc`` (beta ** t, where core keeps the step t). They are matched by parameter
    name, as Paddle's own ``set_state_dict`` does; any left unmatched is refused, naming them:
    ignoring them would silently restart the moments."""
    known = (STATE_KEY, LR_SCHEDULER_KEY, MASTER_WEIGHTS_KEY)
    foreign = {key: value for key, value in state_dict.items()
               if key not in known and hasattr(_raw(value), "shape")}
    if not foreign:
        return state_dict
    stems = _paddle_stems(foreign)
    state = {}
    for param in opt._parameter_list:
        with opt._group_settings(opt._group_of(param)):  # its group's beta1
            entries = _paddle_entries(opt, param, foreign, stems)
        if entries:
            state[param.name] = entries
    if foreign:
        shown = sorted(foreign)[:4] + (["..."] if len(foreign) > 4 else [])
        raise ValueError(
            f"{type(opt).__name__}.set_state_dict: the dict holds Paddle's optimizer state, "
            f"accumulators keyed by variable name, and {', '.join(map(str, shown))} match no "
            f"accumulator of this optimizer's parameters ({sorted(opt._by_name)[:4]}...) by "
            "name. Paddle matches them by parameter name too: build the network as Paddle "
            "did, in the same order inside core.utils.unique_name.guard(), so that its "
            "parameters get Paddle's names (linear_0.w_0), or name them as Paddle did before "
            "building the optimizer (p.name = the .pdparams Tensor's .name), or load the "
            "weights and let the optimizer start afresh.")
    out = {key: value for key, value in state_dict.items() if key in known}
    out[STATE_KEY] = {**(state_dict.get(STATE_KEY) or {}), **state}
    return out


def _paddle_stems(foreign: dict) -> dict[str, list[str]]:
    """{variable name without its ``_N`` counter: the keys that have it} for Paddle's keys."""
    stems: dict[str, list[str]] = {}
    for key in foreign:
        stem, _, number = str(key).rpartition("_")
        if stem and number.isdigit():
            stems.setdefault(stem, []).append(key)
    return stems


def _paddle_entries(opt: Optimizer, param, foreign: dict, stems: dict) -> dict:
    """``param``'s state taken (popped) from Paddle's top-level accumulators ``foreign``."""
    entries = {}
    for name in opt._accumulators_for(param):
        key = _paddle_key(opt, stems, f"{param.name}_{name}")
        if key is not None:
            entries[name] = foreign.pop(key)
    key = _paddle_key(opt, stems, f"{param.name}_beta1_pow_acc")
    if key is not None:
        power = foreign.pop(key)
        second = _paddle_key(opt, stems, f"{param.name}_beta2_pow_acc")
        if second is not None:
            foreign.pop(second)  # the same t
        entries["step"] = _step_from_power(opt, param, power)
    return entries


def _paddle_key(opt: Optimizer, stems: dict, stem: str) -> str | None:
    """The one key ``<stem>_<N>`` of Paddle's state (None if none); two (the states of two
    optimizers of Paddle's process, ``_0`` and ``_1``) are ambiguous and refused."""
    keys = stems.get(stem, [])
    if len(keys) > 1:
        raise ValueError(f"{type(opt).__name__}.set_state_dict: Paddle's state holds "
                         f"{sorted(keys)} for one accumulator (the states of more than one "
                         "optimizer); keep the keys of one optimizer only")
    return keys[0] if keys else None


def _step_from_power(opt: Optimizer, param, power) -> int:
    """The steps taken, t, from Paddle's ``beta1_pow_acc``: it starts at beta1 and is
    multiplied by beta1 after each step, so it holds beta1 ** (t + 1) (float32: rounded)."""
    beta1 = float(getattr(opt, "_beta1", 0.0))
    value = float(np.asarray(backend.to_numpy(_raw(power))).reshape(-1)[0])
    if not 0.0 < beta1 < 1.0 or not 0.0 < value <= 1.0:
        raise ValueError(f"{type(opt).__name__}.set_state_dict: Paddle's beta1_pow_acc of "
                         f"parameter '{param.name}' is {value}, which with beta1={beta1} gives "
                         "no step count (expected beta1 ** t with 0 < beta1 < 1)")
    return max(int(round(math.log(value) / math.log(beta1))) - 1, 0)


def _raw(value):
    return value.data if isinstance(value, Tensor) else value


def _full_like(data, value: float):
    xp = backend.array_module(data)
    return xp.zeros_like(data) if value == 0 else xp.full_like(data, value)


def _copy_like(value, param, key: str, dtype=None):
    """A private copy of ``value`` on ``param``'s device with its dtype (or ``dtype``; never
    an alias)."""
    raw, data = _raw(value), param.data
    if tuple(np.shape(raw)) != tuple(data.shape):
        raise ValueError(f"set_state_dict: state '{key}' of parameter '{param.name}' has shape "
                         f"{list(np.shape(raw))} but the parameter has shape {list(data.shape)}")
    xp = backend.array_module(data)
    if xp is np:
        raw = backend.to_numpy(raw)
    return xp.array(raw, dtype=data.dtype if dtype is None else dtype, copy=True)


def _check_parameters(owner: str, parameters) -> tuple[list, list | None]:
    """(the flat list of parameters, the groups as given or None): ``parameters`` is a list of
    Parameters or a list of group dicts with a ``'params'`` key, as Paddle."""
    if parameters is None:
        raise ValueError(f"{owner}: parameters is required in dynamic-graph mode: pass "
                         "parameters=model.parameters()")
    if isinstance(parameters, (Tensor, dict)):
        raise TypeError(f"{owner}: parameters must be a list of Parameters or a list of "
                        f"parameter-group dicts, got a {type(parameters).__name__} (wrap it in "
                        "a list).")
    items = list(parameters)
    groups = None
    if any(isinstance(p, dict) for p in items):
        groups = _check_groups(owner, items)
        params = [p for group in groups for p in group["params"]]
    else:
        params = items
    bad = [type(p).__name__ for p in params if not isinstance(p, Tensor)]
    if bad:
        raise TypeError(f"{owner}: parameters must be Tensors/Parameters, got {bad}")
    names = [p.name for p in params]
    if None in names:
        raise ValueError(f"{owner}: every parameter needs a name (optimizer state is keyed by it)")
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        where = "appear in more than one parameter group" if groups is not None else \
            "are repeated"
        raise ValueError(f"{owner}: parameter names must be unique (state is keyed by name); "
                         f"these {where}: {duplicates}")
    return params, groups


def _check_groups(owner: str, items: list) -> list[dict]:
    """Copies of the group dicts with ``'params'`` as a list (Paddle's rules: one Parameter or
    an ordered collection, never a set)."""
    groups = []
    for index, group in enumerate(items):
        if not isinstance(group, dict):
            raise TypeError(f"{owner}: parameters mixes parameter-group dicts with "
                            f"{type(group).__name__} (item {index}); give only dicts "
                            "{'params': [...], ...} or only Parameters.")
        if "params" not in group:
            raise ValueError(f"{owner}: parameter group {index} has no 'params' key (keys: "
                             f"{sorted(group)}).")
        params = group["params"]
        if isinstance(params, set):
            raise TypeError(f"{owner}: parameter group {index}: 'params' must be an ordered "
                            "collection (a list), got a set.")
        params = [params] if isinstance(params, Tensor) else list(params)
        groups.append({**group, "params": params})
    return groups


def _group_value(owner: str, index: int, key: str, value, decay_is_regularizer: bool):
    """A group's ``key`` checked (Paddle's rules for each setting)."""
    where = f"parameter group {index}"
    if key == "learning_rate":
        if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                or not math.isfinite(value) or value < 0:
            raise ValueError(f"{owner}: {where}: learning_rate must be a float >= 0 (a multiplier "
                             f"of the optimizer's learning rate), got {value!r}")
        return float(value)
    if key == "weight_decay":
        if not decay_is_regularizer:
            return check_range(owner, f"{where} weight_decay", value, 0.0)
        if value is None or isinstance(value, WeightDecayRegularizer):
            return value
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"{owner}: {where}: weight_decay must be None, a float (L2 "
                            f"coefficient) or an L2Decay/L1Decay, got {type(value).__name__}")
        return L2Decay(float(value))  # Paddle: a float, even 0.0, is an L2Decay
    if key == "grad_clip":
        if value is not None and not callable(value):
            raise TypeError(f"{owner}: {where}: grad_clip must be None or callable, got "
                            f"{type(value).__name__}")
        return value
    if key in _BOOL_OPTIONS:
        if not isinstance(value, bool):
            raise TypeError(f"{owner}: {where}: {key} must be a bool, got {value!r}")
        return value
    if key in _CALLABLE_OPTIONS:
        if value is not None and not callable(value):
            raise TypeError(f"{owner}: {where}: {key} must be None or callable, got "
                            f"{type(value).__name__}")
        return value
    high = 1.0 if key in _FRACTION_OPTIONS else None
    return check_range(owner, f"{where} {key}", value, 0.0, high)


_BOOL_OPTIONS = ("lazy_mode", "centered")
_CALLABLE_OPTIONS = ("exclude_from_weight_decay_fn",)
_FRACTION_OPTIONS = ("beta1", "beta2", "rho")  # in [0, 1); the other numbers are >= 0


def _check_learning_rate(owner: str, value):
    if isinstance(value, LRScheduler):
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real) \
            or not math.isfinite(value) or value < 0:
        raise ValueError(f"{owner}: learning_rate must be a finite float >= 0 or an "
                         f"LRScheduler, got {value!r}")
    return float(value)


def _as_regularizer(owner: str, weight_decay):
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, bool) or not isinstance(weight_decay, numbers.Real):
        raise TypeError(f"{owner}: weight_decay must be None, a float (L2 coefficient) or an "
                        f"L2Decay/L1Decay, got {type(weight_decay).__name__}")
    return L2Decay(float(weight_decay)) if weight_decay else None


def check_range(owner: str, name: str, value, low: float, high: float | None = None,
                high_open: bool = True) -> float:
    """Validate a hyper-parameter: ``low <= value < high`` (or ``<= high``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{owner}: {name} must be a finite number, got {value!r}")
    too_high = high is not None and (value >= high if high_open else value > high)
    if value < low or too_high:
        upper = "" if high is None else (f" and < {high}" if high_open else f" and <= {high}")
        raise ValueError(f"{owner}: {name} must be >= {low}{upper}, got {value!r}")
    return float(value)
