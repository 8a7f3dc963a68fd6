"""The small TOML writer: what it writes reads back (tomllib) as the same data."""
import math

import pytest
import tomllib

from runner.config import tomlwrite


def test_nested_config_round_trips():
    data = {
        "device": "gpu:0",
        "model": {"name": "cnn", "channels": [20, 20], "kernel_size": 5},
        "optim": {"lr": 0.001, "weight_decay": 0.0, "nesterov": False, "big": 1e-30},
        "tracking": {"uri": "", "experiment": 'a "quoted" \\ name\twith\ncontrol\x01'},
        "deep": {"inner": {"x": 1, "deeper": {"y": [1.5, -2.0]}}, "after": True},
        "dotted.key": {"spaced key": "v"},
    }
    assert tomllib.loads(tomlwrite.dumps(data)) == data


def test_scalars_precede_tables_and_floats_stay_floats():
    text = tomlwrite.dumps({"table": {"a": 1}, "top": 2.0, "n": 3})
    assert text.index("top = 2.0") < text.index("[table]")
    assert tomllib.loads(text)["top"] == 2.0
    assert isinstance(tomllib.loads(text)["top"], float)


def test_special_floats():
    back = tomllib.loads(tomlwrite.dumps({"a": math.inf, "b": -math.inf, "c": math.nan}))
    assert back["a"] == math.inf and back["b"] == -math.inf and math.isnan(back["c"])


def test_none_is_refused_with_the_key_named():
    with pytest.raises(TypeError, match="optim.lr"):
        tomlwrite.dumps({"optim": {"lr": None}})


def test_dump_writes_atomically(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("old")
    tomlwrite.dump({"a": {"b": 1}}, path)
    assert tomllib.loads(path.read_text()) == {"a": {"b": 1}}
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]  # no temp file left
