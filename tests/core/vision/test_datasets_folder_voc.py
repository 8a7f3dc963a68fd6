"""core.vision.datasets.VOC2012 on a tiny tar built here with the real VOCdevkit layout (the
Segmentation lists, JPEGs, palette PNG class maps): Paddle's mode mapping, samples per backend,
transforms, the download cache (file:// mirror) and the errors."""
from __future__ import annotations

import hashlib
import io
import tarfile

import numpy as np
import pytest

from core.datasets import DatasetError
from core.datasets.download import SOURCES, Source
from core.vision.datasets import VOC2012
from core.vision.transforms import ToTensor

ROOT = "VOCdevkit/VOC2012/"
LISTS = {"trainval": ["2007_000032", "2007_000039", "2007_000063"],
         "train": ["2007_000032", "2007_000063"], "val": ["2007_000039"]}


def _add(archive: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    archive.addfile(info, io.BytesIO(data))


def _encoded(image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **({"quality": 95} if fmt == "JPEG" else {}))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def voc(tmp_path_factory):
    """VOCtrainval_11-May-2012.tar with three flat-coloured images and their class maps:
    (path, {name: (colour, class map)})."""
    pil = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("voc") / "VOCtrainval_11-May-2012.tar"
    truth = {}
    with tarfile.open(path, "w") as archive:
        for flag, names in LISTS.items():
            _add(archive, f"{ROOT}ImageSets/Segmentation/{flag}.txt",
                 "".join(f"{n}\n" for n in names).encode())
        for number, name in enumerate(LISTS["trainval"]):
            colour = (40 * number + 20, 200 - 50 * number, 90)
            width, height = 20 + number, 12
            _add(archive, f"{ROOT}JPEGImages/{name}.jpg",
                 _encoded(pil.new("RGB", (width, height), colour), "JPEG"))
            classes = rng.choice([0, 1, 15, 255], size=(height, width)).astype(np.uint8)
            label = pil.fromarray(classes, mode="P")
            label.putpalette([value for i in range(256) for value in (i, 0, 255 - i)])
            _add(archive, f"{ROOT}SegmentationClass/{name}.png", _encoded(label, "PNG"))
            truth[name] = (colour, classes)
    return path, truth


def test_modes_are_paddles_mapping_of_the_segmentation_lists(voc):
    path, _ = voc
    lengths = {mode: len(VOC2012(data_file=path, mode=mode)) for mode in ("train", "test",
                                                                           "valid")}
    assert lengths == {"train": 3, "test": 2, "valid": 1}  # trainval, train, val
    data = VOC2012(data_file=str(path), mode="TEST")
    assert data.flag == "train" and data.data_file == str(path)
    assert data.data == [f"{ROOT}JPEGImages/{n}.jpg" for n in LISTS["train"]]
    assert data.labels == [f"{ROOT}SegmentationClass/{n}.png" for n in LISTS["train"]]


def test_pil_samples_are_an_image_and_its_palette_class_map(voc):
    pil = pytest.importorskip("PIL.Image")
    path, truth = voc
    image, label = VOC2012(data_file=path, mode="valid", backend="pil")[0]
    colour, classes = truth["2007_000039"]
    assert isinstance(image, pil.Image) and image.mode == "RGB" and image.size == (21, 12)
    assert isinstance(label, pil.Image) and label.mode == "P"
    np.testing.assert_array_equal(np.asarray(label), classes)
    np.testing.assert_allclose(np.asarray(image).mean(axis=(0, 1)), colour, atol=3)


def test_cv2_samples_are_arrays_in_the_default_dtype(voc):
    path, truth = voc
    data = VOC2012(data_file=path, mode="train", backend="cv2")
    image, label = data[2]
    colour, classes = truth["2007_000063"]
    assert image.shape == (12, 22, 3) and image.dtype == np.float32
    assert label.shape == (12, 22) and label.dtype == np.float32
    np.testing.assert_array_equal(label, classes.astype(np.float32))  # 255: object borders
    np.testing.assert_allclose(image.mean(axis=(0, 1)), colour, atol=3)
    seen = []
    data.transform = lambda array: seen.append(array.dtype) or array[:4]
    image, label = data[0]
    assert seen == [np.uint8] and image.shape == (4, 20, 3) and label.shape == (12, 20)


def test_the_transform_takes_the_image_only(voc):
    path, _ = voc
    image, label = VOC2012(data_file=path, mode="valid", transform=ToTensor())[0]
    assert image.shape == (3, 12, 21) and float(image.max()) <= 1.0
    assert np.asarray(label).shape == (12, 21)


def test_download_uses_the_cache_and_the_sources_are_paddles(voc, tmp_path, monkeypatch):
    path, _ = voc
    assert SOURCES["voc2012"].files == {"VOCtrainval_11-May-2012.tar":
                                        "6cd6e144f989b92b3379bac3b3de84fd"}
    assert SOURCES["voc2012"].mirrors[0] == "https://dataset.bj.bcebos.com/voc/"
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(DatasetError, match="data_file is None and download=False"):
        VOC2012(download=False)
    md5 = hashlib.md5(path.read_bytes()).hexdigest()
    monkeypatch.setitem(SOURCES, "voc2012", Source(files={path.name: md5},
                                                   mirrors=(path.parent.as_uri() + "/",)))
    data = VOC2012(mode="valid")
    cached = tmp_path / ".cache" / "tomlrun" / "voc2012" / path.name
    assert data.data_file == str(cached) and cached.read_bytes() == path.read_bytes()
    assert len(VOC2012(download=False)) == 3


def test_damaged_archives_and_members_are_named(voc, tmp_path):
    path, _ = voc
    with pytest.raises(DatasetError, match="data_file='.*nope.tar' is not a file"):
        VOC2012(data_file=tmp_path / "nope.tar")
    junk = tmp_path / "junk.tar"
    junk.write_bytes(b"\x1f\x8b" + b"junk" * 8)
    with pytest.raises(DatasetError, match=f"VOC2012: {junk} is not a readable tar archive "
                       r"\(VOCtrainval_11-May-2012.tar\)") as info:
        VOC2012(data_file=junk)
    assert "\n" not in str(info.value)
    other = tmp_path / "other.tar"
    with tarfile.open(other, "w") as archive:
        _add(archive, "readme.txt", b"hello")
    with pytest.raises(DatasetError, match="has no VOCdevkit/VOC2012/ImageSets/Segmentation/"
                       "trainval.txt: it is not the VOC 2012 trainval archive"):
        VOC2012(data_file=other)
    partial = tmp_path / "partial.tar"
    with tarfile.open(partial, "w") as archive:
        _add(archive, f"{ROOT}ImageSets/Segmentation/val.txt", b"a\n")
        _add(archive, f"{ROOT}ImageSets/Segmentation/train.txt", b"2007_000032\n\nb\n")
        _add(archive, f"{ROOT}JPEGImages/a.jpg", b"not a jpeg")
        _add(archive, f"{ROOT}SegmentationClass/a.png", b"not a png")
    with pytest.raises(DatasetError, match=r"has no VOCdevkit/VOC2012/JPEGImages/2007_000032\.jpg"
                       r" \(4 files of the list .*train.txt missing\)"):
        VOC2012(data_file=partial, mode="test")
    data = VOC2012(data_file=partial, mode="valid")
    with pytest.raises(DatasetError, match=f"VOC2012: {ROOT}JPEGImages/a.jpg of {partial} is not "
                       "a readable image .*download it again"):
        data[0]


@pytest.mark.parametrize("kwargs, error, match", [
    ({"mode": "trainval"}, ValueError, "VOC2012: mode='trainval' must be 'train', 'valid' or "
                                       "'test'"),
    ({"backend": "opencv"}, ValueError, "backend='opencv'"),
    ({"transform": 3}, TypeError, "transform must be callable or None, got int"),
])
def test_bad_arguments_name_the_argument(kwargs, error, match):
    with pytest.raises(error, match=match):
        VOC2012(download=False, **kwargs)


def test_without_pillow_the_package_is_named(voc, monkeypatch):
    import sys  # noqa: PLC0415

    path, _ = voc
    data = VOC2012(data_file=path)
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match="VOC2012 decodes .* with Pillow.*pip install pillow"):
        data[0]
