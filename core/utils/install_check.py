"""``paddle.utils.run_check``: check that core computes, forwards and backwards, on every device
it can use."""
from __future__ import annotations

import numpy as np

from core import backend, device, nn
from core.tensor import to_tensor


def run_check() -> None:
    """Paddle's ``run_check()``: train a Linear layer one step on the CPU and on each GPU cupy
    sees, check its output and gradients against numpy, and print what worked (Paddle prints
    "PaddlePaddle works well on 1 CPU."). Raises RuntimeError naming the device that failed;
    the current device is restored either way."""
    print("Running verify core (tomlrun) program ...")
    devices = ["cpu"] + [f"gpu:{i}" for i in range(backend.gpu_count())]
    previous = device.get_device()
    try:
        for name in devices:
            _check_on(name)
    finally:
        device.set_device(previous)
    gpus = len(devices) - 1
    print("core works well on 1 CPU." if not gpus else
          f"core works well on 1 CPU and {gpus} GPU{'s' if gpus > 1 else ''}.")
    print("core is installed successfully! Let's start deep learning with core now.")


def _check_on(name: str) -> None:
    """One forward and backward of ``Linear(4, 3)`` on device ``name``, checked with numpy."""
    try:
        device.set_device(name)
        layer = nn.Linear(4, 3)
        x = np.arange(8, dtype="float32").reshape(2, 4) / 8
        out = layer(to_tensor(x))
        out.sum().backward()
        weight, bias = layer.weight.numpy(), layer.bias.numpy()
        np.testing.assert_allclose(out.numpy(), x @ weight + bias, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(layer.weight.grad.numpy(), x.T @ np.ones((2, 3)),
                                   rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(layer.bias.grad.numpy(), np.full(3, 2.0), rtol=1e-6)
    except Exception as exc:  # noqa: BLE001 - whatever broke, say where
        raise RuntimeError(
            f"run_check: a Linear layer's forward and backward failed on device '{name}' "
            f"({type(exc).__name__}: {' '.join(str(exc).split())}). core is not working there"
            + (": check the CUDA driver and that cupy matches it." if name != "cpu" else
               ": check the numpy installation.")) from exc
    print(f"  {name}: forward and backward of Linear(4, 3) match numpy")


__all__ = ["run_check"]
