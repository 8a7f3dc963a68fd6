"""Training checkpoints that resume exactly, and the folder that keeps the last few.

A checkpoint is one ``core.serialize`` file (atomic npz + JSON manifest, no pickle) holding
everything the rest of training depends on: model parameters and buffers (BatchNorm statistics),
optimizer state with the learning-rate schedule's position, the host random generator
(initialisation, dropout) and the GPU random stream, the training loader's order and position,
epoch / batch / step, the latest metrics and the partial log window (so the next log line
averages the same batches), and the NaN/Inf and clipping counters (so a resumed run shares
``trainer.max_skips`` and its logged counts go on; a checkpoint saved before they were added
loads with zeros), and the early-stopping state of ``runner.train.monitor`` (best value, its
epoch, passes without improvement, and with ``trainer.keep_best`` the best weights; a checkpoint
saved before it existed loads as a fresh state), and with ``trainer.amp`` the loss scaler's
state (its scale and counts; the O2 master weights ride in the optimizer's state). A SHA-256 of
that content is stored beside it in the file and checked on load, and a fingerprint of the
config that shaped the run is compared with the resuming run's: a corrupt, truncated or
mismatched checkpoint is a ``CheckpointError`` naming the file and what differs, never loaded
silently.

``trainer.checkpoint_every = N`` saves after every N optimizer steps and at the end of every
epoch (after validation); ``trainer.keep_last`` checkpoints are kept, older ones deleted. With
``trainer.accumulate`` > 1 a checkpoint is only taken at the end of an optimizer step, so no
partly summed gradient ever needs saving.
"""
from __future__ import annotations

import hashlib
import json
import os
import re

import numpy as np

from core import backend, serialize
from core.tensor import Tensor
from runner.errors import UserError

FORMAT = "tomlrun.checkpoint"
CHECKPOINT_TAG = "checkpoint_dir"  # the MLflow run tag naming a run's checkpoint folder
VERSION = 1
_NAME = re.compile(r"^ckpt-step(\d{8,})\.ckpt$")


class CheckpointError(UserError):
    """A checkpoint that is missing, corrupt or made by a different configuration."""


def checkpoint_name(step: int) -> str:
    return f"ckpt-step{step:08d}.ckpt"


def list_checkpoints(folder) -> list[str]:
    """Paths of the checkpoints in ``folder``, oldest step first (temp files are skipped)."""
    if not os.path.isdir(folder):
        return []
    found = [(int(m.group(1)), name) for name in os.listdir(folder)
             if (m := _NAME.match(name))]
    return [os.path.join(folder, name) for _, name in sorted(found)]


def latest(folder) -> str | None:
    paths = list_checkpoints(folder)
    return paths[-1] if paths else None


# ----- content --------------------------------------------------------------------------------

def capture(trainer, loader, epoch: int, batch: int, window=None,
            fingerprint: dict | None = None, run_id: str | None = None,
            bundle: dict | None = None) -> dict:
    """The state to resume at batch ``batch`` of epoch ``epoch`` (the next batch to train)."""
    loader_state = loader.state_dict()
    loader_state["next_batch"] = batch  # what the trainer did, whatever a prefetch read ahead
    return {
        "run_id": run_id,  # the tracked run this training belongs to (None when untracked)
        "bundle": bundle,  # the model's description (runner.track.bundle): rebuild it for inference
        "fingerprint": dict(fingerprint or {}),
        "position": {"epoch": int(epoch), "batch": int(batch), "step": int(trainer.state.step)},
        "metrics": {k: float(v) for k, v in trainer.state.metrics.items()},
        "model": trainer.model.state_dict(),
        "optimizer": trainer.optimizer.state_dict(),
        "rng": {"host": backend.rng().bit_generator.state, "gpu": backend.device_stream_state(),
                "loader": loader_state},
        "window": None if window is None else window.state_dict(),
        "health": trainer.health.state_dict(),  # NaN/Inf and clipping counts (runner.train.health)
        "amp": trainer.precision.state_dict(),  # the loss scaler (trainer.amp; None: off)
        "monitor": None if trainer.monitor is None else trainer.monitor.state_dict(),
    }


def restore(trainer, loader, body: dict) -> None:
    """Put ``body`` (from ``load``) back into the trainer, its model, optimizer and loader."""
    trainer.model.set_state_dict(body["model"], strict=True)  # its own checkpoint: all or nothing
    trainer.optimizer.set_state_dict(body["optimizer"])
    backend.rng().bit_generator.state = body["rng"]["host"]
    if "gpu" in body["rng"]:  # the GPU stream's position (dropout on a GPU); older: absent
        backend.set_device_stream_state(body["rng"]["gpu"])
    loader.set_state_dict(body["rng"]["loader"])
    position = body["position"]
    trainer.state.epoch, trainer.state.batch = position["epoch"], position["batch"]
    trainer.state.step = position["step"]
    trainer.state.metrics.update(body["metrics"])
    trainer.resumed_window = body["window"]
    trainer.health.set_state_dict(body.get("health"))  # absent from older checkpoints: zeros
    trainer.precision.set_state_dict(body.get("amp"))  # absent or None: the initial scale
    if trainer.monitor is not None:  # absent from older checkpoints: a fresh state
        try:
            trainer.monitor.set_state_dict(body.get("monitor"))
        except ValueError as exc:
            raise CheckpointError(f"the checkpoint's early-stopping state cannot be continued: "
                                  f"{exc}; resume with the original settings.") from None


# ----- files ----------------------------------------------------------------------------------

def save(body: dict, path) -> None:
    """Write ``body`` with its checksum, atomically."""
    serialize.save({"format": FORMAT, "version": VERSION, "sha256": digest(body),
                    "body": body}, path)


def _earlier(path: str) -> str:
    """The way on from an unreadable checkpoint: keep_last keeps older ones beside it, and
    trainer.resume=true always picks the newest, so name the one before (a file is not
    deleted for the user: it may be the only copy of a run's progress)."""
    older = [p for p in list_checkpoints(os.path.dirname(path))
             if os.path.basename(p) < os.path.basename(path)]
    good = next((p for p in reversed(older) if _readable(p)), None)
    if good is None:
        return " No readable earlier checkpoint is kept beside it."
    return (f" The newest readable one before it is {os.path.basename(good)}: resume from it "
            f"with trainer.resume={good} (and the same overrides).")


def _readable(path: str) -> bool:
    try:
        outer = serialize.load(path, return_numpy=True)
    except (OSError, serialize.SerializationError):
        return False
    return isinstance(outer, dict) and outer.get("format") == FORMAT \
        and digest(outer.get("body")) == outer.get("sha256")


def load(path, fingerprint: dict | None = None) -> dict:
    """The body of the checkpoint at ``path``, verified; ``fingerprint`` must match if given."""
    path = os.fspath(path)
    try:
        outer = serialize.load(path, return_numpy=True)
    except (FileNotFoundError, serialize.SerializationError) as exc:
        raise CheckpointError(f"cannot resume from checkpoint '{path}': {exc}."
                              f"{_earlier(path)}") from None
    if not isinstance(outer, dict) or outer.get("format") != FORMAT:
        raise CheckpointError(f"'{path}' is a tomlrun state file but not a training checkpoint "
                              "(a model file, perhaps): resume needs a ckpt-step*.ckpt file.")
    if outer.get("version") != VERSION:
        raise CheckpointError(f"checkpoint '{path}' has version {outer.get('version')}; this "
                              f"tomlrun reads version {VERSION}.")
    body = outer["body"]
    if digest(body) != outer.get("sha256"):
        raise CheckpointError(f"checkpoint '{path}' is corrupt: its content does not match its "
                              f"SHA-256 checksum.{_earlier(path)}")
    if fingerprint is not None:
        check_fingerprint(path, body.get("fingerprint", {}), fingerprint)
    return body


def check_fingerprint(path: str, saved: dict, current: dict,
                      defaults: dict | None = None) -> None:
    """Refuse to resume a run whose config changed in a way that changes what is trained.

    ``defaults`` holds the value of a key that one side lacks because it was added after that
    checkpoint was written (the behaviour it was made with): such a key compares, and is shown,
    as that value, so a key left at its default is never reported as missing.
    """
    defaults = defaults or {}
    diffs = []
    for key in sorted(set(saved) | set(current)):
        before, now = _effective(saved, key, defaults), _effective(current, key, defaults)
        if before[0] != now[0]:
            diffs.append(f"{key}: checkpoint {before[1]} vs now {now[1]}")
    if diffs:
        raise CheckpointError(f"checkpoint '{path}' was made by a different configuration, so "
                              f"resuming would not continue the same training: {'; '.join(diffs)}."
                              " Resume with the original settings or start a new run.")


def _effective(keys: dict, key: str, defaults: dict) -> tuple[object, str]:
    """``key``'s value on one side of the comparison, and how the error shows it."""
    if key in keys:
        return str(keys[key]), str(keys[key])
    if key in defaults:
        return str(defaults[key]), f"{defaults[key]} (the default)"
    # A layer argument the config leaves out takes the layer's own default; name the layer
    # type so the user sees which signature that default comes from.
    layer_type = keys.get(f"{key.rsplit('.', 1)[0]}.type") if key.startswith("model.") else None
    if layer_type is not None:
        return None, f"(not set: {layer_type}'s default)"
    return None, "(not set)"


def digest(node) -> str:
    """SHA-256 of a checkpoint body: arrays by dtype, shape and bytes, the rest as JSON."""
    sha = hashlib.sha256()
    _feed(sha, node)
    return sha.hexdigest()


def _feed(sha, node) -> None:
    if isinstance(node, Tensor):
        node = node.data
    if isinstance(node, (np.ndarray, np.generic)) or hasattr(node, "__cuda_array_interface__"):
        array = np.ascontiguousarray(backend.to_numpy(np.asarray(node)
                                                      if isinstance(node, np.generic) else node))
        sha.update(f"a{array.dtype.str}{array.shape}".encode())
        sha.update(array.tobytes())
    elif isinstance(node, dict):
        sha.update(f"d{len(node)}".encode())
        for key, value in node.items():
            sha.update(json.dumps(key).encode())
            _feed(sha, value)
    elif isinstance(node, (list, tuple)):
        sha.update(f"l{len(node)}".encode())
        for value in node:
            _feed(sha, value)
    else:
        sha.update(b"v" + json.dumps(node).encode())


class Checkpointer:
    """Saves checkpoints of one run into ``folder`` and keeps the ``keep_last`` newest."""

    def __init__(self, folder, every: int, keep_last: int, fingerprint: dict | None = None,
                 run_id: str | None = None, bundle: dict | None = None):
        if every < 1 or keep_last < 1:
            raise ValueError(f"Checkpointer: every={every} and keep_last={keep_last} must be "
                             ">= 1.")
        self.folder, self.every, self.keep_last = os.fspath(folder), every, keep_last
        self.fingerprint, self.run_id, self.bundle = dict(fingerprint or {}), run_id, bundle
        self.saved: list[str] = []

    def after_step(self, trainer, loader, epoch: int, batch: int, window) -> None:
        """Save every ``every`` steps, except after an epoch's last batch (the epoch end
        saves then, after validation)."""
        if trainer.state.step % self.every == 0 and batch < len(loader):
            self.save(trainer, loader, epoch, batch, window)

    def after_epoch(self, trainer, loader, epoch: int) -> None:
        """Save at the end of epoch ``epoch``: resuming starts epoch ``epoch + 1``."""
        self.save(trainer, loader, epoch + 1, 0, None)

    def save(self, trainer, loader, epoch: int, batch: int, window) -> str:
        # The last update is checked for NaN/Inf first (runner.train.health): a non-finite parameter
        # stops training here, so it never replaces or pushes out a good checkpoint.
        trainer.health.check_parameters(trainer.state.step)
        os.makedirs(self.folder, exist_ok=True)
        path = os.path.join(self.folder, checkpoint_name(trainer.state.step))
        # Metrics logged so far reach the store first: a kill after the checkpoint exists
        # loses none of the points that precede it.
        trainer.sink.flush(force=True)
        save(capture(trainer, loader, epoch, batch, window, self.fingerprint, self.run_id,
                     self.bundle), path)
        self.saved.append(path)
        for old in list_checkpoints(self.folder)[:-self.keep_last]:
            os.remove(old)
        return path
