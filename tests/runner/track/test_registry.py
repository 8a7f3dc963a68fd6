"""The model registry: tracking.register_as, models:/ URIs in runner.infer and the Python API,
clear errors for bad URIs, and a sweep that registers only its best job."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from runner import infer
from runner.errors import UserError
from runner.track import bundle, tracking
from tests.runner.subprocesses import runner_env

SMALL = ["trainer.epochs=1", "model=mlp", "model.hidden=[8]", "runtime.threads=1",
         "trainer.progress=false", "tracking.system_metrics=false"]


def _runner(folder, *args, multirun=False):
    return subprocess.run([sys.executable, "-m", "runner", *["-m"][:multirun], *SMALL, *args],
                          cwd=folder,
                          text=True, capture_output=True, timeout=300, env=runner_env())


@pytest.fixture(scope="module")
def registered(tmp_path_factory):
    """Two runs registered as versions 1 and 2 of 'digits-mlp'; version 2 gets @champion."""
    folder = tmp_path_factory.mktemp("launch")
    for seed in (0, 1):
        done = _runner(folder, f"trainer.seed={seed}", "tracking.register_as=digits-mlp")
        assert done.returncode == 0, done.stderr[-3000:]
        assert f"models:/digits-mlp/{seed + 1}" in done.stderr + done.stdout
    uri = tracking.default_uri(folder)
    client = tracking.open_client(uri)
    client.set_registered_model_alias("digits-mlp", "champion", "2")
    return folder, uri, client


def test_versions_and_aliases_load_in_the_python_api_and_runner_infer(registered, tmp_path):
    folder, uri, client = registered
    second = client.get_model_version("digits-mlp", "2")
    by_alias = infer.main(["run=models:/digits-mlp@champion", "input=test", f"uri={uri}",
                           "outputs=[softmax]", f"out={tmp_path / 'a.npz'}"])
    by_run = infer.main([f"run={second.run_id}", "input=test", f"uri={uri}",
                         "outputs=[softmax]", f"out={tmp_path / 'b.npz'}"])
    np.testing.assert_array_equal(by_alias["softmax"], by_run["softmax"])
    first_model, _ = bundle.load_model("models:/digits-mlp/1", uri)
    second_model, description = bundle.load_model("models:/digits-mlp/2", uri)
    assert description["model"]["name"] == "mlp"
    weights = [p.data for p in first_model.parameters()]
    assert not all(np.array_equal(a, p.data) for a, p in zip(weights,
                                                             second_model.parameters()))


@pytest.mark.parametrize("source, message", [
    ("models:/digits-mlp/7", r"versions 1, 2 and @champion"),
    ("models:/digits-mlp@nobody", r"versions 1, 2 and @champion"),
    ("models:/unknown/1", r"no model is registered as 'unknown'.*register_as"),
    ("models:/digits-mlp", r"models:/<name>/<version> or models:/<name>@<alias>"),
    ("runs:/0123abcd/model", r"runs:/0123abcd/model is neither"),
])
def test_bad_model_uris_are_one_clear_error(registered, source, message):
    with pytest.raises(UserError, match=message):
        bundle.load_model(source, registered[1])


def test_the_cli_reports_a_missing_version_with_exit_2(registered):
    folder = registered[0]
    done = subprocess.run([sys.executable, "-m", "runner.infer", "run=models:/digits-mlp/9",
                           "input=test"], cwd=folder, text=True, capture_output=True,
                          timeout=120, env=runner_env())
    assert done.returncode == 2
    assert done.stderr.startswith("tomlrun infer: error: run=models:/digits-mlp/9")
    assert "Traceback" not in done.stderr


def test_register_as_without_a_logged_model_is_a_config_error(tmp_path):
    done = _runner(tmp_path, "tracking.register_as=x", "trainer.checkpoint=false")
    assert done.returncode == 2
    assert "tomlrun: error: tracking.register_as = 'x'" in done.stderr
    assert not (tmp_path / "mlflow.db").exists()


def test_a_sweep_registers_only_its_best_job(tmp_path):
    done = _runner(tmp_path, "optim.lr=0.0001,0.05", "sweep.register_best=best-mlp",
                   multirun=True)
    assert done.returncode == 0, done.stderr[-3000:]
    client = tracking.open_client(tracking.default_uri(tmp_path))
    versions = client.search_model_versions("name = 'best-mlp'")
    assert len(versions) == 1
    experiment = client.get_experiment_by_name("tomlrun").experiment_id
    parent = client.search_runs([experiment], "tags.`tomlrun.sweep` = 'parent'")[0]
    assert versions[0].run_id == parent.data.tags["best_run_id"]
    assert parent.data.tags["best_model_version"] == "models:/best-mlp/1"
