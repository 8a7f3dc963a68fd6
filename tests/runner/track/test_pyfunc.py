"""The run's MLflow model (pyfunc), serving it over HTTP, and what else a run logs: data sets with
digests, system metrics, provenance tags. One small CLI run in a git repository serves the module.
"""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
import yaml

from runner import build, infer
from runner.config import schema
from runner.track import bundle, datasets, pyfunc, tracking
from tests.runner.servers import free_port, stop_group
from tests.runner.subprocesses import runner_env

SMALL = ["trainer.epochs=1", "model=mlp", "model.hidden=[8]", "runtime.threads=1",
         "trainer.progress=false"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """(launch folder, tracking uri, run id) of one CLI run launched from a dirty git repo."""
    folder = tmp_path_factory.mktemp("launch")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    (folder / "notes.txt").write_text("a\n")
    for command in (["init", "-q"], ["add", "notes.txt"], ["commit", "-q", "-m", "x"]):
        subprocess.run(git + command, cwd=folder, check=True, capture_output=True)
    (folder / "notes.txt").write_text("b\n")  # a tracked file changed: dirty
    done = subprocess.run([sys.executable, "-m", "runner", *SMALL], cwd=folder, text=True,
                          capture_output=True, timeout=300,
                          env=runner_env(MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL="0.5"))
    assert done.returncode == 0, done.stderr[-3000:]
    uri = tracking.default_uri(folder)
    client = tracking.open_client(uri)
    found = client.search_runs([client.get_experiment_by_name("tomlrun").experiment_id])
    return folder, uri, found[0].info.run_id


@pytest.fixture(scope="module")
def split_samples(run):
    model_dir = next(Path(run[0], "outputs").glob("*/*/model"))
    description = bundle.from_bundle(str(model_dir))[1]
    samples, labels = infer.load_input({"input": "test"}, description)
    return samples.astype(np.float32), labels


def test_pyfunc_model_predicts_the_probabilities_runner_infer_gives(run, split_samples, tmp_path,
                                                                      monkeypatch):
    import mlflow.pyfunc

    folder, uri, run_id = run
    monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
    model = mlflow.pyfunc.load_model(f"runs:/{run_id}/model")
    samples, _ = split_samples
    probabilities = model.predict(samples)
    expected = infer.main([f"run={run_id}", "input=test", "outputs=[softmax,hidden.0.fc]",
                           f"out={tmp_path / 'p.npz'}", f"uri={uri}"])
    np.testing.assert_allclose(probabilities, expected["softmax"], rtol=1e-5, atol=1e-7)
    named = model.predict(samples[:4], params={"outputs": ["hidden.0.fc", "softmax"]})
    assert set(named) == {"hidden.0.fc", "softmax"} and named["hidden.0.fc"].shape == (4, 8)
    np.testing.assert_allclose(named["hidden.0.fc"], expected["hidden.0.fc"][:4], rtol=1e-5,
                               atol=1e-6)


def test_the_model_folder_has_signature_example_weights_and_only_tomlrun_to_install(run):
    folder = next(Path(run[0], "outputs").glob("*/*/model"))
    mlmodel = yaml.safe_load((folder / "MLmodel").read_text())
    flavor = mlmodel["flavors"]["python_function"]
    assert flavor["loader_module"] == "runner.track.bundle"
    assert (folder / flavor["data"] / "model.pdparams").is_file()
    assert json.loads(mlmodel["signature"]["inputs"])[0]["tensor-spec"]["shape"] == [-1, 1, 8, 8]
    assert json.loads(mlmodel["signature"]["outputs"])[0]["tensor-spec"]["shape"] == [-1, 10]
    assert (folder / "input_example.json").is_file()
    requirements = (folder / "requirements.txt").read_text().split()
    assert f"tomlrun=={tracking.tomlrun_version()}" in requirements
    assert all(r.split("==")[0] in ("tomlrun", "mlflow") for r in requirements), requirements
    assert not list(folder.rglob("*.pkl"))  # no pickled code: weights are npz, code is imported
    # The logged artifact is the same folder: one format.
    client = tracking.open_client(run[1])
    assert {a.path for a in client.list_artifacts(run[2], "model")} >= {"model/MLmodel",
                                                                        "model/data"}


def test_mlflow_models_serve_answers_invocations_like_runner_infer(run, split_samples, tmp_path):
    folder, uri, run_id = run
    samples, _ = split_samples
    expected = infer.main([f"run={run_id}", "input=test", "outputs=[softmax]",
                           f"out={tmp_path / 'p.npz'}", f"uri={uri}"])["softmax"]
    port = free_port()
    log = open(tmp_path / "serve.log", "w")  # noqa: SIM115 - closed in finally
    server = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "models", "serve", "-m", f"runs:/{run_id}/model",
         "--env-manager", "local", "-h", "127.0.0.1", "-p", str(port), "-w", "1"],
        # --env-manager local runs uvicorn from PATH: the test's environment's bin/ first
        cwd=folder, env=runner_env(MLFLOW_TRACKING_URI=uri, PATH=os.pathsep.join(
            [os.path.dirname(sys.executable), os.environ.get("PATH", "")])), stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, (tmp_path / "serve.log").read_text()[-3000:]
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(base + "/ping", timeout=2) as answer:
                    if answer.status == 200:
                        break
            assert time.monotonic() < deadline, "mlflow models serve not up after 120 s"
            time.sleep(0.25)
        request = urllib.request.Request(
            base + "/invocations", data=json.dumps({"inputs": samples[:16].tolist()}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as answer:
            predictions = np.asarray(json.loads(answer.read())["predictions"])
        np.testing.assert_allclose(predictions, expected[:16], rtol=1e-5, atol=1e-7)
        # A layer the model does not have: status 400 and the layers it has, not MLflow's
        # "unexpected error" with a stack trace.
        request = urllib.request.Request(
            base + "/invocations", data=json.dumps({"inputs": samples[:2].tolist(), "params": {
                "outputs": ["nope"]}}).encode(), headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=60)
        assert refused.value.code == 400
        answer = json.loads(refused.value.read())
        assert "params outputs = ['nope'] names 'nope', which is not a layer" in answer["message"]
        assert "hidden.0.fc" in answer["message"] and "stack_trace" not in answer
    finally:
        stop_group(server, grace=20)
        log.close()


def test_the_run_logs_datasets_system_metrics_and_provenance(run):
    folder, uri, run_id = run
    logged = tracking.open_client(uri).get_run(run_id)
    inputs = {d.dataset.name: d for d in logged.inputs.dataset_inputs}
    assert set(inputs) == {"digits-train", "digits-valid", "digits-test"}
    assert [t.value for t in inputs["digits-valid"].tags] == ["validation"]
    assert json.loads(inputs["digits-test"].dataset.profile)["sample_shape"] == [1, 8, 8]
    assert json.loads(inputs["digits-train"].dataset.source)["uri"].endswith("digits.csv.gz")
    metrics = logged.data.metrics
    assert "system/cpu_utilization_percentage" in metrics
    assert metrics["system/system_memory_usage_megabytes"] > 0
    tags = logged.data.tags
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, text=True,
                          capture_output=True, check=True).stdout.strip()
    assert tags["mlflow.source.git.commit"] == head and tags["tomlrun.git_dirty"] == "true"
    assert tags["tomlrun.version"] == tracking.tomlrun_version()
    assert len(tags["tomlrun.config_sha256"]) == 64 and "model=mlp" in tags["command"]


def test_system_metrics_can_be_turned_off(tmp_path):
    done = subprocess.run([sys.executable, "-m", "runner", *SMALL, "tracking.system_metrics=false",
                           "trainer.checkpoint=false"], cwd=tmp_path, text=True,
                          capture_output=True, timeout=300, env=runner_env())
    assert done.returncode == 0, done.stderr[-3000:]
    client = tracking.open_client(tracking.default_uri(tmp_path))
    logged = client.search_runs([client.get_experiment_by_name("tomlrun").experiment_id])[0]
    assert not [k for k in logged.data.metrics if k.startswith("system/")]


def test_a_changed_data_file_changes_the_digest(tmp_path):
    for split in ("train", "test"):
        (tmp_path / split).mkdir()
        (tmp_path / split / "a.csv").write_text("0.1,0.2,0\n0.3,0.4,1\n")
    cfg = schema.FilesConfig(root=str(tmp_path), valid_size=0.0)
    data = build.build_data(cfg, seed=0)
    before = datasets.describe(cfg, {"train": data.train, "test": data.test})
    assert [r["context"] for r in before] == ["training", "test"]
    assert before[0]["source"] == str(tmp_path / "train" / "a.csv")
    (tmp_path / "train" / "a.csv").write_text("0.1,0.2,0\n0.3,0.5,1\n")
    after = datasets.describe(cfg, {"train": build.build_data(cfg, seed=0).train})
    assert after[0]["digest"] != before[0]["digest"]
    again = datasets.describe(cfg, {"train": build.build_data(cfg, seed=0).train})
    assert again[0]["digest"] == after[0]["digest"]
    # In-memory sets hash their arrays: a changed sample changes the digest too.
    digits = build.build_data(schema.DataConfig(), seed=0).test
    first = datasets.describe(schema.DataConfig(), {"test": digits})[0]["digest"]
    digits.arrays[0][0, 0, 0, 0] += 1
    assert datasets.describe(schema.DataConfig(), {"test": digits})[0]["digest"] != first


def test_a_model_of_a_newer_bundle_format_is_a_clear_error(run, tmp_path):
    import shutil

    source = next(Path(run[0], "outputs").glob("*/*/model"))
    copy = tmp_path / "model"
    shutil.copytree(source, copy)
    toml = copy / "data" / "inference" / "model.toml"
    toml.write_text(toml.read_text().replace("format = 1", "format = 99"))
    with pytest.raises(infer.UserError, match="bundle format 99.*reads formats up to 1"):
        bundle.load_model(str(copy))
    assert pyfunc.bundle_in(str(source)).endswith("data/inference")


def test_a_csv_model_reads_whole_floats_as_the_integer_categories_of_its_training_file():
    """pandas makes an integer column float when a cell is missing (a JSON record without the
    key, ``pd.read_csv`` of a file with a blank): ``2.0`` is then the category ``2`` the
    training file had, not an unseen one; ``1.5`` still is."""
    import pandas as pd  # noqa: PLC0415 - mlflow's dependency
    from mlflow.exceptions import MlflowException  # noqa: PLC0415

    import core  # noqa: PLC0415
    from runner.build import tabular  # noqa: PLC0415

    transform = tabular.TabularTransform(label="kind", columns=["x", "zone"],
                                         categorical={"zone": ["1", "2", "3"]})
    core.seed(0)
    model = pyfunc.TomlrunModel(core.nn.Linear(4, 2), {"input_shape": [4],
                                                       "preprocessing": transform.to_dict()})
    whole = model.predict(pd.DataFrame({"x": [0.5, 1.0], "zone": [2, 3]}))
    floats = model.predict(pd.DataFrame({"x": [0.5, 1.0], "zone": [2.0, 3.0]}))
    np.testing.assert_array_equal(floats, whole)
    with pytest.raises(MlflowException, match=r"row 2, column 'zone': category '1.5' was not "
                                              r"seen in the training data \(known: 1, 2, 3\)"):
        model.predict(pd.DataFrame({"x": [0.5, 1.0], "zone": [2.0, 1.5]}))


def test_predict_names_samples_of_the_wrong_shape_or_kind():
    """Called directly (no MLflow signature in front of it), predict used to let numpy's
    reshape or float conversion fail with numpy's words; now one paragraph, and an
    MlflowException (HTTP 400 when served), names what the model takes."""
    from mlflow.exceptions import MlflowException  # noqa: PLC0415

    import core  # noqa: PLC0415

    model = pyfunc.TomlrunModel(core.nn.Flatten(), {"input_shape": [1, 2, 2]})
    assert model.predict(np.ones((3, 4), np.float32)).shape == (3, 4)  # flat rows are reshaped
    with pytest.raises(MlflowException, match=r"samples of shape \[4, 2, 2\], but the model "
                                              r"takes \[1, 2, 2\] \(4 values\) per sample"):
        model.predict(np.ones((1, 4, 2, 2), np.float32))
    with pytest.raises(MlflowException, match=r"predict takes numbers \(floats\) shaped "
                                              r"\[N, 1, 2, 2\]; the input could not be read"):
        model.predict([["a", "b", "c", "d"]])


def test_an_unknown_name_in_outputs_is_named_in_the_params_terms():
    """The error spoke of core's ``Inference`` argument (``output_layer [...] are not
    layers``), a name the caller of predict never wrote; it now quotes ``outputs``, and it
    comes before the samples are read."""
    from mlflow.exceptions import MlflowException  # noqa: PLC0415

    import core  # noqa: PLC0415

    net = core.nn.Sequential(("flat", core.nn.Flatten()), ("fc", core.nn.Linear(4, 3)))
    model = pyfunc.TomlrunModel(net, {"input_shape": [1, 2, 2]})
    assert model.predict(np.ones((2, 4), np.float32), params={"outputs": "fc"}).shape == (2, 3)
    with pytest.raises(MlflowException, match=r"^params outputs = \['fc', 'fcc', 'x'\] names "
                                              r"'fcc', 'x', which are not layers of this model "
                                              r"whose output can be read: use flat, fc, or "
                                              r"'output' / 'softmax'"):
        model.predict(np.ones((2, 4), np.float32), params={"outputs": ["fc", "fcc", "x"]})
    with pytest.raises(MlflowException, match="names 'fcc', which is not a layer"):
        model.predict([["not", "numbers"]], params={"outputs": ["fcc"]})  # names come first
