"""A spec mistake whose value came from a command-line override of one of the spec's knobs
(``model.hidden=[0]``, which the file reads as ``${model.hidden}``) names that override as typed,
besides the file that holds the table (runner.build.spec.parse.located)."""
from __future__ import annotations

import pytest

from tests.runner.subprocesses import run_all

QUICK = ["trainer.epochs=1", "trainer.progress=false", "runtime.threads=1",
         "trainer.checkpoint=false", "tracking.enabled=false"]
MYNET = """\
width = 8
[layers.flatten]
type = "Flatten"

[layers.hid]
type = "Linear"
out_features = "${model.width}"

[layers.fc]
type = "Linear"
"""
USER = ["hydra.searchpath=[toml://my_conf]", "model=mynet"]
# name -> (overrides, what the one line must hold, what it must not)
CASES = {
    "block_knob": (["model=mlp", "model.hidden=[0]", "model.dropout=0.5"],
                   ["model.blocks.dense (in model.layers.hidden).fc (Linear) cannot be made with "
                    "{out_features: 0", "model.blocks.dense is set in ",
                    "conf/model/mlp.toml. Its value comes from the command line: "
                    "model.hidden=[0] (the knob ${model.hidden}, which model.layers.hidden "
                    "reads) was set there."],
                   "model.dropout=0.5"),  # a knob of another layer of the block
    "layer_knob": ([*USER, "model.width=-1"],
                   ["model.layers.hid (Linear) cannot be made with {out_features: -1",
                    "model.layers.hid is set in my_conf/model/mynet.toml. Its value comes from "
                    "the command line: model.width=-1 (the knob ${model.width}, which "
                    "model.layers.hid reads) was set there."], None),
    "type_knob": (["model=cnn", "model.activation=Relu"],
                  ["model.layers.act1.type = 'Relu' is not a known layer type",
                   "conf/model/cnn.toml. Its value comes from the command line: "
                   "model.activation=Relu (the knob ${model.activation}, which model.layers.act1 "
                   "reads) was set there."], None),
    "not_a_knob": ([*USER, "model.layers.hid.type=Lineer"],
                   ["model.layers.hid.type = 'Lineer' is not a known layer type",
                    "model.layers.hid.type was set on the command line: "
                    "model.layers.hid.type=Lineer."],
                   "Its value comes from the command line"),
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    jobs = {}
    for name, (overrides, _, _) in CASES.items():
        root = tmp_path_factory.mktemp(name)
        (root / "my_conf" / "model").mkdir(parents=True)
        (root / "my_conf" / "model" / "mynet.toml").write_text(MYNET)
        jobs[name] = (root, [*QUICK, *overrides])
    return run_all(jobs, timeout=300)


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_spec_error_names_the_knob_override_that_gave_the_value(runs, case):
    code, _, stderr, root = runs[case]
    assert code == 2, stderr[-2000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("tomlrun: error: "), stderr[-2000:]
    for part in CASES[case][1]:
        assert part in lines[0], lines[0]
    absent = CASES[case][2]
    assert absent is None or absent not in lines[0], lines[0]
    assert "Traceback" not in stderr and not (root / "outputs").exists()
