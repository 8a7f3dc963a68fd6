"""The array backend: the only module that knows about numpy versus cupy.

Every other module asks this one for the array module of an array (``array_module``) or of the
current device (``xp()``), so the same math runs on the CPU and on the GPU. cupy is imported
lazily and only here; a machine without it never pays for, or fails on, the import.
"""
from __future__ import annotations

import contextlib
import os
import re
import sys
import threading
from dataclasses import dataclass

import numpy as np

from core.layout import memory_order  # noqa: F401 - re-exported: backend.memory_order

_DEVICE_RE = re.compile(r"^(cpu|gpu)(?::(\d+))?$")


# A numpy array passed to an op that takes Tensors: the op reads ``x.data``, which on a numpy
# array is a memoryview, and would fail with "'memoryview' object has no attribute ...".
NOT_A_TENSOR = (
    "a numpy array was given where a Tensor is expected: wrap it with core.to_tensor(array). "
    "core's layers and losses convert numpy inputs themselves (core.io.DataLoader yields numpy "
    "batches); functional ops (core.nn.functional) and tensor ops, like Paddle's, take Tensors.")


class NotATensorError(TypeError):
    """A numpy array (or another non-Tensor) where an op needs a Tensor."""


class DeviceError(ValueError):
    """A device string that is malformed or names hardware this machine does not have."""


class DeviceMismatchError(DeviceError):
    """Tensors of one computation on different devices (a model on a GPU given host inputs)."""


def mismatch_message(owner: str, inputs, parameters) -> str | None:
    """Why ``owner``'s forward failed, when its tensor inputs and parameters are not all on one
    device (None when they are: the failure is another one). Only called on the error path."""
    given, held = _devices_of(inputs), _devices_of(parameters)
    if len(given | held) < 2:
        return None
    where = f"its inputs are on {' and '.join(sorted(given))}"
    if held:
        where += f" and its parameters on {' and '.join(sorted(held))}"
    return (f"{owner}: {where}: every tensor of one forward must be on one device. Move the "
            "inputs (core.to_tensor(x, place=...), Tensor.cuda() / .cpu()) or the model "
            "(layer.to(device=...)), or select the device before making both "
            "(core.device.set_device).")


def _devices_of(values) -> set[str]:
    """The devices ("cpu", "gpu:0") of the arrays and tensors in ``values`` (nested lists,
    tuples and dicts looked into)."""
    found = set()
    for value in values:
        if isinstance(value, (list, tuple)):
            found |= _devices_of(value)
        elif isinstance(value, dict):
            found |= _devices_of(value.values())
        elif isinstance(value, np.ndarray) or hasattr(value, "__cuda_array_interface__"):
            found.add(str(place_of(value).device))
        else:
            try:
                array = getattr(value, "data", None)
            except TypeError:  # a sparse tensor refuses dense access to its values: not ours
                continue
            if hasattr(array, "dtype"):  # a Tensor's array
                found.add(str(place_of(array).device))
    return found


@dataclass(frozen=True)
class Device:
    kind: str  # "cpu" or "gpu"
    index: int = 0

    def __str__(self) -> str:
        return "cpu" if self.kind == "cpu" else f"gpu:{self.index}"


_current = Device("cpu")


def parse_device(spec) -> Device:
    """Parse ``cpu``, ``gpu`` or ``gpu:N`` (N counts the GPUs visible to this process), or take
    the device of a place (``CPUPlace()``, ``CUDAPlace(N)``; ``CUDAPinnedPlace()`` is the host)."""
    if isinstance(spec, Place):
        return spec.device
    if isinstance(spec, Device):
        return spec
    match = _DEVICE_RE.match(str(spec).strip().lower())
    if not match:
        raise DeviceError(
            f"device '{spec}' is not valid: use 'cpu', 'gpu' or 'gpu:N' where N is the index of a "
            "GPU visible to this process (CUDA_VISIBLE_DEVICES=2,3 makes physical GPU 2 'gpu:0')."
        )
    kind, index = match.group(1), int(match.group(2) or 0)
    if kind == "cpu" and index:
        raise DeviceError(f"device '{spec}' is not valid: the CPU has no index (core uses all of "
                          "its cores; runtime.threads sets how many): use 'cpu'.")
    return Device(kind, index)


# ----- Paddle's places: the objects Paddle code passes where core takes a device string -------
class Place:
    """Paddle's ``Place``: where a tensor lives, printed ``Place(cpu)``, ``Place(gpu:0)`` or
    ``Place(gpu_pinned)`` (``Tensor.place``; ``CPUPlace``, ``CUDAPlace`` and ``CUDAPinnedPlace``
    are its kinds). It also equals its device string (``x.place == "cpu"``, ``"gpu:0"``), so code
    written when ``Tensor.place`` was a string keeps working; hash follows that string."""

    __slots__ = ("_key",)

    def __init__(self):
        raise TypeError("Place: make a place with core.CPUPlace(), core.CUDAPlace(id) or "
                        "core.CUDAPinnedPlace() (or read Tensor.place)")

    @classmethod
    def _of(cls, key: str) -> Place:
        """A place for ``key`` ("cpu", "gpu:N", "gpu_pinned") without the checks of the public
        constructors (a tensor's GPU exists: no need to count the GPUs again)."""
        place = object.__new__(_PLACE_TYPES[key.split(":")[0]])
        place._key = key
        return place

    @property
    def device(self) -> Device:
        """The device core computes on for this place (pinned host memory is the host)."""
        if self._key.startswith("gpu:"):
            return Device("gpu", int(self._key[4:]))
        return Device("cpu")

    def is_cpu_place(self) -> bool:
        return self._key == "cpu"

    def is_gpu_place(self) -> bool:
        return self._key.startswith("gpu:")

    def is_cuda_pinned_place(self) -> bool:
        return self._key == "gpu_pinned"

    def gpu_device_id(self) -> int:
        """The GPU's index (Paddle's ``Place.gpu_device_id()``); only for a GPU place."""
        if not self.is_gpu_place():
            raise ValueError(f"gpu_device_id: {self!r} is not a GPU place (is_gpu_place() is "
                             "False); only CUDAPlace(id) has a GPU index")
        return self.device.index

    get_device_id = gpu_device_id  # CUDAPlace's name in Paddle

    def __repr__(self) -> str:
        return f"Place({self._key})"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if isinstance(other, Place):
            return self._key == other._key
        if isinstance(other, str):
            return self._key == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key)

    def __reduce__(self):  # pickles (and deep copies) as the same place
        return (Place._of, (self._key,))


class CPUPlace(Place):
    """Paddle's ``paddle.CPUPlace()``: the host."""

    __slots__ = ()

    def __init__(self):
        self._key = "cpu"


class CUDAPlace(Place):
    """Paddle's ``paddle.CUDAPlace(id)``: GPU ``id`` (counted among the GPUs visible to this
    process). As Paddle's, it refuses an id outside the visible GPUs, and on a machine where no
    GPU is visible (Paddle: a CPU-only build) it refuses every id."""

    __slots__ = ()

    def __init__(self, id: int):  # noqa: A002 - Paddle's argument name
        if isinstance(id, bool) or not isinstance(id, (int, np.integer)):
            raise TypeError(f"CUDAPlace: id must be an int (a GPU index), got {id!r}")
        count = gpu_count()
        if not 0 <= id < count:
            note = _visible_note()
            raise DeviceError(
                f"CUDAPlace({id}): this machine has {count} GPU(s) visible to cupy{note}; "
                f"id must be in 0..{count - 1}" if count else
                f"CUDAPlace({id}): no GPU is visible to cupy{note} (cupy missing or no NVIDIA "
                "driver): use CPUPlace(), or install cupy and check the driver.")
        self._key = f"gpu:{int(id)}"


class CUDAPinnedPlace(Place):
    """Paddle's ``paddle.CUDAPinnedPlace()``: page-locked host memory. core keeps such tensors
    as ordinary host arrays (its loaders stage GPU uploads through pinned buffers themselves),
    so as a device it is the CPU."""

    __slots__ = ()

    def __init__(self):
        self._key = "gpu_pinned"


_PLACE_TYPES = {"cpu": CPUPlace, "gpu": CUDAPlace, "gpu_pinned": CUDAPinnedPlace}


def place_of(array) -> Place:
    """The place of ``array``: ``Place(cpu)`` for host arrays, ``Place(gpu:N)`` for cupy's."""
    if isinstance(array, np.ndarray):
        return Place._of("cpu")
    device = getattr(array, "device", None)  # a cupy array knows its GPU
    return Place._of(f"gpu:{device.id}" if hasattr(device, "id") else get_device())


def _cupy():
    try:
        import cupy  # noqa: PLC0415 - optional dependency, imported only when a GPU is asked for
    except ImportError as exc:
        raise DeviceError(
            "a GPU device was requested but cupy is not installed: install the gpu extra "
            "(pip install 'tomlrun[gpu]', or pip install cupy-cuda12x / cupy-cuda13x to match "
            f"your CUDA driver), or run with device=cpu. ({exc})"
        ) from None
    return cupy


def gpu_count() -> int:
    """How many GPUs cupy can see (0 when cupy is missing or no driver is present)."""
    try:
        return _cupy().cuda.runtime.getDeviceCount()
    except Exception:  # noqa: BLE001 - no driver, no cupy, broken runtime: all mean "no GPU"
        return 0


def _visible_note() -> str:
    """`` (CUDA_VISIBLE_DEVICES=...)`` when that variable is set: it explains a short GPU count."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    return f" (CUDA_VISIBLE_DEVICES={visible})" if visible is not None else ""


def set_device(spec: str) -> Device:
    """Select the device new tensors are created on: ``"cpu"``, ``"gpu"`` or ``"gpu:N"``."""
    global _current
    device = parse_device(spec)
    if device.kind == "gpu":
        cupy = _cupy()
        count = gpu_count()
        if device.index >= count:
            note = _visible_note()
            raise DeviceError(
                f"device '{spec}' asks for GPU {device.index} but this machine has {count} visible "
                f"GPU(s){note}: use device=gpu:0..gpu:{count - 1}" if count else
                f"device '{spec}' asks for a GPU but no GPU is visible to cupy{note}: check the "
                "NVIDIA driver, or run with device=cpu."
            )
        cupy.cuda.Device(device.index).use()
    _current = device
    return device


def get_device(input=None) -> str | int:  # noqa: A002 - Paddle's argument name
    """Paddle 3.3's ``get_device(input=None)``: the current device's name (``'cpu'``,
    ``'gpu:0'``); given a Tensor, the index of the GPU that holds it, or -1 for the CPU. Anything
    else is ignored, as in Paddle."""
    # a Tensor by its attributes: core.tensor imports this module, so it cannot be imported here
    array = getattr(input, "data", None) if hasattr(input, "stop_gradient") else None
    if array is None:
        return str(_current)
    return -1 if isinstance(array, np.ndarray) else int(array.device.id)


def current_device() -> Device:
    return _current


def xp():
    """The array module of the current device: numpy on the CPU, cupy on a GPU."""
    return np if _current.kind == "cpu" else _cupy()


def array_module(array):
    """The array module that owns ``array`` (numpy for numpy arrays and Python scalars)."""
    if isinstance(array, np.ndarray):
        return np
    if isinstance(array, memoryview):  # ``.data`` of a numpy array given where a Tensor goes
        raise NotATensorError(f"{called_op()}: {NOT_A_TENSOR}")  # (numpy: a scalar type)
    if np.isscalar(array):
        return np
    return _cupy().get_array_module(array)


def called_op() -> str:
    """The core function the user called: the outermost public function of a core module on
    the stack (only on the error path, so the frames cost nothing otherwise)."""
    frame, name = sys._getframe(2), "an op"
    while frame is not None and frame.f_globals.get("__name__", "").startswith("core."):
        if not frame.f_code.co_name.startswith("_"):
            name = frame.f_code.co_name
        frame = frame.f_back
    return name


def asarray(data, dtype=None):
    """``data`` as an array of the current device (copies across devices when needed)."""
    module = xp()
    if module is np and not isinstance(data, np.ndarray) and hasattr(data, "get"):
        data = data.get()  # a cupy array coming back to the host
    if module is not np and not hasattr(data, "__cuda_array_interface__"):
        channel = getattr(_producer, "channel", None)
        if channel is not None:  # this thread uploads for a loader (UploadChannel)
            return channel.copy_in(module, data, dtype)
        if isinstance(data, np.ndarray) and data.nbytes >= _STAGED_MIN_BYTES:
            return _staged_upload(module, data, dtype)
    return module.asarray(data, dtype=dtype)


# Host -> GPU copies of batches go through pinned (page-locked) buffers, asynchronously on the
# current stream: a copy from ordinary memory blocks the host until the GPU has finished all the
# work queued before it, which would serialise the Python that issues a step with the GPU that
# runs the previous one. Each buffer of the ring is reused only after its copy has completed.
_STAGED_MIN_BYTES = 1 << 16
_RING = 4
_ring: list = []  # [pinned buffer, nbytes, event or None]
_ring_next = 0
_ring_lock = threading.Lock()


def _staged_upload(cupy, host: np.ndarray, dtype, out=None):
    host = np.ascontiguousarray(host, dtype=dtype)
    if out is None:
        out = cupy.empty(host.shape, host.dtype)
    with _ring_lock:  # loaders, evaluation and inference may upload from several threads
        return _upload_locked(cupy, host, out)


def _upload_locked(cupy, host: np.ndarray, out):
    global _ring_next
    if not _ring:
        _ring.extend([None, 0, None] for _ in range(_RING))
    slot = _ring[_ring_next]
    _ring_next = (_ring_next + 1) % _RING
    if slot[2] is not None:
        slot[2].synchronize()  # the copy that used this buffer last is done
    if slot[1] < host.nbytes:
        slot[0], slot[1] = cupy.cuda.alloc_pinned_memory(host.nbytes), host.nbytes
    staged = np.frombuffer(slot[0], np.uint8, host.nbytes).view(host.dtype).reshape(host.shape)
    staged[...] = host
    stream = cupy.cuda.get_current_stream()
    out.set(staged, stream=stream)
    slot[2] = stream.record()
    return out


# ----- batches uploaded by a loader's prefetch thread ----------------------------------------
_producer = threading.local()  # .channel: the UploadChannel this thread uploads for, if any


class UploadChannel:
    """Batches converted to device arrays by one producer thread (a loader's prefetch thread)
    and used by one consumer thread (the training loop), with no host synchronisation.

    The producer wraps its work in ``producing()``: on a GPU that selects the device and a
    non-blocking CUDA stream of the producer's own, so its copies from pinned memory overlap
    the consumer's kernels, and every ``asarray`` of host data in that thread goes through
    ``copy_in``. After each batch it calls ``ready()`` and sends the ticket (an event recorded
    after the batch's copies) along with the batch. The consumer calls ``release()`` before it
    asks for the next batch and ``accept(ticket)`` when it has it: its current stream then waits
    for the copies on the GPU, not on the host.

    Why ``release``: a batch's device memory came from the producer stream's arena of cupy's
    memory pool, and goes back there when the consumer drops the batch, possibly while the
    consumer's kernels that read it are still queued. ``release`` records how far the consumer
    stream has got before any earlier batch can be dropped, and ``copy_in`` makes the producer
    stream wait for that point after it allocates and before it writes, so a reused block is
    never overwritten under a running kernel. On the CPU every step is a no-op and the uploads
    are plain ``asarray`` calls, run by the same code.
    """

    def __init__(self, device: Device):
        self.device = device
        self._stream = None  # the producer's stream (made in the producer thread)
        self._released = None  # the consumer stream's newest release event
        self._waited = None  # the release event the producer stream already waits for

    @contextlib.contextmanager
    def producing(self):
        """Around all of the producer thread's uploads (a loader's channel serves every pass,
        each from a new prefetch thread)."""
        previous = getattr(_producer, "channel", None)
        _producer.channel = self
        try:
            if self.device.kind != "gpu":
                yield
                return
            cupy = _cupy()
            with cupy.cuda.Device(self.device.index):  # cupy's device is per thread
                if self._stream is None:  # one per channel: one arena of the memory pool
                    self._stream = cupy.cuda.Stream(non_blocking=True)
                with self._stream:
                    yield
        finally:
            _producer.channel = previous

    def copy_in(self, cupy, data, dtype):
        """Producer thread: ``data`` (host) as a device array, copied on the producer stream."""
        host = np.asarray(data, dtype=dtype)
        out = cupy.empty(host.shape, host.dtype)  # may be a block an earlier batch released
        released = self._released
        if released is not None and released is not self._waited:
            self._stream.wait_event(released)
            self._waited = released
        if host.nbytes >= _STAGED_MIN_BYTES:
            return _staged_upload(cupy, host, None, out)  # pinned: asynchronous
        out.set(np.ascontiguousarray(host), stream=self._stream)  # small: a pageable copy
        return out

    def ready(self):
        """Producer thread, after a batch's uploads: the ticket to send with it."""
        if self._stream is None:
            return None
        return self._stream.record(_cupy().cuda.Event(disable_timing=True))

    def release(self) -> None:
        """Consumer thread, before it takes the next batch (see the class docstring)."""
        if self.device.kind != "gpu":
            return
        cupy = _cupy()
        self._released = cupy.cuda.get_current_stream().record(
            cupy.cuda.Event(disable_timing=True))

    def accept(self, ticket) -> None:
        """Consumer thread, on receiving a batch: its stream waits for the batch's copies."""
        if ticket is not None:
            _cupy().cuda.get_current_stream().wait_event(ticket)


def upload_channel(device: str | Device) -> UploadChannel:
    """A channel for batches uploaded to ``device`` by another thread (``UploadChannel``)."""
    return UploadChannel(device if isinstance(device, Device) else parse_device(device))


def to_numpy(array) -> np.ndarray:
    """A host (numpy) copy or view of ``array``, whichever device it lives on."""
    if isinstance(array, np.ndarray):
        return array
    if hasattr(array, "get"):
        return array.get()
    return np.asarray(array)


def seed(seed: int) -> None:
    """Paddle's ``seed(seed)``: seed the host generator and the GPU stream."""
    global _rng
    _rng = np.random.default_rng(seed)
    set_device_stream_state({"seed": int(seed) % 2**64, "offset": 0})


_rng = np.random.default_rng(0)

# GPU draws come from a counter-based stream, as the GPU generators of Paddle and torch do (a
# seed and an offset): element i of a draw is SplitMix64 of seed + (offset + i + 1) * golden
# ratio, and the offset then moves past the draw. Its whole state is two integers, which
# get_rng_state saves and set_rng_state restores exactly; cuRAND's states (cupy.random) stay on
# the device, out of reach. Double precision, then rounded to the draw's dtype.
_UNIFORM_KERNEL = ("uint64 seed, uint64 offset, float64 low, float64 high", "T out", """
    unsigned long long z = seed + (offset + (unsigned long long)i + 1ULL)
                                  * 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    double u = (double)(z >> 11) * (1.0 / 9007199254740992.0);
    out = (T)(low + (high - low) * u);
""", "tomlrun_uniform")
_stream = {"seed": 0, "offset": 0}
_uniform_kernel = None


def device_stream_state() -> dict:
    """The GPU stream's state: ``{"seed": int, "offset": int}`` (see ``_UNIFORM_KERNEL``)."""
    return dict(_stream)


def set_device_stream_state(state: dict) -> None:
    """Put back a state that ``device_stream_state`` returned."""
    if not isinstance(state, dict) or set(state) != {"seed", "offset"} or not all(
            isinstance(v, (int, np.integer)) and 0 <= v < 2**64 for v in state.values()):
        raise ValueError("the GPU random stream's state must be {'seed': int, 'offset': int} "
                         f"with both in [0, 2**64), got {state!r:.80}")
    _stream.update(seed=int(state["seed"]), offset=int(state["offset"]))


def rng() -> np.random.Generator:
    """The host random generator used for initialisation, dropout masks and shuffling."""
    return _rng


def random_uniform(shape, low=0.0, high=1.0, dtype="float32"):
    """Uniform samples on the current device (drawn on the device when it is a GPU)."""
    if _current.kind == "gpu":
        return _device_uniform(_cupy(), shape, float(low), float(high), np.dtype(dtype))
    return _rng.uniform(low, high, size=shape).astype(dtype, copy=False)


def _device_uniform(cupy, shape, low: float, high: float, dtype: np.dtype):
    global _uniform_kernel
    if _uniform_kernel is None:
        _uniform_kernel = cupy.ElementwiseKernel(*_UNIFORM_KERNEL)
    drawn = dtype if dtype in (np.float32, np.float64) else np.dtype(np.float64)
    out = cupy.empty(shape, dtype=drawn)
    _uniform_kernel(np.uint64(_stream["seed"]), np.uint64(_stream["offset"]), low, high, out)
    _stream["offset"] = (_stream["offset"] + out.size) % 2**64
    return out if drawn == dtype else out.astype(dtype)


def floor_divide(a, b):
    """numpy's ``floor_divide(a, b)`` on ``a``'s device. An infinite float dividend gives NaN
    (numpy, Python and Paddle), where cupy's kernel gives inf (seen on an H100)."""
    module = array_module(a)
    out = module.floor_divide(a, b)
    if module is not np and out.dtype.kind == "f":
        out = module.where(module.isinf(a), module.nan, out).astype(out.dtype, copy=False)
    return out


def erf(array):
    """The error function, element-wise, on ``array``'s device (GELU needs it; numpy has none).

    scipy / cupyx.scipy when present; otherwise, on the host, Python's math.erf per element
    (exact but slow: install scipy for speed)."""
    module = array_module(array)
    if module is not np:
        import cupyx.scipy.special  # noqa: PLC0415 - ships with cupy

        return cupyx.scipy.special.erf(array)
    try:
        from scipy.special import erf as scipy_erf  # noqa: PLC0415 - optional, heavy import
    except ImportError:
        import math  # noqa: PLC0415

        return np.frompyfunc(math.erf, 1, 1)(array).astype(array.dtype)
    return scipy_erf(array)


def add_at(target, index, values) -> None:
    """``target[index] += values`` with repeated indices adding up (numpy's ``add.at``), on
    ``target``'s device and for every dtype (cupy's atomics take only some: see
    ``core.backend_kernels.add_at``)."""
    module = array_module(target)
    if module is np:
        np.add.at(target, index, values)
        return
    from core import backend_kernels  # noqa: PLC0415 - the device's way, as kernels() loads it

    backend_kernels.add_at(module, target, index, values)


# ----- backend-owned speed and memory policy (the ops ask; they never test for a GPU) ---------
_kernel_sets: dict = {}


def linalg_errors(module):
    """A context in which ``module.linalg`` raises LinAlgError where the math fails (a singular
    matrix to inv or solve), as numpy.linalg always does: cupy.linalg by default returns inf or
    NaN without a word, and reads its cuSOLVER status back (one device sync) only under
    ``cupyx.errstate(linalg='raise')``. Nothing on the host."""
    if module is np:
        return contextlib.nullcontext()
    import cupyx  # noqa: PLC0415 - ships with cupy

    return cupyx.errstate(linalg="raise")


def kernels(array):
    """The fused kernels for ``array``'s backend (see core.backend_kernels): numpy code for host
    arrays, compiled cupy ElementwiseKernels for device arrays. Both compute the same function."""
    found = _kernel_sets.get(type(array))  # by the array's type: this runs once per op
    if found is None:
        from core import backend_kernels  # noqa: PLC0415 - only the ops that fuse need it

        module = array_module(array)
        found = _kernel_sets.get(module.__name__)
        if found is None:
            cls = backend_kernels.HostKernels if module is np else backend_kernels.DeviceKernels
            found = _kernel_sets[module.__name__] = cls(module)
        _kernel_sets[type(array)] = found
    return found


# A GPU multiplies a whole batch's im2col matrix in one cuBLAS call best; blocks sized for a CPU
# cache would cut a batch of 1024 into ~200 tiny GEMMs and launches.
_DEVICE_BLOCK_BYTES = 1 << 30


def block_bytes(module, host_bytes: int) -> int:
    """How many bytes of im2col scratch one block of images may use on ``module``'s device."""
    return host_bytes if module is np else _DEVICE_BLOCK_BYTES


def set_gpu_memory_limit(limit_bytes: int | None) -> None:
    """Cap cupy's memory pool at ``limit_bytes`` (None or 0: no cap). No effect on the CPU."""
    if _current.kind != "gpu":
        return
    _cupy().get_default_memory_pool().set_limit(size=int(limit_bytes or 0))


def out_of_memory_message(exc: BaseException) -> str | None:
    """A user-facing explanation when ``exc`` is a GPU out-of-memory error, else None."""
    if type(exc).__name__ != "OutOfMemoryError" or _current.kind != "gpu":
        return None
    pool = _cupy().get_default_memory_pool()
    limit = pool.get_limit()
    return (f"the GPU ran out of memory ({exc}); cupy's memory pool holds "
            f"{pool.total_bytes():,} bytes ({pool.used_bytes():,} in use)"
            + (f" under runtime.gpu_memory_limit={limit}" if limit else "")
            + "; use a smaller data.batch_size, a smaller model, or raise "
              "runtime.gpu_memory_limit.")


# ----- NCCL (cupy.cuda.nccl): collectives between GPUs, one per process ----------------------
def _nccl():
    _cupy()  # the clear "cupy is not installed" error first
    import cupy.cuda.nccl as nccl  # noqa: PLC0415 - a submodule cupy does not import itself

    return nccl


def nccl_unique_id():
    """A new NCCL communicator id (rank 0 makes it; the other ranks receive it over MPI)."""
    return _nccl().get_unique_id()


def nccl_communicator(size: int, rank: int, unique_id):
    """This process's member of an NCCL communicator of ``size`` GPUs (one per process)."""
    return _nccl().NcclCommunicator(size, unique_id, rank)


def _nccl_type(array):
    nccl = _nccl()
    types = {"float32": nccl.NCCL_FLOAT32, "float64": nccl.NCCL_FLOAT64,
             "float16": nccl.NCCL_FLOAT16}
    if array.dtype.name not in types:
        raise TypeError(f"NCCL collectives take float16/32/64 arrays, got {array.dtype}")
    return types[array.dtype.name]


def nccl_all_reduce_sum(comm, array) -> None:
    """In place: ``array`` (contiguous, on this rank's GPU) becomes the sum over all ranks."""
    cupy = _cupy()
    stream = cupy.cuda.get_current_stream().ptr
    comm.allReduce(array.data.ptr, array.data.ptr, array.size, _nccl_type(array),
                   _nccl().NCCL_SUM, stream)


def nccl_broadcast(comm, array, root: int = 0) -> None:
    """In place: every rank's ``array`` becomes rank ``root``'s."""
    stream = _cupy().cuda.get_current_stream().ptr
    comm.bcast(array.data.ptr, array.size, _nccl_type(array), root, stream)
