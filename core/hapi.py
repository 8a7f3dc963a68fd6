"""``core.Model``: Paddle's high-level API (``paddle.Model``) over a ``core.nn.Layer``.

The Paddle tutorial's second half trains with it::

    model = core.Model(LeNet())
    model.prepare(core.optimizer.Adam(parameters=model.parameters()),
                  core.nn.CrossEntropyLoss(), core.metric.Accuracy())
    model.fit(train_dataset, epochs=5, batch_size=64, verbose=1)
    model.evaluate(test_dataset, batch_size=64)

A batch is a list ``[input..., label...]``: the first ``len(inputs)`` fields go to the network
(``inputs`` given to ``Model``, else one per named positional argument of its ``forward``), the
rest are labels for the loss and the metrics. numpy fields become Tensors on the current device.
Where core differs from Paddle (``evaluate``'s loss is the mean over the data), docs/paddle.md
says so. The runner (``python -m runner``) is the full trainer: configs, MLflow, checkpoints
with resume; this is the Python API's short path.
"""
from __future__ import annotations

import contextlib
import inspect
import os
import warnings

import numpy as np

from core import callbacks as cb
from core import serialize
from core.io import DataLoader, IterableDataset
from core.model_summary import summary as network_summary
from core.nn.layer import Layer
from core.optimizer.optimizer import MASTER_WEIGHTS_KEY, STATE_KEY
from core.static import InputSpec
from core.tensor import Tensor, arrays_to_tensors, no_grad

_METRIC_METHODS = ("compute", "update", "accumulate", "reset", "name")


class Model:
    """Train, evaluate, predict, save and load ``network`` (a ``core.nn.Layer``).

    ``inputs`` / ``labels``: an ``InputSpec`` or a list of them (their number splits each
    batch; their shapes serve ``summary``), or None.
    """

    def __init__(self, network: Layer, inputs=None, labels=None):
        if not isinstance(network, Layer):
            raise TypeError(f"Model: network must be a core.nn.Layer, got "
                            f"{type(network).__name__}.")
        self.network = network
        self._inputs = _specs(inputs, "inputs")
        self._labels = _specs(labels, "labels")
        self._optimizer = self._loss = None
        self._metrics: list = []
        self._amp_level, self._amp_lists, self._scaler = "O0", {}, None
        self.stop_training = False

    def parameters(self, *args, **kwargs):
        return self.network.parameters(*args, **kwargs)

    # ----- configuring ------------------------------------------------------------------
    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None) -> None:
        """The optimizer (needed by ``fit``), the loss (a Layer or any callable taking the
        outputs then the labels) and the metrics (``core.metric.Accuracy`` or any object with
        compute/update/accumulate/reset/name).

        ``amp_configs`` (Paddle's): None or 'O0' for float32; 'O1' / 'O2', or a dict with
        'level' (default 'O1'), 'custom_white_list' / 'custom_black_list' (for
        ``core.amp.auto_cast``) and GradScaler's 'init_loss_scaling', 'incr_ratio',
        'decr_ratio', 'incr_every_n_steps', 'decr_every_n_nan_or_inf',
        'use_dynamic_loss_scaling'. The forward and the loss then run under ``auto_cast`` in
        training, evaluation and prediction, training steps go through a ``GradScaler``, and at
        'O2' the network (and the optimizer) are ``core.amp.decorate``-d first. Nothing casts
        them back (nor in Paddle): a later prepare below 'O2' warns that the parameters are
        still float16."""
        level, custom_lists, scaling = _amp_settings(amp_configs)
        if optimizer is not None and not (hasattr(optimizer, "step")
                                          and hasattr(optimizer, "clear_grad")):
            raise TypeError(f"prepare: optimizer must be a core.optimizer optimizer, got "
                            f"{type(optimizer).__name__}.")
        if isinstance(loss, type):
            raise TypeError(f"prepare: loss is the class {loss.__name__}; pass an instance, "
                            f"{loss.__name__}().")
        if loss is not None and not callable(loss):
            raise TypeError(f"prepare: loss must be a core.nn loss Layer or a callable, got "
                            f"{type(loss).__name__}.")
        metrics = [] if metrics is None else list(metrics) if isinstance(
            metrics, (list, tuple)) else [metrics]
        for metric in metrics:
            if isinstance(metric, type):
                raise TypeError(f"prepare: metric {metric.__name__} is a class; pass an "
                                f"instance, {metric.__name__}().")
            lacking = [m for m in _METRIC_METHODS if not callable(getattr(metric, m, None))]
            if lacking:
                raise TypeError(f"prepare: metric {metric!r} lacks {', '.join(lacking)}; use "
                                "core.metric.Accuracy or an object with "
                                f"{', '.join(_METRIC_METHODS)}.")
        self._optimizer, self._loss, self._metrics = optimizer, loss, metrics
        self._amp_level, self._amp_lists, self._scaler = level, custom_lists, None
        if level != "O2":
            _warn_half_parameters(self.network, level)
        if level != "O0":
            from core import amp  # noqa: PLC0415 - core.amp loads on first use

            if level == "O2":
                amp.decorate(models=self.network, optimizers=optimizer, level="O2")
            self._scaler = amp.GradScaler(**scaling)

    # ----- one batch ----------------------------------------------------------------------
    def train_batch(self, inputs, labels=None, update: bool = True):
        """One training step; returns the losses (numpy), and the metrics' batch values when
        there are metrics. ``update=False`` keeps the gradients (accumulation)."""
        if self._optimizer is None or self._loss is None:
            raise RuntimeError("train_batch: call prepare(optimizer, loss) first; training "
                               "needs both.")
        self.network.train()
        inputs, labels = _tensors(inputs), _tensors(labels)
        with self._amp_context():
            outputs = _as_list(self.network(*inputs))
            losses = self._losses(outputs, labels)
            total = losses[0]
            for extra in losses[1:]:
                total = total + extra
        if self._scaler is None:
            total.backward()
            if update:
                self._optimizer.step()
        else:  # mixed precision: the scaled loss, and no update on a NaN/Inf gradient
            scaled = self._scaler.scale(total)
            with np.errstate(over="ignore", invalid="ignore"):  # the scaler's to find
                scaled.backward()
            if update:
                self._scaler.minimize(self._optimizer, scaled)
        if update:
            self._optimizer.clear_grad()
        return self._batch_result(losses, outputs, labels)

    def eval_batch(self, inputs, labels=None):
        """Losses (if a loss was prepared) and metrics of one batch, in eval mode, no gradient."""
        self.network.eval()
        inputs, labels = _tensors(inputs), _tensors(labels)
        with no_grad(), self._amp_context():
            outputs = _as_list(self.network(*inputs))
            losses = self._losses(outputs, labels) if self._loss is not None else []
            return self._batch_result(losses, outputs, labels)

    def predict_batch(self, inputs) -> list[np.ndarray]:
        """The network's outputs for one batch, as numpy arrays, in eval mode."""
        self.network.eval()
        with no_grad(), self._amp_context():
            outputs = _as_list(self.network(*_tensors(inputs)))
        return [o.numpy() if isinstance(o, Tensor) else np.asarray(o) for o in outputs]

    def _amp_context(self):
        """``core.amp.auto_cast`` at the prepared level, or nothing (float32)."""
        if getattr(self, "_amp_level", "O0") == "O0":
            return contextlib.nullcontext()
        from core import amp  # noqa: PLC0415 - loaded by prepare already

        return amp.auto_cast(level=self._amp_level, **self._amp_lists)

    def _losses(self, outputs: list, labels: list) -> list[Tensor]:
        losses = _as_list(self._loss(*outputs, *labels))
        for value in losses:
            if not isinstance(value, Tensor):
                raise TypeError(f"the loss returned {type(value).__name__}, not a Tensor.")
            if value.size != 1:
                raise ValueError(f"the loss returned a value of shape {value.shape}; Model "
                                 "trains on and reports one number per loss: use "
                                 "reduction='mean' (or 'sum').")
        return losses

    def _batch_result(self, losses, outputs, labels):
        values = [loss.numpy() for loss in losses]
        if not self._metrics:
            return values
        metrics = []
        for metric in self._metrics:
            # update() gets numpy arrays, as Paddle's Model gives them (metrics written for
            # Paddle call numpy functions on them)
            computed = [c.numpy() if isinstance(c, Tensor) else c
                        for c in _as_list(metric.compute(*outputs, *labels))]
            metrics.append(metric.update(*computed))
        return (values, metrics) if losses else metrics

    # ----- whole passes -------------------------------------------------------------------
    def fit(self, train_data=None, eval_data=None, batch_size=1, epochs: int = 1,
            eval_freq: int = 1, log_freq: int = 10, save_dir: str | None = None,
            save_freq: int = 1, verbose: int = 2, drop_last: bool = False, shuffle: bool = True,
            num_workers: int = 0, callbacks=None, accumulate_grad_batches: int = 1,
            num_iters: int | None = None) -> None:
        """Train for ``epochs`` passes over ``train_data`` (a Dataset, cut into batches here,
        or a DataLoader or any iterable of batches, used as it is), evaluating ``eval_data``
        every ``eval_freq`` epochs. ``save_dir``: weights and optimizer state every
        ``save_freq`` epochs and at the end. ``num_iters`` stops after that many steps."""
        if train_data is None:
            raise ValueError("fit: train_data is required (a core.io.Dataset or DataLoader).")
        for name, value in (("epochs", epochs), ("eval_freq", eval_freq),
                            ("accumulate_grad_batches", accumulate_grad_batches)):
            _check_positive(value, f"fit: {name}")
        if num_iters is not None:
            _check_positive(num_iters, "fit: num_iters")
        train_size, eval_size = _batch_sizes(batch_size)
        train_loader = _loader(train_data, "train_data", train_size, shuffle, drop_last,
                               num_workers)
        eval_loader = None if eval_data is None else _loader(
            eval_data, "eval_data", eval_size, False, False, num_workers)
        steps = _length(train_loader)
        if num_iters is not None and steps:
            epochs, steps = num_iters // steps + 1, min(num_iters, steps)
        cbks = self._callback_list(callbacks, verbose=verbose, log_freq=log_freq,
                                   save_freq=save_freq, save_dir=save_dir, epochs=epochs,
                                   steps=steps, batch_size=train_size)
        if eval_loader is None and any(isinstance(c, cb.EarlyStopping) for c in cbks.callbacks):
            warnings.warn("fit: EarlyStopping needs eval_data; it will not stop training.",
                          stacklevel=2)
        self.stop_training, self._accumulate = False, accumulate_grad_batches
        logs: dict = {}
        left = num_iters  # training steps still allowed (None: no limit)
        cbks.begin("train")
        for epoch in range(epochs):
            cbks.epoch_begin(epoch)
            logs, ran = self._run_pass(train_loader, cbks, "train", left)
            cbks.epoch_end(epoch, logs)
            if left is not None:
                left -= ran
                self.stop_training = self.stop_training or left <= 0
            if eval_loader is not None and epoch % eval_freq == 0:
                self._evaluate(eval_loader, cbks)
            if self.stop_training:
                break
        cbks.end("train", logs)

    def evaluate(self, eval_data, batch_size: int = 1, log_freq: int = 10, verbose: int = 2,
                 num_workers: int = 0, callbacks=None, num_iters: int | None = None) -> dict:
        """``{'loss': [mean loss over the data], <metric name>: value, ...}``."""
        if num_iters is not None:
            _check_positive(num_iters, "evaluate: num_iters")
        loader = _loader(eval_data, "eval_data", batch_size, False, False, num_workers)
        cbks = self._callback_list(callbacks, verbose=verbose, log_freq=log_freq)
        logs = self._evaluate(loader, cbks, num_iters)
        return {name: logs[name] for name in self._metric_names() if name in logs}

    def predict(self, test_data, batch_size: int = 1, num_workers: int = 0,
                stack_outputs: bool = False, verbose: int = 1, callbacks=None) -> list:
        """The outputs over ``test_data``: one list per network output, holding each batch's
        numpy array, or (``stack_outputs``) one array stacked over all samples. Label fields
        in the batches are ignored."""
        loader = _loader(test_data, "test_data", batch_size, False, False, num_workers)
        cbks = self._callback_list(callbacks, verbose=verbose, log_freq=10, metrics=[])
        cbks.begin("predict", {"steps": _length(loader)})
        batches = []
        for step, batch in enumerate(loader):
            fields = _fields(batch)
            cbks.batch_begin("predict", step)
            batches.append(self.predict_batch(fields[:self._input_count(len(fields))]))
            cbks.batch_end("predict", step, {"step": step, "batch_size": _rows(fields)})
        cbks.end("predict", {"steps": len(batches)})
        outputs = [list(per_output) for per_output in zip(*batches)]
        return [_stacked(o) for o in outputs] if stack_outputs else outputs

    def _evaluate(self, loader, cbks: cb.CallbackList, limit: int | None = None) -> dict:
        steps = _length(loader)
        cbks.begin("eval", {"steps": steps if limit is None or steps is None
                            else min(steps, limit), "metrics": self._metric_names()})
        logs, _ = self._run_pass(loader, cbks, "eval", limit)
        cbks.end("eval", logs)
        return logs

    def _run_pass(self, loader, cbks: cb.CallbackList, mode: str,
                  limit: int | None) -> tuple[dict, int]:
        """``train_batch`` or ``eval_batch`` over ``loader``, at most ``limit`` batches; the
        last logs and the number of batches. Training logs each batch's loss (as Paddle);
        evaluation the mean so far over samples."""
        logs: dict = {}
        loss_sum, seen, ran = None, 0, 0
        steps = _length(loader)
        last = steps if limit is None or steps is None else min(steps, limit)
        for step, batch in enumerate(loader):
            fields = _fields(batch)
            n_inputs = self._input_count(len(fields))
            inputs, labels = fields[:n_inputs], fields[n_inputs:]
            cbks.batch_begin(mode, step, logs)
            if mode == "train":
                update = (step + 1) % self._accumulate == 0 or step + 1 == last
                result = self.train_batch(inputs, labels, update=update)
            else:
                result = self.eval_batch(inputs, labels)
            losses = _losses_of(result, self._loss is not None, bool(self._metrics))
            rows = _rows(fields)
            if losses and mode == "eval":
                batch_sum = np.array([float(v) for v in losses]) * rows
                loss_sum = batch_sum if loss_sum is None else loss_sum + batch_sum
            seen += rows
            logs = self._logs(losses if mode == "train" else
                              None if loss_sum is None else list(loss_sum / seen))
            logs.update(step=step, batch_size=rows)
            cbks.batch_end(mode, step, logs)
            ran += 1
            if limit is not None and ran >= limit:
                break
        for metric in self._metrics:
            metric.reset()
        return logs, ran

    def _logs(self, losses) -> dict:
        """The loss given and each metric's value accumulated over the pass so far."""
        logs: dict = {}
        if losses is not None and self._loss is not None:
            logs["loss"] = [float(v) for v in losses]
        for metric in self._metrics:
            for name, value in zip(_as_list(metric.name()), _as_list(metric.accumulate())):
                logs[name] = value
        return logs

    def _metric_names(self) -> list[str]:
        names = ["loss"] if self._loss is not None else []
        for metric in self._metrics:
            names += _as_list(metric.name())
        return names

    def _input_count(self, fields: int) -> int:
        """How many leading batch fields are network inputs."""
        if self._inputs is not None:
            count = len(self._inputs)
        else:
            count = _forward_arity(self.network)
        if count > fields:
            raise ValueError(
                f"a batch has {fields} field(s), but the network takes {count} input(s) "
                f"({type(self.network).__name__}.forward); give Model(network, inputs=[...]) "
                "to say how many leading fields are inputs.")
        return count

    def _callback_list(self, callbacks, verbose: int, log_freq: int, save_freq: int = 1,
                       save_dir: str | None = None, metrics: list | None = None,
                       **params) -> cb.CallbackList:
        """The user's callbacks, with a ProgBarLogger and a ModelCheckpoint added unless given
        (as Paddle does)."""
        found = cb.as_callback_list(callbacks)
        if not any(isinstance(c, cb.ProgBarLogger) for c in found):
            found.insert(0, cb.ProgBarLogger(log_freq, verbose))
        if not any(isinstance(c, cb.ModelCheckpoint) for c in found):
            found.append(cb.ModelCheckpoint(save_freq, save_dir))
        if not any(isinstance(c, cb.LRScheduler) for c in found):
            found.append(cb.LRScheduler())
        params.update(verbose=verbose, save_dir=save_dir,
                      metrics=self._metric_names() if metrics is None else metrics)
        return cb.CallbackList(found, self, params)

    # ----- files and summary ----------------------------------------------------------------
    def save(self, path: str, training: bool = True) -> None:
        """``path.pdparams`` (the network's state), with an optimizer ``path.pdopt``, and after
        ``prepare(amp_configs=...)`` ``path.pdscaler`` (the GradScaler's loss scale and
        counters, as Paddle); each written atomically. ``training=False`` writes the inference
        model instead, as Paddle does: ``core.jit.save(network, path, input_spec=inputs)``
        (``path.pdmodel`` and ``path.pdiparams``, for ``core.jit.load``); it needs
        ``Model(network, inputs=...)`` unless the network's forward is a ``to_static`` function
        with a spec or a call."""
        path = os.fspath(path)
        if not os.path.basename(path):
            raise ValueError(f"save: path '{path}' must end in a file prefix (dir/name).")
        if not training:
            from core import jit  # noqa: PLC0415 - core.jit loads on first use (core/__init__.py)

            jit.save(self.network, path, input_spec=self._inputs)
            return
        folder = os.path.dirname(path)
        if folder:
            os.makedirs(folder, exist_ok=True)
        serialize.save(self.network.state_dict(), path + ".pdparams")
        if self._optimizer is not None:
            serialize.save(self._optimizer_state(), path + ".pdopt")
        scaler_state = self._scaler.state_dict() if self._scaler is not None else {}
        if scaler_state:  # Paddle's .pdscaler: the loss scale and its counters, for resuming
            serialize.save(scaler_state, path + ".pdscaler")

    def load(self, path: str, skip_mismatch: bool = False, reset_optimizer: bool = False) -> None:
        """The weights from ``path.pdparams`` and, unless ``reset_optimizer``, the optimizer's
        state from ``path.pdopt`` when that file exists; with amp, the GradScaler's state from
        ``path.pdscaler`` when that exists (as Paddle, whatever ``reset_optimizer`` says).
        ``skip_mismatch`` leaves parameters whose saved shape differs (or that were not saved)
        as they are, with a warning."""
        path = os.fspath(path)
        for suffix in (".pdparams", ".pdopt"):
            path = path[:-len(suffix)] if path.endswith(suffix) else path
        state = serialize.load(path + ".pdparams", return_numpy=True)
        if skip_mismatch:
            state = _matching(state, self.network.state_dict())  # warns about what it leaves
            with warnings.catch_warnings():  # ... which set_state_dict would name again
                warnings.simplefilter("ignore")
                self.network.set_state_dict(state)
        else:
            self.network.set_state_dict(state, strict=True)
        if self._optimizer is not None and not reset_optimizer and os.path.isfile(
                path + ".pdopt"):
            optimizer_state = serialize.load(path + ".pdopt", return_numpy=True)
            if skip_mismatch:  # no moments for the parameters whose weights were not taken
                for part in _PER_PARAMETER:
                    entries = optimizer_state.get(part, {})
                    optimizer_state[part] = {k: v for k, v in entries.items() if k in state}
            self._set_optimizer_state(optimizer_state)
        # As Paddle: the scaler's state when the file exists, whatever reset_optimizer says.
        if self._scaler is not None and os.path.isfile(path + ".pdscaler"):
            self._scaler.load_state_dict(serialize.load(path + ".pdscaler", return_numpy=True))

    # An optimizer keys its state (and its float32 master weights, at amp O2) by parameter
    # name (``linear_3.w_0``, Paddle's generated name), which differs between two builds of
    # the same network in one process (outside a unique_name.guard); the files key them by the
    # parameter's place in the network (``fc.weight``), so another instance can load them.
    def _optimizer_state(self) -> dict:
        by_name = {param.name: key for key, param in self.network.named_parameters()}
        return _renamed(self._optimizer.state_dict(), by_name)

    def _set_optimizer_state(self, state: dict) -> None:
        by_key = {key: param.name for key, param in self.network.named_parameters()}
        self._optimizer.set_state_dict(_renamed(state, by_key))

    def summary(self, input_size=None, dtype=None) -> dict:
        """``core.summary`` of the network; ``input_size`` defaults to the ``inputs`` specs."""
        if input_size is None:
            if not self._inputs:
                raise ValueError("summary: give input_size, or Model(network, inputs=InputSpec"
                                 "(...)) (a list of them for several inputs).")
            input_size = [spec.example_shape() for spec in self._inputs]
            dtype = dtype or [spec.dtype for spec in self._inputs]
        return network_summary(self.network, input_size, dtypes=dtype)


_PER_PARAMETER = (STATE_KEY, MASTER_WEIGHTS_KEY)  # the optimizer's entries keyed by parameter


def _renamed(state: dict, names: dict) -> dict:
    """``state`` with its per-parameter entries' keys mapped through ``names``."""
    for part in _PER_PARAMETER:
        if part in state:
            state[part] = {names.get(k, k): v for k, v in state[part].items()}
    return state


_AMP_LEVELS = ("O0", "O1", "O2")
_AMP_LISTS = ("custom_white_list", "custom_black_list")
_AMP_SCALING = ("init_loss_scaling", "incr_ratio", "decr_ratio", "incr_every_n_steps",
                "decr_every_n_nan_or_inf", "use_dynamic_loss_scaling")


def _amp_settings(amp_configs) -> tuple[str, dict, dict]:
    """``prepare``'s ``amp_configs`` as (level, auto_cast's custom lists, GradScaler's
    arguments), checked as Paddle's ``Model._prepare_amp`` checks them."""
    if not amp_configs:
        return "O0", {}, {}
    if isinstance(amp_configs, str):
        if amp_configs not in _AMP_LEVELS:
            raise ValueError(f"prepare: amp_configs={amp_configs!r} is not a level; use one of "
                             f"{list(_AMP_LEVELS)} or a dict with 'level'.")
        return amp_configs, {}, {}
    if not isinstance(amp_configs, dict):
        raise TypeError(f"prepare: amp_configs must be None, a level string or a dict, got "
                        f"{type(amp_configs).__name__}.")
    level = amp_configs.get("level", "O1")
    if level not in _AMP_LEVELS:
        raise ValueError(f"prepare: amp_configs['level']={level!r} is not a level; use one of "
                         f"{list(_AMP_LEVELS)}.")
    unknown = sorted(set(amp_configs) - {"level", *_AMP_LISTS, *_AMP_SCALING})
    if unknown and level != "O0":
        raise ValueError(f"prepare: amp_configs keys {unknown} are not recognized; besides "
                         f"'level' use {list(_AMP_LISTS + _AMP_SCALING)} ('use_fp16_guard' and "
                         "'custom_black_varnames' are Paddle's static-graph options).")
    lists = {k: amp_configs[k] for k in _AMP_LISTS if k in amp_configs}
    scaling = {k: amp_configs[k] for k in _AMP_SCALING if k in amp_configs}
    return level, lists, scaling


def _warn_half_parameters(network: Layer, level: str) -> None:
    """Warn when a network prepared below O2 holds float16 / bfloat16 parameters, which an
    earlier ``prepare(amp_configs='O2')`` (or ``core.amp.decorate``) left: Paddle's Model does
    not cast them back either, and float32 batches then meet half-precision weights (a dtype
    error, or float16 training without loss scaling or master weights)."""
    half = sorted({str(p.dtype) for p in network.parameters()
                   if p.dtype.kind == "f" and p.dtype.itemsize < 4})
    if half:
        warnings.warn(
            f"prepare: the network's parameters are {' and '.join(half)} (left by an earlier "
            f"prepare(amp_configs='O2') or core.amp.decorate; Paddle keeps them too), but the "
            f"amp level now is {level}: float32 batches meet half-precision weights, and "
            "training updates them in half precision without loss scaling or master weights. "
            "Prepare with amp_configs='O2' again, or call network.float() first to train in "
            "float32.", stacklevel=3)


def _specs(specs, name: str) -> list[InputSpec] | None:
    if specs is None:
        return None
    found = list(specs) if isinstance(specs, (list, tuple)) else [specs]
    for spec in found:
        if not isinstance(spec, InputSpec):
            raise TypeError(f"Model: {name} must be core.static.InputSpec objects (or None), "
                            f"got {type(spec).__name__}.")
    return found


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _tensors(values) -> list:
    return list(arrays_to_tensors(*_as_list(values))) if values is not None else []


def _fields(batch) -> list:
    """A batch as a flat list: [x, y], (x, y), ([x1, x2], [y]) all become [x..., y...]."""
    flat = []
    for field in _as_list(batch):
        flat += list(field) if isinstance(field, (list, tuple)) else [field]
    return flat


def _stacked(per_batch: list) -> np.ndarray:
    """One output's batches joined along the batch axis; 0-D values (a network that returns
    one number per batch) as Paddle's ``np.vstack`` joins them, [num_batches, 1], where
    ``np.concatenate`` refuses them."""
    return np.vstack(per_batch) if per_batch[0].ndim == 0 else np.concatenate(per_batch)


def _rows(fields: list) -> int:
    shape = getattr(fields[0], "shape", None) if fields else None
    return int(shape[0]) if shape else 1


def _losses_of(result, has_loss: bool, has_metrics: bool):
    """The losses in a ``train_batch`` / ``eval_batch`` result (None without a loss)."""
    if not has_loss:
        return None
    return result[0] if has_metrics else result


def _forward_arity(network: Layer) -> int:
    """Named positional arguments of ``network.forward`` (Paddle's rule); 1 for ``*inputs``."""
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    params = inspect.signature(network.forward).parameters.values()
    named = [p for p in params if p.kind in kinds]
    return len(named) or 1


def _loader(data, name: str, batch_size: int, shuffle: bool, drop_last: bool, workers: int):
    """A Dataset (anything indexable with a length) becomes a DataLoader; a DataLoader or any
    other iterable of batches is used as given."""
    if isinstance(data, DataLoader):
        return data
    if isinstance(data, IterableDataset):  # a stream has no order to shuffle (Paddle too)
        _check_positive(batch_size, "batch_size")
        return DataLoader(data, batch_size=batch_size, drop_last=drop_last, workers=workers)
    # A dataset is cut into batches here; a list, tuple, array or Tensor is taken to hold
    # batches already, along its first axis (Paddle iterates anything that is not an
    # io.Dataset as it is: the ESPCN tutorial predicts on an array shaped [1, N, C, H, W]).
    if isinstance(data, (np.ndarray, Tensor)) and data.ndim == 0:  # nothing to iterate
        raise TypeError(f"{name} is a 0-D {type(data).__name__}, which holds no batches: an "
                        "array or Tensor is read as batches along its first axis (shape "
                        "[num_batches, batch_size, ...]).")
    if not isinstance(data, (list, tuple, np.ndarray, Tensor)) \
            and hasattr(data, "__getitem__") and hasattr(data, "__len__"):
        _check_positive(batch_size, "batch_size")
        return DataLoader(data, batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                          workers=workers)
    if isinstance(data, Tensor) or hasattr(data, "__iter__"):
        return data
    raise TypeError(f"{name} must be a core.io.Dataset, a core.io.DataLoader or an iterable of "
                    f"batches, got {type(data).__name__}.")


def _batch_sizes(batch_size) -> tuple[int, int]:
    if isinstance(batch_size, (list, tuple)):
        if len(batch_size) != 2:
            raise ValueError(f"fit: batch_size={batch_size!r}: give one size, or two (train, "
                             "eval).")
        return batch_size[0], batch_size[1]
    return batch_size, batch_size


def _check_positive(value, what: str) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{what}={value!r} must be a positive integer.")


def _length(loader) -> int | None:
    try:
        return len(loader)
    except TypeError:
        return None


def _matching(saved: dict, own: dict) -> dict:
    """The saved entries whose shape fits the model; a warning names the others."""
    kept, skipped = {}, []
    for key, target in own.items():
        if key in saved and tuple(np.shape(saved[key])) == tuple(target.shape):
            kept[key] = saved[key]
        else:
            skipped.append(key)
    if skipped:
        warnings.warn(f"load: kept the model's own values for {skipped} (not saved, or saved "
                      "with another shape).", stacklevel=3)
    return kept
