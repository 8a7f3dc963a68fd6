import os
import stat

import pytest

from core.atomic import atomic_write


def test_replaces_the_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with atomic_write(target, "w", encoding="utf-8") as handle:
        handle.write("new")
    assert target.read_text() == "new"
    assert os.listdir(tmp_path) == ["out.txt"]


def test_an_error_keeps_the_old_file(tmp_path):
    target = tmp_path / "out.bin"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_write(target) as handle:
            handle.write(b"half")
            raise RuntimeError("boom")
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["out.bin"]


def test_permissions_follow_the_umask_not_mkstemp(tmp_path):
    old = os.umask(0o022)
    try:
        with atomic_write(tmp_path / "f") as handle:
            handle.write(b"x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "f").st_mode) == 0o644


def test_a_missing_folder_names_it(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        with atomic_write(tmp_path / "nope" / "f"):
            pass
