"""Downloads from local HTTP mirrors (127.0.0.1 only): md5 checks, fallbacks, no partial files."""
from __future__ import annotations

import functools
import hashlib
import http.server
import socket
import threading
from pathlib import Path

import pytest

from core.datasets import MNIST, DatasetError
from core.datasets.download import SOURCES, download, fetch

MD5 = SOURCES["mnist"].files
LABELS = "t10k-labels-idx1-ubyte.gz"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    requests: list  # set per server: the paths asked for, in order

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.requests.append(self.path)
        super().do_GET()


class CutOffHandler(QuietHandler):
    """Announces the whole file, sends half of it, then hangs up."""

    def do_GET(self):
        self.requests.append(self.path)
        data = (Path(self.directory) / self.path.lstrip("/")).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2])
        self.close_connection = True


@pytest.fixture
def serve():
    """``serve(folder, handler)`` -> (base URL, request log); servers stop after the test."""
    servers = []

    def start(folder: Path, handler=QuietHandler):
        log = []
        cls = type("Handler", (handler,), {"requests": log})
        server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(cls, directory=str(folder)))
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/", log

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def mnist_dir(shared_dir):
    return shared_dir("mnist")


def md5_of(path: Path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/"


def test_download_fetches_every_file_with_its_md5_then_skips_them(serve, mnist_dir, tmp_path,
                                                                   capsys):
    url, log = serve(mnist_dir)
    dest = download("mnist", tmp_path / "cache", mirrors=[url])
    assert dest == tmp_path / "cache"
    for name, md5 in MD5.items():
        assert md5_of(dest / name) == md5
    assert leftovers(dest) == [] and len(log) == 4
    assert "downloading" in capsys.readouterr().err
    download("mnist", dest, mirrors=[url])
    assert len(log) == 4  # nothing fetched again
    assert len(MNIST(split="test", cache_dir=dest)) == 10000


def test_mnist_download_flag_uses_the_given_mirrors(serve, mnist_dir, tmp_path):
    url, _ = serve(mnist_dir)
    test = MNIST(tmp_path / "empty-root", split="test", download=True,
                 cache_dir=tmp_path / "cache", mirrors=[url])
    assert len(test) == 10000
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == sorted(MD5)


def test_corrupted_mirror_fails_md5_and_the_next_mirror_is_used(serve, mnist_dir, tmp_path,
                                                                 capsys):
    bad = tmp_path / "bad"
    bad.mkdir()
    data = bytearray((mnist_dir / LABELS).read_bytes())
    data[100] ^= 0xFF
    (bad / LABELS).write_bytes(bytes(data))
    bad_url, bad_log = serve(bad)
    good_url, good_log = serve(mnist_dir)
    dest = tmp_path / "cache"
    dest.mkdir()
    fetch(LABELS, MD5[LABELS], dest, [bad_url, good_url])
    assert md5_of(dest / LABELS) == MD5[LABELS]
    assert bad_log == ["/" + LABELS] and good_log == ["/" + LABELS]
    assert f"expected {MD5[LABELS]}" in capsys.readouterr().err
    assert leftovers(dest) == []


def test_unreachable_and_cut_off_mirrors_hand_over(serve, mnist_dir, tmp_path):
    cut_url, cut_log = serve(mnist_dir, CutOffHandler)
    good_url, _ = serve(mnist_dir)
    fetch(LABELS, MD5[LABELS], tmp_path, [closed_port_url(), cut_url, good_url])
    assert cut_log == ["/" + LABELS]
    assert md5_of(tmp_path / LABELS) == MD5[LABELS] and leftovers(tmp_path) == []


def test_when_every_mirror_fails_the_error_lists_them_and_nothing_is_left(serve, mnist_dir,
                                                                          tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    missing_url, _ = serve(empty)
    cut_url, _ = serve(mnist_dir, CutOffHandler)
    dead_url = closed_port_url()
    dest = tmp_path / "cache"
    dest.mkdir()
    with pytest.raises(DatasetError) as info:
        fetch(LABELS, MD5[LABELS], dest, [missing_url, cut_url, dead_url])
    message = str(info.value)
    for url in (missing_url, cut_url, dead_url):
        assert url + LABELS in message
    assert "HTTP 404" in message and "cut off" in message and LABELS in message
    assert list(dest.iterdir()) == []


def test_a_file_with_the_wrong_md5_is_replaced(serve, mnist_dir, tmp_path):
    url, log = serve(mnist_dir)
    (tmp_path / LABELS).write_bytes(b"stale")
    fetch(LABELS, MD5[LABELS], tmp_path, [url])
    assert md5_of(tmp_path / LABELS) == MD5[LABELS] and len(log) == 1


def test_a_failed_refetch_keeps_the_old_file_untouched(serve, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    url, _ = serve(empty)
    (tmp_path / LABELS).write_bytes(b"stale")
    with pytest.raises(DatasetError):
        fetch(LABELS, MD5[LABELS], tmp_path, [url])
    assert (tmp_path / LABELS).read_bytes() == b"stale" and leftovers(tmp_path) == []


def test_default_mirrors_are_the_public_ones():
    assert SOURCES["mnist"].mirrors[0] == "https://ossci-datasets.s3.amazonaws.com/mnist/"
    assert "yann.lecun.com" in SOURCES["mnist"].mirrors[1]
    assert "fashion-mnist" in SOURCES["fashion_mnist"].mirrors[0]


@pytest.mark.parametrize("name, mirrors, match", [
    ("kmnist", None, "no download source for dataset 'kmnist'"),
    ("mnist", [], "mirrors for 'mnist' is empty"),
])
def test_bad_arguments(tmp_path, name, mirrors, match):
    with pytest.raises(ValueError, match=match):
        download(name, tmp_path, mirrors=mirrors)


def test_the_checksum_table_matches_the_canonical_files(mnist_dir):
    for name, md5 in MD5.items():
        assert md5_of(mnist_dir / name) == md5
