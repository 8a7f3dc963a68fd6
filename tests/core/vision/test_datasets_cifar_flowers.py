"""core.vision.datasets Cifar10 / Cifar100 / Flowers on tiny archives built here in Paddle's real
formats (pickled batches in a tar.gz; JPEGs in a tgz with two .mat files): samples, modes,
backends, transforms, loader batches, the download cache (file:// mirrors) and the errors."""
from __future__ import annotations

import hashlib
import io
import pickle
import sys
import tarfile

import numpy as np
import pytest

import core as paddle
from core.datasets import DatasetError
from core.datasets.download import SOURCES, Source
from core.vision.datasets import Cifar10, Cifar100, Flowers
from core.vision.transforms import Compose, Normalize, ToTensor

SIDE = 32


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _batch(rows: np.ndarray, labels, key: bytes) -> bytes:
    """A batch as the CIFAR archives pickle it (protocol 2, bytes keys, uint8 rows)."""
    return pickle.dumps({b"batch_label": b"a batch", key: list(labels), b"data": rows,
                         b"filenames": [b"x.png"] * len(labels)}, protocol=2)


def _rows(rng, count: int) -> np.ndarray:
    return rng.integers(0, 256, size=(count, 3 * SIDE * SIDE), dtype=np.uint8)


def _hwc(rows: np.ndarray) -> np.ndarray:
    """Rows of 1024 red, 1024 green, 1024 blue values as [N, 32, 32, 3] images."""
    return rows.reshape(-1, 3, SIDE, SIDE).transpose(0, 2, 3, 1)


@pytest.fixture(scope="module")
def cifar10(tmp_path_factory):
    """A cifar-10-python.tar.gz of two training batches (stored in reverse order) and a test
    batch: (path, train rows, train labels, test rows, test labels)."""
    rng = np.random.default_rng(0)
    first, second, test = _rows(rng, 3), _rows(rng, 2), _rows(rng, 4)
    labels = ([1, 0, 9], [4, 4], [3, 2, 1, 0])
    path = tmp_path_factory.mktemp("cifar10") / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        _add(archive, "cifar-10-batches-py/batches.meta", pickle.dumps({b"label_names": []}))
        _add(archive, "cifar-10-batches-py/data_batch_2", _batch(second, labels[1], b"labels"))
        _add(archive, "cifar-10-batches-py/data_batch_1", _batch(first, labels[0], b"labels"))
        _add(archive, "cifar-10-batches-py/test_batch", _batch(test, labels[2], b"labels"))
    return path, np.concatenate([first, second]), labels[0] + labels[1], test, labels[2]


@pytest.fixture(scope="module")
def cifar100(tmp_path_factory):
    rng = np.random.default_rng(1)
    train, test = _rows(rng, 3), _rows(rng, 2)
    path = tmp_path_factory.mktemp("cifar100") / "cifar-100-python.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for name, rows, fine in (("train", train, [99, 5, 50]), ("test", test, [7, 8])):
            batch = {b"fine_labels": fine, b"coarse_labels": [0] * len(fine), b"data": rows}
            _add(archive, f"cifar-100-python/{name}", pickle.dumps(batch, protocol=2))
        _add(archive, "cifar-100-python/meta", pickle.dumps({b"fine_label_names": []}))
    return path, train, test


def _without_pillow(monkeypatch):
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)


# ----- Cifar: what a sample is -------------------------------------------------------------------
def test_cifar10_samples_are_paddles_with_cv2(cifar10):
    path, train_rows, train_labels, test_rows, test_labels = cifar10
    train = Cifar10(data_file=str(path), mode="train", backend="cv2")
    test = Cifar10(data_file=path, mode="TEST", backend="cv2")
    assert (len(train), len(test)) == (5, 4) and test.mode == "test"
    for data, rows, labels in ((train, train_rows, train_labels), (test, test_rows,
                                                                   test_labels)):
        for i in range(len(data)):
            image, label = data[i]
            assert image.shape == (32, 32, 3) and image.dtype == np.float32
            np.testing.assert_array_equal(image, _hwc(rows)[i])  # batch_1 before batch_2
            assert label.dtype == np.int64 and label.shape == () and int(label) == labels[i]
    assert train.data_file == str(path) and train.flag == "data_batch"


def test_cifar10_pil_backend_gives_rgb_images(cifar10):
    pil = pytest.importorskip("PIL.Image")
    path, rows, labels, *_ = cifar10
    data = Cifar10(data_file=path)
    assert data.backend == "pil"  # Paddle's default
    image, label = data[2]
    assert isinstance(image, pil.Image) and image.size == (32, 32) and image.mode == "RGB"
    np.testing.assert_array_equal(np.asarray(image), _hwc(rows)[2])
    assert int(label) == labels[2]


def test_cifar10_pil_backend_without_pillow_gives_uint8_arrays(cifar10, monkeypatch):
    _without_pillow(monkeypatch)
    path, rows, *_ = cifar10
    data = Cifar10(data_file=path)
    image, _ = data[1]
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8
    np.testing.assert_array_equal(image, _hwc(rows)[1])
    image[...] = 0  # a copy: the dataset's pixels are untouched
    np.testing.assert_array_equal(data[1][0], _hwc(rows)[1])


@pytest.mark.parametrize("backend", ["pil", "cv2"])
def test_cifar10_transforms_see_uint8_images_with_either_backend(cifar10, backend):
    """Paddle hands the transform a PIL image or the uint8 HWC array, so ToTensor scales both
    to [0, 1]; the output of a 'cv2' transform is cast to float32."""
    path, rows, *_ = cifar10
    data = Cifar10(data_file=path, backend=backend, transform=ToTensor())
    image, _ = data[0]
    assert image.shape == (3, 32, 32) and image.dtype == np.float32
    np.testing.assert_allclose(image, rows[0].reshape(3, 32, 32) / 255.0, rtol=1e-6)
    seen = []
    data.transform = lambda img: seen.append(np.asarray(img)) or np.asarray(img, "float64")[:2]
    out = data[0][0]
    assert seen[0].dtype == np.uint8 and seen[0].shape == (32, 32, 3)
    assert out.shape == (2, 32, 3)
    assert out.dtype == (np.float32 if backend == "cv2" else np.float64)


def test_cifar10_backend_follows_set_image_backend(cifar10):
    try:
        paddle.vision.set_image_backend("cv2")
        assert Cifar10(data_file=cifar10[0]).backend == "cv2"
    finally:
        paddle.vision.set_image_backend("pil")
    assert Cifar10(data_file=cifar10[0]).backend == "pil"


def test_cifar100_reads_the_fine_labels(cifar100):
    path, train_rows, test_rows = cifar100
    train = Cifar100(data_file=path, backend="cv2")
    test = Cifar100(data_file=path, mode="test", backend="cv2")
    assert [int(train[i][1]) for i in range(3)] == [99, 5, 50]
    assert [int(test[i][1]) for i in range(2)] == [7, 8]
    np.testing.assert_array_equal(test[1][0], _hwc(test_rows)[1])
    assert train.flag == "train" and isinstance(train, Cifar10)


@pytest.mark.parametrize("backend", ["pil", "cv2"])
def test_cifar_loader_batches_with_and_without_transform_agree(cifar10, backend):
    data = Cifar10(data_file=cifar10[0], backend=backend)
    assert data.arrays is not None  # no transform: the loader slices the arrays
    fast = next(iter(paddle.io.DataLoader(data, batch_size=5)))
    data.transform = lambda image: image  # sample by sample: images stacked
    assert data.arrays is None
    slow = next(iter(paddle.io.DataLoader(data, batch_size=5)))
    assert fast[0].shape == (5, 32, 32, 3) and fast[1].shape == (5,)
    assert fast[0].dtype == (np.uint8 if backend == "pil" else np.float32)
    for a, b in zip(fast, slow):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def test_cifar_default_dtype_is_paddles_get_default_dtype(cifar10):
    try:
        paddle.set_default_dtype("float64")
        data = Cifar10(data_file=cifar10[0], backend="cv2")
    finally:
        paddle.set_default_dtype("float32")
    assert data[0][0].dtype == np.float64 and data.arrays[0].dtype == np.float64


def test_a_tiny_classifier_learns_synthetic_cifar(tmp_path):
    """Paddle's tutorial pipeline on a synthetic Cifar10: each class a colour with noise,
    ``Compose([ToTensor(), Normalize(0.5, 0.5)])`` through ``paddle.io.DataLoader``, a small
    conv net trained with Adam. Measured: 1.0 test accuracy after 6 epochs (chance 0.25)."""
    rng = np.random.default_rng(0)
    colours = np.array([[220, 30, 30], [30, 220, 30], [30, 30, 220], [220, 220, 30]])

    def rows(count):
        labels = rng.integers(0, 4, count)
        images = colours[labels][:, None, None, :] + rng.normal(0, 40, (count, 32, 32, 3))
        chw = np.clip(images, 0, 255).astype(np.uint8).transpose(0, 3, 1, 2)
        return chw.reshape(count, -1), labels

    (train_rows, train_labels), (test_rows, test_labels) = rows(96), rows(48)
    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        _add(archive, "cifar-10-batches-py/data_batch_1",
             _batch(train_rows, train_labels, b"labels"))
        _add(archive, "cifar-10-batches-py/test_batch",
             _batch(test_rows, test_labels, b"labels"))
    paddle.seed(0)
    transform = Compose([ToTensor(), Normalize(mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5])])
    train = paddle.vision.datasets.Cifar10(data_file=path, mode="train", transform=transform)
    test = paddle.vision.datasets.Cifar10(data_file=path, mode="test", transform=transform)
    nn = paddle.nn
    model = nn.Sequential(nn.Conv2D(3, 4, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2D(1),
                          nn.Flatten(), nn.Linear(4, 4))
    optimizer = paddle.optimizer.Adam(learning_rate=0.05, parameters=model.parameters())
    loader = paddle.io.DataLoader(train, batch_size=16, shuffle=True, return_tensors=True)
    for _ in range(6):
        for images, labels in loader:
            assert images.shape == [16, 3, 32, 32] and labels.shape == [16]
            loss = nn.functional.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
    images, labels = next(iter(paddle.io.DataLoader(test, batch_size=48, return_tensors=True)))
    accuracy = (model(images).numpy().argmax(1) == labels.numpy()).mean()
    assert accuracy > 0.8, accuracy


# ----- Cifar: files, downloads and errors --------------------------------------------------------
def _md5(path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def test_cifar_download_false_without_the_file_explains(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # an empty download cache
    with pytest.raises(DatasetError) as info:
        Cifar10(download=False)
    message = str(info.value)
    cache = tmp_path / ".cache" / "tomlrun" / "cifar10"
    assert "data_file is None and download=False" in message and "\n" not in message
    assert str(cache) in message and "cifar-10-python.tar.gz" in message
    assert "download=True" in message and "c58f30108f718f92721af3b95e74349a" in message
    with pytest.raises(DatasetError, match=r"data_file='.*nope.tar.gz' is not a file"):
        Cifar100(data_file=str(tmp_path / "nope.tar.gz"))


def test_cifar_download_uses_the_cache_and_the_mirrors(cifar10, tmp_path, monkeypatch):
    path = cifar10[0]
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setitem(SOURCES, "cifar10", Source(files={path.name: _md5(path)},
                                                   mirrors=(path.parent.as_uri() + "/",)))
    data = Cifar10(mode="test", backend="cv2")  # download=True: Paddle's default
    cached = tmp_path / "home" / ".cache" / "tomlrun" / "cifar10" / path.name
    assert data.data_file == str(cached) and cached.read_bytes() == path.read_bytes()
    assert len(data) == 4
    monkeypatch.setitem(SOURCES, "cifar10", Source(files={path.name: _md5(path)},
                                                   mirrors=("file:///nowhere/",)))
    assert len(Cifar10(download=False)) == 5  # the cached file, no mirror asked
    assert len(Cifar10()) == 5  # present with its md5: not fetched again


def test_a_download_with_the_wrong_md5_leaves_nothing(cifar10, tmp_path, monkeypatch):
    path = cifar10[0]
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setitem(SOURCES, "cifar10", Source(files={path.name: "0" * 32},
                                                   mirrors=(path.parent.as_uri() + "/",)))
    with pytest.raises(DatasetError, match="every mirror failed"):
        Cifar10()
    assert list((tmp_path / ".cache" / "tomlrun" / "cifar10").iterdir()) == []


def test_the_sources_are_paddles():
    assert SOURCES["cifar10"].files == {"cifar-10-python.tar.gz":
                                        "c58f30108f718f92721af3b95e74349a"}
    assert SOURCES["cifar100"].files == {"cifar-100-python.tar.gz":
                                         "eb9058c3a382ffc7106e4002c42a8d85"}
    assert SOURCES["cifar10"].mirrors[0] == "https://dataset.bj.bcebos.com/cifar/"
    assert SOURCES["flowers"].files == {"102flowers.tgz": "52808999861908f626f3c1f4e79d11fa",
                                        "imagelabels.mat": "e0620be6f572b9609742df49c70aed4d",
                                        "setid.mat": "a5357ecc9cb78c4bef273ce3793fc85c"}
    assert SOURCES["flowers"].mirrors[0] == "http://paddlemodels.bj.bcebos.com/flowers/"


def test_a_pickle_that_names_other_code_is_refused(tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("unpickled",))

    path = tmp_path / "cifar-10-python.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        _add(archive, "cifar-10-batches-py/data_batch_1", pickle.dumps({b"data": Evil()}))
    with pytest.raises(DatasetError, match="names builtins.print"):
        Cifar10(data_file=path)


@pytest.mark.parametrize("content, match", [
    (b"not a tar", "not a readable CIFAR archive"),
    (None, "holds no batch whose name contains 'data_batch'"),
])
def test_a_file_that_is_not_the_archive_is_named(tmp_path, content, match):
    path = tmp_path / "cifar-10-python.tar.gz"
    if content is None:
        with tarfile.open(path, "w:gz") as archive:
            _add(archive, "readme.txt", b"hello")
    else:
        path.write_bytes(content)
    with pytest.raises(DatasetError, match=match):
        Cifar10(data_file=path)


def test_a_truncated_or_damaged_archive_is_one_error_naming_the_file(cifar10, tmp_path):
    whole = cifar10[0].read_bytes()
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(whole[:len(whole) // 2])  # a download cut off half way (gzip: EOFError)
    with pytest.raises(DatasetError) as info:
        Cifar10(data_file=cut)
    assert str(info.value).startswith(f"Cifar10: {cut} is not a readable CIFAR archive "
                                      "(cifar-*-python.tar.gz): Compressed file ended")
    cut.write_bytes(b"\x1f\x8b" + b"junk" * 8)  # tarfile's message has a line per method
    with pytest.raises(DatasetError, match="not a readable CIFAR archive") as info:
        Cifar10(data_file=cut)
    assert "\n" not in str(info.value)
    damaged = tmp_path / "damaged.tar.gz"
    batch = _batch(_rows(np.random.default_rng(2), 2), [0, 1], b"labels")
    garbled = batch.replace(b"a batch", b"\xc3( batc")  # not utf-8: pickle's UnicodeDecodeError
    with tarfile.open(damaged, "w:gz") as archive:
        _add(archive, "cifar-10-batches-py/data_batch_1", garbled)
    with pytest.raises(DatasetError) as info:
        Cifar10(data_file=damaged)
    message = str(info.value)
    assert message.startswith(f"Cifar10: {damaged}: batch cifar-10-batches-py/data_batch_1 is "
                              "not a readable pickled CIFAR batch (")
    assert "download it again" in message and "\n" not in message


@pytest.mark.parametrize("kwargs, error, match", [
    ({"mode": "valid"}, ValueError, "Cifar10: mode='valid' must be 'train' or 'test'"),
    ({"backend": "opencv"}, ValueError, "backend='opencv'"),
    ({"transform": 3}, TypeError, "transform must be callable or None, got int"),
])
def test_cifar_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        Cifar10(download=False, **kwargs)


# ----- Flowers -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def flowers(tmp_path_factory):
    """102flowers.tgz with six flat-coloured JPEGs, imagelabels.mat and setid.mat."""
    pil = pytest.importorskip("PIL.Image")
    scipy_io = pytest.importorskip("scipy.io")
    folder = tmp_path_factory.mktemp("flowers")
    colours = [(200, 10, 10), (10, 200, 10), (10, 10, 200), (200, 200, 10), (10, 200, 200),
               (128, 128, 128)]
    with tarfile.open(folder / "102flowers.tgz", "w:gz") as archive:
        for number, colour in enumerate(colours, start=1):
            buffer = io.BytesIO()
            pil.new("RGB", (24 + number, 16), colour).save(buffer, format="JPEG", quality=95)
            _add(archive, f"jpg/image_{number:05d}.jpg", buffer.getvalue())
    labels = np.array([[5, 102, 1, 77, 5, 3]], dtype=np.uint8)
    scipy_io.savemat(folder / "imagelabels.mat", {"labels": labels})
    scipy_io.savemat(folder / "setid.mat", {"trnid": np.array([[2, 4]], dtype=np.uint16),
                                            "tstid": np.array([[1, 3, 6]], dtype=np.uint16),
                                            "valid": np.array([[5]], dtype=np.uint16)})
    return {"data_file": folder / "102flowers.tgz", "label_file": folder / "imagelabels.mat",
            "setid_file": folder / "setid.mat"}, colours


def test_flowers_modes_swap_the_readme_train_and_test_as_paddle(flowers):
    files, _ = flowers
    train, test, valid = (Flowers(**files, mode=mode) for mode in ("train", "test", "valid"))
    assert (len(train), len(test), len(valid)) == (3, 2, 1)  # tstid, trnid, valid
    assert [train[i][1].tolist() for i in range(3)] == [[5], [1], [3]]
    assert [test[i][1].tolist() for i in range(2)] == [[102], [77]]
    label = valid[0][1]
    assert label.dtype == np.int64 and label.shape == (1,) and label.tolist() == [5]


def test_flowers_images_per_backend(flowers):
    pil = pytest.importorskip("PIL.Image")
    files, colours = flowers
    image, _ = Flowers(**files, mode="test")[0]  # image 2
    assert isinstance(image, pil.Image) and image.size == (26, 16) and image.mode == "RGB"
    array, _ = Flowers(**files, mode="test", backend="cv2")[0]
    assert array.shape == (16, 26, 3) and array.dtype == np.float32
    np.testing.assert_allclose(array.mean(axis=(0, 1)), colours[1], atol=3)  # JPEG error
    out, _ = Flowers(**files, mode="test", transform=Compose([ToTensor()]))[1]
    assert out.shape == (3, 16, 28) and out.max() <= 1.0


def test_flowers_without_scipy_or_pillow_names_the_package(flowers, monkeypatch):
    files, _ = flowers
    data = Flowers(**files)
    _without_pillow(monkeypatch)
    with pytest.raises(ImportError, match="pip install pillow"):
        data[0]
    monkeypatch.setitem(sys.modules, "scipy", None)
    monkeypatch.setitem(sys.modules, "scipy.io", None)
    with pytest.raises(ImportError, match=r"scipy.io.loadmat.*pip install scipy"):
        Flowers(**files)


def test_flowers_files_and_download(flowers, tmp_path, monkeypatch):
    files, _ = flowers
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(DatasetError, match="label_file is None and download=False"):
        Flowers(data_file=files["data_file"], setid_file=files["setid_file"], download=False)
    with pytest.raises(DatasetError, match="setid_file='.*' is not a file"):
        Flowers(**{**files, "setid_file": str(tmp_path / "setid.mat")})
    mirror = files["data_file"].parent.as_uri() + "/"
    monkeypatch.setitem(SOURCES, "flowers", Source(
        files={path.name: _md5(path) for path in files.values()}, mirrors=(mirror,)))
    data = Flowers(mode="valid")
    assert data.label_file == str(tmp_path / ".cache" / "tomlrun" / "flowers" / "imagelabels.mat")
    assert len(data) == 1 and data[0][1].tolist() == [5]


def test_flowers_checks_what_it_reads(flowers, tmp_path):
    files, _ = flowers
    scipy_io = pytest.importorskip("scipy.io")
    scipy_io.savemat(tmp_path / "setid.mat", {"trnid": np.array([[2, 9]]), "tstid": [[1]],
                                              "valid": [[1]]})
    with pytest.raises(DatasetError, match="names image 9, but .* labels images 1..6"):
        Flowers(**{**files, "setid_file": tmp_path / "setid.mat"}, mode="test")
    with pytest.raises(DatasetError, match="has no 'labels' array"):
        Flowers(**{**files, "label_file": files["setid_file"]})
    scipy_io.savemat(tmp_path / "labels.mat", {"labels": np.ones((1, 7))})
    scipy_io.savemat(tmp_path / "setid7.mat", {"trnid": [[7]], "tstid": [[7]], "valid": [[7]]})
    with pytest.raises(DatasetError, match="has no jpg/image_00007.jpg"):
        Flowers(**{**files, "label_file": tmp_path / "labels.mat",
                   "setid_file": tmp_path / "setid7.mat"})
    with pytest.raises(ValueError, match="Flowers: mode='dev' must be 'train', 'valid' or"):
        Flowers(**files, mode="dev")


def test_flowers_names_a_truncated_archive_and_a_damaged_jpeg(flowers, tmp_path):
    files, _ = flowers
    whole = files["data_file"].read_bytes()
    cut = tmp_path / "102flowers.tgz"
    cut.write_bytes(whole[:len(whole) // 2])  # a download cut off half way (gzip: EOFError)
    with pytest.raises(DatasetError, match=f"Flowers: {cut} is not a readable tar archive "
                       r"\(102flowers.tgz\): Compressed file ended"):
        Flowers(**{**files, "data_file": cut})
    with tarfile.open(cut, "w:gz") as archive:
        for number in range(1, 7):
            _add(archive, f"jpg/image_{number:05d}.jpg", b"not a jpeg")
    dataset = Flowers(**{**files, "data_file": cut}, mode="test")
    with pytest.raises(DatasetError) as info:
        dataset[0]  # image 2: decoded at once, not inside a transform
    assert str(info.value).startswith(f"Flowers: jpg/image_00002.jpg of {cut} is not a readable "
                                      "JPEG (cannot identify image file")
