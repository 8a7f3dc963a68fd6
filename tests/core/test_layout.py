"""core.layout.memory_order: the axes of an array from outermost to innermost in memory."""
import numpy as np
import pytest

from core.layout import memory_order


@pytest.mark.parametrize("shape", [(), (5,), (2, 3), (2, 1, 4), (2, 3, 4, 5)])
def test_contiguous_arrays_are_in_axis_order(shape):
    axes = list(range(len(shape)))
    assert memory_order(np.empty(shape)) == (axes, axes)


def test_a_channels_last_view_names_its_memory_order():
    """An NCHW view of NHWC memory (what conv2d emits): channels innermost, and an array made
    in that order and transposed back has the view's shape and strides."""
    view = np.empty((2, 5, 6, 3)).transpose(0, 3, 1, 2)
    order, back = memory_order(view)
    assert order == [0, 2, 3, 1] and back == [0, 3, 1, 2]
    made = np.empty([view.shape[a] for a in order]).transpose(back)
    assert made.shape == view.shape and made.strides == view.strides


def test_a_transposed_matrix_is_column_major():
    assert memory_order(np.empty((3, 4)).T) == ([1, 0], [1, 0])
