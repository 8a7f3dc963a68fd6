"""core.vision.datasets DatasetFolder / ImageFolder on tiny image folders built here: Paddle's
docstring examples (class order, sample order, extensions, loaders, transforms), the backends
of the default loader, batches through DataLoader, and the errors."""
from __future__ import annotations

import os
import sys

import numpy as np
import pytest

import core as paddle
from core.datasets import DatasetError
from core.vision.datasets import DatasetFolder, ImageFolder
from core.vision.datasets import folder as folder_module
from core.vision.transforms import Compose, Resize, ToTensor


def _image(path, rng, size=(32, 32), mode="RGB"):
    """A random image file at ``path`` (format from its extension); its uint8 pixels."""
    pil = pytest.importorskip("PIL.Image")
    channels = {"RGB": (3,), "L": ()}[mode]
    pixels = rng.integers(0, 256, size=(size[1], size[0], *channels), dtype=np.uint8)
    pil.fromarray(pixels).save(path)
    return pixels


def _tree(root, layout, rng):
    """Paddle's docstring ``make_directory``: str entries are files (images, or text for
    .txt), dict entries sub-folders."""
    root.mkdir(parents=True, exist_ok=True)
    for entry in layout:
        if isinstance(entry, str):
            if entry.endswith(".txt"):
                (root / entry).write_text("This is a fake file.")
            else:
                _image(root / entry, rng)
        else:
            (name, inner), = entry.items()
            _tree(root / name, inner, rng)


@pytest.fixture
def classes_root(tmp_path):
    """Paddle's DatasetFolder docstring hierarchy."""
    root = tmp_path / "data"
    _tree(root, [{"class_0": ["abc.jpg", "def.png"]},
                 {"class_1": ["ghi.jpeg", "jkl.png", {"mno": ["pqr.jpeg", "stu.jpg"]}]},
                 "this_will_be_ignored.txt"], np.random.default_rng(0))
    return root


def test_dataset_folder_is_paddles_docstring_example(classes_root):
    pil = pytest.importorskip("PIL.Image")
    data = DatasetFolder(str(classes_root))
    assert data.classes == ["class_0", "class_1"]
    assert data.class_to_idx == {"class_0": 0, "class_1": 1}
    names = ["class_0/abc.jpg", "class_0/def.png", "class_1/ghi.jpeg", "class_1/jkl.png",
             "class_1/mno/pqr.jpeg", "class_1/mno/stu.jpg"]
    assert data.samples == [(os.path.join(classes_root, n), int(n[6])) for n in names]
    assert data.targets == [0, 0, 1, 1, 1, 1] and len(data) == 6
    assert data.extensions == folder_module.IMG_EXTENSIONS
    image, label = data[3]
    assert isinstance(image, pil.Image) and image.size == (32, 32) and image.mode == "RGB"
    assert label == 1 and isinstance(label, int)

    only_jpg = DatasetFolder(classes_root, loader=lambda p: np.asarray(pil.open(p)),
                             extensions=(".jpg",), transform=Compose([Resize(64), ToTensor()]))
    assert [path for path, _ in only_jpg.samples] == [
        os.path.join(classes_root, "class_0/abc.jpg"),
        os.path.join(classes_root, "class_1/mno/stu.jpg")]
    out, label = only_jpg[1]
    assert tuple(out.shape) == (3, 64, 64) and label == 1 and float(out.max()) <= 1.0


def test_image_folder_is_paddles_docstring_example(tmp_path):
    pil = pytest.importorskip("PIL.Image")
    root = tmp_path / "images"
    _tree(root, ["abc.jpg", "def.png", {"ghi": ["jkl.jpeg", {"mno": ["pqr.jpg"]}]},
                 "this_will_be_ignored.txt"], np.random.default_rng(1))
    data = ImageFolder(str(root))
    assert data.samples == [os.path.join(root, n) for n in
                            ("abc.jpg", "def.png", "ghi/jkl.jpeg", "ghi/mno/pqr.jpg")]
    assert len(data) == 4
    sample = data[0]
    assert isinstance(sample, list) and len(sample) == 1  # [image], as Paddle
    assert isinstance(sample[0], pil.Image) and sample[0].size == (32, 32)
    jpgs = ImageFolder(root, extensions=(".JPG",), transform=Compose([Resize(64), ToTensor()]))
    assert jpgs.samples == [os.path.join(root, "abc.jpg"), os.path.join(root, "ghi/mno/pqr.jpg")]
    (out,) = jpgs[1]
    assert tuple(out.shape) == (3, 64, 64)


def test_the_default_loader_follows_the_image_backend(tmp_path):
    pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(2)
    (tmp_path / "a").mkdir()
    pixels = _image(tmp_path / "a" / "x.png", rng)
    gray = _image(tmp_path / "a" / "y.png", rng, size=(5, 4), mode="L")
    data = DatasetFolder(tmp_path)
    np.testing.assert_array_equal(np.asarray(data[0][0]), pixels)  # PNG: lossless
    paddle.vision.set_image_backend("cv2")
    try:
        array, label = data[0]
        again = DatasetFolder(tmp_path)[1][0]
    finally:
        paddle.vision.set_image_backend("pil")
    # cv2's imread then BGR -> RGB: uint8 RGB [H, W, 3], also for a grayscale file
    assert isinstance(array, np.ndarray) and array.dtype == np.uint8 and label == 0
    np.testing.assert_array_equal(array, pixels)
    assert again.shape == (4, 5, 3)
    np.testing.assert_array_equal(again, np.repeat(gray[:, :, None], 3, axis=2))
    np.testing.assert_array_equal(folder_module.cv2_loader(str(tmp_path / "a" / "x.png")),
                                  pixels)
    assert folder_module.pil_loader(str(tmp_path / "a" / "y.png")).mode == "RGB"


def test_is_valid_file_chooses_the_files_and_links_are_followed(classes_root, tmp_path):
    pytest.importorskip("PIL.Image")
    data = DatasetFolder(classes_root, is_valid_file=lambda p: "mno" in p)
    assert [os.path.basename(p) for p, _ in data.samples] == ["pqr.jpeg", "stu.jpg"]
    assert data.extensions is None
    link = tmp_path / "linked"
    link.mkdir()
    os.symlink(classes_root / "class_0", link / "zeta", target_is_directory=True)
    linked = DatasetFolder(link)
    assert linked.classes == ["zeta"] and len(linked) == 2


def test_links_back_up_are_not_followed_into_a_cycle(classes_root, tmp_path):
    """A link to a folder the walk is inside is pruned (os.walk follows it 40 levels deep,
    and two such links 2 ** 40 times); a link elsewhere is still followed."""
    pytest.importorskip("PIL.Image")
    mno = classes_root / "class_1" / "mno"
    os.symlink("..", mno / "up", target_is_directory=True)  # mno/up/mno/up/... otherwise
    outside = tmp_path / "outside"
    _tree(outside, ["vwx.png"], np.random.default_rng(1))
    os.symlink(outside, classes_root / "class_0" / "more", target_is_directory=True)
    data = DatasetFolder(classes_root)
    assert [os.path.relpath(p, classes_root) for p, _ in data.samples] == [
        os.path.join("class_0", name) for name in ("abc.jpg", "def.png", "more/vwx.png")] + [
        os.path.join("class_1", name) for name in ("ghi.jpeg", "jkl.png", "mno/pqr.jpeg",
                                                   "mno/stu.jpg")]
    os.symlink(".", mno / "here", target_is_directory=True)  # two loops: 2 ** 40 walks
    assert len(ImageFolder(classes_root / "class_1")) == 4


def test_folder_batches_through_the_data_loader(classes_root):
    pytest.importorskip("PIL.Image")
    data = DatasetFolder(classes_root, transform=Compose([Resize((8, 8)), ToTensor()]))
    images, labels = next(iter(paddle.io.DataLoader(data, batch_size=4)))
    assert list(images.shape) == [4, 3, 8, 8]
    assert np.asarray(labels).tolist() == [0, 0, 1, 1]


def test_has_valid_extension_ignores_case_and_paddles_extensions():
    assert folder_module.has_valid_extension("A/B.JPeG", [".jpeg"])
    assert not folder_module.has_valid_extension("a/b.jpeg.txt", (".jpeg",))
    assert folder_module.IMG_EXTENSIONS == (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm",
                                            ".tif", ".tiff", ".webp")
    with pytest.raises(TypeError, match=r"extensions must be a list or tuple of str .* '\.jpg'"):
        folder_module.has_valid_extension("a.jpg", ".jpg")


@pytest.mark.parametrize("cls", [DatasetFolder, ImageFolder])
def test_bad_arguments_and_empty_folders_are_named(cls, tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "notes.txt").write_text("x")
    name = cls.__name__
    with pytest.raises(RuntimeError, match=f"{name}: found 0 files in subfolders of "
                       f"{tmp_path}; supported extensions are: .jpg,.jpeg,.png"):
        cls(str(tmp_path))
    with pytest.raises(RuntimeError, match="supported extensions are: those is_valid_file"):
        cls(tmp_path, is_valid_file=lambda p: False)
    with pytest.raises(FileNotFoundError, match=f"{name}: root='{tmp_path}/nope' is not a "
                       "folder"):
        cls(str(tmp_path / "nope"))
    with pytest.raises(TypeError, match=f"{name}: root must be a folder path"):
        cls(3)
    with pytest.raises(ValueError, match="pass extensions or is_valid_file, not both"):
        cls(tmp_path, extensions=(".txt",), is_valid_file=lambda p: True)
    with pytest.raises(TypeError, match="extensions must be a list or tuple of str"):
        cls(tmp_path, extensions=".txt")
    for argument in ("loader", "transform", "is_valid_file"):
        with pytest.raises(TypeError, match=f"{name}: {argument} must be callable or None, "
                           "got int"):
            cls(tmp_path, **{argument: 1})
    assert len(cls(tmp_path, extensions=[".TXT"], loader=len)) == 1


def test_a_damaged_image_and_a_missing_pillow_are_named(tmp_path, monkeypatch):
    pytest.importorskip("PIL.Image")
    (tmp_path / "c").mkdir()
    bad = tmp_path / "c" / "bad.jpg"
    bad.write_bytes(b"not a jpeg")
    data = DatasetFolder(tmp_path)
    with pytest.raises(DatasetError, match=f"{bad} is not a readable image"):
        data[0]
    monkeypatch.setitem(sys.modules, "PIL", None)
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(ImportError, match=f"reading the image {bad} needs Pillow.*pip install "
                       "pillow"):
        data[0]
    assert ImageFolder(tmp_path, loader=os.path.getsize)[0] == [10]  # a loader needs no Pillow
