"""``core.device.set_device`` / ``get_device``, as in ``paddle.device``, and the CPU thread count
(``set_num_threads`` / ``get_num_threads``, PaddlePaddle's trainer_count; see core.threads)."""
from core.backend import DeviceError, get_device, gpu_count, set_device
from core.threads import available_cores, get_num_threads, set_num_threads

__all__ = ["DeviceError", "available_cores", "get_device", "get_num_threads", "gpu_count",
           "set_device", "set_num_threads"]
