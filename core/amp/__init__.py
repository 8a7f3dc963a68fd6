"""Automatic mixed precision with Paddle's names (``paddle.amp``): ``auto_cast`` /
``amp_guard`` (ops in float16 where safe), ``decorate`` / ``amp_decorate`` (O2: float16
parameters with float32 master weights), ``GradScaler`` / ``AmpScaler`` (dynamic loss
scaling), ``OptimizerState``, ``is_float16_supported``, ``is_bfloat16_supported`` and the op
lists (``white_list``, ``black_list``, in ``core.amp.lists`` as Paddle's ``amp_lists``)."""
from core.amp import lists
from core.amp.auto_cast import (
    amp_decorate,
    amp_guard,
    auto_cast,
    decorate,
    is_bfloat16_supported,
    is_float16_supported,
)
from core.amp.grad_scaler import AmpScaler, GradScaler, OptimizerState
from core.amp.lists import black_list, white_list

amp_lists = lists  # Paddle's module name: paddle.amp.amp_lists.white_list()

__all__ = ["AmpScaler", "GradScaler", "OptimizerState", "amp_decorate", "amp_guard",
           "amp_lists", "auto_cast", "black_list", "decorate", "is_bfloat16_supported",
           "is_float16_supported", "white_list"]
