"""Fetch the files of the downloadable datasets from public mirrors, md5-verified.

The IDX files of MNIST and Fashion-MNIST, and the archives of Paddle's downloadable datasets
(Cifar-10/100, Flowers-102, VOC2012, IMDB, UCI housing, the PTB text of Imikolov, Movielens-1M,
Conll05st, WMT14 and WMT16), with the md5 sums
Paddle publishes; a mirror is a base URL the file name is appended to (after a ``/``, unless
the base already ends in ``/`` or in ``%2F``, the escaped slash of Paddle's bcebos URLs).

Each file goes to a temporary file beside its destination and is renamed into place only once
its md5 matches the published checksum, so an interrupted or corrupted transfer never leaves a
file that looks complete. Files already present with the right md5 are not fetched again; a
mirror that fails (unreachable, HTTP error, cut-off transfer, wrong checksum) hands over to the
next. Only the standard library is used (urllib).

Pretrained weights go through the same cache: ``get_weights_path_from_url`` (Paddle's
``paddle.utils.download.get_weights_path_from_url``) fetches a URL into the weights folder,
``$TOMLRUN_WEIGHTS_HOME`` or else ``~/.cache/tomlrun/weights``, md5-checked when a checksum is
given, as Paddle's ``WEIGHTS_HOME`` (``~/.cache/paddle/hapi/weights``).
"""
from __future__ import annotations

import hashlib
import http.client
import os
import string
import sys
import tarfile
import urllib.error
import urllib.request
import zlib
from dataclasses import dataclass
from pathlib import Path

from core.atomic import atomic_write
from core.datasets.common import DatasetError

_CHUNK = 1 << 20
WEIGHTS_ENV = "TOMLRUN_WEIGHTS_HOME"  # where pretrained weights are cached, when set

# What reading a damaged archive raises besides tarfile's own errors: a gzip stream cut off
# before its end (EOFError), a bad gzip header or checksum (gzip.BadGzipFile, an OSError) and
# corrupt deflate data (zlib.error). The datasets catch them all to name the file at fault.
ARCHIVE_ERRORS = (tarfile.TarError, EOFError, OSError, zlib.error)


def error_text(exc: BaseException) -> str:
    """``exc``'s message on one line (tarfile lists what each of its methods said, one per
    line), so that a dataset's error stays one paragraph."""
    return " ".join(str(exc).split()) or type(exc).__name__


@dataclass(frozen=True)
class Source:
    """The files of one dataset (name -> md5) and the mirrors that serve them, in order."""

    files: dict
    mirrors: tuple


SOURCES = {
    "mnist": Source(
        files={
            "train-images-idx3-ubyte.gz": "f68b3c2dcbeaaa9fbdd348bbdeb94873",
            "train-labels-idx1-ubyte.gz": "d53e105ee54ea40749a09fcbcd1e9432",
            "t10k-images-idx3-ubyte.gz": "9fb629c4189551a2d022fa330f9573f3",
            "t10k-labels-idx1-ubyte.gz": "ec29112dd5afa0611ce80d1b7f02629c",
        },
        mirrors=("https://ossci-datasets.s3.amazonaws.com/mnist/",
                 "http://yann.lecun.com/exdb/mnist/"),
    ),
    "fashion_mnist": Source(
        files={
            "train-images-idx3-ubyte.gz": "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
            "train-labels-idx1-ubyte.gz": "25c81989df183df01b3e8a0aad5dffbe",
            "t10k-images-idx3-ubyte.gz": "bef4ecab320f06d8554ea6380940ec79",
            "t10k-labels-idx1-ubyte.gz": "bb300cfdad3c16e7a12a480ee83cd310",
        },
        mirrors=("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",),
    ),
    # Paddle's datasets: Paddle's own mirror first (its URL and md5), then the original site,
    # which serves the same bytes (the md5 sums are those torchvision/torchtext check there).
    "cifar10": Source(
        files={"cifar-10-python.tar.gz": "c58f30108f718f92721af3b95e74349a"},
        mirrors=("https://dataset.bj.bcebos.com/cifar/", "https://www.cs.toronto.edu/~kriz/"),
    ),
    "cifar100": Source(
        files={"cifar-100-python.tar.gz": "eb9058c3a382ffc7106e4002c42a8d85"},
        mirrors=("https://dataset.bj.bcebos.com/cifar/", "https://www.cs.toronto.edu/~kriz/"),
    ),
    "flowers": Source(
        files={
            "102flowers.tgz": "52808999861908f626f3c1f4e79d11fa",
            "imagelabels.mat": "e0620be6f572b9609742df49c70aed4d",
            "setid.mat": "a5357ecc9cb78c4bef273ce3793fc85c",
        },
        mirrors=("http://paddlemodels.bj.bcebos.com/flowers/",
                 "https://www.robots.ox.ac.uk/~vgg/data/flowers/102/"),
    ),
    "voc2012": Source(  # the original site serves the same bytes (torchvision's md5 there)
        files={"VOCtrainval_11-May-2012.tar": "6cd6e144f989b92b3379bac3b3de84fd"},
        mirrors=("https://dataset.bj.bcebos.com/voc/",
                 "http://host.robots.ox.ac.uk/pascal/VOC/voc2012/"),
    ),
    "imdb": Source(
        files={"aclImdb_v1.tar.gz": "7c2ac02c03563afcf9b574c7e56c153a"},
        mirrors=("https://dataset.bj.bcebos.com/imdb%2F",
                 "https://ai.stanford.edu/~amaas/data/sentiment/"),
    ),
    "uci_housing": Source(
        files={"housing.data": "d4accdce7a25600298819f8e28e8d593"},
        mirrors=("http://paddlemodels.bj.bcebos.com/uci_housing/",
                 "https://archive.ics.uci.edu/ml/machine-learning-databases/housing/"),
    ),
    "imikolov": Source(
        files={"simple-examples.tgz": "30177ea32e27c525793142b6bf2c8e2d"},
        mirrors=("https://dataset.bj.bcebos.com/imikolov%2F",
                 "http://www.fit.vutbr.cz/~imikolov/rnnlm/"),
    ),
    "movielens": Source(
        files={"ml-1m.zip": "c4d9eecfca2ab87c1945afe126590906"},
        mirrors=("https://dataset.bj.bcebos.com/movielens%2F",
                 "https://files.grouplens.org/datasets/movielens/"),
    ),
    # Paddle spells two of these URLs with an escaped slash (conll05st%2FwordDict.txt); bcebos
    # serves the same objects under the plain path, so one base URL serves all five files.
    "conll05st": Source(
        files={
            "conll05st-tests.tar.gz": "387719152ae52d60422c016e92a742fc",
            "wordDict.txt": "ea7fb7d4c75cc6254716f0177a506baa",
            "verbDict.txt": "0d2977293bbb6cbefab5b0f97db1e77c",
            "targetDict.txt": "d8c7f03ceb5fc2e5a0fa7503a4353751",
            "emb": "bf436eb0faa1f6f9103017f8be57cdb7",
        },
        mirrors=("http://paddlemodels.bj.bcebos.com/conll05st/",),
    ),
    # Paddle's own cut of WMT'14 fr-en (the full corpus is too large to ship), and Multi30K's
    # en-de (WMT'16's multimodal task 1).
    "wmt14": Source(
        files={"wmt14.tgz": "0791583d57d5beb693b9414c5b36798c"},
        mirrors=("http://paddlemodels.bj.bcebos.com/wmt/",),
    ),
    "wmt16": Source(
        files={"wmt16.tar.gz": "0c38be43600334966403524a40dcd81e"},
        mirrors=("http://paddlemodels.bj.bcebos.com/wmt/",),
    ),
}


class BadTransferError(Exception):
    """A transfer that completed at the HTTP level but delivered the wrong bytes."""


def default_cache_dir(name: str) -> Path:
    """Where ``name``'s files are downloaded unless told otherwise: ``~/.cache/tomlrun/<name>``."""
    return Path.home() / ".cache" / "tomlrun" / name


def file_md5(path) -> str:
    digest = hashlib.md5(usedforsecurity=False)  # a checksum, not security
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def weights_cache_dir() -> Path:
    """Where pretrained weights are downloaded: ``$TOMLRUN_WEIGHTS_HOME`` when set, else
    ``~/.cache/tomlrun/weights``."""
    home = os.environ.get(WEIGHTS_ENV)
    return Path(home).expanduser() if home else default_cache_dir("weights")


def get_weights_path_from_url(url: str, md5sum: str | None = None,
                              timeout: float = 60.0) -> str:
    """Paddle's ``get_weights_path_from_url(url, md5sum=None)``: the local path of the file
    ``url`` names, in ``weights_cache_dir()``, downloaded first unless it is there already
    (with checksum ``md5sum`` when one is given; without one, any file of that name is taken,
    as Paddle). Any scheme urllib opens works (``https://``, ``file://``). Paddle also unpacks
    a downloaded .tar/.zip; weights here are single files, so archives are kept as they are.
    """
    if not isinstance(url, str) or "/" not in url or url.endswith("/"):
        raise ValueError(f"get_weights_path_from_url: url={url!r} must be the URL of a file "
                         "(https://.../name.pdparams).")
    if md5sum is not None and not (isinstance(md5sum, str) and len(md5sum) == 32
                                   and all(c in string.hexdigits for c in md5sum)):
        raise ValueError(f"get_weights_path_from_url: md5sum={md5sum!r} must be None or a "
                         "32-digit hexadecimal md5 string.")
    if md5sum is not None:  # hexdigest() is lower case: an upper-case sum would never match
        md5sum = md5sum.lower()
    base, filename = url.rsplit("/", 1)
    dest = make_dir(weights_cache_dir())
    hint = (f"Copy {filename} into {dest} by hand, or set {WEIGHTS_ENV} to a folder that "
            "holds it.")
    return str(fetch(filename, md5sum, dest, (base + "/",), timeout, hint=hint))


def download(name: str, cache_dir=None, mirrors=None, timeout: float = 60.0) -> Path:
    """Make sure every file of dataset ``name`` is in ``cache_dir`` with its md5; return the dir.

    ``mirrors`` (base URLs, tried in order) replaces the dataset's public mirror list.
    """
    if name not in SOURCES:
        raise ValueError(f"no download source for dataset {name!r}; known: {sorted(SOURCES)}.")
    source = SOURCES[name]
    mirrors = source.mirrors if mirrors is None else mirrors
    mirrors = (mirrors,) if isinstance(mirrors, str) else tuple(mirrors)
    if not mirrors:
        raise ValueError(f"mirrors for {name!r} is empty: give at least one base URL.")
    dest = make_dir(Path(cache_dir).expanduser() if cache_dir else default_cache_dir(name))
    for filename, md5 in source.files.items():
        fetch(filename, md5, dest, mirrors, timeout)
    return dest


def locate_file(given, name: str, filename: str, download: bool, owner: str,
                argument: str = "data_file", timeout: float = 60.0) -> Path:
    """The file a Paddle dataset reads: Paddle's ``_check_exists_and_download``.

    ``given`` (the ``argument`` of dataset class ``owner``, a path) when set, which must be a
    file; else ``filename`` of dataset ``name`` in its download cache
    (``default_cache_dir(name)``), fetched there first (md5-checked) when ``download``.
    """
    if given is not None:
        path = Path(given).expanduser()
        if not path.is_file():
            raise DatasetError(f"{owner}: {argument}={str(given)!r} is not a file; pass the "
                               f"path of {filename}, or {argument}=None to use the download "
                               "cache.")
        return path
    source = SOURCES[name]
    dest = default_cache_dir(name)
    if download:
        return fetch(filename, source.files[filename], make_dir(dest), source.mirrors, timeout)
    if (dest / filename).is_file():
        return dest / filename  # download=False: the cached file as it is, as MNIST's
    raise DatasetError(
        f"{owner}: {argument} is None and download=False, and {filename} is not in the "
        f"download cache {dest}: pass {argument}= (the path of {filename}), or download=True "
        f"to fetch it (md5 {source.files[filename]}) from {_url(source.mirrors[0], filename)}."
    )


def make_dir(dest: Path) -> Path:
    try:
        dest.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DatasetError(f"cannot create the download folder {dest}: {exc}.") from None
    return dest


def _url(mirror: str, filename: str) -> str:
    """``filename`` under base URL ``mirror``: Paddle's bcebos URLs escape the slash before the
    name (``.../imdb%2FaclImdb_v1.tar.gz``), so a base ending in ``%2F`` takes it as it is."""
    if mirror.endswith("/") or mirror.upper().endswith("%2F"):
        return mirror + filename
    return mirror + "/" + filename


def fetch(filename: str, md5: str | None, dest: Path, mirrors, timeout: float = 60.0,
          hint: str = "Copy the file there by hand, or point data.root at a folder that holds "
                      "it.") -> Path:
    """``dest/filename`` with checksum ``md5``, taken from the first mirror that serves it
    (``md5=None``: any file of that name, unchecked). ``hint`` ends the error when every
    mirror fails: what the user can do instead."""
    target = Path(dest) / filename
    if target.is_file():
        if md5 is None or file_md5(target) == md5:
            return target
        _say(f"{target} has the wrong md5; fetching it again")
    failures = []
    for mirror in mirrors:
        url = _url(mirror, filename)
        _say(f"downloading {url}")
        try:
            size = fetch_verified(url, target, md5, timeout)
        except (OSError, http.client.HTTPException, ValueError, BadTransferError) as exc:
            failures.append(f"{url}: {failure_reason(exc)}")
            _say(f"  failed: {failure_reason(exc)}")
            continue
        _say(f"  {size / 1e6:.1f} MB, md5 ok -> {target}")
        return target
    tried = "\n  ".join(failures)
    raise DatasetError(
        f"could not download {filename} (md5 {md5}) into {dest}; every mirror failed:\n  {tried}\n"
        f"{hint}"
    )


def fetch_verified(url: str, target: Path, md5: str | None, timeout: float) -> int:
    """Stream ``url`` into a temporary file, check its md5 (unless None), then rename it to
    ``target``."""
    digest, size = hashlib.md5(usedforsecurity=False), 0
    # atomic_write removes the partial file on any error (a bad md5, a cut transfer, Ctrl-C).
    with atomic_write(target, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as rsp:
        while chunk := rsp.read(_CHUNK):
            digest.update(chunk)
            out.write(chunk)
            size += len(chunk)
        announced = rsp.headers.get("Content-Length")
        # http.client returns a short body without complaint when the server hangs up early.
        if announced is not None and announced.isdigit() and size < int(announced):
            raise BadTransferError(f"the transfer was cut off after {size} of {announced} bytes")
        if md5 is not None and digest.hexdigest() != md5:
            raise BadTransferError(f"md5 {digest.hexdigest()} of {size} bytes, expected {md5}")
    return size


def failure_reason(exc: BaseException) -> str:
    if isinstance(exc, http.client.IncompleteRead):
        return "the transfer was cut off before the announced length"  # chunked replies
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    reason = getattr(exc, "reason", None)  # URLError wraps the socket error
    return str(reason or exc) or type(exc).__name__


def _say(message: str) -> None:
    print(f"tomlrun: {message}", file=sys.stderr, flush=True)
