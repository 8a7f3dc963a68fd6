"""``gcd`` / ``lcm`` of floating tensors and ``ldexp``'s dtypes, as Paddle 3.3.1.

Paddle's float gcd is Euclid's loop with ``mod`` (so non-integers have a gcd, and its float
``!= 0`` treats |y| < 1e-15 as zero); lcm is |x * y| // gcd; ldexp is x * 2**y in float64 when
an input is float64, else float32. Values, dtypes and gradients are replayed from real Paddle
(tests/core/data/paddle331/misc/einsum_gcd.npz, written by make_einsum_gcd_fixtures.py beside it).
"""
import os

import numpy as np
import pytest

import core
from tests.gradcheck import check_grad

FIXTURE = os.path.join(os.path.dirname(__file__), "data", "paddle331", "misc", "einsum_gcd.npz")
DATA = np.load(FIXTURE)


def cases(fn: str) -> list[int]:
    return sorted({int(k.split("/")[1]) for k in DATA.files if k.startswith(fn + "/")})


def ids(fn: str) -> list[str]:
    return [f"{DATA[f'{fn}/{i}/x'].dtype}-{DATA[f'{fn}/{i}/y'].dtype}-{i}" for i in cases(fn)]


def assert_replays_paddle(fn: str, case: int) -> None:
    key = f"{fn}/{case}"
    grads = f"{key}/dx" in DATA
    x = core.to_tensor(DATA[f"{key}/x"], stop_gradient=not grads)
    y = core.to_tensor(DATA[f"{key}/y"], stop_gradient=not grads)
    out = getattr(core, fn)(x, y)
    want = DATA[f"{key}/out"]
    assert out.shape == list(want.shape) and out.dtype == want.dtype
    rtol = 1e-6 if want.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out.numpy(), want, rtol=rtol, equal_nan=True)
    if grads:
        (out * core.to_tensor(DATA[f"{key}/w"])).sum().backward()
        np.testing.assert_allclose(x.gradient(), DATA[f"{key}/dx"], rtol=rtol, equal_nan=True)
        np.testing.assert_allclose(y.gradient(), DATA[f"{key}/dy"], rtol=rtol, equal_nan=True)
    elif out.dtype.kind == "f" and fn == "lcm":
        assert out.stop_gradient  # Paddle's lcm has no gradient


@pytest.mark.parametrize("case", cases("gcd"), ids=ids("gcd"))
def test_gcd_matches_paddle(case):
    assert_replays_paddle("gcd", case)


@pytest.mark.parametrize("case", cases("lcm"), ids=ids("lcm"))
def test_lcm_matches_paddle(case):
    assert_replays_paddle("lcm", case)


@pytest.mark.parametrize("case", cases("ldexp"), ids=ids("ldexp"))
def test_ldexp_matches_paddle(case):
    assert_replays_paddle("ldexp", case)


def test_float_gcd_and_lcm_examples():
    np.testing.assert_array_equal(core.gcd(core.to_tensor([4.0, 6.0]),
                                           core.to_tensor([6.0, 9.0])).numpy(), [2.0, 3.0])
    out = core.gcd(core.to_tensor([2.5, -7.5, 0.0]), core.to_tensor([1.0, 2.5, -3.0]))
    assert out.dtype == np.float32 and out.numpy().tolist() == [0.5, 2.5, 3.0]
    assert core.lcm(core.to_tensor([7.5]), core.to_tensor([2.5])).numpy().tolist() == [7.0]
    out = core.to_tensor([4.0, 6.0]).gcd(core.to_tensor(np.array([6.0, 9.0])))
    assert out.dtype == np.float64  # float32 with float64 promotes, as Paddle
    assert core.gcd(core.to_tensor([[4.0], [6.0]]), core.to_tensor([6.0, 9.0])).shape == [2, 2]


def test_gcd_where_paddle_never_returns_is_nan():
    # Paddle 3.3.1's loop runs forever once a NaN reaches it: core returns NaN there
    inf, nan = np.inf, np.nan
    x = core.to_tensor([inf, 3.0, nan, 0.0, inf, nan])
    y = core.to_tensor([3.0, inf, 2.0, nan, 0.0, 0.0])
    np.testing.assert_array_equal(core.gcd(x, y).numpy(), [nan, nan, nan, nan, inf, nan])
    np.testing.assert_array_equal(core.lcm(x, y).numpy(), [nan] * 6)


def test_gcd_gradient_is_the_euclid_coefficients():
    # gcd(10, 4) = 10 - 2 * 4, gcd(-6, 9) = 9 - |-6|: d/dx = (1, 1), d/dy = (-2, 1)
    x = core.to_tensor([10.0, -6.0], stop_gradient=False)
    y = core.to_tensor([4.0, 9.0], stop_gradient=False)
    core.gcd(x, y).sum().backward()
    np.testing.assert_array_equal(x.gradient(), [1.0, 1.0])
    np.testing.assert_array_equal(y.gradient(), [-2.0, 1.0])
    y2 = core.to_tensor([6.0], stop_gradient=False)  # broadcast: summed back
    core.gcd(core.to_tensor([4.0, 8.0, 9.0]), y2).sum().backward()  # 6 - 4, 8 - 6, 9 - 6
    np.testing.assert_array_equal(y2.gradient(), [1.0 - 1.0 - 1.0])


def test_integer_gcd_and_lcm_are_unchanged():
    out = core.gcd(core.to_tensor(np.array([12, 0, -9], "int32")), core.to_tensor([8, 0, 6]))
    assert out.numpy().tolist() == [4, 0, 3] and out.stop_gradient


@pytest.mark.parametrize("fn", ["gcd", "lcm"])
def test_gcd_lcm_errors(fn):
    with pytest.raises(TypeError, match=f"{fn}: x must be an integer tensor when y is one "
                                        r"\(y has dtype int64\), got dtype float32"):
        getattr(core, fn)(core.to_tensor([4.0]), core.to_tensor([6]))
    with pytest.raises(TypeError, match=f"{fn}: y must be an integer tensor when x is one "
                                        r"\(x has dtype int64\), got dtype float64"):
        getattr(core, fn)(core.to_tensor([4]), core.to_tensor(np.array([6.0])))
    with pytest.raises(TypeError, match=f"{fn}: x must be an integer or floating tensor, "
                                        "got dtype bool"):
        getattr(core, fn)(core.to_tensor([True]), core.to_tensor([True]))
    with pytest.raises(TypeError, match=f"{fn}: y must be an integer or floating tensor, "
                                        "got dtype complex128"):
        getattr(core, fn)(core.to_tensor([1.0]), core.to_tensor(np.array([1 + 1j])))
    with pytest.raises(ValueError, match=rf"{fn}: shapes \[2\] and \[3\] do not broadcast"):
        getattr(core, fn)(core.to_tensor([1.0, 2.0]), core.to_tensor([1.0, 2.0, 3.0]))


def test_ldexp_dtypes_and_gradients():
    out = core.ldexp(core.to_tensor(np.array([1.0, 3.0], "float16")), core.to_tensor([2, -1]))
    assert out.dtype == np.float32 and out.numpy().tolist() == [4.0, 1.5]
    out = core.ldexp(core.to_tensor(np.array([1.0], "float32")), core.to_tensor(np.array([2.0])))
    assert out.dtype == np.float64
    out = core.ldexp(core.to_tensor([1.0, 3.0]), 0.5)  # a number: float32, not float64
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.numpy(), [2 ** 0.5, 3 * 2 ** 0.5], rtol=1e-6)
    assert core.ldexp(core.to_tensor([1.0]), 3).numpy().tolist() == [8.0]
    rng = np.random.default_rng(0)
    check_grad(lambda x, y: core.ldexp(x, y), rng.normal(size=(2, 3)), rng.normal(size=(3,)))


def test_ldexp_matches_torch():
    torch = pytest.importorskip("torch")
    x, y = np.array([1.0, -3.0, 0.5]), np.array([2, -1, 10])
    want = torch.ldexp(torch.tensor(x), torch.tensor(y)).numpy()
    np.testing.assert_array_equal(core.ldexp(core.to_tensor(x), core.to_tensor(y)).numpy(), want)


def test_ldexp_errors():
    with pytest.raises(TypeError, match="ldexp: x must be a real tensor, got dtype complex128"):
        core.ldexp(core.to_tensor(np.array([1 + 1j])), core.to_tensor([1]))
    with pytest.raises(TypeError, match="ldexp: 'y' must be a Tensor or a number, got 'a'"):
        core.ldexp(core.to_tensor([1.0]), "a")
    with pytest.raises(ValueError, match=r"ldexp: shapes \[2\] and \[3\] do not broadcast"):
        core.ldexp(core.to_tensor([1.0, 2.0]), core.to_tensor([1, 2, 3]))
