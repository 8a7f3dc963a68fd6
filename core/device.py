"""``core.device.set_device`` / ``get_device``, as in ``paddle.device``."""
from core.backend import DeviceError, gpu_count, get_device, set_device

__all__ = ["DeviceError", "get_device", "gpu_count", "set_device"]
