"""End to end through ``python -m runner``: the vowels GRU and Transformer, word2vec, and a files
reader."""
from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core import datasets
from tests.runner.subprocesses import runner_env


def _train(folder: Path, *overrides: str):
    env = runner_env()
    done = subprocess.run([sys.executable, "-m", "runner", "trainer.progress=false",
                           "runtime.threads=1", *overrides], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    import mlflow  # noqa: PLC0415 - heavy, and only these tests need it

    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{folder / 'mlflow.db'}")
    (run,) = client.search_runs([e.experiment_id for e in client.search_experiments()])
    assert run.info.status == "FINISHED"
    return client, run, done.stdout


def test_vowels_gru_experiment_learns_the_speakers(tmp_path, shared_dir):
    _, run, out = _train(tmp_path, "+experiment=vowels_gru",
                         f"data.root={shared_dir('japanese-vowels')}", "trainer.epochs=6",
                         "trainer.checkpoint=false")
    metrics = run.data.metrics
    assert metrics["test/acc"] >= 0.9  # 9 speakers: chance is 0.11
    assert 0 <= metrics["data/wait_fraction"] <= 1
    assert 0 < metrics["data/padding_fraction"] < 0.5  # sort_by_length keeps padding low
    assert "data loading was" in out


def test_vowels_transformer_experiment_learns_the_speakers(tmp_path, shared_dir):
    """conf/model/transformer.toml: a spec with a repeated TransformerEncoderLayer block."""
    _, run, out = _train(tmp_path, "+experiment=vowels_transformer",
                         f"data.root={shared_dir('japanese-vowels')}", "trainer.epochs=8",
                         "trainer.checkpoint=false")
    assert run.data.metrics["test/acc"] >= 0.9  # 96.5% after 8 epochs; 97.8% after 30
    assert "encoder.1.layer.self_attn.q_proj" in out  # the model summary: two copies
    assert run.data.params["model.depth"] == "2"


def test_bidirectional_gru_trains_on_vowels(tmp_path, shared_dir):
    client, run, _ = _train(tmp_path, "model=gru", "model.direction=bidirect", "data=vowels",
                            f"data.root={shared_dir('japanese-vowels')}", "optim=adam",
                            "trainer.epochs=1", "trainer.checkpoint=false", "inspect.every=5",
                            "inspect.layer_outputs=[rnn]")
    assert run.data.params["model.direction"] == "bidirect"
    assert run.data.metrics["valid/acc"] > 0.3  # 9 speakers: chance is 0.11; about 0.70 here
    # The GRU returns (outputs, final states): inspection reads the outputs, as the next layer.
    stds = client.get_metric_history(run.info.run_id, "inspect/rnn/out_std")
    assert len(stds) > 1 and all(0 < m.value < 1 for m in stds)  # tanh outputs


def _small_corpus(folder: Path, source: Path, words: int) -> Path:
    texts = folder / "texts"
    texts.mkdir()
    for name in ("persuasion", "emma"):
        tokens = (source / f"{name}.txt").read_text(encoding="utf-8").split()
        (texts / f"{name}.txt").write_text(" ".join(tokens[2000:2000 + words]), encoding="utf-8")
    return texts


def test_word2vec_loss_falls_well_below_uniform_and_neighbours_are_logged(tmp_path, shared_dir):
    texts = _small_corpus(tmp_path, shared_dir("text/jane-austen"), 8000)
    dict_size = 1000
    client, run, _ = _train(tmp_path, "+experiment=word2vec", f"data.root={texts}",
                            f"data.dict_size={dict_size}", "model.embedding_dim=64",
                            "trainer.epochs=2", "trainer.batch_size=64", "trainer.log_every=50",
                            "data.workers=0", "trainer.checkpoint=false")
    metrics = run.data.metrics
    assert metrics["train/loss"] < math.log(dict_size) - 1.0
    assert metrics["valid/loss"] < math.log(dict_size) - 1.0
    folder = client.download_artifacts(run.info.run_id, "", str(tmp_path / "artifacts"))
    neighbours = (Path(folder) / "neighbours.txt").read_text().splitlines()
    assert len(neighbours) == 10 and all(":" in line for line in neighbours)
    vocab = datasets.Vocabulary.load(str(Path(folder) / "vocab.txt"))
    assert len(vocab) == dict_size and vocab.words[0] == "<unk>"


def test_files_data_with_a_module_reader_workers_and_cache(tmp_path):
    rng = np.random.default_rng(0)
    for split, count in (("train", 3), ("test", 1)):
        (tmp_path / split).mkdir()
        for part in range(count):
            labels = rng.integers(0, 3, 150)
            features = rng.normal(size=(150, 4)) + labels[:, None] * 2.0
            rows = [",".join(f"{v:.4f}" for v in f) + f",{y}" for f, y in zip(features, labels)]
            (tmp_path / split / f"part{part}.csv").write_text("\n".join(rows) + "\n")
    _, run, _ = _train(tmp_path, "data=files", f"data.root={tmp_path}", "model=mlp",
                       "model.hidden=[16]", "trainer.epochs=8", "optim.lr=0.05",
                       "trainer.objective=test/acc",
                       "data.pool_size=64", "data.shuffle_files=true", "data.workers=2",
                       "data.cache=memory", "data.prefetch=2", "trainer.checkpoint=false")
    assert run.data.metrics["test/acc"] > 0.85  # about 0.93 with or without workers
    assert run.data.params["data.reader"] == "csv"


def test_text_splits_share_the_training_vocabulary(tmp_path, shared_dir):
    texts = _small_corpus(tmp_path, shared_dir("text/jane-austen"), 3000)
    train = datasets.CBOWText(str(texts), "train", dict_size=200)
    test = datasets.CBOWText(str(texts), "test", vocab=train.vocab)
    assert len(train.shards) == 2 and len(test) < len(train) // 5
    contexts, targets = train.arrays
    assert contexts.shape[1] == 4 and contexts.max() < 200 and targets.max() < 200
    with pytest.raises(datasets.DatasetError, match="no '\\*.txt'"):
        (tmp_path / "empty").mkdir()
        datasets.CBOWText(str(tmp_path / "empty"))


def test_a_failing_reader_is_one_paragraph_with_status_2(tmp_path):
    """A user's reader that raises names the reader, the file and the sample, as a user error
    (the run is recorded FAILED with that reason), not a traceback."""
    (tmp_path / "train").mkdir()
    (tmp_path / "train" / "part0.csv").write_text("1.0,2.0,x\n")  # 'x' is not a label
    (tmp_path / "myreaders.py").write_text(
        "def read(path):\n"
        "    for line in open(path):\n"
        "        *features, label = line.split(',')\n"
        "        yield [float(v) for v in features], int(label)\n")
    env = runner_env()
    env["PYTHONPATH"] = f"{tmp_path}{os.pathsep}{env.get('PYTHONPATH', '')}"
    done = subprocess.run([sys.executable, "-m", "runner", "trainer.progress=false",
                           "data=files", f"data.root={tmp_path}", 'data.files=["train/*.csv"]',
                           'data.test_files=["train/*.csv"]',
                           "data.reader=myreaders:read", "model=mlp", "trainer.epochs=1",
                           "trainer.objective=train/acc", "data.num_classes=2"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr and lines[-1].startswith("tomlrun: error: reader "), (
        done.stderr[-2000:])
    assert "myreaders:read" in lines[-1] and "part0.csv" in lines[-1]
