"""tomlrun's core: a PaddlePaddle-2-style dynamic-graph library on numpy (and cupy on GPUs)."""
from core import device
from core.backend import seed
from core.tensor import Parameter, Tensor, is_grad_enabled, no_grad, to_tensor
from core.tensor import add, divide, matmul, multiply, pow, subtract  # noqa: A004

__all__ = ["Parameter", "Tensor", "add", "device", "divide", "is_grad_enabled", "matmul",
           "multiply", "no_grad", "pow", "seed", "subtract", "to_tensor"]
