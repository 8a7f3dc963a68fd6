"""Your own code without editing tomlrun: the example plugin package (examples/plugin) installed,
then its model, layer type, dataset and reader used by name from the command line."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from runner import plugins
from runner.errors import UserError
from tests.runner.subprocesses import ROOT, runner_env

TINY = ["trainer.progress=false", "runtime.threads=1"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The example plugin installed (pip, entry points and all) into a folder of its own."""
    target = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
               "--target", str(target), str(ROOT / "examples" / "plugin")]
    done = subprocess.run([*command, "--no-build-isolation"], capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:  # no setuptools in this environment: let pip fetch one
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert list(target.glob("tomlrun_example_plugin-*.dist-info"))
    return target


def _run(site: Path, cwd: Path, *args: str, module: str = "runner"):
    env = runner_env()
    env["PYTHONPATH"] = os.pathsep.join([str(site), env["PYTHONPATH"]])
    return subprocess.run([sys.executable, "-m", module, *args], cwd=cwd, env=env, text=True,
                          capture_output=True, timeout=600)


def test_a_plugin_model_trains_on_a_plugin_dataset(site, tmp_path):
    done = _run(site, tmp_path, *TINY, "model=probe", "data=blobs", "trainer.epochs=4",
                "model.hidden=16", "data.samples=400")
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout + done.stderr
    accuracy = float(printed.split("test loss")[1].split("acc")[1].split()[0])
    assert accuracy > 0.8  # well-separated blobs


def test_a_plugin_layer_type_in_a_spec_and_its_bundle_names_the_plugin(site, tmp_path):
    done = _run(site, tmp_path, *TINY, "data=blobs", "model=mlp", "model.hidden=[16]",
                "trainer.epochs=2",
                "+model.layers.noise={type: GaussianNoise, stddev: 0.1, inputs: [flatten]}",
                "+model.layers.hidden.inputs=[noise]")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "GaussianNoise" in done.stdout + done.stderr  # the model summary
    [bundle] = list(tmp_path.glob("outputs/*/*/model/data/inference/model.toml")) or \
        list(tmp_path.glob("outputs/**/model.toml"))
    assert "tomlrun_example" in bundle.read_text()
    infer = _run(site, tmp_path, f"run={bundle.parent}", "input=test",
                 f"out={tmp_path / 'pred.npz'}", module="runner.infer")
    assert infer.returncode == 0, infer.stderr[-3000:]
    assert np.load(tmp_path / "pred.npz")["predicted"].shape[0] > 0


def test_a_plugin_reader_feeds_data_files(site, tmp_path):
    rng = np.random.default_rng(0)
    for split, count in (("train", 120), ("test", 40)):
        (tmp_path / split).mkdir()
        labels = rng.integers(0, 2, count)
        rows = [(rng.normal(label * 3.0, 1.0, 4), label) for label in labels]
        (tmp_path / split / "part.tsv").write_text(
            "".join("\t".join(f"{v:.4f}" for v in x) + f"\t{y}\n" for x, y in rows))
    done = _run(site, tmp_path, *TINY, "data=files", f"data.root={tmp_path}",
                "data.reader=tsv", "model=probe", "trainer.epochs=3",
                "trainer.objective=test/acc")
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("args, message", [
    (["plugins=[no_such_plugin_module]"], "the plugin module 'no_such_plugin_module'"),
    (["model=probe", "+model.hiden=3"], "did you mean 'model.hidden'"),
    # checked against the builder's annotations (hidden: int, noise: float)
    (["model=probe", "model.hidden=abc"], "model.hidden = 'abc' has the wrong type: expected "
                                          "an integer"),
    (["model=probe", "model.noise=[1]"], "model.noise = [1] has the wrong type"),
])
def test_plugin_mistakes_are_one_paragraph_with_status_2(site, tmp_path, args, message):
    done = _run(site, tmp_path, *TINY, "data=blobs", *args)
    assert done.returncode == 2, done.stderr[-3000:]
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "mlflow.db").exists()


def test_a_name_registered_twice_names_both_places(site, tmp_path):
    (tmp_path / "clash_plugin.py").write_text(
        "from runner import plugins\n\n@plugins.dataset('blobs')\ndef blobs(seed):\n"
        "    return {}\n")
    done = _run(site, tmp_path, *TINY, "plugins=[clash_plugin]")
    assert done.returncode == 2
    assert "'blobs' is registered twice: by module tomlrun_example and by module " \
           "clash_plugin" in done.stderr


def test_the_registry_refuses_a_second_object_under_one_name():
    registry = plugins.Registry("model")
    registry.add("net", len, "module a")
    registry.add("net", len, "module a")  # the same object again (a re-import) is fine
    with pytest.raises(UserError, match="registered twice: by module a and by module b"):
        registry.add("net", max, "module b")
    assert plugins.modules_in_argv(["plugins=[a, b]", "+plugins=c", "x=1"]) == ["a", "b", "c"]


def test_plugins_given_as_one_name_load_that_module(site, tmp_path):
    done = _run(site, tmp_path, *TINY, "plugins=tomlrun_example", "model=probe", "data=blobs",
                "trainer.epochs=1", "tracking.enabled=false")
    assert done.returncode == 0, done.stderr[-3000:]  # not split into 't', 'o', ...


def test_a_plugin_given_as_a_file_path_says_which_module_name_to_write(tmp_path):
    """plugins=[my_layers.py] ended in importlib's "No module named 'my_layers.py'; 'my_layers'
    is not a package", which does not say what to write instead."""
    (tmp_path / "my_layers.py").write_text("")
    elsewhere = tmp_path / "lib" / "more_layers.py"
    elsewhere.parent.mkdir()
    elsewhere.write_text("")
    for listed, advice in (("my_layers.py", "write plugins=[my_layers] (the file my_layers.py "
                                            "is in the launch folder"),
                           (str(elsewhere), f"write plugins=[more_layers] and make "
                                            f"{elsewhere.parent} importable (PYTHONPATH="
                                            f"{elsewhere.parent}")):
        done = subprocess.run([sys.executable, "-m", "runner", *TINY, f"plugins=[{listed}]"],
                              cwd=tmp_path, env=runner_env(), text=True, capture_output=True,
                              timeout=300)
        assert done.returncode == 2, done.stderr[-3000:]
        assert done.stderr.startswith(f"tomlrun: error: the plugin module '{listed}' (listed in "
                                      "plugins) is a file path, but plugins names modules as "
                                      "Python imports them: ")
        assert advice in done.stderr and "Traceback" not in done.stderr


FAILING_PLUGIN = '''
from core import nn
from runner import plugins


@plugins.model("broken")
def broken(input_shape, num_classes):
    raise ValueError("my builder failed")


@plugins.layer()
class Boom(nn.Layer):
    def __init__(self, factor: float = 1.0):
        super().__init__()
        raise RuntimeError("Boom cannot be built")


@plugins.dataset("failing")
def failing(seed):
    raise KeyError("no such table")


@plugins.dataset("pairs")
def pairs(seed):
    import numpy as np
    x, y = np.zeros((20, 4), np.float32), np.zeros(20, np.int64)
    return {"train": (x, y), "valid": None, "test": (x, y)}  # arrays, not datasets


@plugins.model("one_argument")
def one_argument(shape):
    return nn.Linear(4, 2)


@plugins.dataset("no_valid")
def no_valid(seed):
    import numpy as np
    import core
    split = core.io.TensorDataset([np.zeros((20, 4), np.float32), np.zeros(20, np.int64)])
    return {"train": split, "valid": None, "test": split}


@plugins.layer()
class NumpyOut(nn.Layer):
    def forward(self, x):
        return x.numpy()
'''


@pytest.mark.parametrize("args, message", [
    (["model=broken"], "the model plugin 'broken' (module failing_plugin) failed at "
                       "{file}:8: ValueError: my builder failed"),
    (["+model.layers.boom={type: Boom, inputs: [flatten]}", "+model.layers.fc.inputs=[boom]"],
     "the layer plugin 'Boom' (module failing_plugin) failed at {file}:15: RuntimeError: "
     "Boom cannot be built"),
    (["data=failing"], "the dataset plugin 'failing' (module failing_plugin) failed at "
                       "{file}:20: KeyError: 'no such table'"),
    (["data=pairs", "model=mlp"], "the plugin dataset 'pairs' (module failing_plugin) returned "
                                  "a train split that is not a dataset of samples: got a tuple "
                                  "whose item 0 is ndarray of shape (20, 4)"),
    # A builder whose parameters do not take what tomlrun passes failed inside tomlrun's own
    # call (the line named was runner/plugins.py's): the user's def line is named instead.
    (["model=one_argument"], "the model plugin 'one_argument' (module failing_plugin) cannot "
                             "be called as tomlrun calls a model builder, builder(input_shape, "
                             "num_classes, **options): one_argument(shape) (at {file}:30) was "
                             "given (tuple, int) and says: too many positional arguments."),
    # valid = None from a plugin's builder was reported as "data.valid_size is 0".
    (["data=no_valid", "model=mlp"], "trainer.objective=valid/acc needs a validation set but "
                                     "the plugin dataset 'no_valid' (module failing_plugin) "
                                     "returned valid = None: return a validation split"),
    # An array has a shape too: it passed the probe's check and failed in core's isfinite,
    # a traceback with exit status 1.
    (["+model.layers.n={type: NumpyOut, inputs: [flatten]}", "+model.layers.fc.inputs=[n]"],
     "model.layers.n (NumpyOut) returned ndarray, not a Tensor: a spec layer must return a "
     "Tensor"),
])
def test_a_failing_plugin_is_one_paragraph_naming_it_and_its_line(tmp_path, args, message):
    """The user's own builder or layer raising (or handing back bare arrays) used to end in a
    traceback through tomlrun, and the arrays only failed at the first batch."""
    (tmp_path / "failing_plugin.py").write_text(FAILING_PLUGIN)
    done = subprocess.run([sys.executable, "-m", "runner", *TINY, "plugins=[failing_plugin]",
                           *args], cwd=tmp_path, env=runner_env(), text=True,
                          capture_output=True, timeout=600)
    assert done.returncode == 2, done.stderr[-3000:]
    assert message.format(file=tmp_path / "failing_plugin.py") in done.stderr
    assert "Traceback" not in done.stderr
    assert not {"outputs", "mlflow.db", "mlruns"} & {p.name for p in tmp_path.iterdir()}


def test_a_plugin_module_a_model_needs_but_cannot_import_says_the_bundle_recorded_it():
    """Loading a model trained with plugins=[my_module] elsewhere (its launch folder) said
    "listed in plugins", though nothing was listed by the one loading it."""
    from runner.track import bundle  # noqa: PLC0415

    with pytest.raises(plugins.PluginError, match=r"^the plugin module 'h4_no_such_plugin' "
                                                  r"\(recorded in the model's bundle: the model "
                                                  r"was trained with it, so it must be "
                                                  r"importable where the model is loaded\) "
                                                  r"could not be imported: ModuleNotFoundError"):
        bundle.build_from({"format": 1, "plugins": ["h4_no_such_plugin"], "model": {},
                           "input_shape": [4], "num_classes": 2})


@pytest.mark.parametrize("forward, message", [
    ("return self.fc(x.reshape([x.shape[0], -1])).numpy()",
     "model=scores's forward returned ndarray, not a Tensor: the training loss takes one Tensor "
     "of scores [batch, 10]"),
    ("return self.fc(x.reshape([x.shape[0], -1]))[:, :3]",
     "model=scores's forward gave shape [2, 3] for a batch of 2 samples, but the loss takes one "
     "score per class: [2, 10] (the data has 10 classes)."),
    ("return self.fc(x.reshape([x.shape[0], -1])), x",
     "model=scores's forward returned tuple, not a Tensor"),
])
def test_a_plugin_model_whose_forward_gives_no_class_scores_stops_before_the_run(
        tmp_path, forward, message):
    """Such a model used to fail in its first training step (a label out of range, backward
    of an array): a traceback, exit status 1, and an MLflow run and output folder left."""
    (tmp_path / "scores_plugin.py").write_text(f'''
import numpy as np
from core import nn
from runner import plugins


class Net(nn.Layer):
    def __init__(self, size):
        super().__init__()
        self.fc = nn.Linear(size, 10)

    def forward(self, x):
        {forward}


@plugins.model("scores")
def scores(input_shape, num_classes):
    return Net(int(np.prod(input_shape)))
''')
    done = subprocess.run([sys.executable, "-m", "runner", *TINY, "plugins=[scores_plugin]",
                           "model=scores"], cwd=tmp_path, env=runner_env(), text=True,
                          capture_output=True, timeout=600)
    assert done.returncode == 2, done.stderr[-3000:]
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not {"outputs", "mlflow.db", "mlruns"} & {p.name for p in tmp_path.iterdir()}
