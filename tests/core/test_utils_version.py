"""``core.utils`` (paddle.utils: run_check, unique_name, deprecated, try_import,
require_version, download) and ``core.version`` (paddle.version)."""
from __future__ import annotations

import re
import warnings

import pytest

import core
import core.utils
from core import version
from core.utils import (
    VersionError,
    deprecated,
    require_version,
    run_check,
    try_import,
    unique_name,
)
from core.utils.deprecated import VisibleDeprecationWarning

# ----- run_check -------------------------------------------------------------------------------


def test_run_check_trains_on_the_cpu_and_says_so(capsys, monkeypatch, on_cpu):
    monkeypatch.setattr(core.backend, "gpu_count", lambda: 0)
    before = core.device.get_device()
    run_check()
    out = capsys.readouterr().out
    assert out.startswith("Running verify core (tomlrun) program ...")
    assert "cpu: forward and backward of Linear(4, 3) match numpy" in out
    assert "core works well on 1 CPU." in out
    assert core.device.get_device() == before


def test_run_check_names_the_device_that_fails(monkeypatch, on_cpu):
    monkeypatch.setattr(core.backend, "gpu_count", lambda: 0)

    def broken(self, x):
        raise FloatingPointError("simulated broken BLAS")

    monkeypatch.setattr(core.nn.Linear, "forward", broken)
    with pytest.raises(RuntimeError, match=r"failed on device 'cpu' \(FloatingPointError: "
                                           r"simulated broken BLAS\)"):
        run_check()


# ----- unique_name ----------------------------------------------------------------------------

def test_generate_counts_per_key_and_guard_starts_afresh():
    with unique_name.guard():
        assert [unique_name.generate("fc"), unique_name.generate("fc"),
                unique_name.generate("conv")] == ["fc_0", "fc_1", "conv_0"]
        with unique_name.guard("block_"):
            assert unique_name.generate("fc") == "block_fc_0"
        assert unique_name.generate("fc") == "fc_2"  # the outer counters are back


def test_guard_restarts_parameter_names():
    def names():
        with unique_name.guard():
            return [p.name for p in core.nn.Linear(2, 3).parameters()]

    core.nn.Linear(2, 2)  # layers made outside move the global counter on
    assert names() == names() == ["linear_0.w_0", "linear_0.b_0"]  # Paddle's names
    assert core.nn.Linear(2, 2).weight.name not in ("linear_0.w_0", "linear_0.b_0")


def test_switch_returns_the_previous_generator():
    mine = unique_name.UniqueNameGenerator("x_")
    old = unique_name.switch(mine)
    try:
        assert unique_name.generate("a") == "x_a_0"
    finally:
        assert unique_name.switch(old) is mine


@pytest.mark.parametrize("call, error, match", [
    (lambda: unique_name.generate(3), TypeError, "key=3 must be a str"),
    (lambda: unique_name.guard(3).__enter__(), TypeError, "new_generator=3 must be a str"),
    (lambda: unique_name.switch("x"), TypeError, "new_generator='x' must be a "
                                                 "UniqueNameGenerator"),
    (lambda: unique_name.UniqueNameGenerator(1), TypeError, "prefix=1 must be a str"),
])
def test_unique_name_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ----- deprecated -----------------------------------------------------------------------------

def test_deprecated_notes_the_docstring_and_warns_at_level_1():
    @deprecated(update_to="core.new_api", since="0.0.1", reason="renamed", level=1)
    def old(x):
        """Old API."""
        return x + 1

    assert old.__doc__.lstrip().startswith("Warning:")
    assert 'Please use "core.new_api" instead.' in old.__doc__ and "Old API." in old.__doc__
    with pytest.warns(VisibleDeprecationWarning, match=r"old\" is deprecated since 0\.0\.1"):
        assert old(1) == 2


def test_deprecated_levels_0_and_2_and_a_future_since(monkeypatch):
    monkeypatch.setattr(version, "istaged", True)  # a release: "since" is compared with it
    monkeypatch.setattr(version, "full_version", "0.1.0")

    @deprecated(level=0)
    def quiet():
        return "ok"

    @deprecated(level=2)
    def gone():
        return "never"

    @deprecated(since="999.0", level=1)
    def later():
        return "fine"

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert quiet() == "ok" and later() == "fine"  # not deprecated yet in this version
    with pytest.raises(RuntimeError, match=r"gone\" has been deprecated"):
        gone()


@pytest.mark.parametrize("kwargs, error, match", [
    ({"level": 3}, ValueError, "level=3 must be 0"),
    ({"since": 1.0}, TypeError, "since=1.0 must be a str"),
    ({"update_to": "new_api"}, ValueError, "update_to='new_api' must name the new API"),
])
def test_deprecated_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        deprecated(**kwargs)


# ----- try_import / require_version ---------------------------------------------------------

def test_try_import():
    assert try_import("json").dumps([1]) == "[1]"
    with pytest.raises(ImportError, match="pip install opencv-python"):
        try_import("cv2.no_such_submodule_here")
    with pytest.raises(ImportError, match="^install it$"):
        try_import("no_such_module_xyz", "install it")
    with pytest.raises(TypeError, match="module_name=3"):
        try_import(3)


def test_require_version_against_tomlrun(monkeypatch):
    monkeypatch.setattr(version, "istaged", True)
    monkeypatch.setattr(version, "full_version", "1.4.2")
    monkeypatch.setattr(version, "major", "1")
    monkeypatch.setattr(version, "minor", "4")
    monkeypatch.setattr(version, "patch", "2")
    require_version("1.4")
    require_version("0.9", "1.4.2")
    with pytest.raises(VersionError, match=r"version 1\.5 or higher required, but 1\.4\.2"):
        require_version("1.5")
    with pytest.raises(VersionError, match=r"in \[1\.0, 1\.4\.1\] required"):
        require_version("1.0", "1.4.1")
    monkeypatch.setattr(version, "istaged", False)
    with pytest.warns(UserWarning, match="development build"):
        require_version("99.0")


@pytest.mark.parametrize("args, error, match", [
    ((1.5,), TypeError, "min_version=1.5 must be a str"),
    (("1.x",), ValueError, r"min_version='1.x' must be in the format"),
    (("1.0", 2), TypeError, "max_version=2 must be a str"),
    (("1.0.0.0.0",), ValueError, "like '1.5.2.0'"),
])
def test_require_version_bad_arguments(args, error, match):
    with pytest.raises(error, match=match):
        require_version(*args)


def test_the_download_module_is_paddles_name():
    assert callable(core.utils.download.get_weights_path_from_url)


# ----- core.version ---------------------------------------------------------------------------

def test_version_values_are_honest(capsys, monkeypatch):
    assert version.full_version == core.__version__
    if version.full_version == "0+unknown":  # sources run without being installed
        assert not version.istaged
    else:
        assert version.full_version.startswith(f"{version.major}.{version.minor}.")
    assert [version._is_release(v) for v in ("0.3.1", "0+unknown", "1.2.dev3", "2.0")] == \
        [True, False, False, True]
    assert version.commit == "unknown" or re.fullmatch(r"[0-9a-f]{40}", version.commit)
    assert version.with_mkl in ("ON", "OFF") and version.mkl() == version.with_mkl
    if core.backend.gpu_count() == 0:
        assert version.cuda() == version.cudnn() == version.cuda_version == "False"
    else:
        assert re.fullmatch(r"\d+\.\d+", version.cuda())
    version.show()
    out = capsys.readouterr().out
    assert f"commit: {version.commit}" in out and f"cuda: {version.cuda()}" in out
    assert f"full_version: {version.full_version}" in out or not version.istaged


def test_version_gpu_values_from_cupy(monkeypatch):
    """With a GPU, the CUDA runtime and cuDNN versions come from cupy (faked here)."""
    import sys
    import types

    runtime = types.SimpleNamespace(runtimeGetVersion=lambda: 12040)
    cudnn = types.ModuleType("cupy.cuda.cudnn")
    cudnn.getVersion = lambda: 90100
    cuda = types.ModuleType("cupy.cuda")
    cuda.runtime, cuda.cudnn = runtime, cudnn
    fake = types.ModuleType("cupy")
    fake.cuda = cuda
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setitem(sys.modules, "cupy.cuda", cuda)
    monkeypatch.setitem(sys.modules, "cupy.cuda.cudnn", cudnn)
    monkeypatch.setattr(core.backend, "gpu_count", lambda: 1)
    version._gpu_versions.cache_clear()
    try:
        assert (version.cuda(), version.cudnn()) == ("12.4", "9.1.0")
    finally:
        version._gpu_versions.cache_clear()


def test_an_unknown_version_attribute():
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        version.nothing  # noqa: B018
