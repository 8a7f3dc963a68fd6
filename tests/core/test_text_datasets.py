"""core.text.datasets Imdb / UCIHousing / Imikolov on tiny files built here in Paddle's real
formats (an aclImdb tar.gz, a housing.data text file, a simple-examples.tgz): the word
dictionaries and ids worked out by hand, normalisation, modes, dtypes, loader batches, the
download cache (file:// mirrors, Paddle's %2F URLs) and the errors."""
from __future__ import annotations

import hashlib
import io
import tarfile

import numpy as np
import pytest

import core as paddle
from core.datasets import DatasetError
from core.datasets.download import SOURCES, Source
from core.text.datasets import Imdb, Imikolov, UCIHousing


def _tar(path, members: dict) -> str:
    with tarfile.open(path, "w:gz") as archive:
        for name, text in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(text)
            archive.addfile(info, io.BytesIO(text))
    return str(path)


def _md5(path) -> str:
    with open(path, "rb") as handle:
        return hashlib.md5(handle.read()).hexdigest()


# ----- Imdb --------------------------------------------------------------------------------------
REVIEWS = {
    "aclImdb/train/pos/0_9.txt": b"Great movie, great cast!\n",
    "aclImdb/train/pos/1_8.txt": b"A great <br /> film.",
    "aclImdb/train/neg/0_2.txt": b"Bad movie. BAD!",
    "aclImdb/test/pos/0_10.txt": b"great film",
    "aclImdb/test/neg/0_1.txt": b"bad, bad acting\r\n",
    "aclImdb/train/unsup/0_0.txt": b"great great great great",  # not a labelled review
    "aclImdb/imdb.vocab": b"great\nbad\n",
}


@pytest.fixture(scope="module")
def imdb_file(tmp_path_factory):
    return _tar(tmp_path_factory.mktemp("imdb") / "aclImdb_v1.tar.gz", REVIEWS)


def test_imdb_word_dict_and_ids_are_paddles(imdb_file):
    """Counts over both modes' reviews: great 4, bad 4, movie 2, film 2, the rest 1; with
    cutoff 1 the kept words are numbered by count, then bytes: bad, great, film, movie."""
    train = Imdb(data_file=imdb_file, mode="train", cutoff=1)
    assert train.word_idx == {b"bad": 0, b"great": 1, b"film": 2, b"movie": 3, "<unk>": 4}
    docs = [train[i][0].tolist() for i in range(len(train))]
    # punctuation deleted ("<br />" -> "br"), lower-cased; positive reviews first
    assert docs == [[1, 3, 1, 4], [4, 1, 4, 2], [0, 3, 0]]
    labels = [train[i][1] for i in range(3)]
    assert [label.tolist() for label in labels] == [[0], [0], [1]]  # Paddle: pos 0, neg 1
    assert all(label.dtype == np.int64 and label.shape == (1,) for label in labels)
    assert train[0][0].dtype == np.int64
    test = Imdb(data_file=imdb_file, mode="Test", cutoff=1)
    assert test.word_idx == train.word_idx and test.mode == "test"
    assert [test[i][0].tolist() for i in range(2)] == [[1, 2], [0, 0, 4]]
    assert [test[i][1].tolist() for i in range(2)] == [[0], [1]]


def test_imdb_default_cutoff_keeps_words_seen_more_than_150_times(imdb_file):
    data = Imdb(data_file=imdb_file)  # cutoff 150: every word of this corpus is rare
    assert data.word_idx == {"<unk>": 0}
    assert data[1][0].tolist() == [0, 0, 0, 0]
    data[1][0][:] = 5  # samples are copies
    assert data[1][0].tolist() == [0, 0, 0, 0]


def test_imdb_batches_through_the_loader(imdb_file):
    data = Imdb(data_file=imdb_file, mode="test", cutoff=1)
    loader = paddle.io.DataLoader(data, batch_size=2,
                                  collate_fn=lambda batch: list(zip(*batch)))
    docs, labels = next(iter(loader))
    assert [doc.tolist() for doc in docs] == [[1, 2], [0, 0, 4]]
    assert np.concatenate(labels).tolist() == [0, 1]


# ----- UCIHousing --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def housing(tmp_path_factory):
    """housing.data of ten rows, laid out as the real file (padded columns, one row a line)."""
    rng = np.random.default_rng(0)
    rows = np.round(rng.uniform(0, 100, size=(10, 14)), 4)
    path = tmp_path_factory.mktemp("uci") / "housing.data"
    path.write_text("".join(" " + "  ".join(f"{v:8.4f}" for v in row) + "\n" for row in rows))
    return str(path), rows


def test_uci_housing_normalises_and_splits_as_paddle(housing):
    path, rows = housing
    features = rows[:, :13]
    normalised = (features - features.mean(axis=0)) / (features.max(axis=0)
                                                       - features.min(axis=0))
    train, test = UCIHousing(data_file=path), UCIHousing(data_file=path, mode="test")
    assert (len(train), len(test)) == (8, 2)  # int(0.8 * 10) rows, then the rest
    for data, offset in ((train, 0), (test, 8)):
        for i in range(len(data)):
            feature, target = data[i]
            assert feature.shape == (13,) and target.shape == (1,)
            assert feature.dtype == np.float32 and target.dtype == np.float32
            np.testing.assert_allclose(feature, normalised[offset + i], rtol=1e-6)
            np.testing.assert_allclose(target, rows[offset + i, 13:], rtol=1e-6)


def test_uci_housing_loader_batches_and_default_dtype(housing):
    path, rows = housing
    data = UCIHousing(data_file=path)
    features, targets = next(iter(paddle.io.DataLoader(data, batch_size=8)))
    assert features.shape == (8, 13) and targets.shape == (8, 1)
    np.testing.assert_array_equal(features[3], data[3][0])
    try:
        paddle.set_default_dtype("float64")
        wide = UCIHousing(data_file=path, mode="test")
    finally:
        paddle.set_default_dtype("float32")
    assert wide[0][0].dtype == np.float64 and wide.arrays[1].dtype == np.float64
    np.testing.assert_array_equal(wide[1][1], rows[9, 13:])


def test_paddle_uci_housing_tutorial_fits_a_line(tmp_path):
    """Paddle's linear-regression tutorial: Linear(13, 1), MSE, SGD over UCIHousing batches.
    Targets made linear in the normalised features are fitted (loss falls 100-fold)."""
    rng = np.random.default_rng(1)
    rows = rng.uniform(0, 10, size=(50, 14))
    span = rows[:, :13].max(0) - rows[:, :13].min(0)
    normalised = (rows[:, :13] - rows[:, :13].mean(0)) / span
    rows[:, 13] = normalised @ rng.normal(size=13) * 5 + 20
    path = tmp_path / "housing.data"
    path.write_text("\n".join(" ".join(f"{v:.10f}" for v in row) for row in rows))
    paddle.seed(0)
    model = paddle.nn.Linear(13, 1)
    optimizer = paddle.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
    loader = paddle.io.DataLoader(UCIHousing(data_file=str(path)), batch_size=10,
                                  shuffle=True, return_tensors=True)
    losses = []
    for _ in range(60):
        for feature, target in loader:
            loss = paddle.nn.functional.mse_loss(model(feature), target)
            loss.backward()
            optimizer.step()
            optimizer.clear_grad()
            losses.append(float(loss))
    assert losses[-1] < losses[0] / 100, (losses[0], losses[-1])


@pytest.mark.parametrize("text, match", [
    ("1 2 3\n", "holds 3 numbers, not rows of 14"),
    ("", "holds 0 numbers"),
    ("1 2 x\n", "holds a value that is not a number"),
])
def test_uci_housing_names_a_file_that_is_not_housing_data(tmp_path, text, match):
    path = tmp_path / "housing.data"
    path.write_text(text)
    with pytest.raises(DatasetError, match=f"UCIHousing: .*{match}"):
        UCIHousing(data_file=str(path))


# ----- Imikolov ----------------------------------------------------------------------------------
PTB = {
    "./simple-examples/data/ptb.train.txt": b" the cat sat \n the dog sat \n a <unk> ran \n",
    "./simple-examples/data/ptb.valid.txt": b" the <unk> ran \n",
    "./simple-examples/data/ptb.test.txt": b" the bird sat \n dog \n",
    "./simple-examples/README": b"PTB, Mikolov's simple examples",
}
# Train and valid counts: <s> 4, <e> 4, the 3, b'<unk>' 2, ran 2, sat 2, the rest 1. With
# min_word_freq 1: the markers (ties in byte order), then by count; the corpus's <unk> token
# is an ordinary word, the '<unk>' marker comes last.
WORD_IDX = {"<e>": 0, "<s>": 1, b"the": 2, b"<unk>": 3, b"ran": 4, b"sat": 5, "<unk>": 6}


@pytest.fixture(scope="module")
def ptb_file(tmp_path_factory):
    return _tar(tmp_path_factory.mktemp("imikolov") / "simple-examples.tgz", PTB)


def test_imikolov_ngrams_are_paddles(ptb_file):
    train = Imikolov(data_file=ptb_file, window_size=3, min_word_freq=1)
    assert train.word_idx == WORD_IDX and train.data_type == "NGRAM"
    grams = [tuple(int(v) for v in train[i]) for i in range(len(train))]
    assert grams == [(1, 2, 6), (2, 6, 5), (6, 5, 0)] * 2 + [(1, 6, 3), (6, 3, 4), (3, 4, 0)]
    sample = train[0]
    assert isinstance(sample, tuple) and len(sample) == 3
    assert all(v.shape == () and v.dtype == np.int64 for v in sample)
    test = Imikolov(data_file=ptb_file, window_size=3, mode="test", min_word_freq=1)
    assert [tuple(int(v) for v in test[i]) for i in range(len(test))] == \
        [(1, 2, 6), (2, 6, 5), (6, 5, 0), (1, 6, 0)]  # ptb.test.txt, as Paddle
    long = Imikolov(data_file=ptb_file, window_size=5, mode="test", min_word_freq=1)
    assert len(long) == 1  # " dog " is shorter than the window


def test_imikolov_ngram_batches_through_the_loader(ptb_file):
    data = Imikolov(data_file=ptb_file, window_size=3, min_word_freq=1)
    fast = next(iter(paddle.io.DataLoader(data, batch_size=9)))
    slow = next(iter(paddle.io.DataLoader(paddle.io.Subset(data, list(range(9))),
                                          batch_size=9)))
    assert len(fast) == 3 and fast[0].shape == (9,) and fast[0].dtype == np.int64
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)
    assert fast[2].tolist() == [6, 5, 0, 6, 5, 0, 3, 4, 0]


def test_imikolov_sequences_are_paddles(ptb_file):
    train = Imikolov(data_file=ptb_file, data_type="seq", min_word_freq=1)
    pairs = [(src.tolist(), trg.tolist()) for src, trg in (train[i] for i in range(3))]
    assert pairs == [([1, 2, 6, 5], [2, 6, 5, 0])] * 2 + [([1, 6, 3, 4], [6, 3, 4, 0])]
    assert train[0][0].dtype == np.int64 and train.arrays is None
    kept = Imikolov(data_file=ptb_file, data_type="SEQ", window_size=3, mode="test",
                    min_word_freq=1)
    assert [kept[i][0].tolist() for i in range(len(kept))] == [[1, 6]]  # longer src dropped


def test_imikolov_default_min_word_freq(ptb_file):
    data = Imikolov(data_file=ptb_file, data_type="SEQ")  # 50: only the marker survives
    assert data.word_idx == {"<unk>": 0} and data.min_word_freq == 50
    assert data[2][0].tolist() == [0, 0, 0, 0]  # the markers are rare too: '<unk>'


@pytest.mark.parametrize("kwargs, error, match", [
    ({"data_type": "CBOW"}, ValueError, "data_type='CBOW' must be 'NGRAM' or 'SEQ'"),
    ({"mode": "valid", "window_size": 2}, ValueError, "mode='valid' must be 'train' or"),
    ({}, ValueError, "window_size=-1 must be >= 1 for data_type='NGRAM'"),
    ({"window_size": 2.0}, TypeError, "window_size must be an int, got 2.0"),
    ({"window_size": 2, "min_word_freq": None}, TypeError, "min_word_freq must be an int"),
])
def test_imikolov_bad_arguments_name_the_argument(ptb_file, kwargs, error, match):
    with pytest.raises(error, match=f"Imikolov: {match}"):
        Imikolov(data_file=ptb_file, **kwargs)


def test_imikolov_names_a_file_that_is_not_the_archive(tmp_path):
    path = _tar(tmp_path / "simple-examples.tgz", {"./simple-examples/data/ptb.train.txt": b"a"})
    with pytest.raises(DatasetError, match="has no ./simple-examples/data/ptb.valid.txt"):
        Imikolov(data_file=path, window_size=2)


# ----- the three: files, downloads and errors ----------------------------------------------------
@pytest.mark.parametrize("cls, kwargs, name, filename, url", [
    (Imdb, {}, "imdb", "aclImdb_v1.tar.gz",
     "https://dataset.bj.bcebos.com/imdb%2FaclImdb_v1.tar.gz"),
    (UCIHousing, {}, "uci_housing", "housing.data",
     "http://paddlemodels.bj.bcebos.com/uci_housing/housing.data"),
    (Imikolov, {"window_size": 2}, "imikolov", "simple-examples.tgz",
     "https://dataset.bj.bcebos.com/imikolov%2Fsimple-examples.tgz"),
])
def test_download_false_without_the_file_explains(tmp_path, monkeypatch, cls, kwargs, name,
                                                  filename, url):
    monkeypatch.setenv("HOME", str(tmp_path))  # an empty download cache
    with pytest.raises(DatasetError) as info:
        cls(download=False, **kwargs)
    message = str(info.value)
    assert message.startswith(f"{cls.__name__}: data_file is None and download=False")
    assert str(tmp_path / ".cache" / "tomlrun" / name) in message and "\n" not in message
    assert f"{filename}" in message and url in message  # Paddle's own URL
    assert SOURCES[name].files[filename] in message
    with pytest.raises(DatasetError, match=r"data_file='.*missing' is not a file"):
        cls(data_file=str(tmp_path / "missing"), **kwargs)


def test_a_download_from_a_paddle_style_percent_2f_mirror(imdb_file, tmp_path, monkeypatch):
    """Paddle's bcebos URLs escape the slash before the file name (``imdb%2FaclImdb...``): a
    mirror ending in %2F takes the name as it is."""
    served = tmp_path / "mirror" / "imdb"
    served.mkdir(parents=True)
    (served / "aclImdb_v1.tar.gz").write_bytes(open(imdb_file, "rb").read())
    mirror = (tmp_path / "mirror").as_uri() + "/imdb%2F"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setitem(SOURCES, "imdb", Source(files={"aclImdb_v1.tar.gz": _md5(imdb_file)},
                                                mirrors=(mirror,)))
    data = Imdb(cutoff=1)
    assert data.data_file == str(tmp_path / "home" / ".cache" / "tomlrun" / "imdb"
                                 / "aclImdb_v1.tar.gz")
    assert len(data) == 3


def test_a_wrong_md5_leaves_nothing_in_the_cache(housing, tmp_path, monkeypatch):
    path, _ = housing
    monkeypatch.setenv("HOME", str(tmp_path))
    folder = path.rsplit("/", 1)[0]
    monkeypatch.setitem(SOURCES, "uci_housing", Source(files={"housing.data": "f" * 32},
                                                       mirrors=("file://" + folder,)))
    with pytest.raises(DatasetError, match="md5 .* expected f{32}"):
        UCIHousing()
    assert list((tmp_path / ".cache" / "tomlrun" / "uci_housing").iterdir()) == []


def test_the_sources_are_paddles():
    assert SOURCES["imdb"].files == {"aclImdb_v1.tar.gz": "7c2ac02c03563afcf9b574c7e56c153a"}
    assert SOURCES["uci_housing"].files == {"housing.data": "d4accdce7a25600298819f8e28e8d593"}
    assert SOURCES["imikolov"].files == {"simple-examples.tgz":
                                         "30177ea32e27c525793142b6bf2c8e2d"}


@pytest.mark.parametrize("cls, kwargs, match", [
    (Imdb, {"mode": "valid"}, "Imdb: mode='valid' must be 'train' or 'test'"),
    (Imdb, {"cutoff": 1.5}, "Imdb: cutoff must be an int"),
    (UCIHousing, {"mode": "dev"}, "UCIHousing: mode='dev' must be 'train' or 'test'"),
])
def test_bad_arguments_name_the_argument(cls, kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        cls(download=False, **kwargs)


def test_imdb_names_an_archive_without_reviews(tmp_path):
    path = _tar(tmp_path / "aclImdb_v1.tar.gz", {"aclImdb/README": b"hi"})
    with pytest.raises(DatasetError, match="holds no review"):
        Imdb(data_file=path)
    (tmp_path / "bad.tar.gz").write_bytes(b"nope")
    with pytest.raises(DatasetError, match="is not a readable tar archive"):
        Imdb(data_file=str(tmp_path / "bad.tar.gz"))


@pytest.mark.parametrize("cls, kwargs, members, filename", [
    (Imdb, {"cutoff": 0}, REVIEWS, "aclImdb_v1.tar.gz"),
    (Imikolov, {"window_size": 2, "min_word_freq": 0}, PTB, "simple-examples.tgz"),
])
def test_a_truncated_archive_is_one_error_naming_the_file(tmp_path, cls, kwargs, members,
                                                          filename):
    with open(_tar(tmp_path / filename, members), "rb") as handle:
        whole = handle.read()
    cut = tmp_path / f"cut-{filename}"
    cut.write_bytes(whole[:len(whole) // 2])  # a download cut off half way (gzip: EOFError)
    with pytest.raises(DatasetError) as info:
        cls(data_file=str(cut), **kwargs)
    message = str(info.value)
    assert message.startswith(f"{cls.__name__}: {cut} is not a readable tar archive "
                              f"({filename}): Compressed file ended")
    assert "\n" not in message
    (tmp_path / "junk.tgz").write_bytes(b"\x1f\x8b" + b"junk" * 8)  # tarfile: one line per method
    with pytest.raises(DatasetError, match="not a readable tar archive") as info:
        cls(data_file=str(tmp_path / "junk.tgz"), **kwargs)
    assert "\n" not in str(info.value)


def test_core_text_keeps_its_names_and_adds_the_datasets():
    import core.text

    assert core.text.datasets.Imdb is Imdb and core.text.UCIHousing is UCIHousing
    assert callable(core.text.viterbi_decode) and core.text.ViterbiDecoder
    assert paddle.text.Imikolov is Imikolov
