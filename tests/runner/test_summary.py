"""``python -m runner.summary``: a model's table from the same overrides as a run, and one
paragraph for a mistake."""
from __future__ import annotations

from runner import summary


def test_the_summary_of_the_default_model_is_a_table(capsys):
    assert summary.main(["model=mlp"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("model mlp on data=digits") and "total" in out


def test_a_sweep_flag_is_one_paragraph_not_hydras_lexer_error(capsys):
    assert summary.main(["-m", "model=cnn,mlp"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tomlrun: error: runner.summary shows one model and does not sweep")
    assert "Lexer" not in err and len(err.strip().splitlines()) == 1


def test_an_inspect_layer_the_model_lacks_is_refused_as_training_would(capsys):
    """runner.summary printed the table for inspect.layer_outputs=[conv9], which python -m
    runner then refused before training."""
    assert summary.main(["inspect.every=5", "inspect.layer_outputs=[conv2,conv9]"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tomlrun: error: inspect.layer_outputs: layer 'conv9' is not a layer "
                          "of this model"), err
    assert "conv1, act1, max_pool1, conv2" in err
    assert summary.main(["inspect.every=5", "inspect.layer_outputs=[conv2,fc]"]) == 0
