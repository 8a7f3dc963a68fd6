"""core.jit: to_static runs eagerly with Paddle's input checks; save / load round trips through
files (in a fresh process too), refuses what it cannot do, and never damages a saved model."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import core
import core.jit as jit
from core import nn
from core.static import InputSpec
from tests.gradcheck import check_grad

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
IMAGE = InputSpec([None, 1, 28, 28], "float32", "x")


# ----- layers defined here: loading them needs this module importable -------------------------

class Net(nn.Layer):
    """Core layers plus attributes of its own: stored as a description (no pickle)."""

    def __init__(self, scale: float = 2.0):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.drop = nn.Dropout(0.5)
        self.scale = scale
        self.offset = core.to_tensor(np.array([0.5, -1.0, 2.0], dtype="float32"))

    @jit.to_static(input_spec=[InputSpec([None, 4], "float32", "x")])
    def forward(self, x):
        return self.drop(core.tanh(self.fc(x))) * self.scale + self.offset


class Scaler:
    """A plain object of this module's: a layer holding one is stored by pickle."""

    def __init__(self, factor: float):
        self.factor = factor

    def __call__(self, x):
        return x * self.factor


class PickledNet(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.scaler = Scaler(3.0)

    def forward(self, x, shift=1.0):
        return self.scaler(self.fc(x)) + shift


class Noisy(nn.Layer):
    """Draws random numbers in forward, in every mode."""

    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(x) + core.rand(x.shape)


def double_sum(x, y):
    """A module-level function: jit.save stores it by name."""
    return (x + y) * 2.0


def _inputs(*shape, seed=0, dtype="float32"):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _kind(path) -> str:
    return core.load(str(path) + ".pdmodel")["kind"]


def _run_fresh(code: str) -> subprocess.CompletedProcess:
    """``code`` in a new interpreter that can import this module (as pytest named it)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(ROOT)])}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


# ----- save -> load in a fresh process --------------------------------------------------------

@pytest.mark.parametrize("build, spec, kind", [
    (lambda: core.vision.models.LeNet(), [IMAGE], "description"),
    (Net, None, "description"),
    (PickledNet, [InputSpec([None, 4], "float32", "x")], "pickle"),
])
def test_save_then_load_in_a_fresh_process_gives_the_same_outputs(tmp_path, build, spec, kind):
    core.seed(3)
    layer = build()
    if spec is not None:
        layer = jit.to_static(layer, input_spec=spec)
    shape = (5, 1, 28, 28) if spec == [IMAGE] else (5, 4)
    x = _inputs(*shape)
    layer.eval()
    expected = layer(x).numpy()
    jit.save(layer, tmp_path / "inference" / "model")
    assert sorted(os.listdir(tmp_path / "inference")) == ["model.pdiparams", "model.pdmodel"]
    assert _kind(tmp_path / "inference" / "model") == kind
    np.save(tmp_path / "x.npy", x)
    done = _run_fresh(f"""
        import numpy as np
        import core.jit
        loaded = core.jit.load({str(tmp_path / "inference" / "model")!r})
        assert not loaded.training  # a loaded model starts in eval mode, as Paddle's
        loaded.eval()
        out = loaded(np.load({str(tmp_path / "x.npy")!r}))
        np.save({str(tmp_path / "out.npy")!r}, out.numpy())
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    if core.device.get_device() == "cpu":  # the same kernels: the same bits
        np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), expected)
    else:  # saved from a GPU (TOMLRUN_TEST_DEVICE), loaded on the CPU: float32 rounding apart
        np.testing.assert_allclose(np.load(tmp_path / "out.npy"), expected, rtol=1e-5, atol=1e-5)


def test_loaded_layer_has_the_saved_names_modes_and_specs(tmp_path):
    core.seed(1)
    net = Net()
    jit.save(net, tmp_path / "net")
    loaded = jit.load(tmp_path / "net")
    assert isinstance(loaded, jit.TranslatedLayer) and isinstance(loaded, nn.Layer)
    assert list(loaded.state_dict()) == list(net.state_dict()) == ["fc.weight", "fc.bias"]
    for a, b in zip(loaded.parameters(), net.parameters()):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert loaded._input_spec() == [InputSpec([None, 4], "float32", "x")]
    assert loaded._output_spec() == [InputSpec([None, 3], "float32", "output_0")]
    x = _inputs(6, 4)
    np.testing.assert_array_equal(loaded(x).numpy(), net.eval()(x).numpy())
    assert loaded.train() is loaded and loaded.training and loaded.drop.training
    core.seed(5)
    dropped = loaded(x).numpy()
    assert (dropped == net.offset.numpy()).any()  # dropout zeroed some units in train mode
    assert loaded.eval() is loaded and not loaded.drop.training
    with pytest.raises(ValueError, match="forward only"):
        loaded._input_spec("predict")
    jit.save(loaded, tmp_path / "again")  # a loaded model saves again, with its spec
    again = jit.load(tmp_path / "again")
    assert type(again.fc) is nn.Linear and again._input_spec() == loaded._input_spec()
    np.testing.assert_array_equal(again(x).numpy(), net.eval()(x).numpy())


def test_loaded_layer_fine_tunes_and_its_gradient_matches_finite_differences(tmp_path):
    core.set_default_dtype("float64")
    net = Net(scale=1.5)
    jit.save(net, tmp_path / "net", input_spec=[InputSpec([None, 4], "float64", "x")])
    loaded = jit.load(tmp_path / "net")
    check_grad(lambda x: loaded(x), _inputs(3, 4, dtype="float64"))
    before = loaded.fc.weight.numpy().copy()
    optimizer = core.optimizer.SGD(0.1, parameters=loaded.parameters())
    loaded(_inputs(3, 4, dtype="float64")).sum().backward()
    optimizer.step()
    assert not np.allclose(loaded.fc.weight.numpy(), before)


def test_parameter_attributes_survive(tmp_path):
    attr = core.ParamAttr(name="head_w", learning_rate=0.5,
                          regularizer=core.regularizer.L2Decay(0.1), trainable=False)
    layer = nn.Sequential(nn.Linear(3, 2, weight_attr=attr), nn.LayerNorm(2))
    jit.save(layer, tmp_path / "seq", input_spec=[InputSpec([None, 3])])
    assert _kind(tmp_path / "seq") == "description"
    weight = getattr(jit.load(tmp_path / "seq"), "0").weight
    assert (weight.name, weight.trainable, weight.stop_gradient) == ("head_w", False, True)
    assert weight.optimize_attr == {"learning_rate": 0.5}
    assert isinstance(weight.regularizer, core.regularizer.L2Decay)
    assert weight.regularizer.coeff == pytest.approx(0.1)


def test_buffers_and_shared_layers_come_back(tmp_path):
    shared = nn.Linear(3, 3)
    layer = nn.Sequential(shared, nn.BatchNorm1D(3), shared)
    layer.train()
    layer(_inputs(8, 3))  # moves the running statistics
    jit.save(layer, tmp_path / "bn", input_spec=[InputSpec([None, 3])])
    loaded = jit.load(tmp_path / "bn")
    parts = dict(loaded.named_children())
    assert parts["0"] is parts["2"]
    np.testing.assert_array_equal(parts["1"]._mean.numpy(), layer[1]._mean.numpy())
    x = _inputs(4, 3, seed=2)
    np.testing.assert_allclose(loaded(x).numpy(), layer.eval()(x).numpy(), rtol=1e-6)


def test_a_non_persistable_buffer_stays_out_of_the_loaded_state_dict(tmp_path):
    layer = nn.Linear(3, 2)
    layer.register_buffer("kept", core.ones([2]))
    layer.register_buffer("scratch", core.full([2], 2.0), persistable=False)
    jit.save(layer, tmp_path / "m", input_spec=[InputSpec([None, 3])])
    loaded = jit.load(tmp_path / "m")
    assert list(loaded.state_dict()) == list(layer.state_dict()) == ["weight", "bias", "kept"]
    np.testing.assert_array_equal(loaded.scratch.numpy(), [2.0, 2.0])  # still there
    fresh = nn.Linear(3, 2)
    fresh.register_buffer("kept", core.zeros([2]))
    fresh.set_state_dict(loaded.state_dict(), strict=True)  # no unexpected 'scratch'
    np.testing.assert_array_equal(fresh.kept.numpy(), [1.0, 1.0])


def test_save_and_load_a_function(tmp_path):
    fn = jit.to_static(double_sum, input_spec=[InputSpec([None, 2]), InputSpec([None, 2])])
    jit.save(fn, tmp_path / "fn")
    assert _kind(tmp_path / "fn") == "pickle"
    loaded = jit.load(tmp_path / "fn")
    a, b = _inputs(3, 2), _inputs(3, 2, seed=1)
    np.testing.assert_array_equal(loaded(a, b).numpy(), (a + b) * 2.0)
    assert loaded.parameters() == [] and list(loaded.state_dict()) == []
    with pytest.raises(ValueError, match=r"takes 2 input\(s\) \(x, y\), got 1"):
        loaded(a)


def test_a_constant_in_the_spec_is_baked_in(tmp_path):
    net = PickledNet()
    jit.save(net, tmp_path / "net", input_spec=[InputSpec([None, 4], name="x"), 5.0])
    loaded = jit.load(tmp_path / "net")
    x = _inputs(2, 4)
    np.testing.assert_allclose(loaded(x).numpy(), net(x, 5.0).numpy(), rtol=1e-6)
    assert loaded._input_spec() == [InputSpec([None, 4], "float32", "x")]


def test_torch_parity_of_a_saved_and_loaded_model(tmp_path):
    torch = pytest.importorskip("torch")
    ours = nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Linear(5, 2))
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 2))
    with torch.no_grad():
        for index in (0, 2):  # paddle's Linear weight is [in, out], torch's [out, in]
            theirs[index].weight.copy_(torch.tensor(ours[index].weight.numpy().T))
            theirs[index].bias.copy_(torch.tensor(ours[index].bias.numpy()))
    jit.save(ours, tmp_path / "ours", input_spec=[InputSpec([None, 4])])
    x = _inputs(7, 4)
    with warnings.catch_warnings():  # torch.jit is deprecated in recent torch; still there
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.save(torch.jit.trace(theirs, torch.zeros(1, 4)), str(tmp_path / "theirs.pt"))
        want = torch.jit.load(str(tmp_path / "theirs.pt"))(torch.tensor(x)).detach().numpy()
    got = jit.load(tmp_path / "ours")(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


# ----- to_static ------------------------------------------------------------------------------

def test_to_static_on_forward_gives_identical_results_and_checks_inputs():
    core.seed(0)
    net = Net().eval()
    assert isinstance(Net.forward, jit.StaticFunction)
    assert isinstance(net.forward, jit.StaticFunction)
    assert net.forward is net.forward  # one bound function per instance
    x = _inputs(3, 4)
    plain = Net.forward.dygraph_function  # the undecorated function
    np.testing.assert_array_equal(net(x).numpy(), plain(net, core.to_tensor(x)).numpy())
    with pytest.raises(ValueError, match="missing a required argument: 'x'"):
        Net.forward.__get__(net)()
    with pytest.raises(RuntimeError, match=r"input_spec\[0\] \(x\) describes a tensor.*list"):
        net([[1.0, 2.0, 3.0, 4.0]])
    with pytest.warns(UserWarning, match=r"x: shape \[3, 5\] does not fit \[None, 4\]"):
        with pytest.raises(ValueError):  # the real input still runs (and fails in Linear)
            net(_inputs(3, 5))
    with pytest.warns(UserWarning, match="dtype float64 is not float32"):
        net(_inputs(3, 4, dtype="float64"))


def test_to_static_on_a_function_as_decorator_and_call():
    @jit.to_static
    def add(x, y):
        return x + y

    @jit.to_static(input_spec=[InputSpec([2], "float32", "a"), InputSpec([2], "float32")])
    def mul(a, b, **extra):
        return a * b

    x, y = core.to_tensor([1.0, 2.0]), core.to_tensor([3.0, 4.0])
    assert isinstance(add, jit.StaticFunction) and add.__name__ == "add"
    np.testing.assert_array_equal(add(x, y).numpy(), [4.0, 6.0])
    assert add.input_spec is None
    assert add.traced_input_spec() == (InputSpec([2], "float32", "x", True),
                                       InputSpec([2], "float32", "y", True))
    np.testing.assert_array_equal(mul(x, b=y).numpy(), [3.0, 8.0])  # named: fine
    with pytest.raises(ValueError, match=r"unexpected keyword arguments \['c'\]"):
        mul(x, y, c=1)
    with pytest.raises(ValueError, match="missing a required argument: 'b'"):
        mul(x)
    assert "return a * b" in mul.code
    assert jit.to_static(jit.to_static(add)).dygraph_function is add.dygraph_function


def test_to_static_grad_matches_finite_differences():
    core.set_default_dtype("float64")
    fn = jit.to_static(lambda x: core.tanh(x) * x,
                       input_spec=[InputSpec([None, 3], "float64")])
    check_grad(fn, _inputs(2, 3, dtype="float64"))


def test_to_static_on_a_layer_returns_it_and_rollback_undoes_it():
    layer = nn.Linear(3, 2)
    same = jit.to_static(layer, input_spec=[InputSpec([None, 3])])
    assert same is layer and isinstance(layer.forward, jit.StaticFunction)
    x = _inputs(4, 3)
    out = layer(x).numpy()
    plain = layer.forward.rollback()
    assert not isinstance(layer.forward, jit.StaticFunction) and plain == layer.forward
    np.testing.assert_array_equal(layer(x).numpy(), out)


def test_save_without_spec_uses_the_last_call(tmp_path):
    layer = jit.to_static(nn.Linear(3, 2))
    layer(_inputs(6, 3))
    jit.save(layer, tmp_path / "traced")
    loaded = jit.load(tmp_path / "traced")
    assert loaded._input_spec() == [InputSpec([6, 3], "float32", "x", True)]  # Paddle: exact
    assert loaded._output_spec() == [InputSpec([6, 2], "float32", "output_0")]


def test_enable_to_static_false_skips_checks_and_refuses_save(tmp_path):
    net = Net().eval()
    try:
        jit.enable_to_static(False)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            net(_inputs(3, 4, dtype="float64"))  # no dtype warning: a plain call
        with pytest.raises(RuntimeError, match="enable_to_static"):
            jit.save(net, tmp_path / "net")
    finally:
        jit.enable_to_static(True)
    jit.save(net, tmp_path / "net")


def test_save_leaves_modes_and_random_state_as_they_were(tmp_path):
    noisy = Noisy().train()
    state = core.get_rng_state()
    jit.save(noisy, tmp_path / "noisy", input_spec=[InputSpec([None, 4])])
    assert noisy.training and noisy.drop.training
    after_save = core.rand([3]).numpy()
    core.set_rng_state(state)
    np.testing.assert_array_equal(after_save, core.rand([3]).numpy())  # save drew nothing


# ----- Model.save(training=False) -------------------------------------------------------------

def test_model_save_for_inference_then_jit_load(tmp_path):
    model = core.Model(core.vision.models.LeNet(), inputs=[IMAGE])
    model.save(str(tmp_path / "inference" / "lenet"), training=False)
    assert sorted(os.listdir(tmp_path / "inference")) == ["lenet.pdiparams", "lenet.pdmodel"]
    loaded = jit.load(str(tmp_path / "inference" / "lenet"))
    x = _inputs(2, 1, 28, 28)
    np.testing.assert_array_equal(loaded(x).numpy(), model.predict_batch([x])[0])
    bare = core.Model(core.vision.models.LeNet())
    with pytest.raises(ValueError, match=r"Model\(network, inputs=\[\.\.\.\]\)"):
        bare.save(str(tmp_path / "bare"), training=False)


# ----- refusals -------------------------------------------------------------------------------

def test_save_refuses_a_layer_never_called_without_spec(tmp_path):
    with pytest.raises(ValueError, match="LeNet has no input_spec and was never called"):
        jit.save(core.vision.models.LeNet(), tmp_path / "lenet")
    with pytest.raises(ValueError, match="never called"):
        jit.save(jit.to_static(nn.Linear(2, 2)), tmp_path / "linear")
    assert os.listdir(tmp_path) == []


def test_save_refuses_a_folder_and_a_spec_of_the_wrong_length(tmp_path):
    lenet = core.vision.models.LeNet()
    with pytest.raises(ValueError, match="is a folder; give a file prefix inside it"):
        jit.save(lenet, tmp_path, input_spec=[IMAGE])
    with pytest.raises(ValueError, match="must be a file prefix"):
        jit.save(lenet, str(tmp_path) + os.sep, input_spec=[IMAGE])
    with pytest.raises(ValueError, match=r"2 entries but LeNet.forward\(inputs\) takes at most 1"):
        jit.save(lenet, tmp_path / "m", input_spec=[IMAGE, IMAGE])
    with pytest.raises(ValueError, match=r"0 entries but PickledNet.forward\(x, shift\) needs 1"):
        jit.save(PickledNet(), tmp_path / "m", input_spec=[])
    with pytest.raises(TypeError, match="input_spec must be a list or tuple"):
        jit.save(lenet, tmp_path / "m", input_spec=IMAGE)
    with pytest.raises(TypeError, match=r"input_spec\[0\] is a nested list"):
        jit.save(lenet, tmp_path / "m", input_spec=[[IMAGE]])
    with pytest.raises(ValueError, match=r"failed on example inputs of shapes \[\[1, 1, 5, 5\]\]"):
        jit.save(lenet, tmp_path / "m", input_spec=[InputSpec([None, 1, 5, 5])])
    with pytest.raises(TypeError, match="must be a core.nn.Layer or a function"):
        jit.save(3, tmp_path / "m")
    with pytest.raises(TypeError, match="save the Layer itself"):
        jit.save(Net().forward, tmp_path / "m")
    assert os.listdir(tmp_path) == []
    (tmp_path / "taken").write_text("a file, not a folder")
    with pytest.raises(FileExistsError) as info:
        jit.save(lenet, tmp_path / "taken" / "m", input_spec=[IMAGE])
    assert str(info.value) == (f"jit.save: cannot create the folder '{tmp_path / 'taken'}' for "
                               "m.pdmodel and m.pdiparams: a file is in the way.")


def test_save_config_checks(tmp_path):
    lenet = core.vision.models.LeNet()
    with pytest.raises(ValueError, match=r"config\(s\) \['bogus'\] are not supported"):
        jit.save(lenet, tmp_path / "m", [IMAGE], bogus=1)
    with pytest.raises(ValueError, match="leave output_spec None"):
        jit.save(lenet, tmp_path / "m", [IMAGE], output_spec=[core.ones([1])])
    with pytest.raises(ValueError, match="skip_forward=True saves no forward"):
        jit.save(lenet, tmp_path / "m", [IMAGE], skip_forward=True)
    with pytest.raises(TypeError, match="with_hook must be True or False"):
        jit.save(lenet, tmp_path / "m", [IMAGE], with_hook=1)
    jit.save(lenet, tmp_path / "m", [IMAGE], with_hook=True, combine_params=True,
             clip_extra=False)
    with pytest.raises(ValueError, match=r"config\(s\) \['bogus'\]"):
        jit.load(tmp_path / "m", bogus=1)
    with pytest.warns(UserWarning, match="have no effect"):
        jit.load(tmp_path / "m", model_filename="__model__")


def test_a_failing_save_leaves_the_saved_model_intact(tmp_path):
    net = Net()
    jit.save(net, tmp_path / "model")
    before = {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)}
    broken = Net()
    broken.hook = broken.register_forward_post_hook(lambda layer, inputs, output: output)
    with pytest.raises(ValueError, match=r"cannot store Net.*_forward_post_hooks\[0\]"):
        jit.save(broken, tmp_path / "model")
    with pytest.raises(ValueError, match="failed on example inputs"):
        jit.save(nn.Linear(7, 2), tmp_path / "model", input_spec=[InputSpec([None, 4])])
    assert {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)} == before
    x = _inputs(2, 4)
    np.testing.assert_array_equal(jit.load(tmp_path / "model")(x).numpy(), net.eval()(x).numpy())


def test_load_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"no model file '.*nothing\.pdmodel'"):
        jit.load(tmp_path / "nothing")
    core.save(nn.Linear(2, 2).state_dict(), str(tmp_path / "weights.pdparams"))
    with pytest.raises(FileNotFoundError, match="core.save / Model.save weights"):
        jit.load(tmp_path / "weights")
    with pytest.raises(FileNotFoundError, match="is a folder"):
        jit.load(tmp_path)
    jit.save(nn.Linear(2, 2), tmp_path / "m", input_spec=[InputSpec([None, 2])])
    os.replace(tmp_path / "m.pdiparams", tmp_path / "kept.pdiparams")
    with pytest.raises(FileNotFoundError, match=r"no parameter file '.*m\.pdiparams'"):
        jit.load(tmp_path / "m")
    core.save(nn.Linear(2, 2).state_dict(), str(tmp_path / "m.pdiparams"))
    with pytest.raises(jit.ModelFileError, match="checksum differs"):
        jit.load(tmp_path / "m")
    (tmp_path / "paddle.pdmodel").write_bytes(b"\n\x05feed\x12\x03\x08\x01")  # protobuf bytes
    (tmp_path / "paddle.pdiparams").write_bytes(b"")
    with pytest.raises(jit.ModelFileError, match="not written by core.jit.save.*Paddle .pdmodel"):
        jit.load(tmp_path / "paddle")
    core.save({"format": "something else"}, str(tmp_path / "state.pdmodel"))
    (tmp_path / "state.pdiparams").write_bytes(b"")
    with pytest.raises(jit.ModelFileError, match="not a jit.save model"):
        jit.load(tmp_path / "state")


def test_load_names_a_class_that_is_no_longer_importable(tmp_path, monkeypatch):
    folder = tmp_path / "code"
    folder.mkdir()
    (folder / "jit_gone_module.py").write_text(textwrap.dedent("""
        from core import nn

        class GoneNet(nn.Layer):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(2, 2)

            def forward(self, x):
                return self.fc(x)
    """))
    monkeypatch.syspath_prepend(str(folder))
    import jit_gone_module

    jit.save(jit_gone_module.GoneNet(), tmp_path / "gone", input_spec=[InputSpec([None, 2])])
    monkeypatch.delitem(sys.modules, "jit_gone_module")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(folder)])
    with pytest.raises(ImportError, match=r"jit_gone_module\.GoneNet, which cannot be imported"
                                          r".*import the module that defines GoneNet"):
        jit.load(tmp_path / "gone")


# ----- the switches with nothing to switch ----------------------------------------------------

def test_switches_check_their_arguments():
    def fn(x):
        return x

    assert jit.not_to_static(fn) is fn and jit.not_to_static()(fn) is fn
    with pytest.raises(TypeError, match="func must be callable"):
        jit.not_to_static(3)
    assert jit.ignore_module([np, types]) is None
    with pytest.raises(TypeError, match="modules must be a list of modules"):
        jit.ignore_module(np)
    with pytest.raises(TypeError, match="'numpy' is a str, not a module"):
        jit.ignore_module(["numpy"])
    for switch in (jit.set_code_level, jit.set_verbosity):
        assert switch() is None and switch(3, also_to_stdout=True) is None
        with pytest.raises(TypeError, match="level must be an int"):
            switch("3")
        with pytest.raises(TypeError, match="also_to_stdout must be True or False"):
            switch(1, also_to_stdout="yes")
    with pytest.raises(TypeError, match="enable_to_static_bool must be True or False"):
        jit.enable_to_static(1)


def test_to_static_refuses_compiler_options():
    with pytest.raises(ValueError, match="build_strategy=.*has none"):
        jit.to_static(lambda x: x, build_strategy=object())
    with pytest.raises(ValueError, match="backend='TensorRT'"):
        jit.to_static(lambda x: x, backend="TensorRT")
    assert isinstance(jit.to_static(lambda x: x, backend="CINN", full_graph=True),
                      jit.StaticFunction)
    with pytest.raises(TypeError, match="full_graph must be True or False"):
        jit.to_static(lambda x: x, full_graph="yes")
    with pytest.raises(ValueError, match="property=True"):
        jit.to_static(lambda x: x, property=True)
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['enable_fallback'\]"):
        jit.to_static(lambda x: x, enable_fallback=True)
    with pytest.raises(TypeError, match="function must be a function, a method or a core.nn"):
        jit.to_static(3)
