"""``core.load`` reads Paddle's own checkpoints (the pickles ``paddle.save`` writes), safely.

The files are written here as Paddle's ``python/paddle/framework/io.py`` writes them: a state
dict through ``_legacy_save`` (arrays, the ``StructuredToParameterName@@`` table, arrays over
the protocol-2 limit cut by ``_unpack_saved_dict``), anything else through ``_pickle_save``
(a Tensor reduced to ``tuple((name, ndarray))`` by ``reduce_varbase``, a LoDTensor to
``eval('data', {'data': ndarray})`` by ``reduce_LoDTensor``).
"""
from __future__ import annotations

import collections
import io
import math
import pickle

import numpy as np
import pytest

import core
from core import safe_pickle
from core.serialize import SerializationError, load
from core.tensor import Tensor
from core.vision.models import LeNet, resnet18

NAME_TABLE = "StructuredToParameterName@@"


class PaddleTensor:
    """Pickles as Paddle's ``reduce_varbase`` pickles an eager Tensor / EagerParamBase."""

    def __init__(self, name: str, array):
        self.name, self.array = name, np.asarray(array)

    def __reduce__(self):
        return (tuple, ((self.name, self.array),))


class PaddleLoDTensor:
    """Pickles as Paddle's ``reduce_LoDTensor``: ``eval('data', {'data': array})``."""

    def __init__(self, array):
        self.array = np.asarray(array)

    def __reduce__(self):
        return (eval, ("data", {"data": self.array}))


def _is_state_dict(obj) -> bool:
    """Paddle's ``_is_state_dict``: values are Tensors, or dicts that hold no Tensor."""
    if not isinstance(obj, dict):
        return False
    for value in obj.values():
        if isinstance(value, dict):
            if any(_holds_tensor(v) for v in value.values()):
                return False
        elif not isinstance(value, (PaddleTensor, PaddleLoDTensor)):
            return False
    return True


def _holds_tensor(node) -> bool:
    if isinstance(node, (PaddleTensor, PaddleLoDTensor)):
        return True
    if isinstance(node, dict):
        return any(_holds_tensor(v) for v in node.values())
    if isinstance(node, (list, tuple)):
        return any(_holds_tensor(v) for v in node)
    return False


def _unpack_saved_dict(saved: dict, protocol: int, limit_bytes: int) -> dict:
    """Paddle's ``_unpack_saved_dict`` with its 2**30-byte limit as ``limit_bytes``."""
    info = {}
    if 1 < protocol < 4:
        for key, value in list(saved.items()):
            if isinstance(value, np.ndarray):
                most = int((limit_bytes - 1) / value.dtype.itemsize)
                if value.size > most:
                    flat = value.flatten()
                    info[key] = {"OriginShape": value.shape, "slices": []}
                    for i in range(math.ceil(value.size / most)):
                        part = f"{key}@@.{i}"
                        info[key]["slices"].append(part)
                        saved[part] = flat[i * most:most * (i + 1)]
                    saved.pop(key)
    if info:
        saved["UnpackBigParamInfor@@"] = info
    return saved


def paddle_save_bytes(obj, protocol: int = 4, limit_bytes: int = 2 ** 30) -> bytes:
    """The bytes ``paddle.save(obj, path, protocol)`` writes in dygraph mode, ``obj`` holding
    ``PaddleTensor``s where Paddle's holds Tensors."""
    if _is_state_dict(obj):  # _legacy_save: _build_saved_state_dict, then _unpack_saved_dict
        saved, names = {}, {}
        for key, value in obj.items():
            if isinstance(value, (PaddleTensor, PaddleLoDTensor)):
                saved[key] = value.array
                names[key] = getattr(value, "name", key)
            else:
                saved[key] = value
        saved[NAME_TABLE] = names
        return pickle.dumps(_unpack_saved_dict(saved, protocol, limit_bytes), protocol=protocol)
    return pickle.dumps(obj, protocol=protocol)  # _pickle_save: the reductions above


def paddle_state_dict(layer, prefix_names: dict | None = None) -> collections.OrderedDict:
    """``layer.state_dict()`` as Paddle would hold it: PaddleTensors named like Paddle's
    parameters (``linear_0.w_0``), with this layer's (random) values."""
    out = collections.OrderedDict()
    for i, (key, tensor) in enumerate(layer.state_dict().items()):
        name = (prefix_names or {}).get(key, f"param_{i}.w_0")
        out[key] = PaddleTensor(name, tensor.numpy())
    return out


def write(path, obj, protocol=4, **kwargs):
    path.write_bytes(paddle_save_bytes(obj, protocol, **kwargs))
    return path


# ----- state dicts ------------------------------------------------------------------------------

@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_a_layer_state_dict_comes_back_as_named_tensors(tmp_path, protocol):
    w = np.arange(6, dtype="float32").reshape(2, 3)
    state = {"weight": PaddleTensor("linear_0.w_0", w),
             "bias": PaddleTensor("linear_0.b_0", np.ones(3, "float32"))}
    got = load(write(tmp_path / "m.pdparams", state, protocol))
    assert list(got) == ["weight", "bias"]  # the name table is dropped, as paddle.load does
    assert isinstance(got["weight"], Tensor) and got["weight"].name == "linear_0.w_0"
    np.testing.assert_array_equal(got["weight"].numpy(), w)
    assert got["weight"].dtype == np.float32 and got["bias"].name == "linear_0.b_0"
    assert got["weight"].place == core.device.get_device()


def test_return_numpy_and_keep_name_table(tmp_path):
    state = collections.OrderedDict(w=PaddleTensor("linear_0.w_0", np.zeros((2, 2))))
    path = write(tmp_path / "m.pdparams", state)
    arrays = load(path, return_numpy=True)
    assert isinstance(arrays["w"], np.ndarray) and arrays["w"].dtype == np.float64
    kept = load(path, keep_name_table=True)
    assert kept[NAME_TABLE] == {"w": "linear_0.w_0"} and isinstance(kept["w"], Tensor)


def test_an_array_split_at_protocol_2_is_joined(tmp_path):
    big = np.arange(2 * 3 * 50, dtype="float32").reshape(2, 3, 50)
    state = {"big": PaddleTensor("linear_0.w_0", big), "small": PaddleTensor("b", np.ones(2))}
    raw = paddle_save_bytes(state, protocol=2, limit_bytes=4 * 64)  # slices of 63 floats
    check = pickle.loads(raw)
    assert check["UnpackBigParamInfor@@"]["big"]["slices"] == [f"big@@.{i}" for i in range(5)]
    assert "big" not in check  # what Paddle writes: only the flat slices and their info
    (tmp_path / "big.pdparams").write_bytes(raw)
    got = load(tmp_path / "big.pdparams")
    assert sorted(got) == ["big", "small"]
    np.testing.assert_array_equal(got["big"].numpy(), big)
    assert got["big"].name == "linear_0.w_0"


def test_a_damaged_split_table_is_refused(tmp_path):
    saved = {"w@@.0": np.ones(3), NAME_TABLE: {},
             "UnpackBigParamInfor@@": {"w": {"OriginShape": (2, 3), "slices": ["w@@.0",
                                                                              "w@@.1"]}}}
    path = tmp_path / "cut.pdparams"
    path.write_bytes(pickle.dumps(saved, protocol=2))
    with pytest.raises(SerializationError, match=r"cut\.pdparams.*split into slices"):
        load(path)


def test_a_lenet_checkpoint_loads_into_lenet(tmp_path):
    # Paddle's LeNet: features = Conv2D(1, 6, 3, 1, 1), ReLU, MaxPool2D, Conv2D(6, 16, 5),
    # ReLU, MaxPool2D; fc = Linear(400, 120), Linear(120, 84), Linear(84, 10)
    paddle_keys = {"features.0.weight": [6, 1, 3, 3], "features.0.bias": [6],
                   "features.3.weight": [16, 6, 5, 5], "features.3.bias": [16],
                   "fc.0.weight": [400, 120], "fc.0.bias": [120], "fc.1.weight": [120, 84],
                   "fc.1.bias": [84], "fc.2.weight": [84, 10], "fc.2.bias": [10]}
    core.seed(1)
    source, target = LeNet(), LeNet()
    assert {k: list(v.shape) for k, v in target.state_dict().items()} == paddle_keys
    names = {"features.0.weight": "conv2d_0.w_0", "fc.2.bias": "linear_2.b_0"}
    path = write(tmp_path / "lenet.pdparams", paddle_state_dict(source, names))
    x = core.to_tensor(np.random.default_rng(0).standard_normal((2, 1, 28, 28), "float32"))
    assert not np.allclose(source(x).numpy(), target(x).numpy())
    missing, unexpected = target.set_state_dict(load(path))
    assert (missing, unexpected) == ([], [])
    np.testing.assert_allclose(target(x).numpy(), source(x).numpy(), rtol=1e-6)


def test_resnet18_keys_and_shapes_are_paddles():
    # Paddle's resnet18().state_dict(): 20 convolutions, 20 batch norms of 4 entries each
    # (weight, bias, _mean, _variance), fc.weight [512, 1000] (Linear keeps [in, out])
    own = {k: list(v.shape) for k, v in resnet18().state_dict().items()}
    assert len(own) == 102
    for key, shape in {"conv1.weight": [64, 3, 7, 7], "bn1._mean": [64],
                       "bn1._variance": [64], "layer1.0.conv1.weight": [64, 64, 3, 3],
                       "layer2.0.downsample.0.weight": [128, 64, 1, 1],
                       "layer2.0.downsample.1.weight": [128],
                       "layer4.1.bn2.bias": [512], "fc.weight": [512, 1000],
                       "fc.bias": [1000]}.items():
        assert own[key] == shape, key


# ----- _pickle_save: Tensors inside other structures -------------------------------------------

def test_tensors_nested_in_a_checkpoint_are_tuples_that_become_tensors(tmp_path):
    obj = {"model": {"w": PaddleTensor("linear_0.w_0", np.ones((2, 2), "float32"))},
           "epoch": 3, "note": "run a", "raw": np.arange(3), "pair": (1, 2.5),
           "list": [PaddleTensor("t", np.zeros(1)), None]}
    got = load(write(tmp_path / "ckpt.pdparams", obj))
    assert isinstance(got["model"]["w"], Tensor) and got["model"]["w"].name == "linear_0.w_0"
    assert isinstance(got["raw"], np.ndarray)  # with named tuples present, arrays stay arrays
    assert (got["epoch"], got["note"], got["pair"]) == (3, "run a", (1, 2.5))
    assert isinstance(got["list"][0], Tensor) and got["list"][1] is None
    numpy = load(tmp_path / "ckpt.pdparams", return_numpy=True)
    assert isinstance(numpy["model"]["w"], np.ndarray)


def test_a_single_tensor_and_a_lod_tensor(tmp_path):
    one = load(write(tmp_path / "w.pdtensor", PaddleTensor("linear_0.w_0", np.eye(2))))
    assert isinstance(one, Tensor) and one.name == "linear_0.w_0"
    lod = load(write(tmp_path / "lod.pdtensor", PaddleLoDTensor(np.arange(4.0)), protocol=2))
    assert isinstance(lod, Tensor)  # no named tuple in the file: arrays become Tensors
    np.testing.assert_array_equal(lod.numpy(), np.arange(4.0))


def test_a_paddle_2_0_dict_without_names_gives_tensors(tmp_path):
    path = tmp_path / "old.pdparams"
    path.write_bytes(pickle.dumps({"w": np.ones(2), "n": 4}, protocol=2))
    got = load(path)
    assert isinstance(got["w"], Tensor) and got["n"] == 4


def test_numpy_1_array_names_load(tmp_path):
    raw = pickle.dumps({"w": np.arange(3.0)}, protocol=2)  # GLOBAL names are text lines
    raw = raw.replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
    assert b"numpy.core.multiarray\n_reconstruct" in raw
    path = tmp_path / "np1.pdparams"
    path.write_bytes(raw)
    np.testing.assert_array_equal(load(path, return_numpy=True)["w"], np.arange(3.0))


# ----- optimizer checkpoints (.pdopt) ---------------------------------------------------------

def test_an_adam_pdopt_loads_as_paddle_returns_it(tmp_path):
    opt = {"linear_0.w_0_moment1_0": PaddleTensor("linear_0.w_0_moment1_0", np.ones((2, 3))),
           "linear_0.w_0_moment2_0": PaddleTensor("linear_0.w_0_moment2_0", np.ones((2, 3))),
           "linear_0.w_0_beta1_pow_acc_0": PaddleTensor("linear_0.w_0_beta1_pow_acc_0",
                                                        np.array([0.81], "float32")),
           "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.01}}
    got = load(write(tmp_path / "adam.pdopt", opt, protocol=2))
    assert sorted(got) == sorted(opt)
    assert got["LR_Scheduler"] == {"last_epoch": 3, "last_lr": 0.01}
    assert isinstance(got["linear_0.w_0_beta1_pow_acc_0"], Tensor)
    assert got["linear_0.w_0_moment1_0"].name == "linear_0.w_0_moment1_0"


def test_a_pdopt_with_master_weights_keeps_its_structure(tmp_path):
    # a dict value holding Tensors makes it no state dict: _pickle_save, tuples for Tensors
    opt = {"linear_0.w_0_moment1_0": PaddleTensor("m", np.ones(2)),
           "master_weights": {"linear_0.w_0": PaddleTensor("linear_0.w_0", np.ones(2))}}
    got = load(write(tmp_path / "adam.pdopt", opt))
    assert isinstance(got["master_weights"]["linear_0.w_0"], Tensor)
    assert NAME_TABLE not in got


def test_optimizer_set_state_dict_refuses_paddle_accumulator_keys(tmp_path):
    layer = core.nn.Linear(2, 3)
    adam = core.optimizer.Adam(parameters=layer.parameters())
    opt = {"linear_0.w_0_moment1_0": PaddleTensor("linear_0.w_0_moment1_0", np.ones((2, 3))),
           "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.01}}
    with pytest.raises(ValueError, match=r"Paddle's optimizer state.*linear_0\.w_0_moment1_0"):
        adam.set_state_dict(load(write(tmp_path / "adam.pdopt", opt)))


def test_model_load_reads_a_paddle_checkpoint_and_refuses_its_pdopt(tmp_path):
    net, source = core.nn.Linear(3, 2), core.nn.Linear(3, 2)
    model = core.Model(net)
    model.prepare(core.optimizer.Adam(parameters=net.parameters()))
    write(tmp_path / "final.pdparams", paddle_state_dict(source))
    write(tmp_path / "final.pdopt", {"linear_0.w_0_moment1_0": PaddleTensor(
        "linear_0.w_0_moment1_0", np.ones((3, 2), "float32"))})
    with pytest.raises(ValueError, match="Paddle's optimizer state"):
        model.load(tmp_path / "final")
    model.load(tmp_path / "final", reset_optimizer=True)
    np.testing.assert_array_equal(net.weight.numpy(), source.weight.numpy())


# ----- refusals -------------------------------------------------------------------------------

class RunsCode:
    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        import os
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("protocol", [2, 4])
def test_a_pickle_that_would_run_code_is_refused_without_running_it(tmp_path, protocol):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps({"w": np.ones(2), "x": RunsCode(marker)}, protocol=protocol))
    with pytest.raises(SerializationError) as info:
        load(path)
    message = str(info.value)
    assert str(path) in message and "system" in message
    assert "not a Paddle checkpoint or it contains code" in message and "\n" not in message
    assert not marker.exists()


@pytest.mark.parametrize("reduction", [
    (eval, ("__import__('os').getcwd()", {})),      # eval is only Paddle's LoDTensor form
    (eval, ("data", {"data": "not an array"})),
    (getattr, (np.ndarray, "tofile")),
])
def test_other_callables_and_other_uses_of_eval_are_refused(tmp_path, reduction):
    class Evil:
        def __reduce__(self):
            return reduction

    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps([Evil()], protocol=2))
    with pytest.raises(SerializationError, match="not a Paddle checkpoint or it contains code"):
        load(path)


def test_eval_of_an_expression_alone_is_named_not_called_damage(tmp_path):
    class Evil:
        def __reduce__(self):
            return (eval, ("__import__('os').getcwd()",))  # no namespace: one argument

    path = tmp_path / "evil.pdparams"
    path.write_bytes(pickle.dumps(Evil(), protocol=2))
    with pytest.raises(SerializationError, match="names builtins.eval, so it is not a Paddle"):
        load(path)


class _Reduces:
    def __init__(self, *reduction):
        self.reduction = reduction

    def __reduce__(self):
        return self.reduction


_OBJECTS = np.empty(2, dtype=object)
_OBJECTS[:] = [1, "x"]


@pytest.mark.parametrize("payload", [
    {"w": _OBJECTS},                                           # np.save(allow_pickle)-style
    {"w": np.zeros(1, dtype=[("x", "O")])},                   # an object field
    _Reduces(np.ndarray, ((1,), "O", b"\x41" * 8)),           # object pointers from bytes
    _Reduces(np.ndarray, ((1,), "f8", b"\x41" * 8)),          # ndarray is not callable at all
    _Reduces(np.float64(0).__reduce__()[0], (np.dtype("O"), 3)),  # an object scalar
], ids=["object_array", "object_field", "ndarray_O_buffer", "ndarray_call", "object_scalar"])
@pytest.mark.parametrize("protocol", [2, 4])
def test_object_arrays_are_refused_before_numpy_reads_pointers(tmp_path, payload, protocol):
    path = tmp_path / "objects.pdparams"
    path.write_bytes(pickle.dumps(payload, protocol=protocol))
    with pytest.raises(SerializationError) as info:
        load(path)
    message = str(info.value)
    assert str(path) in message and "\n" not in message
    assert "holds Python objects" in message or "numpy.ndarray (called)" in message
    with pytest.raises(pickle.UnpicklingError):  # the CIFAR reader's allow-list too
        safe_pickle.load(io.BytesIO(path.read_bytes()), safe_pickle.NUMPY_GLOBALS)


@pytest.mark.parametrize("protocol", [2, 3, 4, 5])
def test_plain_arrays_of_every_numeric_kind_still_load(tmp_path, protocol):
    arrays = {"f": np.arange(6.0).reshape(2, 3).T, "i": np.arange(3, dtype="int8"),
              "b": np.array([True, False]), "c": np.array([1 + 2j]),
              "rec": np.zeros(2, dtype=[("a", "f4"), ("b", "i2")]), "s": np.float32(2.5)}
    path = tmp_path / "plain.pdparams"
    path.write_bytes(pickle.dumps(arrays, protocol=protocol))
    out = load(path, return_numpy=True)
    for key, value in arrays.items():
        np.testing.assert_array_equal(out[key], value)
        assert np.asarray(out[key]).dtype == np.asarray(value).dtype


@pytest.mark.parametrize("protocol", [2, 3, 4])
def test_truncated_at_every_tenth_one_paragraph_naming_the_file(tmp_path, protocol):
    state = {"fc.weight": PaddleTensor("linear_0.w_0", np.arange(200.0).reshape(20, 10)),
             "fc.bias": PaddleTensor("linear_0.b_0", np.zeros(10)),
             "LR_Scheduler": {"last_epoch": 3, "last_lr": 0.01}}
    raw = paddle_save_bytes(state, protocol=protocol)
    path = tmp_path / "cut.pdparams"
    for tenth in range(10):
        path.write_bytes(raw[: len(raw) * tenth // 10])
        with pytest.raises(SerializationError) as info:
            load(path)
        assert str(path) in str(info.value) and "\n" not in str(info.value), tenth


@pytest.mark.parametrize("opcodes", [
    b"]" * 100_000 + b"a" * 99_999,                          # lists in lists
    b"}X\x01\x00\x00\x00k" * 100_000 + b"}" + b"s" * 100_000,  # dicts in dicts
], ids=["lists", "dicts"])
def test_a_pickle_nested_too_deep_is_named_not_a_recursion_error(tmp_path, opcodes):
    path = tmp_path / "deep.pdparams"
    path.write_bytes(b"\x80\x02" + opcodes + b".")
    with pytest.raises(SerializationError, match=r"deep.pdparams' nests its lists or dicts "
                                                 r"deeper than Python's recursion limit"):
        load(path)


def test_a_core_file_with_a_manifest_nested_too_deep_is_named(tmp_path):
    from core.serialize import MANIFEST, _write_npz

    text = ('{"format":"tomlrun.state","version":1,"root":' + '{"t":"list","items":[' * 5000
            + '{"t":"value","v":1}' + "]}" * 5000 + "}")
    path = tmp_path / "deep.pdparams"
    with open(path, "wb") as handle:
        _write_npz(handle, {MANIFEST: np.frombuffer(text.encode(), dtype=np.uint8)})
    with pytest.raises(SerializationError, match="deep.pdparams' has an unreadable manifest"):
        load(path)


def test_codecs_encode_is_allowed_only_for_latin1():
    raw = pickle.dumps(b"abc", protocol=2)  # bytes at protocol 2: _codecs.encode(s, 'latin1')
    assert safe_pickle.load(io.BytesIO(raw)) == b"abc"
    other = raw.replace(b"latin1", b"rot_13")  # same length: still a well-formed pickle
    with pytest.raises(pickle.UnpicklingError, match="encoding='rot_13'"):
        safe_pickle.load(io.BytesIO(other))


@pytest.mark.parametrize("damage", ["truncated", "garbage_after_proto", "empty"])
def test_a_damaged_pickle_gives_one_paragraph_naming_the_file(tmp_path, damage):
    raw = paddle_save_bytes({"w": PaddleTensor("w", np.arange(100.0))})
    path = tmp_path / "bad.pdparams"
    path.write_bytes({"truncated": raw[: len(raw) // 2], "garbage_after_proto": b"\x80\x04zz",
                      "empty": b""}[damage])
    with pytest.raises(SerializationError) as info:
        load(path)
    assert str(path) in str(info.value) and "\n" not in str(info.value)


def test_a_file_of_another_kind_is_named(tmp_path):
    path = tmp_path / "model.pdmodel"
    path.write_bytes(b"\x0a\x05hello protobuf")
    with pytest.raises(SerializationError, match="neither a tomlrun state file .* nor a Paddle "
                                                 "checkpoint"):
        load(path)


def test_a_folder_is_refused_by_name(tmp_path):
    (tmp_path / "fluid_params").mkdir()
    with pytest.raises(SerializationError, match=r"fluid_params' is a folder.*save_params"):
        load(tmp_path / "fluid_params")
