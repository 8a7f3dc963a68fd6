"""runner.build for sequence data, text and files: datasets, models, loaders, refusals."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core.row_sparse import RowSparseGrad
from runner import build
from runner.build import sequence_data, sequence_models
from runner.config import schema
from runner.config.options import load_option
from runner.config.validation import validate
from runner.errors import ConfigError

TRAINER = schema.TrainerConfig(batch_size=16, epochs=1)


def test_vowels_data_model_and_loader(shared_dir):
    cfg = schema.SequenceDataConfig(root=str(shared_dir("japanese-vowels")), pool_size=64,
                                    sort_by_length=True, prefetch=1)
    data = build.build_data(cfg, 0)
    assert data.input_shape == (12,) and data.num_classes == 9 and data.variable_length
    train, valid, test = build.build_loaders(data, cfg, TRAINER)
    assert train.pipeline.sort_by_length and not valid.pipeline.sort_by_length
    padded, lengths, labels = next(iter(train))
    model = build.build_model(schema.RNNConfig(name="lstm", pooling="mean"), data.input_shape,
                              data.num_classes, data.vocab_size, data.variable_length)
    logits = model((padded, lengths))
    assert logits.shape == [len(labels), 9]
    with pytest.raises(ConfigError, match="output shape depends on the sequence length"):
        build.build_model(load_option("model", "mlp"), data.input_shape, data.num_classes, 0, True)


def test_text_data_and_cbow_with_sparse_gradients(tmp_path):
    (tmp_path / "a.txt").write_text("the cat sat on the mat and the dog sat on the log " * 20)
    (tmp_path / "b.txt").write_text("a bird flew over the house and the cat saw it " * 20)
    cfg = schema.TextConfig(root=str(tmp_path), dict_size=10)
    data = build.build_data(cfg, 0)
    assert data.vocab_size == 10 == data.num_classes and data.input_shape == (4,)
    model = build.build_model(schema.CBOWConfig(embedding_dim=8), data.input_shape,
                              data.num_classes, data.vocab_size)
    context, target = next(iter(build.build_loaders(data, cfg, TRAINER)[0]))
    core.nn.functional.cross_entropy(model(context), target).backward()
    assert isinstance(model.embedding.weight.grad_data, RowSparseGrad)
    with pytest.raises(ConfigError, match="word ids .* no Embedding layer"):
        build.build_model(load_option("model", "mlp"), data.input_shape, data.num_classes, 10)
    text = sequence_models.nearest_neighbours(model, data.train.vocab, ["the", "cat", "zebra"])
    assert text.startswith("the: ") and "zebra" not in text and len(text.splitlines()) == 2


def test_files_reader_by_module_path_and_errors(tmp_path):
    (tmp_path / "train").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "train" / "a.csv").write_text("1,2,0\n3,4,1\n5,6,2\n")
    (tmp_path / "test" / "b.csv").write_text("1,2,0\n")
    cfg = schema.FilesConfig(root=str(tmp_path), reader="core.data.files:read_csv")
    data = build.build_data(cfg, 0)
    assert data.num_classes == 3 and data.input_shape == (2,) and data.valid is None
    with pytest.raises(ConfigError, match="cannot be loaded"):
        build.build_data(schema.FilesConfig(root=str(tmp_path), reader="nowhere.mod:fn"), 0)
    with pytest.raises(Exception, match="no file matches"):
        build.build_data(schema.FilesConfig(root=str(tmp_path), files=["none/*"]), 0)


@pytest.mark.parametrize("key, value, message", [
    ("data.pool_size", -2, "an integer >= -1"), ("data.cache", "disk", "one of none, memory"),
    ("data.workers", -1, "a number >= 0")])
def test_pipeline_keys_are_validated(key, value, message):
    tree = {"model": {"name": "mlp"}, "optim": {"name": "sgd"}, "data": {"name": "digits"}}
    section, name = key.split(".")
    tree[section][name] = value
    with pytest.raises(ConfigError, match=message):
        validate(tree)


def test_sequence_model_configs_validate():
    run = validate({"model": {"name": "gru", "pooling": "max"}, "optim": {"name": "adam"},
                    "data": {"name": "vowels", "long_seq": "drop", "max_len": 20}})
    assert isinstance(run.model, schema.RNNConfig) and run.data.long_seq == "drop"
    with pytest.raises(ConfigError, match="long_seq"):
        validate({"model": {"name": "cbow"}, "optim": {"name": "adam"},
                  "data": {"name": "vowels", "long_seq": "split"}})
    np.testing.assert_equal(validate({"model": {"name": "cbow"}, "optim": {"name": "sgd"},
                                      "data": {"name": "text"}}).model.sparse_update, True)


@pytest.mark.parametrize("cell, pooling", [("gru", "last"), ("lstm", "last"), ("gru", "max")])
def test_bidirectional_sequence_models(cell, pooling):
    run = validate({"model": {"name": cell, "direction": "bidirect", "pooling": pooling,
                              "hidden_size": 5, "num_layers": 2},
                    "optim": {"name": "adam"}, "data": {"name": "vowels"}})
    model = build.build_model(run.model, (3,), 4, 0, True)
    assert model.rnn.num_directions == 2 and model.out.weight.shape == [10, 4]
    padded = core.to_tensor(np.random.default_rng(0).normal(size=(2, 6, 3)).astype("float32"))
    logits = model((padded, np.array([6, 2])))
    assert logits.shape == [2, 4]
    logits.sum().backward()
    assert model.rnn.weight_hh_l1_reverse.grad_data is not None
    if pooling == "last":  # the top layer's forward and backward final states, joined
        _, final = model.rnn(padded, sequence_length=np.array([6, 2]))
        states = final[0] if cell == "lstm" else final
        joined = np.concatenate([states.numpy()[2], states.numpy()[3]], axis=-1)
        np.testing.assert_allclose(model.out(core.to_tensor(joined)).numpy(), logits.numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_rnn_direction_is_validated():
    with pytest.raises(ConfigError, match="model.direction = 'backward' is not allowed: use "
                                          "one of forward, bidirect, bidirectional"):
        validate({"model": {"name": "lstm", "direction": "backward"}, "optim": {"name": "adam"},
                  "data": {"name": "vowels"}})
    assert validate({"model": {"name": "gru"}, "optim": {"name": "adam"},
                     "data": {"name": "vowels"}}).model.direction == "forward"


def test_vowels_and_text_need_a_root(tmp_path, monkeypatch):
    """An empty data.root would read the launch folder (a user's own *.txt logs): an error."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("words the launch folder happens to hold\n")
    with pytest.raises(ConfigError, match=r"data=vowels needs data.root: the folder holding "):
        sequence_data.vowels(schema.SequenceDataConfig(name="vowels"), 0)
    with pytest.raises(ConfigError, match=r"data=text needs data.root: a folder of plain-text"):
        sequence_data.text(schema.TextConfig(name="text"), 0)


@pytest.mark.parametrize("model, shape, variable, dtype, message", [
    # cbow on vowel sequences: refused by its shape rule
    (schema.CBOWConfig(), (12,), True, "float32",
     "model=cbow needs fixed-size contexts of word ids (data=text); the data gives "
     "variable-length sequences of steps of shape [12]"),
    # cbow on float arrays: the probe's forward pass names the embedding's complaint
    (schema.CBOWConfig(), (4,), False, "float32",
     "model=cbow cannot take this data: the data gives fixed-size samples of shape [4] "
     "(float32), and the model's forward pass on two such samples failed: embedding: x must "
     "hold integers"),
    # a GRU on flat feature vectors: not sequences at all
    (schema.RNNConfig(name="gru"), (6,), False, "float32",
     "model=gru needs sequences: variable-length sequences of feature vectors (data=vowels), "
     "fixed-length ones as [N, T, F] arrays"),
])
def test_a_model_that_cannot_take_the_data_is_refused_when_built(model, shape, variable, dtype,
                                                                  message):
    with pytest.raises(ConfigError) as raised:
        build.build_model(model, shape, 5, 0, variable, dtype)
    assert message in str(raised.value)


@pytest.mark.parametrize("name", ["gru", "lstm"])
def test_fixed_length_sequence_arrays_train_a_recurrent_model(name):
    """data=arrays with x of shape [N, T, F]: each sample is T steps of F features."""
    model = build.build_model(schema.RNNConfig(name=name, hidden_size=8), (5, 3), 4, 0, False)
    x = core.to_tensor(np.random.default_rng(0).standard_normal((6, 5, 3)).astype("float32"))
    assert model(x).shape == [6, 4]


def test_files_of_other_shapes_or_without_samples_name_the_file(tmp_path):
    """A row with a field missing stopped the pass in the collate with a traceback; an empty
    test file ended an otherwise finished run in evaluate() with one. Both now stop the build."""
    from core.data.files import ReaderError  # noqa: PLC0415
    from runner.errors import UserError  # noqa: PLC0415

    (tmp_path / "a.csv").write_text("1,2,3,0\n4,5,6,1\n")
    (tmp_path / "short.csv").write_text("7,8,9,1\n1,2,0\n")
    (tmp_path / "t.csv").write_text("1,2,3,0\n")
    (tmp_path / "empty.csv").write_text("# only a comment\n")

    def files(train, test, **options):
        return schema.FilesConfig(root=str(tmp_path), files=train, test_files=test, **options)

    for options in ({}, {"num_classes": 2}):  # labels read at build, or first read in training
        cfg = files(["a.csv", "short.csv"], ["t.csv"], **options)
        with pytest.raises(ReaderError, match=(
                r"failed at sample 1 of file .*short\.csv: ValueError: its features have shape "
                r"\[2\] but the first sample \(of .*a\.csv\) has \[3\]")):
            data = build.build_data(cfg, 0)
            loader, _, _ = build.build_loaders(data, cfg, schema.TrainerConfig(batch_size=4))
            list(loader)
    with pytest.raises(UserError, match=r"data.test_files: the reader 'csv' gave no sample from "
                                        r".*empty\.csv: expected at least one test sample"):
        build.build_data(files(["a.csv"], ["empty.csv"]), 0)
    with pytest.raises(UserError, match="data.files: .* at least one training sample"):
        build.build_data(files(["empty.csv"], ["t.csv"], num_classes=2), 0)
    reader = sequence_data.SameShapes(lambda path: iter([np.zeros(3)]))  # not a tuple: as is
    assert [s.shape for s in reader("x")] == [(3,)]
