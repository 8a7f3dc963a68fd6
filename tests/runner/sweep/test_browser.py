"""The MLflow UI in a real browser: a small real sweep, ``mlflow server``, headless Chromium.

The module runs a 2x2 sweep into a sqlite store, serves it with ``mlflow server`` on 127.0.0.1
and opens three pages in Debian's headless ``chromium``: the experiment's runs page, the compare
page of the sweep's runs and the metric page with their learning curves. Each page is rendered
once, to a screenshot (kept in pytest's temporary folder, path printed) and to its DOM, which is
checked for the swept params, the objective and the curves. Skipped where Chromium is missing.
"""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import urllib.parse

import pytest

from runner.sweep import job
from runner.track import runstore, tracking
from tests.runner import servers
from tests.runner.subprocesses import runner_env
from tests.runner.sweep.test_sweep import TINY

CHROMIUM = next(filter(None, map(shutil.which, ("chromium", "chromium-browser"))), None)
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Chromium is not installed (apt-get install chromium): the MLflow "
                             "UI browser test needs a headless chromium on PATH.")
# The flags measured to render MLflow's UI headless here (see shared/DESIGN.md).
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--hide-scrollbars", "--window-size=1800,1100", "--virtual-time-budget=15000"]


@pytest.fixture(scope="module")
def ui(tmp_path_factory):
    """(server uri, experiment id, parent run, children) for a finished 2x2 sweep."""
    folder = tmp_path_factory.mktemp("browser")
    done = subprocess.run([sys.executable, "-m", "runner", "-m", *TINY, "trainer.epochs=2",
                           "optim=adam,sgd", "optim.lr=0.01,0.05", "tracking.experiment=ui",
                           "hydra.sweep.dir=sweep"], cwd=folder, env=runner_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    with servers.mlflow_server(tracking.default_uri(folder), folder / "server") as uri:
        experiment = runstore.experiment_id(uri, "ui")
        runs = runstore.experiment_runs(uri, experiment)
        [parent] = [run for run in runs if run.tags.get(job.PARENT_TAG) == "parent"]
        yield uri, experiment, parent, [run for run in runs if run is not parent], folder


def _query(**values) -> str:
    """URL query of JSON values, as MLflow's UI reads them (plain strings stay as given)."""
    return "&".join(f"{key}={urllib.parse.quote(v if isinstance(v, str) else json.dumps(v))}"
                    for key, v in values.items())


def _urls(uri: str, experiment: str, ids: list[str]) -> dict[str, str]:
    curves = _query(metric='"valid/acc"', experiments=[experiment],
                    plot_metric_keys=["valid/acc", "train/loss"], plot_layout={},
                    x_axis="step", y_axis_scale="linear", line_smoothness=1, show_point=True,
                    deselected_curves=[], last_linear_y_axis_range=[])
    return {"runs": f"{uri}/#/experiments/{experiment}/runs",
            "compare": f"{uri}/#/compare-runs?{_query(runs=ids, experiments=[experiment])}",
            "curves": f"{uri}/#/metric?runs={urllib.parse.quote(json.dumps(ids))}&{curves}"}


@pytest.fixture(scope="module")
def pages(ui):
    """Each page loaded once in headless Chromium (all at once): name -> (DOM, visible text).

    Screenshots are saved as ``<name>.png`` beside the store; their paths are printed.
    """
    uri, experiment, parent, children, folder = ui
    started = {}
    for name, url in _urls(uri, experiment, [run.run_id for run in children]).items():
        started[name] = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={folder / ('chrome-' + name)}",
             f"--screenshot={folder / (name + '.png')}", "--dump-dom", url],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rendered = {}
    for name, process in started.items():
        dom, err = process.communicate(timeout=180)
        screenshot = folder / f"{name}.png"
        assert process.returncode == 0 and screenshot.stat().st_size > 10_000, err[-2000:]
        print(f"screenshot: {screenshot}")
        page = re.sub(r"<(script|style)\b.*?</\1>", " ", dom, flags=re.S)
        rendered[name] = dom, html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page)))
    return rendered


def test_runs_page_shows_the_sweep(ui, pages):
    _, _, parent, children, _ = ui
    _, text = pages["runs"]
    assert parent.name in text  # the parent run, named by the sweep's overrides
    assert f"{len(children) + 1} matching runs" in text


def test_compare_page_shows_swept_params_and_objective(ui, pages):
    _, _, _, children, _ = ui
    _, text = pages["compare"]
    assert f"Comparing {len(children)} Runs" in text
    for run in children:
        assert run.name in text and run.run_id in text
    params = re.search(r"Parameters Show diff only (.*) Metrics Show diff only", text).group(1)
    assert re.search(r"optim\.lr( 0\.0[15]){4}", params)  # the swept values, one per run
    assert re.search(r"optim\.name( (adam|sgd)){4}", params)
    assert "valid/acc" in text  # the objective


def test_metric_page_draws_the_learning_curves(ui, pages):
    _, _, _, children, _ = ui
    dom, text = pages["curves"]
    assert "valid/acc vs train/loss" in text
    for run in children:  # one curve per run and metric, in the legend and drawn
        assert f"{run.name} (valid/acc)" in text and f"{run.name} (train/loss)" in text
    assert dom.count('class="trace') >= 2 * len(children)
