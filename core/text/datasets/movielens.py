"""``paddle.text.datasets.Movielens``: the MovieLens 1M ratings with their user and movie
features, from Paddle's ``ml-1m.zip``.

The zip is read without extracting it: ``ml-1m/movies.dat`` (``id::title (year)::genre|...``),
``ml-1m/users.dat`` (``id::gender::age::occupation::zip``) and ``ml-1m/ratings.dat``
(``user::movie::stars::time``), latin-1 text, one record a line. As in Paddle, the title words
(lower-cased, the year dropped) and the genres are numbered from 0, the user's age is its
position in ``age_table``, gender is 0 for 'M' and 1 for 'F', and a rating of ``s`` stars
becomes ``2 * s - 5`` (-3..5). Each line of ratings.dat draws one number from numpy's legacy
generator seeded with ``rand_seed``; the line is a 'test' sample when the number is below
``test_ratio``, else a 'train' one, in file order (Paddle's split, sample for sample).

A sample is Paddle's tuple of eight arrays: ``user id [1]``, ``gender [1]``, ``age [1]``,
``job [1]``, ``movie id [1]``, ``category ids [C]``, ``title word ids [T]`` (int64) and
``rating [1]`` (float64).
"""
from __future__ import annotations

import numbers
import re
import zipfile

import numpy as np

from core.datasets import DatasetError
from core.datasets.download import ARCHIVE_ERRORS, error_text, locate_file
from core.io import Dataset

MODES = ("train", "test")
age_table = [1, 18, 25, 35, 45, 50, 56]  # Paddle's name: the ages users.dat may give
_TITLE = re.compile(r"^(.*)\((\d+)\)$")  # "Toy Story (1995)": the title, then the year
_FOLDER = "ml-1m/"


class MovieInfo:
    """Paddle's ``MovieInfo(index, categories, title)``: one line of movies.dat (``title``
    without its year)."""

    def __init__(self, index, categories, title):
        self.index = int(index)
        self.categories = categories
        self.title = title

    def value(self, categories_dict, movie_title_dict) -> list:
        """``[[id], category ids, title word ids]``, the ids from the two dictionaries."""
        return [[self.index], [categories_dict[c] for c in self.categories],
                [movie_title_dict[w.lower()] for w in self.title.split()]]

    def __str__(self) -> str:
        return (f"<MovieInfo id({self.index}), title({self.title}), "
                f"categories({self.categories})>")

    __repr__ = __str__


class UserInfo:
    """Paddle's ``UserInfo(index, gender, age, job_id)``: one line of users.dat, the age
    stored as its position in ``age_table``."""

    def __init__(self, index, gender, age, job_id):
        self.index = int(index)
        self.is_male = gender == "M"
        self.age = age_table.index(int(age))
        self.job_id = int(job_id)

    def value(self) -> list:
        """``[[id], [0 for male, 1 for female], [age position], [job id]]``."""
        return [[self.index], [0 if self.is_male else 1], [self.age], [self.job_id]]

    def __str__(self) -> str:
        gender = "M" if self.is_male else "F"
        return (f"<UserInfo id({self.index}), gender({gender}), age({age_table[self.age]}), "
                f"job({self.job_id})>")

    __repr__ = __str__


def _int_arrays(value: list) -> tuple:
    return tuple(np.array(field, dtype=np.int64) for field in value)


class Movielens(Dataset):
    """Paddle's ``paddle.text.datasets.Movielens(data_file=None, mode='train', test_ratio=0.1,
    rand_seed=0, download=True)``: MovieLens 1M, about 900,000 'train' and 100,000 'test'
    ratings.

    ``data_file``: the path of ``ml-1m.zip``; None takes it from the download cache
    (``~/.cache/tomlrun/movielens``), where ``download=True`` fetches it (md5-checked).
    ``test_ratio`` (0..1): the share of ratings drawn into 'test'; ``rand_seed``: the seed of
    that draw (numpy's global generator is left alone). ``dataset[i]``: module docstring.
    ``movie_info`` / ``user_info`` map ids to ``MovieInfo`` / ``UserInfo``;
    ``movie_title_dict`` and ``categories_dict`` number the title words and the genres in the
    order movies.dat first names them.
    """

    def __init__(self, data_file=None, mode: str = "train", test_ratio: float = 0.1,
                 rand_seed: int = 0, download: bool = True):
        if not isinstance(mode, str) or mode.lower() not in MODES:
            raise ValueError(f"Movielens: mode={mode!r} must be 'train' or 'test'.")
        if isinstance(test_ratio, bool) or not isinstance(test_ratio, numbers.Real) \
                or not 0 <= test_ratio <= 1:
            raise ValueError(f"Movielens: test_ratio={test_ratio!r} must be a number in "
                             "[0, 1] (the share of ratings drawn into 'test').")
        if isinstance(rand_seed, bool) or not isinstance(rand_seed, (int, np.integer)) \
                or not 0 <= rand_seed < 2 ** 32:
            raise ValueError(f"Movielens: rand_seed={rand_seed!r} must be an int in "
                             "[0, 2**32) (the seed of numpy's RandomState).")
        self.mode, self.test_ratio, self.rand_seed = mode.lower(), test_ratio, int(rand_seed)
        self.data_file = str(locate_file(data_file, "movielens", "ml-1m.zip", bool(download),
                                         "Movielens"))
        texts = self._read(("movies.dat", "users.dat", "ratings.dat"))
        self._load_meta_info(texts["movies.dat"], texts["users.dat"])
        self._load_data(texts["ratings.dat"])

    def _read(self, names) -> dict:
        """The lines (bytes, split on newlines only, as Paddle iterates) of each member."""
        texts = {}
        try:
            with zipfile.ZipFile(self.data_file) as package:
                for name in names:
                    with package.open(_FOLDER + name) as handle:
                        texts[name] = handle.readlines()
        except KeyError:
            raise DatasetError(f"Movielens: {self.data_file} has no {_FOLDER}{name}: it is "
                               "not ml-1m.zip.") from None
        except (zipfile.BadZipFile, *ARCHIVE_ERRORS) as exc:
            raise DatasetError(f"Movielens: {self.data_file} is not a readable zip archive "
                               f"(ml-1m.zip): {error_text(exc)}.") from None
        return texts

    def _records(self, numbered, name: str, fields: int):
        """``(line number, fields)`` of each non-blank latin-1 line of member ``name``, from
        ``(line number, line)`` pairs."""
        for number, line in numbered:
            line = line.decode("latin-1").strip()
            if not line:
                continue
            parts = line.split("::")
            if len(parts) != fields:
                raise DatasetError(f"Movielens: line {number} of {_FOLDER}{name} in "
                                   f"{self.data_file} has {len(parts)} '::'-separated fields, "
                                   f"not {fields}: {line!r}.")
            yield number, parts

    def _number(self, text: str, kind, number: int, name: str):
        """``kind(text)`` (int or float) of a field of line ``number`` of member ``name``."""
        try:
            return kind(text)
        except ValueError:
            raise DatasetError(f"Movielens: line {number} of {_FOLDER}{name} in "
                               f"{self.data_file} has {text!r} where a number belongs.") from None

    def _load_meta_info(self, movies, users) -> None:
        self.movie_info, self.user_info = {}, {}
        self.movie_title_dict, self.categories_dict = {}, {}
        for number, (movie_id, title, genres) in self._records(enumerate(movies, 1),
                                                                   "movies.dat", 3):
            found = _TITLE.match(title)
            if found is None:
                raise DatasetError(f"Movielens: line {number} of {_FOLDER}movies.dat: title "
                                   f"{title!r} does not end in '(year)'.")
            categories = genres.split("|")
            movie_id = self._number(movie_id, int, number, "movies.dat")
            movie = MovieInfo(index=movie_id, categories=categories, title=found.group(1))
            self.movie_info[movie.index] = movie
            for category in categories:  # numbered as first seen (Paddle: a set's order)
                self.categories_dict.setdefault(category, len(self.categories_dict))
            for word in movie.title.split():
                self.movie_title_dict.setdefault(word.lower(), len(self.movie_title_dict))
        for number, (uid, gender, age, job, _) in self._records(enumerate(users, 1),
                                                               "users.dat", 5):
            if not age.isdigit() or int(age) not in age_table:
                raise DatasetError(f"Movielens: line {number} of {_FOLDER}users.dat: age "
                                   f"{age!r} is not one of {age_table}.")
            uid, job = (self._number(text, int, number, "users.dat") for text in (uid, job))
            user = UserInfo(index=uid, gender=gender, age=age, job_id=job)
            self.user_info[user.index] = user
        self._movie_values = {i: _int_arrays(m.value(self.categories_dict,
                                                     self.movie_title_dict))
                              for i, m in self.movie_info.items()}
        self._user_values = {i: _int_arrays(u.value()) for i, u in self.user_info.items()}

    def _load_data(self, ratings) -> None:
        """Paddle's split: one draw per line of ratings.dat, blank lines included."""
        draws = np.random.RandomState(self.rand_seed).random_sample(len(ratings))
        chosen = (draws < self.test_ratio) == (self.mode == "test")
        kept = [(number, line) for number, (line, take) in enumerate(zip(ratings, chosen), 1)
                if take]
        users, movies, stars = [], [], []
        for number, (uid, movie_id, rating, _) in self._records(kept, "ratings.dat", 4):
            uid, movie_id = (self._number(text, int, number, "ratings.dat")
                             for text in (uid, movie_id))
            rating = self._number(rating, float, number, "ratings.dat")
            if uid not in self.user_info or movie_id not in self.movie_info:
                missing = "user" if uid not in self.user_info else "movie"
                raise DatasetError(f"Movielens: line {number} of {_FOLDER}ratings.dat names "
                                   f"{missing} {uid if missing == 'user' else movie_id}, which "
                                   f"{missing}s.dat does not list.")
            users.append(uid)
            movies.append(movie_id)
            stars.append(rating * 2 - 5.0)  # 1..5 stars -> -3..5, as Paddle
        self.user_ids = np.array(users, dtype=np.int64)
        self.movie_ids = np.array(movies, dtype=np.int64)
        self.ratings = np.array(stars, dtype=np.float64)

    def __getitem__(self, idx):
        user = self._user_values[int(self.user_ids[idx])]
        movie = self._movie_values[int(self.movie_ids[idx])]
        rating = np.array([self.ratings[idx]], dtype=np.float64)
        return tuple(field.copy() for field in (*user, *movie)) + (rating,)

    def __len__(self) -> int:
        return len(self.ratings)


__all__ = ["Movielens"]
