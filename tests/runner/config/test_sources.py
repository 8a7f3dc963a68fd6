"""Config errors name the file a key was written in (a user's option file, a preset) or the
override that set it; interpolation and block-argument typos name the closest spelling; TOML
syntax errors quote the line (runner/config/sources.py, validation.py, hydra_errors.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from runner.build import spec
from runner.config import schema
from runner.config.sources import Sources, _File, located
from runner.config.validation import validate
from runner.errors import ConfigError
from tests.runner.subprocesses import run_all

QUICK = ["trainer.epochs=1", "trainer.progress=false", "runtime.threads=1",
         "trainer.checkpoint=false"]
NET = """\
[layers.flatten]
type = "Flatten"

[layers.hid]
type = "{hid_type}"
{hid_arg} = {hid_value}

[layers.fc]
type = "Linear"
"""
BLOCKS = """\
[layers.flatten]
type = "Flatten"

[layers.hidden]
block = "dense"
each = {{ {given} = [16, 8] }}

[layers.fc]
type = "Linear"

[blocks.dense]
fc = {{ type = "Linear", out_features = "${used}" }}
"""
FILE = "my_conf/model/mynet.toml"
# name -> (the model file's text, overrides, what the one line must hold)
CASES = {
    "argument": (NET.format(hid_type="Linear", hid_arg="out_featurs", hid_value=8), [],
                 ["model.layers.hid.out_featurs is not an argument of Linear",
                  "did you mean 'out_features'",
                  f"model.layers.hid.out_featurs is set in {FILE}."]),
    "type": (NET.format(hid_type="Linear", hid_arg="out_features", hid_value='"wide"'), [],
             ["model.layers.hid.out_features = 'wide' has the wrong type",
              f"model.layers.hid.out_features is set in {FILE}."]),
    "shape": (NET.format(hid_type="Linear", hid_arg="in_features", hid_value=10), [],
              ["model.layers.hid.in_features = 10 does not fit its input",
               f"model.layers.hid.in_features is set in {FILE}."]),
    "layer_type": (NET.format(hid_type="Lineer", hid_arg="out_features", hid_value=8), [],
                   ["model.layers.hid.type = 'Lineer' is not a known layer type",
                    f"model.layers.hid.type is set in {FILE}."]),
    "override": (NET.format(hid_type="Linear", hid_arg="out_features", hid_value=8),
                 ["model.layers.hid.out_features=-1"],
                 [f"model.layers.hid is set in {FILE}; model.layers.hid.out_features=-1 was set "
                  "on the command line."]),
    "override_exact": (NET.format(hid_type="Linear", hid_arg="out_features", hid_value=8),
                       ["model.layers.hid.type=Lineer"],
                       ["model.layers.hid.type was set on the command line: "
                        "model.layers.hid.type=Lineer."]),
    "preset": (NET.format(hid_type="Linear", hid_arg="out_features", hid_value=8),
               ["+experiment=my_exp"],
               ["model.layers.hid.out_features = 'eight' has the wrong type",
                "model.layers.hid.out_features is set in my_conf/experiment/my_exp.toml."]),
    "output": (NET.format(hid_type="Linear", hid_arg="out_features", hid_value=8)
               + "out_features = 3\n", [],
               ["the output layer 'fc' (Linear) gives samples of shape [3]",
                f"The model comes from {FILE}."]),
    "interpolation": ("width = 16\n" + NET.format(hid_type="Linear", hid_arg="out_features",
                                 hid_value='"${model.widht}"'), [],
                      ["model.layers.hid.out_features = '${model.widht}' refers to model.widht, "
                       "which is not a key of the config: model has no key 'widht' (did you "
                       "mean ${model.width}?)",
                       f"model.layers.hid.out_features is set in {FILE}."]),
    "block_argument": (BLOCKS.format(given="channels", used="chanels"), [],
                       ["model.layers.hidden passes channels to block 'dense', which does not "
                        "use it, but it uses $chanels (at model.blocks.dense.fc.out_features)",
                        f"model.layers.hidden is set in {FILE}."]),
    "duplicate_key": ('[layers.fc]\ntype = "Linear"\ntype = "Linear"\n', [],
                      [f"TOML syntax error in {{root}}/{FILE} at line 3",
                       "Cannot overwrite a value. Line 3 is `type = \"Linear\"`. A key is given "
                       "twice in one table"]),
    "unquoted": ('[layers.fc]\ntype = Linear\n', [],
                 ["Invalid value. Line 2 is `type = Linear`. A string is quoted in TOML: "
                  "\"Linear\"."]),
    "broken_interpolation": (NET.format(hid_type="Linear", hid_arg="out_features",
                                        hid_value='"${model.width"'), [],
                             ["layers.hid.out_features = '${model.width' in {root}/" + FILE
                              + " is not a valid interpolation"]),
}
PRESET = '# @package _global_\n[model.layers.hid]\nout_features = "eight"\n'


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    jobs = {}
    for name, (text, overrides, _) in CASES.items():
        root = tmp_path_factory.mktemp(name)
        (root / "my_conf" / "model").mkdir(parents=True)
        (root / "my_conf" / "experiment").mkdir()
        (root / FILE).write_text(text)
        (root / "my_conf" / "experiment" / "my_exp.toml").write_text(PRESET)
        jobs[name] = (root, [*QUICK, "hydra.searchpath=[toml://my_conf]", "model=mynet",
                             *overrides])
    return run_all(jobs, timeout=300)


@pytest.mark.parametrize("case", sorted(CASES))
def test_user_file_mistakes_name_the_file_or_override(runs, case):
    code, _, stderr, root = runs[case]
    assert code == 2, stderr[-2000:]
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("tomlrun: error: "), stderr[-2000:]
    for part in CASES[case][2]:
        assert part.replace("{root}", str(Path(root).resolve())) in lines[0], lines[0]
    assert "Traceback" not in stderr
    assert not (root / "mlflow.db").exists() and not (root / "outputs").exists()


def _sources(tmp_path: Path) -> Sources:
    model = tmp_path / "my_conf" / "model" / "mynet.toml"
    preset = tmp_path / "my_conf" / "experiment" / "e.toml"
    return Sources(str(tmp_path), ["model=mynet", "optim.lr=-1", "+model.layers.x.p=0.5"], [
        _File(preset, "experiment", {"model": {"layers": {"fc": {"out_features": 3}}}}),
        _File(model, "model", {"model": {"width": 8, "layers": {"fc": {"type": "Linear"}}}}),
    ], {"model", "experiment"})


def test_the_deepest_source_of_a_key_wins_overrides_then_presets_then_the_option(tmp_path):
    sources = _sources(tmp_path)
    assert sources.describe("model.width") == "model.width is set in my_conf/model/mynet.toml."
    assert sources.describe("model.layers.fc.out_features") == \
        "model.layers.fc.out_features is set in my_conf/experiment/e.toml."
    assert sources.describe("model.layers.fc") == ("model.layers.fc is set in "
                                                   "my_conf/experiment/e.toml and "
                                                   "my_conf/model/mynet.toml.")
    assert sources.describe("optim.lr") == "optim.lr was set on the command line: optim.lr=-1."
    assert sources.describe("model.layers.x") == \
        "model.layers.x was added on the command line: +model.layers.x.p=0.5."
    assert sources.describe("model.layers.fc.bias_attr") == \
        "model.layers.fc is set in my_conf/experiment/e.toml and my_conf/model/mynet.toml."
    assert sources.describe("data.root") == ""  # nothing known: no sentence


def test_located_adds_one_sentence_once_and_leaves_unknown_keys_alone(tmp_path):
    sources = _sources(tmp_path)
    error = located(ConfigError("optim.lr = -1 is not allowed: use a number > 0."),
                    sources=sources)
    assert str(error) == ("optim.lr = -1 is not allowed: use a number > 0. optim.lr was set on "
                          "the command line: optim.lr=-1.")
    assert located(error, sources=sources) is error
    plain = ConfigError("the config group 'model' is missing")
    assert located(plain, sources=sources) is plain
    assert str(located(ConfigError("the layers a, b read each other in a cycle"),
                       fallback="model", sources=sources)).endswith(
        "The model comes from my_conf/model/mynet.toml.")


def test_outside_hydra_messages_are_unchanged():
    error = ConfigError("model.layers.fc.type = 'X' is not a known layer type.")
    assert located(error) is error


def test_a_misspelt_interpolation_names_its_key_and_the_closest_existing_one():
    cfg = OmegaConf.create({"model": {"name": "mlp", "hidden": [8], "layers": {
        "a": {"type": "Linear", "out_features": "${model.hiden.0}"},
        "b": {"type": "Linear", "out_features": "${.widht}", "width": 3}}}})
    with pytest.raises(ConfigError) as info:
        validate(cfg)
    assert str(info.value).startswith(
        "model.layers.a.out_features = '${model.hiden.0}' refers to model.hiden.0, which is not "
        "a key of the config: model has no key 'hiden' (did you mean ${model.hidden.0}?); the "
        "keys of model are hidden, layers, name.")
    del cfg.model.layers["a"]
    with pytest.raises(ConfigError, match=r"refers to model.layers.b.widht, .*model.layers.b has "
                                          r"no key 'widht' \(did you mean \$\{model.layers.b."
                                          r"width\}\?\)"):
        validate(cfg)


def test_a_table_replaced_by_a_value_is_named_rather_than_the_key_that_reads_it():
    cfg = OmegaConf.create({"model": {"name": "mlp"}, "trainer": 5,
                            "sweep": {"objective": "${trainer.objective}"}})
    with pytest.raises(ConfigError, match=r"^trainer = 5 is not a table, so sweep.objective = "
                                          r"'\$\{trainer.objective\}' cannot read "
                                          r"trainer.objective"):
        validate(cfg)


def _spec(layers, blocks):
    return schema.SpecConfig(name="t", layers=layers, blocks=blocks)


@pytest.mark.parametrize("given, used, message", [
    ("channels", "chanels", "model.layers.h passes channels to block 'dense', which does not use "
                            "it, but it uses $chanels (at model.blocks.dense.fc.out_features), "
                            "which is given no value: 'channels' and 'chanels' are two "
                            "spellings of one argument"),
    ("act", "activation", "it uses $activation (at model.blocks.dense.fc.out_features)"),
])
def test_a_block_argument_spelt_two_ways_names_both(given, used, message):
    layers = {"f": {"type": "Flatten"}, "h": {"block": "dense", "each": {given: [4, 2]}},
              "out": {"type": "Linear"}}
    blocks = {"dense": {"fc": {"type": "Linear", "out_features": f"${used}"}}}
    with pytest.raises(ConfigError) as info:
        spec.parse(_spec(layers, blocks))
    assert message in str(info.value)


def test_a_block_argument_used_but_not_given_suggests_a_given_one():
    layers = {"f": {"type": "Flatten"}, "h": {"block": "dense", "each": {"width": [4, 2]}},
              "out": {"type": "Linear"}}
    blocks = {"dense": {"fc": {"type": "Linear", "out_features": "$width"},
                        "fc2": {"type": "Linear", "out_features": "$widht"}}}
    with pytest.raises(ConfigError, match=r"model.blocks.dense \(in model.layers.h\).fc2"
                                          r".out_features uses "
                                          r"\$widht, but no value was given for it \(did you "
                                          r"mean \$width, which it is given\?\)"):
        spec.parse(_spec(layers, blocks))
