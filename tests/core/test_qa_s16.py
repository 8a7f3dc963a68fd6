"""QA of the day's new code, driven as a Paddle user would: each test fails without its fix."""
import numpy as np
import pytest

import core

# ----- sort / argsort / topk of a 0-D tensor: axis 0 or -1, as Paddle's reductions -----------

@pytest.mark.parametrize("call", [
    lambda x, axis: x.sort(axis=axis),
    lambda x, axis: x.argsort(axis=axis),
    lambda x, axis: core.topk(x, 1, axis=axis)[1],
])
def test_sorting_a_0d_tensor_takes_axis_0_or_minus_1_only(call):
    """sort ignored the axis of a 0-D tensor (axis=5 gave the element), and argsort and topk
    refused axis 1 as out of range "for a 1-D tensor"."""
    x = core.to_tensor(3.0, stop_gradient=False)
    for axis in (0, -1):
        assert call(x, axis).shape == []
    with pytest.raises(ValueError, match=r"axis 1 is out of range for a 0-D tensor; allowed "
                                         r"axes: 0 or -1"):
        call(x, 1)
    with pytest.raises(TypeError, match=r"axis must be an int, got \[0\]"):
        call(x, [0])


def test_sort_and_topk_of_a_0d_tensor_pass_the_gradient_through():
    x = core.to_tensor(np.float64(2.5), stop_gradient=False)
    (x.sort(axis=-1) * 3 + core.topk(x, 1)[0] * 2).backward()
    assert x.grad.shape == [] and float(x.grad) == 5.0
    with pytest.raises(ValueError, match=r"topk: k=2 must be in \[1, 1\]"):
        core.topk(x, 2)
