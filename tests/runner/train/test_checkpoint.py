"""Checkpoints: exact in-process resume, checksums, mismatches, keep_last, loader state."""
import os
import zipfile

import numpy as np
import pytest

import core
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.train import checkpoint
from runner.train.events import EndForwardBackward, EndIteration
from runner.train.health import NonFiniteError
from runner.train.loop import Trainer
from tests.runner.sinks import ClockFreeSink

CFG = schema.TrainerConfig(epochs=3, batch_size=64, log_every=4, progress=False)
DATA = schema.DataConfig()


def _parts(seed=0):
    """A fresh 'process': model, optimizer with a cosine schedule, loaders, sink."""
    core.seed(seed)
    data = build.build_data(DATA, seed=0)
    train, valid, _ = build.build_loaders(data, DATA, CFG)
    model = build.build_model(load_option("model", "mlp", "hidden=[16]", "dropout=0.2"),
                              (1, 8, 8), 10)
    sched = build.build_schedule(schema.ScheduleConfig(name="cosine", warmup_epochs=0.5), 0.01,
                                 CFG.epochs, len(train))
    opt = build.build_optimizer(schema.AdamConfig(lr=0.01), model.parameters(), sched)
    sink = ClockFreeSink()
    trainer = Trainer(model, opt, CFG, scheduler=sched, sink=sink)
    return trainer, train, valid, sink


def _guarded_parts(seed=0):
    """Like ``_parts``, with trainer.nan_check=skip (max_skips 4), global-norm clipping, error
    clipping on hidden.0.fc, and NaN gradients at five fixed (epoch, batch) places."""
    core.seed(seed)
    cfg = schema.TrainerConfig(epochs=2, batch_size=64, log_every=4, progress=False,
                               nan_check="skip", max_skips=4)
    data = build.build_data(DATA, seed=0)
    train, valid, _ = build.build_loaders(data, DATA, cfg)
    model = build.build_model(load_option("model", "mlp", "hidden=[16]", "dropout=0.2"),
                              (1, 8, 8), 10)
    model["hidden.0.fc"].error_clip = 0.01
    opt = build.build_optimizer(schema.AdamConfig(lr=0.01), model.parameters(), 0.01,
                                grad_clip=core.nn.ClipGradByGlobalNorm(0.5))
    sink = ClockFreeSink()
    trainer = Trainer(model, opt, cfg, sink=sink)
    bad = {(0, 3), (0, 6), (0, 10), (1, 4), (1, 8)}

    def poison(event):
        if (event.pass_id, event.batch_id) in bad:
            event.model.out.bias.grad_data = event.model.out.bias.grad_data * np.nan

    trainer.on(EndForwardBackward, poison)
    return trainer, train, valid, sink


def _stop_report(trainer, train, valid) -> str:
    with pytest.raises(NonFiniteError) as info:
        trainer.fit(train, valid)
    return info.value.report


def test_health_counters_survive_a_resume_sharing_the_skip_budget(tmp_path):
    reference, train, valid, ref_sink = _guarded_parts()
    expected_report = _stop_report(reference, train, valid)  # the 5th NaN, after 4 skips
    assert "Updates skipped before stopping: 4 (trainer.max_skips=4)" in expected_report

    first, train, valid, _ = _guarded_parts()
    first.checkpointer = checkpoint.Checkpointer(tmp_path, every=5, keep_last=1)
    first.on(EndIteration, lambda e: e.step == 15 and e.trainer.stop())  # after 3 skips
    first.fit(train, valid)
    assert first.health.skipped == 3

    second, train, valid, sink = _guarded_parts(seed=1)
    checkpoint.restore(second, train, checkpoint.load(checkpoint.latest(tmp_path)))
    assert second.state.step == 15 and second.health.skipped == 3
    # One more skip, then the stop: the budget is shared, and the report is the same as if
    # the run had never been interrupted (last finite loss, largest norm, remedies included).
    assert _stop_report(second, train, valid) == expected_report
    assert second.health.skipped == 4 and second.health.events == 5
    resumed = [p for p in sink.points if p[0] > 15]
    assert resumed == [p for p in ref_sink.points if p[0] > 15]
    counted = {key: value for step, key, value in resumed}  # the last value of each
    assert counted["health/skipped_steps"] == 4.0 and counted["health/nonfinite_events"] == 4.0
    assert counted["clip/acted"] > 15 and counted["error_clip/hidden.0.fc/acted"] > 15


def test_a_checkpoint_without_health_counters_loads_with_zeros(tmp_path):
    trainer, train, _, _ = _guarded_parts()
    body = checkpoint.capture(trainer, train, 0, 0)
    del body["health"]  # what checkpoints saved before the counters were added hold
    checkpoint.save(body, tmp_path / "old.ckpt")
    other, train, _, _ = _guarded_parts()
    other.health.events = other.health.skipped = 2
    other.health.max_norm = (3.0, 7)
    checkpoint.restore(other, train, checkpoint.load(tmp_path / "old.ckpt"))
    assert (other.health.events, other.health.skipped, other.health.max_norm) == (0, 0, (0.0, 0))
    assert other.health.metrics()["health/skipped_steps"] == 0.0


def _params(trainer):
    return {k: v.data.copy() for k, v in trainer.model.state_dict().items()}


def test_a_run_stopped_mid_epoch_and_resumed_ends_bit_identical(tmp_path):
    reference, train, valid, ref_sink = _parts()
    reference.fit(train, valid)

    first, train, valid, sink1 = _parts()
    first.checkpointer = checkpoint.Checkpointer(tmp_path, every=7, keep_last=2)
    first.on(EndIteration, lambda e: e.step == 30 and e.trainer.stop())  # 30 = epoch 1 batch 9
    first.fit(train, valid)
    saved = checkpoint.latest(tmp_path)
    assert os.path.basename(saved) == "ckpt-step00000028.ckpt"
    assert len(checkpoint.list_checkpoints(tmp_path)) == 2  # keep_last

    second, train, valid, sink2 = _parts(seed=123)  # another init and shuffle: all restored
    checkpoint.restore(second, train, checkpoint.load(saved))
    assert second.state.epoch == 1 and second.state.batch == 28 - 21
    second.fit(train, valid)
    final, expected = _params(second), _params(reference)
    assert final.keys() == expected.keys()
    for key in expected:
        assert np.array_equal(final[key], expected[key]), key
    resumed = [p for p in sink2.points if p[0] > 28]
    assert resumed == [p for p in ref_sink.points if p[0] > 28]


def _flip_a_weight_byte(path) -> None:
    """One bit pattern flipped inside the first stored array's values (a byte elsewhere, such
    as a zip header's timestamp, may change nothing that is loaded)."""
    with zipfile.ZipFile(path) as archive:
        entry = archive.infolist()[0]
    raw = bytearray(open(path, "rb").read())
    head = entry.header_offset  # the local header's own name and extra-field lengths
    start = head + 30 + int.from_bytes(raw[head + 26:head + 28], "little") \
        + int.from_bytes(raw[head + 28:head + 30], "little")
    raw[start + entry.compress_size // 2] ^= 0xFF
    open(path, "wb").write(bytes(raw))


def test_a_corrupt_checkpoint_is_refused(tmp_path):
    trainer, train, _, _ = _parts()
    path = checkpoint.Checkpointer(tmp_path, 1, 1).save(trainer, train, 0, 0, None)
    _flip_a_weight_byte(path)
    with pytest.raises(checkpoint.CheckpointError, match="ckpt-step00000000"):
        checkpoint.load(path)


def test_an_unreadable_checkpoint_names_the_newest_readable_one_before_it(tmp_path):
    """keep_last keeps older checkpoints for exactly this: the error says which one to resume
    from (a broken archive used to name none; a bad checksum said to delete the file)."""
    trainer, train, _, _ = _parts()
    keeper = checkpoint.Checkpointer(tmp_path, 1, 3)
    paths = []
    for step in range(3):
        trainer.state.step = step
        paths.append(keeper.save(trainer, train, 0, step, None))
    _flip_a_weight_byte(paths[2])  # a broken archive
    with open(paths[1], "r+b") as handle:  # a truncated one: not the one to suggest
        handle.truncate(100)
    with pytest.raises(checkpoint.CheckpointError) as caught:
        checkpoint.load(paths[2])
    assert f"The newest readable one before it is ckpt-step00000000.ckpt: resume from it " \
           f"with trainer.resume={paths[0]}" in str(caught.value)
    assert all(os.path.exists(path) for path in paths)  # nothing deleted
    with open(paths[0], "r+b") as handle:
        handle.truncate(100)
    with pytest.raises(checkpoint.CheckpointError, match="No readable earlier checkpoint"):
        checkpoint.load(paths[2])


def test_a_tampered_body_fails_the_checksum(tmp_path):
    trainer, train, _, _ = _parts()
    body = checkpoint.capture(trainer, train, 0, 0)
    path = tmp_path / "ckpt-step00000000.ckpt"
    checkpoint.save(body, path)
    outer = core.load(path)
    outer["body"]["position"]["step"] = 5
    core.save(outer, path)
    with pytest.raises(checkpoint.CheckpointError, match="SHA-256"):
        checkpoint.load(path)


def test_a_checkpoint_of_another_config_is_refused_naming_the_difference(tmp_path):
    trainer, train, _, _ = _parts()
    path = tmp_path / "c.ckpt"
    checkpoint.save(checkpoint.capture(trainer, train, 0, 0, fingerprint={"optim.lr": "0.01"}),
                    path)
    with pytest.raises(checkpoint.CheckpointError, match="optim.lr: checkpoint 0.01 vs now 0.1"):
        checkpoint.load(path, fingerprint={"optim.lr": "0.1"})


def test_a_key_one_side_lacks_compares_and_shows_as_its_default():
    """A key added after a checkpoint was written holds its default there: equal to the
    default now is a match, another value names the default, never '(absent)'."""
    checkpoint.check_fingerprint("c.ckpt", {"optim.lr": "0.1"},
                                 {"optim.lr": "0.1", "trainer.accumulate": "1"},
                                 defaults={"trainer.accumulate": "1"})
    with pytest.raises(checkpoint.CheckpointError,
                       match=r"trainer.accumulate: checkpoint 2 vs now 1 \(the default\)\."):
        checkpoint.check_fingerprint("c.ckpt", {"trainer.accumulate": "2"}, {},
                                     defaults={"trainer.accumulate": "1"})
    with pytest.raises(checkpoint.CheckpointError,
                       match=r"data.subset: checkpoint \(not set\) vs now 10"):
        checkpoint.check_fingerprint("c.ckpt", {}, {"data.subset": "10"})


def test_a_model_file_is_not_taken_for_a_checkpoint(tmp_path):
    trainer, _, _, _ = _parts()
    core.save(trainer.model.state_dict(), tmp_path / "model.pdparams")
    with pytest.raises(checkpoint.CheckpointError, match="not a training checkpoint"):
        checkpoint.load(tmp_path / "model.pdparams")


def test_loader_state_replays_the_order_and_skips_done_batches():
    data = core.io.TensorDataset(np.arange(10))
    loader = core.io.DataLoader(data, batch_size=3, shuffle=True, seed=1)
    list(loader)  # one pass done
    it = iter(loader)
    done = [next(it)[0].tolist(), next(it)[0].tolist()]
    state = loader.state_dict()
    assert state["next_batch"] == 2
    rest = [b[0].tolist() for b in it]
    after = [b[0].tolist() for b in loader]
    other = core.io.DataLoader(data, batch_size=3, shuffle=True, seed=99)
    other.set_state_dict(state)
    assert [b[0].tolist() for b in other] == rest
    assert [b[0].tolist() for b in other] == after
    assert sorted(sum(done + rest, [])) == list(range(10))
    with pytest.raises(ValueError, match="next_batch=9"):
        other.set_state_dict({"rng": state["rng"], "next_batch": 9})


def _bn_model():
    core.seed(0)
    return core.nn.Sequential(("conv", core.nn.Conv2D(1, 2, 3)), ("bn", core.nn.BatchNorm2D(2)),
                              ("flatten", core.nn.Flatten()), ("fc", core.nn.Linear(2 * 6 * 6, 3)))


def test_batchnorm_saved_in_eval_mode_loads_into_train_mode_with_a_fresh_optimizer(tmp_path):
    """The FAQ's 'Optimizer set error ... should in state dict': optimizer state is created."""
    x = core.to_tensor(np.random.default_rng(0).random((4, 1, 8, 8)).astype(np.float32))
    trained = _bn_model()
    trained(x)  # train mode: the running statistics move
    trained.eval()
    core.save(trained.state_dict(), tmp_path / "bn.pdparams")

    model = _bn_model().train()
    for name, param in model.named_parameters():
        param.name = name
    model.set_state_dict(core.load(tmp_path / "bn.pdparams"))
    assert np.array_equal(model.bn._mean.data, trained.bn._mean.data)
    opt = core.optimizer.Adam(parameters=model.parameters())
    opt.set_state_dict({"state": {}})  # what an eval-mode save has: no optimizer state at all
    loss = model(x).mean()
    loss.backward()
    opt.step()
    state = opt.state_dict()["state"]
    assert set(state) == {name for name, _ in model.named_parameters()}
    assert state["bn.weight"]["step"] == 1


def test_checkpoints_restore_batchnorm_statistics(tmp_path):
    trainer, train, _, _ = _parts()
    trainer.model = _bn_model()
    trainer.model(core.to_tensor(np.ones((2, 1, 8, 8), np.float32)))
    body = checkpoint.capture(trainer, train, 0, 0)
    checkpoint.save(body, tmp_path / "c.ckpt")
    other, train, _, _ = _parts()
    other.model = _bn_model()
    checkpoint.restore(other, train, checkpoint.load(tmp_path / "c.ckpt"))
    assert np.array_equal(other.model.bn._variance.data, trainer.model.bn._variance.data)
    assert not np.array_equal(other.model.bn._variance.data, np.ones(2, np.float32))
