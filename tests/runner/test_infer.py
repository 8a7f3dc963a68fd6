"""The inference bundle and ``python -m runner.infer``: from a folder, a checkpoint, a run id."""
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
    with pytest.raises(UserError, match=r"\['hidden.1'\] are not layers of this model whose "
                       r"outputs can be read: use flatten, hidden, hidden.0, hidden.0.fc"):
        infer.main([f"run={folder}", "input=test", "outputs=[hidden.1]"])


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
    with pytest.raises(UserError, match="not layers of this model"):
        infer.main([f"run={folder}", "input=test", "outputs=[conv9]"])
    done = subprocess.run([sys.executable, "-m", "runner.infer", "run=nowhere", "input=test"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 2
    assert done.stderr.startswith("tomlrun infer: error: run=nowhere is neither a file")
    assert not (tmp_path / "mlflow.db").exists()


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
