"""L2Decay and L1Decay: the gradient terms they return."""
import numpy as np
import pytest

from core.regularizer import L1Decay, L2Decay
from core.tensor import Parameter


def test_l2_decay_returns_coeff_times_weight():
    w = Parameter(np.array([2.0, -4.0, 0.0]))
    np.testing.assert_allclose(L2Decay(0.25)(w), [0.5, -1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(L2Decay(0.25)(w.data), [0.5, -1.0, 0.0], atol=1e-15)


def test_l1_decay_returns_coeff_times_sign():
    w = Parameter(np.array([2.0, -4.0, 0.0]))
    np.testing.assert_allclose(L1Decay(0.1)(w), [0.1, -0.1, 0.0], atol=1e-15)


def test_terms_keep_the_parameter_dtype():
    w = Parameter(np.ones(3, dtype="float32"))
    assert L2Decay(0.1)(w).dtype == np.float32 and L1Decay(0.1)(w).dtype == np.float32


@pytest.mark.parametrize("coeff", [-0.1, float("nan"), "0.1", True])
def test_bad_coefficients_are_refused(coeff):
    with pytest.raises(ValueError, match="coeff"):
        L2Decay(coeff)
