"""Facts about the framework itself, with Paddle's ``paddle.framework`` names: the mode
(``in_dynamic_mode``, ``disable_static``, ``enable_static``), whether GPUs can be used
(``is_compiled_with_cuda``) and the default float dtype (``get_default_dtype`` /
``set_default_dtype``).

core runs eagerly only: the dynamic graph is the one mode, so ``disable_static`` has nothing to
do and ``enable_static`` refuses. The default float dtype (float32 unless set) is read, at the
moment a tensor or layer is made, by ``to_tensor`` of Python floats, the creation ops, the
initializers and the layers' parameters and buffers; what already exists keeps its dtype.
"""
from __future__ import annotations

import copy

import numpy as np

from core import backend

__all__ = ["disable_static", "enable_static", "get_default_dtype", "in_dynamic_mode",
           "is_compiled_with_cuda", "seed", "set_default_dtype"]

# Paddle allows bfloat16 too; numpy (hence core) has no bfloat16.
_FLOAT_DTYPES = ("float16", "float32", "float64")
_default_dtype = "float32"


def in_dynamic_mode() -> bool:
    """Paddle's ``in_dynamic_mode()``: True, always (core has only the dynamic graph)."""
    return True


def disable_static(place=None) -> None:
    """Paddle's ``disable_static(place=None)``: switch to the dynamic graph, which core always
    runs; nothing to do. ``place`` is accepted for Paddle's signature (use
    ``core.set_device`` to pick the device)."""
    del place


def enable_static() -> None:
    """Paddle's ``enable_static()``: core has no static graph, so this raises."""
    raise RuntimeError(
        "enable_static: core runs the dynamic graph only; static graphs (paddle.static.Program, "
        "Executor) are not supported. Remove the enable_static() call and run the model "
        "eagerly (core.Model and core.inference cover training and exported inference).")


def is_compiled_with_cuda() -> bool:
    """Paddle's ``is_compiled_with_cuda()``: True when cupy is installed and sees a GPU, i.e.
    when ``core.set_device("gpu")`` can succeed."""
    return backend.gpu_count() > 0


def get_default_dtype() -> str:
    """Paddle's ``get_default_dtype()``: the float dtype of tensors made from Python floats,
    of creation ops and of new layers' parameters: ``"float32"`` unless ``set_default_dtype``
    changed it."""
    return _default_dtype


def set_default_dtype(d) -> None:
    """Paddle's ``set_default_dtype(d)``: make ``d`` ('float16', 'float32' or 'float64', a
    name or a numpy dtype) the default float dtype for tensors and layers made from now on.
    Typical use: ``set_default_dtype('float64')`` before building a model for a precise
    gradient check."""
    global _default_dtype
    try:
        name = None if d is None else np.dtype(d).name  # np.dtype(None) is float64
    except TypeError:
        name = None
    if name not in _FLOAT_DTYPES:
        raise TypeError(f"set_default_dtype: d must be one of {list(_FLOAT_DTYPES)}, got {d!r}"
                        + (" (numpy, hence core, has no bfloat16)" if "bfloat16" in str(d)
                           else ""))
    _default_dtype = name


def seed(seed: int) -> None:
    """Paddle's ``paddle.framework.seed(seed)`` (the same as ``core.seed``): seed every random
    generator core draws from (initialisers, dropout, shuffling; cupy's on a GPU)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed: seed must be an int, got {seed!r}")
    backend.seed(int(seed))


# ----- Paddle 3's dtype facts (paddle.iinfo / paddle.finfo) and the random generator's state
# (paddle.get_rng_state / set_rng_state).

def _numpy_dtype(dtype, fn: str, kinds: str, allowed: str, example: str) -> np.dtype:
    try:
        # a scalar type such as np.float32 has a class attribute ``dtype`` too: only an
        # object that np.dtype refuses is read through its ``dtype``
        found = np.dtype(dtype)
    except TypeError:
        try:
            found = np.dtype(dtype.dtype) if hasattr(dtype, "dtype") else None
        except TypeError:
            found = None
    if found is None or found.kind not in kinds:
        raise TypeError(f"{fn}: dtype must be {allowed} (a name such as '{example}', or "
                        f"core.{example}), got {dtype!r}")
    return found


def iinfo(dtype) -> np.iinfo:
    """Paddle's ``iinfo(dtype)``: the limits of an integer dtype (or bool's as uint8): ``bits``,
    ``min``, ``max`` and ``dtype``, as numpy's ``iinfo`` gives them."""
    found = _numpy_dtype(dtype, "iinfo", "iub", "an integer dtype", "int32")
    return np.iinfo(np.uint8 if found.kind == "b" else found)


def finfo(dtype) -> np.finfo:
    """Paddle's ``finfo(dtype)``: the facts of a float dtype: ``bits``, ``eps``, ``min``,
    ``max``, ``tiny`` (= ``smallest_normal``), ``resolution`` and ``dtype``, as numpy's
    ``finfo`` gives them (numpy, hence core, has no bfloat16)."""
    return np.finfo(_numpy_dtype(dtype, "finfo", "fc", "a float or complex dtype", "float32"))


def get_rng_state(device=None) -> list:
    """Paddle's ``get_rng_state(device=None)``: the state of core's random generators, as a
    one-element list to pass to ``set_rng_state`` later (draws then repeat): the host
    generator behind ``core.seed`` (initialisers, shuffling, every random op on the CPU) and
    the GPU stream (dropout masks and other draws made on a GPU), as
    ``[{"host": numpy generator state, "gpu": {"seed": int, "offset": int}}]``."""
    del device
    return [{"host": copy.deepcopy(backend.rng().bit_generator.state),
             "gpu": backend.device_stream_state()}]


def set_rng_state(state_list, device=None) -> None:
    """Paddle's ``set_rng_state(state_list, device=None)``: put back a state that
    ``get_rng_state`` returned (a bare numpy generator state, as earlier versions returned,
    restores the host generator alone)."""
    del device
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1 \
            or not isinstance(state_list[0], dict):
        raise TypeError("set_rng_state: state_list must be what get_rng_state returned (a list "
                        f"of one generator state), got {state_list!r:.80}")
    state = state_list[0] if "host" in state_list[0] else {"host": state_list[0]}
    try:
        host = backend.rng().bit_generator
        previous = host.state
        host.state = copy.deepcopy(state["host"])
        if "gpu" in state:
            try:
                backend.set_device_stream_state(state["gpu"])
            except ValueError:
                host.state = previous  # all or nothing
                raise
    except (TypeError, ValueError, KeyError) as error:
        raise ValueError(f"set_rng_state: state_list[0] is not a state of core's generators "
                         f"({error})") from None


def get_cuda_rng_state() -> list:
    """Paddle's ``get_cuda_rng_state()``: the state of the GPU random stream (dropout masks and
    the other draws made on a GPU), as a list to pass to ``set_cuda_rng_state``. core has one
    stream for every GPU, so the list has one entry: ``[{"seed": int, "offset": int}]``
    (``get_rng_state`` holds it too, beside the host generator)."""
    return [backend.device_stream_state()]


def set_cuda_rng_state(state_list) -> None:
    """Paddle's ``set_cuda_rng_state(state_list)``: put back what ``get_cuda_rng_state``
    returned."""
    if not isinstance(state_list, (list, tuple)) or len(state_list) != 1:
        raise TypeError("set_cuda_rng_state: state_list must be what get_cuda_rng_state "
                        f"returned (a list of one stream state), got {state_list!r:.80}")
    try:
        backend.set_device_stream_state(state_list[0])
    except ValueError as error:
        raise ValueError(f"set_cuda_rng_state: {error}") from None


__all__ += ["finfo", "get_cuda_rng_state", "get_rng_state", "iinfo", "set_cuda_rng_state",
            "set_rng_state"]


def disable_signal_handler() -> None:
    """Paddle's ``disable_signal_handler()``: Paddle's C++ core installs handlers for SIGSEGV
    and friends, which this removes so that another library's handlers work; core installs
    none, so there is nothing to do."""


__all__ += ["disable_signal_handler"]
