"""core.vision.datasets: Paddle's MNIST / FashionMNIST on the shared IDX files, the samples they
give, batches through core.io.DataLoader, and Paddle's quick-start run end to end."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import core
import core as paddle
from core.datasets import DatasetError
from core.vision.datasets import MNIST, FashionMNIST
from core.vision.transforms import Compose, Normalize, ToTensor


def _files(folder, mode="train"):
    stem = "train" if mode == "train" else "t10k"
    return {"image_path": str(folder / f"{stem}-images-idx3-ubyte.gz"),
            "label_path": str(folder / f"{stem}-labels-idx1-ubyte.gz"), "mode": mode}


@pytest.fixture(scope="module")
def mnist_files():
    """The shared MNIST folder's files by mode, or a skip (the shared_dir rule of conftest)."""
    from tests.conftest import SHARED_DATA  # noqa: PLC0415

    folder = SHARED_DATA / "mnist"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not available")
    return {mode: _files(folder, mode) for mode in ("train", "test")}


@pytest.fixture(scope="module")
def train_set(mnist_files):
    """The training set with backend 'cv2' (float32 pixels 0..255); the default 'pil' backend
    has tests of its own below."""
    return MNIST(**mnist_files["train"], backend="cv2")


# ----- what a sample is --------------------------------------------------------------------------
def test_sizes_and_samples_are_paddles(train_set, mnist_files):
    test_set = MNIST(**mnist_files["test"])
    assert (len(train_set), len(test_set)) == (60000, 10000)
    image, label = train_set[0]
    assert isinstance(image, np.ndarray) and image.shape == (28, 28)
    assert image.dtype == np.float32 and image.max() == 255.0  # cv2 backend: float 0..255
    assert label.dtype == np.int64 and label.shape == (1,) and label.tolist() == [5]
    assert test_set[0][1].tolist() == [7]
    reference = core.datasets.MNIST(mnist_files["train"]["image_path"].rsplit("/", 1)[0],
                                     split="train", valid_size=0, normalize=False)
    np.testing.assert_array_equal(train_set[123][0], reference.images[123, 0])
    assert train_set.classes == tuple("0123456789")


def test_transforms_are_applied_as_paddle(train_set):
    image, _ = train_set[0]
    train_set.transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
    try:
        out, label = train_set[0]
        assert out.shape == (1, 28, 28) and out.dtype == np.float32
        np.testing.assert_allclose(out[0], (image - 127.5) / 127.5, rtol=1e-6)
        # ToTensor does not rescale float images (Paddle): Normalize(127.5) still gives [-1, 1]
        train_set.transform = Compose([ToTensor(), Normalize([127.5], [127.5])])
        np.testing.assert_allclose(train_set[0][0], out, rtol=1e-6)
        assert train_set.arrays is None  # samples are transformed one by one
    finally:
        train_set.transform = None
    assert train_set.arrays is not None


def test_loader_batches_with_and_without_transform_agree(train_set):
    subset = core.io.Subset(train_set, np.arange(100))
    fast = next(iter(core.io.DataLoader(subset, batch_size=10)))  # array path
    transformed = MNIST.__new__(MNIST)
    vars(transformed).update(vars(train_set), transform=lambda img: img)
    slow = next(iter(core.io.DataLoader(core.io.Subset(transformed, np.arange(100)),
                                        batch_size=10)))
    for a, b in zip(fast, slow):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)
    assert fast[1].shape == (10, 1)


def test_label_batches_of_shape_b_1_train_and_score(train_set):
    images, labels = next(iter(core.io.DataLoader(core.io.Subset(train_set, np.arange(8)),
                                                  batch_size=8, return_tensors=True)))
    assert labels.shape == [8, 1]
    logits = core.to_tensor(np.random.default_rng(0).standard_normal((8, 10)).astype("float32"))
    loss = core.nn.functional.cross_entropy(logits, labels)
    flat = core.nn.functional.cross_entropy(logits, labels.reshape([8]))
    np.testing.assert_allclose(loss.numpy(), flat.numpy(), rtol=1e-6)
    metric = core.metric.Accuracy()
    expected = (logits.numpy().argmax(1) == labels.numpy()[:, 0]).mean()
    np.testing.assert_allclose(metric.update(metric.compute(logits, labels)), expected)


def test_fashion_mnist():
    from tests.conftest import SHARED_DATA  # noqa: PLC0415

    folder = SHARED_DATA / "fashion-mnist"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not available")
    test_set = FashionMNIST(**_files(folder, "test"))
    assert len(test_set) == 10000 and test_set[0][1].tolist() == [9]
    assert test_set.classes[9] == "Ankle boot"


# ----- the quick-start, end to end ---------------------------------------------------------------
def test_paddle_quick_start_learns_mnist(mnist_files):
    """Paddle's MNIST quick-start on 2,000 training images for one epoch; 1,000 test images.

    Measured: 0.76 test accuracy (seed 0); chance is 0.1.
    """
    paddle.seed(0)
    transform = Normalize(mean=[127.5], std=[127.5], data_format="CHW")
    train_dataset = paddle.vision.datasets.MNIST(**mnist_files["train"], transform=transform)
    test_dataset = paddle.vision.datasets.MNIST(**mnist_files["test"], transform=transform)
    lenet = paddle.vision.models.LeNet(num_classes=10)
    model = paddle.Model(lenet)
    model.prepare(paddle.optimizer.Adam(parameters=model.parameters()),
                  paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy())
    model.fit(paddle.io.Subset(train_dataset, np.arange(2000)), epochs=1, batch_size=64,
              verbose=0)
    result = model.evaluate(paddle.io.Subset(test_dataset, np.arange(1000)), batch_size=250,
                            verbose=0)
    assert result["acc"] > 0.5, result


# ----- backends and errors -----------------------------------------------------------------------
def test_pil_backend_gives_pil_images(train_set, mnist_files):
    pil = pytest.importorskip("PIL.Image")
    data = MNIST(**mnist_files["test"], backend="pil")
    image, label = data[0]
    assert isinstance(image, pil.Image) and image.size == (28, 28) and image.mode == "L"
    assert label.tolist() == [7]
    data.transform = ToTensor()
    out = data[0][0]  # uint8 pixels from PIL: scaled to [0, 1]
    assert out.shape == (1, 28, 28) and 0.99 < out.max() <= 1.0


def _without_pillow(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)


def test_pil_backend_without_pillow_gives_the_uint8_pixels(monkeypatch, mnist_files):
    _without_pillow(monkeypatch)
    data = MNIST(**mnist_files["test"], backend="pil")
    image, label = data[0]
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.shape == (28, 28)
    assert image.max() == 255 and label.tolist() == [7]
    np.testing.assert_array_equal(image, data.images[0].astype(np.uint8))
    data.transform = ToTensor()
    out = data[0][0]  # uint8 pixels, as from PIL: scaled to [0, 1]
    assert out.shape == (1, 28, 28) and out.dtype == np.float32 and out.max() == 1.0


def test_pil_backend_with_and_without_pillow_give_the_same_numbers(monkeypatch, mnist_files):
    pytest.importorskip("PIL.Image")
    transform = Compose([ToTensor(), Normalize(mean=[0.5], std=[0.5])])
    with_pillow = MNIST(**mnist_files["test"], transform=transform)[3][0]
    _without_pillow(monkeypatch)
    without = MNIST(**mnist_files["test"], transform=transform)[3][0]
    np.testing.assert_array_equal(with_pillow, without)


@pytest.mark.parametrize("pillow", [True, False], ids=["with-pillow", "without-pillow"])
def test_paddle_tutorial_transform_gives_minus_one_to_one(monkeypatch, mnist_files, pillow):
    """Paddle's tutorial pipeline: ``Compose([ToTensor(), Normalize(mean=[0.5], std=[0.5])])``
    on the default backend gives pixels in [-1, 1] (the 'cv2' default once gave [-1, 509])."""
    if pillow:
        pytest.importorskip("PIL.Image")
    else:
        _without_pillow(monkeypatch)
    transform = Compose([ToTensor(), Normalize(mean=[0.5], std=[0.5], data_format="CHW")])
    data = paddle.vision.datasets.MNIST(**mnist_files["test"], transform=transform)
    image, label = data[0]
    assert image.shape == (1, 28, 28) and image.dtype == np.float32
    assert image.min() == -1.0 and image.max() == 1.0
    loader = paddle.io.DataLoader(paddle.io.Subset(data, np.arange(64)), batch_size=32)
    images, labels = next(iter(loader))
    assert tuple(images.shape) == (32, 1, 28, 28) and tuple(labels.shape) == (32, 1)
    batch = np.asarray(images)
    assert batch.min() >= -1.0 and batch.max() <= 1.0 and batch.max() == 1.0


def test_pil_backend_batches_without_transform_are_uint8(mnist_files):
    data = MNIST(**mnist_files["test"])
    assert data.backend == "pil"
    images, labels = data.arrays  # the fast path: what stacking the PIL images gives
    assert images.dtype == np.uint8 and images.shape == (10000, 28, 28)
    fast = next(iter(core.io.DataLoader(core.io.Subset(data, np.arange(16)), batch_size=16)))
    data.transform = lambda image: image  # sample by sample: PIL images (or arrays) stacked
    slow = next(iter(core.io.DataLoader(core.io.Subset(data, np.arange(16)), batch_size=16)))
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_image_backend_default_is_pil_and_settable(monkeypatch):
    assert core.vision.get_image_backend() == "pil"
    try:
        core.vision.set_image_backend("cv2")
        assert core.vision.get_image_backend() == "cv2"
        _without_pillow(monkeypatch)
        core.vision.set_image_backend("pil")  # allowed without Pillow: numpy uint8 images
        assert core.vision.get_image_backend() == "pil"
    finally:
        core.vision.set_image_backend("pil")
    with pytest.raises(ValueError, match="backend='tensor'"):
        core.vision.set_image_backend("tensor")


@pytest.mark.parametrize("kwargs, error, match", [
    ({"mode": "valid"}, ValueError, "mode='valid'"),
    ({"backend": "opencv"}, ValueError, "backend='opencv'"),
    ({"transform": 3}, TypeError, "transform must be callable"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        MNIST(download=False, **kwargs)


def test_missing_files_explain_what_to_pass(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # an empty download cache
    with pytest.raises(DatasetError, match="download=False: pass image_path="):
        MNIST(mode="test", download=False)
    with pytest.raises(DatasetError, match="image_path=.*is not a file"):
        MNIST(image_path=str(tmp_path / "nope.gz"), label_path=str(tmp_path / "nope2.gz"))
