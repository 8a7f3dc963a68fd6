"""save / load: nested round trips, corrupt files, atomic replacement."""
import os
import zipfile

import numpy as np
import pytest

import core
from core import serialize
from core.nn.layer import Layer
from core.serialize import SerializationError, load, save
from core.tensor import Parameter, Tensor


def nested():
    return {
        "model": {"fc.weight": Parameter(np.arange(6, dtype="float32").reshape(2, 3)),
                  "fc.bias": Tensor(np.array([0.5, -0.5], dtype="float32"))},
        "opt": {"state": {"param_3": {"moment": np.full(3, 0.25), "step": 7}},
                "LR_Scheduler": {"last_epoch": 4, "last_lr": 0.01}},
        "epoch": 3, "name": "run a/b", "flags": [True, None, 2.5, "x"], "pair": (1, "two"),
        5: "an int key", "inf": float("inf"), "ints": np.arange(4, dtype="int64"),
        "scalar": np.float32(1.5), "empty": {},
        "file": "np.savez's own argument name", "allow_pickle": np.ones(2),
    }


def test_nested_round_trip(tmp_path):
    path = tmp_path / "model.pdparams"  # any suffix: Paddle users write .pdparams / .pdopt
    save(nested(), path)
    got = load(path, return_numpy=True)
    np.testing.assert_array_equal(got["model"]["fc.weight"], np.arange(6).reshape(2, 3))
    assert got["model"]["fc.weight"].dtype == np.float32
    assert isinstance(got["model"]["fc.bias"], np.ndarray)
    np.testing.assert_array_equal(got["opt"]["state"]["param_3"]["moment"], np.full(3, 0.25))
    assert got["opt"]["state"]["param_3"]["step"] == 7
    assert got["opt"]["LR_Scheduler"] == {"last_epoch": 4, "last_lr": 0.01}
    assert (got["epoch"], got["name"], got["flags"], got["pair"]) == (
        3, "run a/b", [True, None, 2.5, "x"], (1, "two"))
    assert got[5] == "an int key" and got["inf"] == float("inf") and got["empty"] == {}
    assert got["file"] == "np.savez's own argument name"
    np.testing.assert_array_equal(got["allow_pickle"], np.ones(2))
    assert got["ints"].dtype == np.int64 and got["scalar"] == np.float32(1.5)
    assert list(got) == list(nested())  # key order is kept
    assert os.listdir(tmp_path) == ["model.pdparams"]  # no temporary file left behind


def test_return_tensors_and_set_state_dict(tmp_path):
    class Tiny(Layer):
        def __init__(self):
            super().__init__()
            self.w = Parameter(np.array([1.0, 2.0], dtype="float32"))

    source, target = Tiny(), Tiny()
    source.w.data[:] = [3.0, 4.0]
    save(source.state_dict(), tmp_path / "tiny.pdparams")
    as_tensors = load(tmp_path / "tiny.pdparams")  # Tensors by default, as paddle.load
    assert isinstance(as_tensors["w"], Tensor)
    np.testing.assert_array_equal(as_tensors["w"].numpy(), [3.0, 4.0])
    assert isinstance(load(tmp_path / "tiny.pdparams", return_numpy=True)["w"], np.ndarray)
    target.set_state_dict(load(tmp_path / "tiny.pdparams"))
    np.testing.assert_array_equal(target.w.numpy(), [3.0, 4.0])


def test_numpy_arrays_saved_come_back_as_numpy_arrays(tmp_path):
    save({"counts": np.arange(3), "w": Tensor(np.ones(2, "float32"))}, tmp_path / "m")
    got = load(tmp_path / "m")
    assert isinstance(got["counts"], np.ndarray) and isinstance(got["w"], Tensor)


def test_the_file_is_a_plain_npz_without_pickle(tmp_path):
    save({"a": {"b": np.ones(2)}}, tmp_path / "x.npz")
    with np.load(tmp_path / "x.npz", allow_pickle=False) as npz:
        assert "a/b" in npz.files and serialize.MANIFEST in npz.files


def test_unsupported_values_are_refused_with_their_path(tmp_path):
    with pytest.raises(TypeError, match="model/layer.*Layer"):
        save({"model": {"layer": Layer()}}, tmp_path / "x")
    with pytest.raises(TypeError, match="object"):
        save({"a": np.array([{}, 1], dtype=object)}, tmp_path / "x")
    assert not os.listdir(tmp_path)


def _corrupt_crc(path):
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("w.npy")
    # the member's data lies after its local header; flip the last byte of the array
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra)
    data[start + info.compress_size - 1] ^= 0xFF
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["garbage", "empty", "truncated", "crc", "foreign"])
def test_corrupt_files_give_a_clear_error_naming_the_path(tmp_path, damage):
    path = tmp_path / "ckpt.pdparams"
    save({"w": np.arange(100.0)}, path)
    if damage == "garbage":
        path.write_bytes(b"definitely not a checkpoint")
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:500])
    elif damage == "crc":
        _corrupt_crc(path)
    else:
        with path.open("wb") as handle:
            np.savez(handle, w=np.ones(2))
    with pytest.raises(SerializationError, match=str(path)):
        load(path)


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nothing.npz"):
        load(tmp_path / "nothing.npz")


@pytest.mark.parametrize("failing", ["replace", "fsync", "write_array"])
def test_a_failing_write_leaves_the_previous_file_intact(tmp_path, monkeypatch, failing):
    path = tmp_path / "ckpt.pdparams"
    save({"epoch": 1, "w": np.zeros(3)}, path)

    def boom(*args, **kwargs):
        raise OSError(f"simulated {failing} failure")

    if failing == "write_array":
        def partial_write(member, array, **kwargs):
            member.write(b"\x93NUMPY half an array")  # some bytes reach the temp file first
            boom()
        monkeypatch.setattr(serialize.np.lib.format, "write_array", partial_write)
    else:
        monkeypatch.setattr(serialize.os, failing, boom)
    with pytest.raises(OSError, match="simulated"):
        save({"epoch": 2, "w": np.ones(3)}, path)
    monkeypatch.undo()
    got = load(path)
    assert got["epoch"] == 1 and not got["w"].any()
    assert os.listdir(tmp_path) == ["ckpt.pdparams"]


def test_save_into_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        save({"a": 1}, tmp_path / "no" / "x.pdparams")


def test_loaded_tensors_follow_the_current_device(tmp_path):
    save({"t": core.to_tensor([1.0, 2.0])}, tmp_path / "t")
    tensor = load(tmp_path / "t", return_numpy=False)["t"]
    assert tensor.place == core.device.get_device() and tensor.dtype == np.float32


def test_save_refuses_a_sparse_tensor_by_key_and_names_the_ways_out(tmp_path):
    coo = core.sparse.sparse_coo_tensor([[0, 1], [1, 0]], [1.0, 2.0], [2, 2])
    path = tmp_path / "sparse.pdparams"
    with pytest.raises(TypeError, match=r"'adj' is a sparse COO tensor \(shape \[2, 2\], 2 "
                                        r"stored entries\).*x\.to_dense\(\).*x\.indices\(\)"):
        core.save({"adj": coo}, str(path))
    assert not path.exists()  # nothing half-written
    layer = core.nn.Layer()
    layer.register_buffer("mask", coo.to_sparse_csr())
    with pytest.raises(TypeError, match=r"'mask' is a sparse CSR tensor.*x\.crows\(\), "
                                        r"x\.cols\(\) and x\.values\(\).*sparse_csr_tensor"):
        core.save(layer.state_dict(), str(path))
    core.save({"adj": coo.to_dense()}, str(path))  # the way out the message gives
    np.testing.assert_array_equal(core.load(str(path))["adj"].numpy(), [[0.0, 1.0], [2.0, 0.0]])
