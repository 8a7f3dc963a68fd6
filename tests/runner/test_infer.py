"""The inference bundle and ``python -m runner.infer``: from a folder, a checkpoint, a run id."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import core
from runner import app, build, infer
from runner.config import schema
from runner.config.options import load_option
from runner.errors import UserError
from runner.track import bundle, tracking
from runner.train import checkpoint
from runner.train.loop import Trainer

ROOT = Path(__file__).resolve().parents[2]
RUN = schema.RunConfig(
    model=load_option("model", "mlp", "hidden=[32]"), optim=schema.AdamConfig(lr=0.01),
    schedule=schema.ScheduleConfig(), clip=schema.ClipConfig(), data=schema.DataConfig(),
    trainer=schema.TrainerConfig(epochs=2, batch_size=64, log_every=50, progress=False,
                                 objective="test/acc"),
    runtime=schema.RuntimeConfig(threads=1), tracking=schema.TrackingConfig(experiment="infer"))


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A run through runner.app: its MLflow store, run id and output folder."""
    folder = tmp_path_factory.mktemp("launch")
    RUN.tracking.uri = tracking.default_uri(folder)
    import os
    before = os.getcwd()
    os.chdir(folder)
    try:
        objective = app.run(RUN, [], str(folder))
    finally:
        os.chdir(before)
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=RUN.tracking.uri)
    run = client.search_runs([client.get_experiment_by_name("infer").experiment_id])[0]
    return folder, run.info.run_id, objective


def test_a_run_id_rebuilds_the_model_and_reproduces_its_test_accuracy(trained, tmp_path, capsys):
    folder, run_id, test_acc = trained
    out = tmp_path / "pred.npz"
    arrays = infer.main([f"run={run_id}", "input=test", "outputs=[out,softmax]", f"out={out}",
                         f"uri={tracking.default_uri(folder)}"])
    printed = capsys.readouterr().out
    assert f"accuracy {test_acc:.4f}" in printed and "predicted label counts" in printed
    saved = np.load(out)
    assert set(saved.files) == {"out", "softmax", "predicted", "labels"}
    assert saved["softmax"].shape == (len(saved["labels"]), 10)
    assert np.mean(saved["predicted"] == saved["labels"]) == pytest.approx(test_acc)
    assert set(arrays) == set(saved.files)  # main returns what it wrote
    for name in saved.files:
        np.testing.assert_array_equal(arrays[name], saved[name])


def test_the_run_folder_bundle_and_a_npy_input_give_the_same_outputs(trained, tmp_path):
    folder, _, _ = trained
    from_run = infer.main([f"run={folder}", "input=test", "outputs=[hidden.0.fc]",
                           f"out={tmp_path / 'a.npz'}"])
    samples, labels = infer.load_input({"input": "test"}, bundle.load_model(str(folder))[1])
    np.save(tmp_path / "x.npy", samples.reshape(len(samples), -1).astype(np.float64))
    np.save(tmp_path / "y.npy", labels)
    from_npy = infer.main([f"run={folder}/model", f"input={tmp_path / 'x.npy'}",
                           f"labels={tmp_path / 'y.npy'}", "outputs=hidden.0.fc",
                           f"out={tmp_path / 'b.npz'}"])
    np.testing.assert_allclose(from_npy["hidden.0.fc"], from_run["hidden.0.fc"], rtol=1e-6)
    assert np.array_equal(from_npy["predicted"], from_run["predicted"])


def test_block_entry_and_copy_names_give_their_output_layers_outputs(trained, tmp_path):
    folder, _, _ = trained  # model=mlp, hidden=[32]: one copy, hidden.0, of the dense block
    arrays = infer.main([f"run={folder}", "input=test",
                         "outputs=[hidden,hidden.0,hidden.0.drop]", f"out={tmp_path / 'h.npz'}"])
    assert arrays["hidden.0"].shape == (len(arrays["labels"]), 32)
    np.testing.assert_array_equal(arrays["hidden.0"], arrays["hidden.0.drop"])
    np.testing.assert_array_equal(arrays["hidden"], arrays["hidden.0.drop"])
    # Named as the command's own key (outputs=), not core's Inference(output_layer=...)
    with pytest.raises(UserError, match=r"^outputs=\[hidden.1\] names 'hidden.1', which is not "
                       r"a layer of this model whose output can be read \(did you mean "
                       r"hidden.0\?\): use flatten, hidden, hidden.0, hidden.0.fc"):
        infer.main([f"run={folder}", "input=test", "outputs=[hidden.1]"])
    with pytest.raises(UserError, match=r"^outputs=\[hidden,softmx\] names 'softmx', .* \(did "
                       r"you mean softmax\?\)"):
        infer.main([f"run={folder}", "input=test", "outputs=[hidden,softmx]"])


def test_a_training_checkpoint_is_enough_to_infer(tmp_path):
    core.seed(0)
    data = build.build_data(schema.DataConfig(), seed=0)
    model = build.build_model(RUN.model, data.input_shape, data.num_classes)
    opt = build.build_optimizer(RUN.optim, model.parameters(), 0.01)
    trainer = Trainer(model, opt, RUN.trainer)
    loader = build.build_loaders(data, RUN.data, RUN.trainer)[0]
    description = bundle.describe(RUN, data.input_shape, data.num_classes)
    path = checkpoint.Checkpointer(tmp_path, 1, 1, bundle=description).save(trainer, loader, 0,
                                                                            0, None)
    rebuilt, _ = bundle.load_model(path)
    for (name, p), (_, q) in zip(model.named_parameters(), rebuilt.named_parameters()):
        assert np.array_equal(p.data, q.data), name


def test_bad_arguments_are_one_clear_error(trained, tmp_path):
    folder, _, _ = trained
    with pytest.raises(UserError, match="keys are run, input"):
        infer.main(["run=x", "inputs=test"])
    with pytest.raises(UserError, match="missing input"):
        infer.main([f"run={folder}"])
    np.save(tmp_path / "bad.npy", np.zeros((3, 5), np.float32))
    with pytest.raises(UserError, match=r"shape \[5\].*\[1, 8, 8\]"):
        infer.main([f"run={folder}", f"input={tmp_path / 'bad.npy'}"])
    with pytest.raises(UserError, match="not a layer of this model"):
        infer.main([f"run={folder}", "input=test", "outputs=[conv9]"])
    done = subprocess.run([sys.executable, "-m", "runner.infer", "run=nowhere", "input=test"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2
    assert done.stderr.startswith("tomlrun infer: error: run=nowhere is neither a file")
    assert not (tmp_path / "mlflow.db").exists()
    # uri= as a bare path: MLflow's refusal spoke of tracking.uri and ./mlruns
    with pytest.raises(UserError, match=r"^uri = 'mlflow.db' is a path, not a tracking URI: .* "
                       r"write uri=sqlite:///\S*mlflow.db \(three slashes"):
        infer.main([f"run={folder}", "input=test", "uri=mlflow.db"])


def test_paths_starting_with_a_tilde_are_in_the_home_folder(trained, tmp_path, monkeypatch):
    """A quoted ``out='~/p.npz'`` (or a shell that leaves ``~`` after ``=`` alone, as zsh)
    reaches the command as typed: the home folder, as in training's data paths."""
    folder, _, _ = trained
    monkeypatch.setenv("HOME", str(tmp_path))
    samples, labels = infer.load_input({"input": "test"}, bundle.load_model(str(folder))[1])
    np.save(tmp_path / "x.npy", samples)
    np.save(tmp_path / "y.npy", labels)
    arrays = infer.main([f"run={folder}", "input=~/x.npy", "labels=~/y.npy", "out=~/p.npz"])
    assert np.array_equal(np.load(tmp_path / "p.npz")["labels"], labels)
    assert np.array_equal(arrays["labels"], labels)


def test_a_misspelt_key_offers_the_closest(capsys):
    assert infer.cli(["run=x", "inpt=test"]) == 2
    assert capsys.readouterr().err.startswith(
        "tomlrun infer: error: 'inpt=test' is not a key=value argument this command knows "
        "(did you mean input=test?): the keys are run, input")


def test_help_prints_the_keys_and_exits_0(capsys):
    assert infer.cli(["--help"]) == 0
    out = capsys.readouterr().out
    for key in infer.KEYS:
        assert f"{key}=" in out
    assert infer.cli(["-h", "run=x"]) == 0
    assert infer.cli(["bogus"]) == 2
    assert capsys.readouterr().err.startswith("tomlrun infer: error: 'bogus' is not a key=value")


def test_a_split_of_the_users_own_arrays_is_rebuilt_from_their_files(tmp_path, capsys):
    """data=arrays: input=test reads the run's .npz again and cuts the same test samples, so the
    accuracy is the run's; root= finds the files where they are now."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((400, 6)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 0).astype(np.int64)
    (tmp_path / "data").mkdir()
    np.savez(tmp_path / "data" / "mine.npz", x=x, y=y)
    run = schema.RunConfig(
        model=load_option("model", "mlp", "hidden=[16]"), optim=schema.AdamConfig(lr=0.01),
        schedule=schema.ScheduleConfig(), clip=schema.ClipConfig(),
        data=schema.ArraysConfig(root="data", train="mine.npz", test_size=100, valid_size=0),
        trainer=schema.TrainerConfig(epochs=2, batch_size=32, progress=False,
                                     objective="test/acc"),
        runtime=schema.RuntimeConfig(threads=1),
        tracking=schema.TrackingConfig(experiment="arrays", uri=tracking.default_uri(tmp_path)))
    import os
    before = os.getcwd()
    os.chdir(tmp_path)  # data.root is relative to the launch folder
    try:
        test_acc = app.run(run, [], str(tmp_path))
    finally:
        os.chdir(before)
    capsys.readouterr()
    model = tmp_path / "model"  # the run's output folder is the launch folder here
    arrays = infer.main([f"run={model}", "input=test", f"out={tmp_path / 'p.npz'}"])
    assert len(arrays["labels"]) == 100
    assert f"accuracy {test_acc:.4f} on 100 labelled samples" in capsys.readouterr().out
    moved = tmp_path / "moved"
    (tmp_path / "data").rename(moved)
    with pytest.raises(UserError, match="mine.npz does not exist"):
        infer.main([f"run={model}", "input=test", f"out={tmp_path / 'p.npz'}"])
    again = infer.main([f"run={model}", "input=test", f"root={moved}",
                        f"out={tmp_path / 'q.npz'}"])
    np.testing.assert_array_equal(again["predicted"], arrays["predicted"])
    with pytest.raises(UserError, match=r"input=valid: the run's data has no validation split "
                                        r"\(valid_size 0\): use input=test or input=train"):
        infer.main([f"run={model}", "input=valid", f"root={moved}"])


def test_a_files_run_without_valid_files_says_so(tmp_path, capsys):
    """data=files has no valid_size: the message named one (valid_size 0) all the same."""
    rng = np.random.default_rng(1)
    for name, count in (("train.csv", 120), ("test.csv", 40)):
        x = rng.standard_normal((count, 3))
        rows = np.column_stack([x, (x[:, 0] > 0).astype(int)])
        np.savetxt(tmp_path / name, rows, delimiter=",", fmt="%.5f")
    data = schema.FilesConfig(root=str(tmp_path), files=["train.csv"], test_files=["test.csv"])
    test_acc = _train_in(tmp_path, data, load_option("model", "mlp", "hidden=[8]"), "files")
    capsys.readouterr()
    infer.main([f"run={tmp_path / 'model'}", "input=test", f"out={tmp_path / 'p.npz'}"])
    assert f"accuracy {test_acc:.4f} on 40 labelled samples" in capsys.readouterr().out
    with pytest.raises(UserError, match=r"no validation split \(no valid_files\): use "):
        infer.main([f"run={tmp_path / 'model'}", "input=valid"])


def _train_in(folder, data, model, experiment):
    """A run of ``model`` on ``data`` launched in ``folder`` (its output folder); its objective,
    the test accuracy."""
    run = schema.RunConfig(
        model=model, optim=schema.AdamConfig(lr=0.01), schedule=schema.ScheduleConfig(),
        clip=schema.ClipConfig(), data=data,
        trainer=schema.TrainerConfig(epochs=1, batch_size=32, progress=False,
                                     objective="test/acc"),
        runtime=schema.RuntimeConfig(threads=1),
        tracking=schema.TrackingConfig(experiment=experiment, uri=tracking.default_uri(folder)))
    import os
    before = os.getcwd()
    os.chdir(folder)
    try:
        return app.run(run, [], str(folder))
    finally:
        os.chdir(before)


def test_a_vowels_split_is_rebuilt_with_the_runs_keys(tmp_path, shared_dir, capsys):
    """data=vowels: the split comes back with the run's max_len and split seed, padded with its
    lengths, so input=test gives the run's own test accuracy."""
    data = schema.SequenceDataConfig(root=str(shared_dir("japanese-vowels")), max_len=12)
    test_acc = _train_in(tmp_path, data, load_option("model", "gru", "hidden_size=16"), "vowels")
    capsys.readouterr()
    assert infer.cli([f"run={tmp_path}", "input=test", "outputs=[output,softmax]",
                      f"out={tmp_path / 't.npz'}"]) == 0
    assert f"accuracy {test_acc:.4f} on 370 labelled samples" in capsys.readouterr().out
    assert np.load(tmp_path / "t.npz")["softmax"].shape == (370, 9)
    samples, _ = infer.load_input({"input": "test"}, bundle.load_model(str(tmp_path))[1])
    padded, lengths = samples
    assert padded.shape[1:] == (12, 12) and lengths.max() == 12  # cut to max_len as in training
    valid = infer.main([f"run={tmp_path}", "input=valid", f"out={tmp_path / 'v.npz'}"])
    assert len(valid["labels"]) == 27  # valid_size 0.1 of the 270 training utterances
    # a .npy of equal-length sequences [N, T, 12]: the same as those rows at full length
    full = lengths == 12
    np.save(tmp_path / "seq.npy", padded[full])
    got = infer.main([f"run={tmp_path}", f"input={tmp_path / 'seq.npy'}",
                      f"out={tmp_path / 's.npz'}"])
    np.testing.assert_allclose(got["output"], np.load(tmp_path / "t.npz")["output"][full],
                               rtol=1e-5, atol=1e-6)
    # the logged MLflow model: a signature with a free time axis, served at any length
    import mlflow.pyfunc
    import yaml

    mlmodel = next(tmp_path.rglob("MLmodel"))  # the run folder's copy or the logged one
    signature = json.loads(yaml.safe_load(mlmodel.read_text())["signature"]["inputs"])
    assert signature[0]["tensor-spec"]["shape"] == [-1, -1, 12]
    served = mlflow.pyfunc.load_model(str(mlmodel.parent))
    for steps in (5, 12):  # schema enforcement accepts both lengths
        probabilities = served.predict(padded[full][:, :steps].astype(np.float32))
        assert probabilities.shape == (int(full.sum()), 9)
    np.save(tmp_path / "flat.npy", padded[full][:, 0])  # steps without the time axis
    with pytest.raises(UserError, match=r"reads sequences of steps of shape \[12\]: give "
                                        r"\[N, T, 12\]"):
        infer.main([f"run={tmp_path}", f"input={tmp_path / 'flat.npy'}"])


def test_a_text_split_is_rebuilt_and_a_moved_corpus_is_found_with_root(tmp_path, capsys):
    """data=text: the split comes back with the run's dict_size and window; when the corpus
    moved, the message names infer's own key (root=), not the training key data.root."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    words = np.random.default_rng(0).choice(["the", "cat", "sat", "on", "a", "mat", "dog"], 3000)
    (corpus / "a.txt").write_text(" ".join(words))
    data = schema.TextConfig(root=str(corpus), dict_size=5, window=1)
    test_acc = _train_in(tmp_path, data, load_option("model", "cbow", "embedding_dim=8"), "text")
    capsys.readouterr()
    arrays = infer.main([f"run={tmp_path}", "input=test", f"out={tmp_path / 'p.npz'}"])
    assert arrays["output"].shape[1] == 5 and arrays["labels"].max() < 5  # dict_size words
    assert f"accuracy {test_acc:.4f}" in capsys.readouterr().out
    corpus.rename(tmp_path / "moved")
    assert infer.cli([f"run={tmp_path}", "input=test"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tomlrun infer: error: input=test: data=text:") and "root=" in err
    assert "data.root" not in err
    again = infer.main([f"run={tmp_path}", "input=test", f"root={tmp_path / 'moved'}",
                        f"out={tmp_path / 'q.npz'}"])
    np.testing.assert_array_equal(again["predicted"], arrays["predicted"])


def test_a_bundle_without_the_data_keys_says_why_its_split_cannot_be_rebuilt():
    """Runs logged before the whole data config was recorded (dict_size, max_len, ...)."""
    old = {"data": {"name": "vowels", "normalize": True, "valid_size": 0.1}}
    with pytest.raises(UserError, match="does not record the files and keys of its data=vowels"):
        infer.load_input({"input": "test"}, old)


@pytest.mark.parametrize("argument, message", [
    ("out={tmp}/none/o.npz", "out={tmp}/none/o.npz: the folder {tmp}/none does not exist"),
    ("out={tmp}", "out={tmp} is a folder"),
    ("out={tmp}/p.csv", "out={tmp}/p.csv: the outputs are written as a numpy .npz archive"),
    ("batch_size=abc", "batch_size=abc is not allowed: use an integer >= 1"),
    ("labels={tmp}/none.npy", "labels={tmp}/none.npy does not exist"),
    ("labels={tmp}/y2.npy", "labels={tmp}/y2.npy holds an array of shape [359, 2], but the "
                            "input has 359 samples: give one integer label per sample"),
    ("labels={tmp}/y.txt", "labels={tmp}/y.txt is not a .npy file"),
    ("unknown_category=zeros", "unknown_category=zeros: only a run trained with data=csv"),
    ("unknown_category=skip", "unknown_category=skip is not allowed: use error or zeros"),
])
def test_bad_paths_and_values_name_their_key(trained, tmp_path, capsys, argument, message):
    folder, _, _ = trained
    samples, labels = infer.load_input({"input": "test"}, bundle.load_model(str(folder))[1])
    np.save(tmp_path / "x.npy", samples)
    np.save(tmp_path / "y2.npy", np.stack([labels, labels], axis=1))
    (tmp_path / "y.txt").write_text("1 2 3")
    assert infer.cli([f"run={folder}", f"input={tmp_path / 'x.npy'}",
                      argument.format(tmp=tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tomlrun infer: error: {message.format(tmp=tmp_path)}"), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "inference.npz").exists()


# ----- NAME[i]: value i of a layer that returns several ---------------------------------------

POOLED = {"p": {"type": "MaxPool2D", "kernel_size": 2, "return_mask": True},
          "f": {"type": "Flatten"}, "o": {"type": "Linear"}}


def _spec_bundle(layers: dict, folder):
    """A bundle folder of an untrained spec network on the digits, and its model."""
    from runner.config import validation

    core.seed(0)
    cfg = schema.RunConfig(
        model=validation.group_option("model", {"name": "net", "layers": layers, "blocks": {}}),
        optim=RUN.optim, schedule=RUN.schedule, clip=RUN.clip, data=schema.DataConfig(),
        trainer=RUN.trainer, runtime=RUN.runtime, tracking=RUN.tracking)
    data = build.build_data(cfg.data, seed=0)
    model = build.build_model(cfg.model, data.input_shape, data.num_classes)
    bundle.save_bundle(bundle.describe(cfg, data.input_shape, data.num_classes), model, folder)
    return folder, model


@pytest.fixture(scope="module")
def pooled(tmp_path_factory):
    """A spec network whose pool returns (output, indices): its bundle folder and model."""
    return _spec_bundle(POOLED, tmp_path_factory.mktemp("pooled"))


@pytest.mark.parametrize("outputs", ["[p[1],o]", "p[1],o", "['p[1]',o]"])
def test_outputs_read_value_i_of_a_layer_as_name_i(pooled, tmp_path, outputs):
    """docs/inspect.md: ``outputs=[pool[1],fc]`` reads the pool's indices, as a spec's inputs
    do; the list's brackets used to be stripped with the item's, leaving ``p[1``."""
    folder, model = pooled
    images = np.random.default_rng(3).random((7, 1, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", images)
    arrays = infer.main([f"run={folder}", f"input={tmp_path / 'x.npy'}", f"outputs={outputs}",
                         "batch_size=3", f"out={tmp_path / 'o.npz'}"])
    with core.no_grad():
        model.eval()
        pooled_out, indices = model["p"](core.to_tensor(images))
    np.testing.assert_array_equal(arrays["p[1]"], indices.numpy())  # joined over 3 chunks
    assert arrays["p[1]"].shape == (7, 1, 4, 4) and arrays["o"].shape == (7, 10)
    assert set(np.load(tmp_path / "o.npz").files) == {"p[1]", "o", "predicted"}
    alone = infer.main([f"run={folder}", f"input={tmp_path / 'x.npy'}", "outputs=p[1]",
                        f"out={tmp_path / 'a.npz'}"])
    np.testing.assert_array_equal(alone["p[1]"], indices.numpy())
    both = infer.main([f"run={folder}", f"input={tmp_path / 'x.npy'}", "outputs=[p,p[0]]",
                       f"out={tmp_path / 'b.npz'}"])
    np.testing.assert_array_equal(both["p"], pooled_out.numpy())
    np.testing.assert_array_equal(both["p[0]"], pooled_out.numpy())


@pytest.mark.parametrize("outputs, message", [
    ("p[2]", "outputs=p[2]: p (MaxPool2D) returns 2 values (p[0] to p[1]), so it has no value 2."),
    ("[o,f[1]]", "outputs=f[1]: f (Flatten) returns one value (read it as f), so it has no "
                 "value 1."),
    ("[p[-1]]", "outputs= names 'p[-1]', which is not a layer or a layer's value: NAME[i] reads "
                "value i of a layer that returns several, with i a whole number from 0"),
    ("p[1][0]", "outputs= names 'p[1][0]', which is not a layer or a layer's value"),
    ("[p[a],o]", "outputs= names 'p[a]', which is not a layer or a layer's value"),
    ("q[1]", "outputs=[q[1]] names 'q[1]', which is not a layer of this model whose output "
             "can be read"),
    ("[o,softmax[1]]", "outputs=softmax[1]: softmax is the model's softmax, one array, not a "
                       "layer's values: read it as softmax."),
    ("output[0]", "outputs=output[0]: output is the model's output, one array, not a layer's "
                  "values: read it as output."),
])
def test_a_bad_name_i_is_one_clear_error(pooled, tmp_path, capsys, outputs, message):
    folder, _ = pooled
    np.save(tmp_path / "x.npy", np.zeros((2, 1, 8, 8), np.float32))
    assert infer.cli([f"run={folder}", f"input={tmp_path / 'x.npy'}", f"outputs={outputs}",
                      f"out={tmp_path / 'o.npz'}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tomlrun infer: error: {message}"), err
    assert not (tmp_path / "o.npz").exists()


@pytest.mark.parametrize("kind, message", [
    ("LSTM", "outputs=r[1]: value 1 of r (LSTM) is 2 values (an LSTM's final states (h, c)), "
             "not one array"),
    ("GRU", "outputs=r[1]: value 1 of r (GRU) has the shape [1, 2, 3] for 2 samples, not one "
            "row per sample"),
])
def test_a_recurrent_layers_final_states_are_refused_as_name_i(tmp_path, capsys, kind, message):
    layers = {"s": {"type": "Flatten", "start_axis": 1, "stop_axis": 2},
              "r": {"type": kind, "hidden_size": 3}, "f": {"type": "Flatten"},
              "o": {"type": "Linear"}}
    folder, _ = _spec_bundle(layers, tmp_path / "bundle")
    np.save(tmp_path / "x.npy", np.zeros((2, 1, 8, 8), np.float32))
    assert infer.cli([f"run={folder}", f"input={tmp_path / 'x.npy'}", "outputs=r[1]",
                      f"out={tmp_path / 'o.npz'}"]) == 2
    assert capsys.readouterr().err.startswith(f"tomlrun infer: error: {message}")


@pytest.mark.parametrize("outputs", ["[p [1], o]", "[ 'p [ 1 ]' ,o ]", "p [1]"])
def test_spaces_around_a_name_or_its_index_are_dropped(pooled, tmp_path, outputs):
    """``outputs=[pool [1]]`` used to ask for a layer named ``'pool '`` (trailing space)."""
    folder, model = pooled
    images = np.random.default_rng(4).random((3, 1, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", images)
    arrays = infer.main([f"run={folder}", f"input={tmp_path / 'x.npy'}", f"outputs={outputs}",
                         f"out={tmp_path / 'o.npz'}"])
    with core.no_grad():
        model.eval()
        _, indices = model["p"](core.to_tensor(images))
    np.testing.assert_array_equal(arrays["p[1]"], indices.numpy())
    assert set(np.load(tmp_path / "o.npz").files) <= {"p[1]", "o", "predicted"}
    assert infer.names(" [ fc ,  'p [0]' ] ") == ["fc", "p[0]"]


@pytest.mark.parametrize("damage, message", [
    ("weights", "load: no file at"),
    ("config", "Expected '=' after a key"),
])
def test_a_damaged_bundle_is_one_clear_error(trained, tmp_path, capsys, damage, message):
    """A run folder whose model.pdparams was deleted ended in a FileNotFoundError traceback
    (status 1); a garbled model.toml gave a TOML parser message naming no run."""
    import shutil  # noqa: PLC0415

    folder, _, _ = trained
    copy = tmp_path / "run"
    shutil.copytree(folder / "model", copy / "model")
    inside = copy / "model" / "data" / bundle.FOLDER
    if damage == "weights":
        (inside / bundle.WEIGHTS_FILE).unlink()
    else:
        (inside / bundle.MODEL_FILE).write_text("garbage\n")
    assert infer.cli([f"run={copy}", "input=test"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tomlrun infer: error: run={copy}: its model cannot be loaded: the "
                          "bundle's model.toml or model.pdparams"), err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
