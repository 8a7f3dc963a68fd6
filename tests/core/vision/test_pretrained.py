"""``pretrained=True``: Paddle's published weights, fetched md5-checked into the weights cache and
loaded. No network: the URL table points at ``file://`` copies of Paddle-format files built by
the Paddle-pickle helper of tests/core/test_serialize_paddle.py."""
from __future__ import annotations

import hashlib
import warnings

import numpy as np
import pytest

import core
from core.datasets import DatasetError
from core.datasets.download import WEIGHTS_ENV, weights_cache_dir
from core.utils.download import get_weights_path_from_url
from core.vision import models
from core.vision.models import _checks
from tests.core.test_serialize_paddle import paddle_save_bytes, paddle_state_dict


@pytest.fixture
def weights_home(tmp_path, monkeypatch):
    home = tmp_path / "weights"
    monkeypatch.setenv(WEIGHTS_ENV, str(home))
    return home


@pytest.fixture
def published(tmp_path, monkeypatch):
    """``published(arch, layer, md5=None)``: writes ``layer``'s state as Paddle's .pdparams,
    served at a file:// URL that MODEL_URLS gives for ``arch``; returns (path, md5)."""
    def publish(arch, layer, md5=None):
        served = tmp_path / "mirror" / f"{arch}.pdparams"
        served.parent.mkdir(exist_ok=True)
        served.write_bytes(paddle_save_bytes(paddle_state_dict(layer)))
        real = hashlib.md5(served.read_bytes()).hexdigest()
        monkeypatch.setitem(_checks.MODEL_URLS, arch, (served.as_uri(), md5 or real))
        return served, real
    return publish


def _image():
    return core.to_tensor(np.random.default_rng(0).standard_normal((1, 3, 32, 32), "float32"))


def test_resnet18_pretrained_loads_the_published_weights(weights_home, published):
    core.seed(3)
    source = models.resnet18()
    source.eval()
    published("resnet18", source)
    core.seed(4)
    fresh = models.resnet18()
    fresh.eval()
    x = _image()
    assert not np.allclose(fresh(x).numpy(), source(x).numpy())
    model = models.resnet18(pretrained=True)
    model.eval()
    np.testing.assert_allclose(model(x).numpy(), source(x).numpy(), rtol=1e-5, atol=1e-6)
    assert (weights_home / "resnet18.pdparams").is_file()


def test_the_cached_file_is_used_without_fetching_again(weights_home, published):
    core.seed(5)
    source = models.squeezenet1_1()
    served, _ = published("squeezenet1_1", source)
    core.seed(6)  # a fresh model's own weights differ from the published ones
    first = models.squeezenet1_1(pretrained=True)
    served.unlink()  # the mirror is gone: the cache must serve
    again = models.squeezenet1_1(pretrained=True)
    for name, value in source.state_dict().items():
        np.testing.assert_array_equal(again.state_dict()[name].numpy(), value.numpy())
        np.testing.assert_array_equal(first.state_dict()[name].numpy(), value.numpy())
    assert not served.exists() and (weights_home / "squeezenet1_1.pdparams").is_file()


def test_a_wrong_md5_leaves_nothing_behind(weights_home, published):
    published("resnet18", models.resnet18(), md5="0" * 32)
    with pytest.raises(DatasetError, match=r"resnet18\.pdparams.*expected 0{32}") as info:
        models.resnet18(pretrained=True)
    assert WEIGHTS_ENV in str(info.value)
    assert list(weights_home.iterdir()) == []  # no partial file, no file of the wrong bytes


def test_a_smaller_head_keeps_its_values_with_a_warning(weights_home, published):
    published("resnet18", models.resnet18())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = models.resnet18(pretrained=True, num_classes=10)
    assert model.fc.weight.shape == [512, 10]
    assert any("fc.weight" in str(w.message) for w in caught)


def test_a_mobile_net_is_keyed_by_its_scale(weights_home):
    with pytest.raises(ValueError, match=r"mobilenetv2_0\.5: pretrained=True, but Paddle "
                                         r"publishes no weights"):
        models.mobilenet_v2(pretrained=True, scale=0.5)
    assert "mobilenet_v3_large_x1.0" in _checks.MODEL_URLS


# ----- core.utils.download.get_weights_path_from_url ------------------------------------------

def test_get_weights_path_from_url_with_and_without_md5(weights_home, tmp_path):
    source = tmp_path / "w.bin"
    source.write_bytes(b"weights")
    path = get_weights_path_from_url(source.as_uri())
    assert path == str(weights_home / "w.bin") and open(path, "rb").read() == b"weights"
    md5 = hashlib.md5(b"weights").hexdigest()
    assert get_weights_path_from_url(source.as_uri(), md5) == path
    source.unlink()  # an upper-case md5 is the same sum: the cached file is taken, not fetched
    assert get_weights_path_from_url(source.as_uri(), md5.upper()) == path


def test_the_default_weights_folder(monkeypatch, tmp_path):
    monkeypatch.delenv(WEIGHTS_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert weights_cache_dir() == tmp_path / ".cache" / "tomlrun" / "weights"


@pytest.mark.parametrize("url, md5, match", [
    ("resnet18.pdparams", None, "url='resnet18.pdparams' must be the URL of a file"),
    ("https://host/models/", None, "must be the URL of a file"),
    (None, None, "url=None"),
    ("https://host/m.pdparams", "abc", "md5sum='abc' must be None or a 32-digit"),
    ("https://host/m.pdparams", "g" * 32, "md5sum='g+' must be None or a 32-digit hex"),
])
def test_bad_arguments_are_named(url, md5, match, weights_home):
    with pytest.raises(ValueError, match=match):
        get_weights_path_from_url(url, md5)
