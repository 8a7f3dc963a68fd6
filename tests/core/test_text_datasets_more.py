"""core.text.datasets Movielens / Conll05st / WMT14 / WMT16 on tiny archives built here with
the real files' internal layout (ml-1m.zip, conll05st-tests.tar.gz and its dictionaries,
wmt14.tgz, wmt16.tar.gz): the samples, ids and dictionaries worked out by hand, Paddle's
random split, the helper methods, loader batches, the download table and the errors."""
from __future__ import annotations

import gzip
import io
import tarfile
import zipfile

import numpy as np
import pytest

import core as paddle
from core.datasets import DatasetError
from core.datasets.download import SOURCES
from core.text.datasets import WMT14, WMT16, Conll05st, Movielens
from core.text.datasets.movielens import MovieInfo, UserInfo


def _tar(path, members: dict) -> str:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return str(path)


def _values(sample) -> list:
    return [field.tolist() for field in sample]


# ----- Movielens ---------------------------------------------------------------------------------
MOVIES = (b"1::Toy Story (1995)::Animation|Children's|Comedy\n"
          b"2::Jumanji (1995)::Adventure|Children's|Fantasy\n"
          b"3::Toy Soldiers, The (1991)::Action|Comedy\n")
USERS = b"1::F::1::10::48067\n2::M::56::16::70072\n3::M::25::15::55117\n"
RATINGS = (b"1::1::5::978300760\n2::3::3::978302109\n3::2::1::978301968\n"
           b"1::3::4::978300275\n")
# Title words as first seen: toy 0, story 1, jumanji 2, 'soldiers,' 3, the 4; genres:
# Animation 0, Children's 1, Comedy 2, Adventure 3, Fantasy 4, Action 5. Ages 1, 56, 25 are
# positions 0, 6, 2 of age_table; F is 1, M 0; s stars are 2s - 5.
SAMPLES = [
    [[1], [1], [0], [10], [1], [0, 1, 2], [0, 1], [5.0]],
    [[2], [0], [6], [16], [3], [5, 2], [0, 3, 4], [1.0]],
    [[3], [0], [2], [15], [2], [3, 1, 4], [2], [-3.0]],
    [[1], [1], [0], [10], [3], [5, 2], [0, 3, 4], [3.0]],
]


def _zip(path, members: dict) -> str:
    with zipfile.ZipFile(path, "w") as package:
        for name, data in members.items():
            package.writestr(name, data)
    return str(path)


@pytest.fixture(scope="module")
def ml_file(tmp_path_factory):
    return _zip(tmp_path_factory.mktemp("movielens") / "ml-1m.zip",
                {"ml-1m/movies.dat": MOVIES, "ml-1m/users.dat": USERS,
                 "ml-1m/ratings.dat": RATINGS, "ml-1m/README": b"MovieLens 1M"})


def test_movielens_samples_and_dictionaries_are_paddles(ml_file):
    data = Movielens(data_file=ml_file, test_ratio=0.0)  # nothing drawn below 0: all train
    assert [_values(data[i]) for i in range(len(data))] == SAMPLES
    assert data.movie_title_dict == {"toy": 0, "story": 1, "jumanji": 2, "soldiers,": 3,
                                     "the": 4}
    assert data.categories_dict == {"Animation": 0, "Children's": 1, "Comedy": 2,
                                    "Adventure": 3, "Fantasy": 4, "Action": 5}
    sample = data[1]
    assert len(sample) == 8 and all(field.dtype == np.int64 for field in sample[:7])
    assert sample[7].dtype == np.float64 and sample[7].shape == (1,)  # Paddle's float rating
    assert len(Movielens(data_file=ml_file, mode="test", test_ratio=0.0)) == 0
    every = Movielens(data_file=ml_file, mode="TEST", test_ratio=1.0)
    assert every.mode == "test" and [_values(every[i]) for i in range(4)] == SAMPLES
    data[0][5][:] = 9  # samples are copies
    assert data[0][5].tolist() == [0, 1, 2]


def test_movielens_split_is_paddles_random_draw(ml_file):
    """Paddle seeds numpy with rand_seed and draws once per rating line: seed 0 draws 0.549,
    0.715, 0.603, 0.545, so with test_ratio 0.6 lines 1 and 4 are 'test'. numpy's global
    generator is left alone."""
    np.random.seed(123)
    before = np.random.get_state()[1].copy()
    train = Movielens(data_file=ml_file, test_ratio=0.6, rand_seed=0)
    test = Movielens(data_file=ml_file, mode="test", test_ratio=0.6, rand_seed=0)
    np.testing.assert_array_equal(np.random.get_state()[1], before)
    assert [_values(train[i]) for i in range(len(train))] == [SAMPLES[1], SAMPLES[2]]
    assert [_values(test[i]) for i in range(len(test))] == [SAMPLES[0], SAMPLES[3]]
    np.random.seed(7)  # any seed: Paddle's procedure, sample for sample
    in_test = [np.random.random() < 0.5 for _ in range(4)]
    seven = Movielens(data_file=ml_file, mode="test", test_ratio=0.5, rand_seed=7)
    assert [_values(seven[i]) for i in range(len(seven))] == \
        [s for s, chosen in zip(SAMPLES, in_test) if chosen]


def test_movielens_movie_and_user_info(ml_file):
    data = Movielens(data_file=ml_file, test_ratio=0.0)
    movie, user = data.movie_info[1], data.user_info[2]
    assert isinstance(movie, MovieInfo) and isinstance(user, UserInfo)
    assert str(movie) == ("<MovieInfo id(1), title(Toy Story ), "
                          "categories(['Animation', \"Children's\", 'Comedy'])>")
    assert repr(user) == "<UserInfo id(2), gender(M), age(56), job(16)>"
    assert movie.value(data.categories_dict, data.movie_title_dict) == [[1], [0, 1, 2], [0, 1]]
    assert user.value() == [[2], [0], [6], [16]] and not UserInfo(5, "F", "18", "3").is_male
    assert sorted(data.user_info) == [1, 2, 3] and sorted(data.movie_info) == [1, 2, 3]


def test_movielens_batches_for_a_recommender(ml_file):
    """Paddle's recommender tutorial's use: a collate that stacks the fixed fields and pads
    the genres and title words, then embeddings score user-movie pairs against the rating."""
    def collate(batch):
        fields = list(zip(*batch))
        fixed = [np.concatenate(fields[k]) for k in (0, 1, 2, 3, 4, 7)]
        padded = []
        for k in (5, 6):
            width = max(len(ids) for ids in fields[k])
            padded.append(np.stack([np.pad(ids, (0, width - len(ids))) for ids in fields[k]]))
        return [*fixed, *padded]

    loader = paddle.io.DataLoader(Movielens(data_file=ml_file, test_ratio=0.0), batch_size=4,
                                  collate_fn=collate)
    users, genders, ages, jobs, movies, ratings, genres, titles = next(iter(loader))
    assert users.tolist() == [1, 2, 3, 1] and movies.tolist() == [1, 3, 2, 3]
    assert genres.tolist() == [[0, 1, 2], [5, 2, 0], [3, 1, 4], [5, 2, 0]]
    assert titles.shape == (4, 3) and ratings.tolist() == [5.0, 1.0, -3.0, 3.0]
    paddle.seed(0)
    user_emb, movie_emb = paddle.nn.Embedding(4, 8), paddle.nn.Embedding(4, 8)
    genre_emb = paddle.nn.Embedding(6, 8)
    user = user_emb(paddle.to_tensor(users))
    movie = movie_emb(paddle.to_tensor(movies)) + genre_emb(paddle.to_tensor(genres)).sum(1)
    score = (user * movie).sum(-1)
    loss = paddle.nn.functional.mse_loss(score, paddle.to_tensor(ratings.astype("float32")))
    loss.backward()
    assert loss.shape == [] and user_emb.weight.grad is not None


@pytest.mark.parametrize("kwargs, match", [
    ({"mode": "val"}, "mode='val' must be 'train' or 'test'"),
    ({"test_ratio": 1.5}, r"test_ratio=1.5 must be a number in \[0, 1\]"),
    ({"test_ratio": "0.1"}, "test_ratio='0.1' must be a number"),
    ({"rand_seed": -1}, r"rand_seed=-1 must be an int in \[0, 2\*\*32\)"),
    ({"rand_seed": 1.0}, "rand_seed=1.0 must be an int"),
])
def test_movielens_bad_arguments_name_the_argument(ml_file, kwargs, match):
    with pytest.raises(ValueError, match=f"Movielens: {match}"):
        Movielens(data_file=ml_file, **kwargs)


@pytest.mark.parametrize("members, match", [
    ({"ml-1m/movies.dat": MOVIES, "ml-1m/users.dat": USERS}, "has no ml-1m/ratings.dat"),
    ({"ml-1m/movies.dat": b"1::Toy Story::Comedy\n", "ml-1m/users.dat": USERS,
      "ml-1m/ratings.dat": b""}, "line 1 of ml-1m/movies.dat: title 'Toy Story' does not"),
    ({"ml-1m/movies.dat": MOVIES, "ml-1m/users.dat": b"1::F::1::10::1\n2::M::30::1::2\n",
      "ml-1m/ratings.dat": b""}, r"line 2 of ml-1m/users.dat: age '30' is not one of \[1,"),
    ({"ml-1m/movies.dat": MOVIES, "ml-1m/users.dat": USERS,
      "ml-1m/ratings.dat": b"1::1::5::0\n1::9::5::0\n"},
     "line 2 of ml-1m/ratings.dat names movie 9, which movies.dat does not list"),
    ({"ml-1m/movies.dat": MOVIES, "ml-1m/users.dat": USERS,
      "ml-1m/ratings.dat": b"1::1::5\n"}, "line 1 of ml-1m/ratings.dat .* has 3 '::'-separ"),
    ({"ml-1m/movies.dat": MOVIES, "ml-1m/users.dat": USERS,
      "ml-1m/ratings.dat": b"1::1::five::0\n"}, "has 'five' where a number belongs"),
])
def test_movielens_names_what_is_wrong_with_the_zip(tmp_path, members, match):
    path = _zip(tmp_path / "ml-1m.zip", members)
    with pytest.raises(DatasetError, match=f"Movielens: .*{match}"):
        Movielens(data_file=path, test_ratio=0.0)
    (tmp_path / "junk.zip").write_bytes(b"PK junk")
    with pytest.raises(DatasetError, match="is not a readable zip archive .ml-1m.zip.: "):
        Movielens(data_file=str(tmp_path / "junk.zip"))


# ----- Conll05st ---------------------------------------------------------------------------------
WORDS = b"John\nsaw\nMary\nleave\n.\n\nIt\nrains\n.\n\n\nHi\n.\n\n"
PROPS = (b"-      (A0*)  *\n"
         b"see    (V*)   *\n"
         b"-      (A1*   (A0*)\n"
         b"leave  *)     (V*)\n"
         b"-      *      *\n"
         b"\n"
         b"-      (A0*)\n"
         b"rain   (V*)\n"
         b"-      *\n"
         b"\n"
         b"\n"  # a second blank line: no sentence
         b"-\n"
         b"-\n"  # a sentence without predicates: no sample
         b"\n")
WORD_DICT = "<unk>\nbos\neos\nJohn\nsaw\nMary\n.\nIt\n"  # leave, rains: id 0
VERB_DICT = "see\nleave\nrain\n"
TARGET_DICT = "B-A1\nI-A1\nB-A0\nI-A0\nB-V\nI-V\nO\n"
_CONLL = "conll05st-release/test.wsj/"


def _conll_files(folder, words=WORDS, props=PROPS, target=TARGET_DICT, verbs=VERB_DICT):
    data = _tar(folder / "conll05st-tests.tar.gz",
                {_CONLL + "words/test.wsj.words.gz": gzip.compress(words),
                 _CONLL + "props/test.wsj.props.gz": gzip.compress(props),
                 _CONLL + "README": b"CoNLL-2005"})
    paths = {"data_file": data}
    for name, text in (("word_dict_file", WORD_DICT), ("verb_dict_file", verbs),
                       ("target_dict_file", target), ("emb_file", "\x00\x01")):
        path = folder / name
        path.write_text(text)
        paths[name] = str(path)
    return paths


@pytest.fixture(scope="module")
def conll_files(tmp_path_factory):
    return _conll_files(tmp_path_factory.mktemp("conll05st"))


def test_conll05st_samples_are_paddles(conll_files):
    """One sample per predicate column. 'saw' (index 1): contexts bos, John, saw, Mary, leave;
    'leave' (index 3): saw, Mary, leave, '.', eos; 'rains' (index 1): bos, It, rains, '.',
    eos. Labels: B-A1 0, I-A1 1, B-A0 2, I-A0 3, B-V 4, I-V 5, O 6."""
    data = Conll05st(**conll_files)
    assert len(data) == 3
    assert _values(data[0]) == [[3, 4, 5, 0, 6], [1] * 5, [3] * 5, [4] * 5, [5] * 5, [0] * 5,
                                [0] * 5, [1, 1, 1, 1, 0], [2, 4, 0, 1, 6]]
    assert _values(data[1]) == [[3, 4, 5, 0, 6], [4] * 5, [5] * 5, [0] * 5, [6] * 5, [2] * 5,
                                [1] * 5, [0, 1, 1, 1, 1], [6, 6, 2, 4, 6]]
    assert _values(data[2]) == [[7, 0, 6], [1] * 3, [7] * 3, [0] * 3, [6] * 3, [2] * 3,
                                [2] * 3, [1, 1, 1], [2, 4, 6]]
    assert all(len(data[0]) == 9 and field.dtype == np.int64 for field in data[0])
    assert data.labels[0] == ["B-A0", "B-V", "B-A1", "I-A1", "O"]
    assert data.predicates == ["see", "leave", "rain"]


def test_conll05st_get_dict_and_get_embedding(conll_files):
    data = Conll05st(**conll_files)
    word_dict, predicate_dict, label_dict = data.get_dict()
    assert word_dict == {"<unk>": 0, "bos": 1, "eos": 2, "John": 3, "saw": 4, "Mary": 5,
                         ".": 6, "It": 7}
    assert predicate_dict == {"see": 0, "leave": 1, "rain": 2}
    # the tags in the order targetDict.txt first names them (Paddle: a set's order), then O
    assert label_dict == {"B-A1": 0, "I-A1": 1, "B-A0": 2, "I-A0": 3, "B-V": 4, "I-V": 5,
                          "O": 6}
    assert data.get_embedding() == conll_files["emb_file"]


def test_conll05st_batches_through_the_loader(conll_files):
    data = Conll05st(**conll_files)
    loader = paddle.io.DataLoader(paddle.io.Subset(data, [0, 1]), batch_size=2)
    batch = next(iter(loader))  # equal lengths: numpy's stack, field by field
    assert len(batch) == 9 and batch[0].shape == (2, 5)
    assert batch[7].tolist() == [[1, 1, 1, 1, 0], [0, 1, 1, 1, 1]]
    emb = paddle.nn.Embedding(8, 4)
    assert emb(paddle.to_tensor(batch[0])).shape == [2, 5, 4]


def test_conll05st_names_a_bad_file(tmp_path, conll_files):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
    bad_label = _conll_files(tmp_path / "a", props=PROPS.replace(b"(A1*   (A0*)", b"A1   (A0*)"))
    with pytest.raises(DatasetError, match=r"unexpected label 'A1' in conll05st-release/"
                                           r"test.wsj/props/test.wsj.props.gz \(each is '\*'"):
        Conll05st(**{**conll_files, "data_file": bad_label["data_file"]})
    data = Conll05st(**{**conll_files, "verb_dict_file": conll_files["word_dict_file"]})
    with pytest.raises(DatasetError, match="Conll05st: predicate 'see' is not in .*word_dict"):
        data[0]
    no_verb = _tar(tmp_path / "b" / "c.tar.gz",
                   {_CONLL + "words/test.wsj.words.gz": gzip.compress(b"Hi\n\n"),
                    _CONLL + "props/test.wsj.props.gz": gzip.compress(b"go (A0*)\n\n")})
    data = Conll05st(**{**conll_files, "data_file": no_verb})
    with pytest.raises(DatasetError, match=r"predicate 0 \('go'\) has no '\(V\*\)'"):
        data[0]
    missing = _tar(tmp_path / "b" / "d.tar.gz", {_CONLL + "words/test.wsj.words.gz": b""})
    with pytest.raises(DatasetError, match=f"has no {_CONLL}props/test.wsj.props.gz: it is not"):
        Conll05st(**{**conll_files, "data_file": missing})


# ----- WMT14 -------------------------------------------------------------------------------------
LONG = " ".join(["le"] * 78)  # 80 ids with <s> and <e>: kept; one word more is dropped
WMT14_MEMBERS = {
    "wmt14/src.dict": b"<s>\n<e>\n<unk>\nle\nchat\nnoir\n",
    "wmt14/trg.dict": b"<s>\n<e>\n<unk>\nthe\ncat\nblack\n",
    "wmt14/train/train": (b"le chat\tthe cat\nle chat noir\tthe black cat\nno tab here\n"
                          + f"{LONG}\tthe\n{LONG} le\tthe\nle\t{' '.join(['the'] * 81)}\n"
                          .encode()),
    "wmt14/test/test": b"chat\tcat\n",
    "wmt14/gen/gen": b"noir\tblack\n",
}


@pytest.fixture(scope="module")
def wmt14_file(tmp_path_factory):
    return _tar(tmp_path_factory.mktemp("wmt14") / "wmt14.tgz", WMT14_MEMBERS)


def test_wmt14_samples_are_paddles(wmt14_file):
    """dict_size 5 keeps <s> 0, <e> 1, <unk> 2, le/the 3, chat/cat 4: noir and black are 2."""
    data = WMT14(data_file=wmt14_file, dict_size=5)
    assert len(data) == 3  # the line without a tab and the two over 80 ids are left out
    assert _values(data[0]) == [[0, 3, 4, 1], [0, 3, 4], [3, 4, 1]]
    assert _values(data[1]) == [[0, 3, 4, 2, 1], [0, 3, 2, 4], [3, 2, 4, 1]]
    assert len(data[2][0]) == 80 and _values(data[2])[1:] == [[0, 3], [3, 1]]
    assert all(field.dtype == np.int64 for field in data[0])
    test = WMT14(data_file=wmt14_file, mode="test", dict_size=5)
    assert [_values(test[i]) for i in range(len(test))] == [[[0, 4, 1], [0, 4], [4, 1]]]
    gen = WMT14(data_file=wmt14_file, mode="GEN", dict_size=6)
    assert gen.mode == "gen" and _values(gen[0]) == [[0, 5, 1], [0, 5], [5, 1]]


def test_wmt14_get_dict(wmt14_file):
    data = WMT14(data_file=wmt14_file, mode="test", dict_size=4)
    src, trg = data.get_dict()
    assert src == {"<s>": 0, "<e>": 1, "<unk>": 2, "le": 3}
    assert trg == {"<s>": 0, "<e>": 1, "<unk>": 2, "the": 3}
    src, trg = data.get_dict(reverse=True)
    assert src == {0: "<s>", 1: "<e>", 2: "<unk>", 3: "le"} and trg[3] == "the"


def test_wmt14_batches_through_the_loader(wmt14_file):
    def pad(batch):
        width = max(len(ids) for sample in batch for ids in sample)
        return [np.stack([np.pad(sample[k], (0, width - len(sample[k]))) for sample in batch])
                for k in range(3)]

    data = WMT14(data_file=wmt14_file, dict_size=5)
    src, trg, trg_next = next(iter(paddle.io.DataLoader(data, batch_size=2, collate_fn=pad)))
    assert src.tolist() == [[0, 3, 4, 1, 0], [0, 3, 4, 2, 1]]
    assert trg_next.tolist() == [[3, 4, 1, 0, 0], [3, 2, 4, 1, 0]] and trg.shape == (2, 5)


@pytest.mark.parametrize("kwargs, error, match", [
    ({}, ValueError, "dict_size=-1 must be a positive int"),
    ({"dict_size": 2.0}, ValueError, "dict_size=2.0 must be a positive int"),
    ({"mode": "val", "dict_size": 5}, ValueError, "mode='val' must be 'train', 'test' or 'gen'"),
    ({"dict_size": 1}, DatasetError, "the first dict_size=1 lines of trg.dict have no '<e>'"),
])
def test_wmt14_bad_arguments_name_the_argument(wmt14_file, kwargs, error, match):
    with pytest.raises(error, match=f"WMT14: {match}"):
        WMT14(data_file=wmt14_file, **kwargs)


def test_wmt14_names_an_archive_that_is_not_wmt14(tmp_path):
    members = {k: v for k, v in WMT14_MEMBERS.items() if k != "wmt14/gen/gen"}
    path = _tar(tmp_path / "wmt14.tgz", members)
    with pytest.raises(DatasetError, match="has no file whose name ends in 'gen/gen'"):
        WMT14(data_file=path, mode="gen", dict_size=5)
    path = _tar(tmp_path / "two.tgz", {**WMT14_MEMBERS, "other/src.dict": b"<s>\n"})
    with pytest.raises(DatasetError, match="has 2 files whose name ends in 'src.dict'"):
        WMT14(data_file=path, dict_size=5)


# ----- WMT16 -------------------------------------------------------------------------------------
WMT16_MEMBERS = {
    "wmt16/train": (b"a cat sits\tdie katze sitzt\na dog sits\tder hund sitzt\n"
                    b"the cat runs\tdie katze rennt\nbroken line\n"),
    "wmt16/test": b"a dog runs\tder hund rennt\n",
    "wmt16/val": "the cat\tdie katze\u00df\n".encode(),
}
# English counts in wmt16/train: a 2, cat 2, sits 2, dog 1, the 1, runs 1 (ties kept in the
# order first seen); German: die 2, katze 2, sitzt 2, der 1, hund 1, rennt 1.
EN = {"<s>": 0, "<e>": 1, "<unk>": 2, "a": 3, "cat": 4, "sits": 5, "dog": 6}
DE = {"<s>": 0, "<e>": 1, "<unk>": 2, "die": 3, "katze": 4}


@pytest.fixture(scope="module")
def wmt16_file(tmp_path_factory):
    return _tar(tmp_path_factory.mktemp("wmt16") / "wmt16.tar.gz", WMT16_MEMBERS)


def test_wmt16_dictionaries_and_samples_are_paddles(wmt16_file):
    data = WMT16(data_file=wmt16_file, src_dict_size=6, trg_dict_size=5)
    assert data.get_dict("en") == {k: v for k, v in EN.items() if v < 6}
    assert data.get_dict("de") == DE  # built from the German column
    assert len(data) == 3  # the line without a tab is skipped
    assert _values(data[0]) == [[0, 3, 4, 5, 1], [0, 3, 4, 2], [3, 4, 2, 1]]
    assert _values(data[1]) == [[0, 3, 2, 5, 1], [0, 2, 2, 2], [2, 2, 2, 1]]
    assert _values(data[2]) == [[0, 2, 4, 2, 1], [0, 3, 4, 2], [3, 4, 2, 1]]
    assert all(field.dtype == np.int64 for field in data[0])
    assert (data.src_dict_size, data.trg_dict_size) == (6, 5)


def test_wmt16_german_source_and_other_modes(wmt16_file):
    test = WMT16(data_file=wmt16_file, mode="test", src_dict_size=5, trg_dict_size=7,
                 lang="de")
    assert test.get_dict("en") == EN and test.get_dict("de") == DE
    assert _values(test[0]) == [[0, 2, 2, 2, 1], [0, 3, 6, 2], [3, 6, 2, 1]]
    val = WMT16(data_file=wmt16_file, mode="Val", src_dict_size=3, trg_dict_size=3)
    assert val.mode == "val" and _values(val[0]) == [[0, 2, 2, 1], [0, 2, 2], [2, 2, 1]]
    every = WMT16(data_file=wmt16_file, src_dict_size=100, trg_dict_size=20000)
    assert len(every.get_dict("en")) == 9  # a size beyond the vocabulary keeps every word
    assert every.trg_dict_size == 19220  # Paddle's attribute: capped at German's full size
    reverse = every.get_dict("de", reverse=True)
    assert reverse[0] == "<s>" and reverse[3] == "die" and len(reverse) == 9


def test_wmt16_batches_through_the_loader(wmt16_file):
    data = WMT16(data_file=wmt16_file, src_dict_size=6, trg_dict_size=5)
    batch = next(iter(paddle.io.DataLoader(data, batch_size=3)))  # equal lengths: stacked
    assert [field.shape for field in batch] == [(3, 5), (3, 4), (3, 4)]
    emb = paddle.nn.Embedding(6, 3)
    assert emb(paddle.to_tensor(batch[0])).shape == [3, 5, 3]


@pytest.mark.parametrize("kwargs, match", [
    ({}, "src_dict_size=-1 must be an int >= 3"),
    ({"src_dict_size": 5, "trg_dict_size": 2}, "trg_dict_size=2 must be an int >= 3 .*'<unk>'"),
    ({"src_dict_size": 5, "trg_dict_size": 5, "mode": "dev"},
     "mode='dev' must be 'train', 'test' or 'val'"),
    ({"src_dict_size": 5, "trg_dict_size": 5, "lang": "fr"}, "lang='fr' must be 'en' or 'de'"),
])
def test_wmt16_bad_arguments_name_the_argument(wmt16_file, kwargs, match):
    with pytest.raises(ValueError, match=f"WMT16: {match}"):
        WMT16(data_file=wmt16_file, **kwargs)


def test_wmt16_errors_name_the_problem(wmt16_file, tmp_path):
    data = WMT16(data_file=wmt16_file, src_dict_size=5, trg_dict_size=5)
    with pytest.raises(ValueError, match="WMT16.get_dict: lang='fr' must be 'en' or 'de'"):
        data.get_dict("fr")
    path = _tar(tmp_path / "wmt16.tar.gz", {"wmt16/train": WMT16_MEMBERS["wmt16/train"]})
    with pytest.raises(DatasetError, match="WMT16: .* has no wmt16/val: it is not wmt16.tar.gz"):
        WMT16(data_file=path, mode="val", src_dict_size=5, trg_dict_size=5)


# ----- the four: files, downloads and errors -----------------------------------------------------
SIZES = {"src_dict_size": 5, "trg_dict_size": 5}


@pytest.mark.parametrize("cls, kwargs, name, filename, url", [
    (Movielens, {}, "movielens", "ml-1m.zip",
     "https://dataset.bj.bcebos.com/movielens%2Fml-1m.zip"),
    (Conll05st, {}, "conll05st", "conll05st-tests.tar.gz",
     "http://paddlemodels.bj.bcebos.com/conll05st/conll05st-tests.tar.gz"),
    (WMT14, {"dict_size": 5}, "wmt14", "wmt14.tgz",
     "http://paddlemodels.bj.bcebos.com/wmt/wmt14.tgz"),
    (WMT16, SIZES, "wmt16", "wmt16.tar.gz",
     "http://paddlemodels.bj.bcebos.com/wmt/wmt16.tar.gz"),
])
def test_download_false_without_the_file_explains(tmp_path, monkeypatch, cls, kwargs, name,
                                                  filename, url):
    monkeypatch.setenv("HOME", str(tmp_path))  # an empty download cache
    with pytest.raises(DatasetError) as info:
        cls(download=False, **kwargs)
    message = str(info.value)
    assert message.startswith(f"{cls.__name__}: data_file is None and download=False")
    assert str(tmp_path / ".cache" / "tomlrun" / name) in message and "\n" not in message
    assert filename in message and url in message  # Paddle's own URL
    assert SOURCES[name].files[filename] in message
    with pytest.raises(DatasetError, match=r"data_file='.*missing' is not a file"):
        cls(data_file=str(tmp_path / "missing"), **kwargs)


def test_conll05st_names_each_missing_file(conll_files, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    for argument, filename in (("word_dict_file", "wordDict.txt"),
                               ("verb_dict_file", "verbDict.txt"),
                               ("target_dict_file", "targetDict.txt"), ("emb_file", "emb")):
        given = {k: v for k, v in conll_files.items() if k != argument}
        with pytest.raises(DatasetError, match=f"Conll05st: {argument} is None and "
                                               f"download=False, and {filename} is not"):
            Conll05st(download=False, **given)
    cache = tmp_path / ".cache" / "tomlrun" / "conll05st"
    cache.mkdir(parents=True)
    (cache / "emb").write_bytes(b"cached")  # download=False takes a cached file as it is
    given = {k: v for k, v in conll_files.items() if k != "emb_file"}
    assert Conll05st(download=False, **given).get_embedding() == str(cache / "emb")


def test_the_sources_are_paddles():
    assert SOURCES["movielens"].files == {"ml-1m.zip": "c4d9eecfca2ab87c1945afe126590906"}
    assert SOURCES["conll05st"].files == {
        "conll05st-tests.tar.gz": "387719152ae52d60422c016e92a742fc",
        "wordDict.txt": "ea7fb7d4c75cc6254716f0177a506baa",
        "verbDict.txt": "0d2977293bbb6cbefab5b0f97db1e77c",
        "targetDict.txt": "d8c7f03ceb5fc2e5a0fa7503a4353751",
        "emb": "bf436eb0faa1f6f9103017f8be57cdb7"}
    assert SOURCES["wmt14"].files == {"wmt14.tgz": "0791583d57d5beb693b9414c5b36798c"}
    assert SOURCES["wmt16"].files == {"wmt16.tar.gz": "0c38be43600334966403524a40dcd81e"}


@pytest.mark.parametrize("cls, kwargs, members, filename", [
    (WMT14, {"dict_size": 5}, WMT14_MEMBERS, "wmt14.tgz"),
    (WMT16, SIZES, WMT16_MEMBERS, "wmt16.tar.gz"),
])
def test_a_truncated_archive_is_one_error_naming_the_file(tmp_path, cls, kwargs, members,
                                                          filename):
    with open(_tar(tmp_path / filename, members), "rb") as handle:
        whole = handle.read()
    cut = tmp_path / f"cut-{filename}"
    cut.write_bytes(whole[:len(whole) // 2])
    with pytest.raises(DatasetError) as info:
        cls(data_file=str(cut), **kwargs)
    message = str(info.value)
    assert message.startswith(f"{cls.__name__}: {cut} is not a readable tar archive "
                              f"({filename}): ")
    assert "\n" not in message


def test_core_text_datasets_lists_paddles_seven():
    import core.text.datasets as datasets

    assert sorted(datasets.__all__) == ["Conll05st", "Imdb", "Imikolov", "Movielens",
                                        "UCIHousing", "WMT14", "WMT16"]
    assert paddle.text.datasets.WMT16 is WMT16
