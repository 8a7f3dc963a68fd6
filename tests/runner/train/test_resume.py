"""runner.train.resume: what trainer.resume points to, without MLflow (tracking disabled)."""
import dataclasses
from types import SimpleNamespace

import pytest

import core
from runner import build
from runner.config import schema
from runner.config.options import load_option
from runner.errors import ConfigError
from runner.track import tracking
from runner.train import checkpoint, resume
from runner.train.loop import Trainer


def _cfg(resume_value, **trainer):
    return schema.RunConfig(
        model=load_option("model", "mlp", "hidden=[16]"), optim=schema.AdamConfig(),
        schedule=schema.ScheduleConfig(), clip=schema.ClipConfig(), data=schema.DataConfig(),
        trainer=schema.TrainerConfig(epochs=3, resume=resume_value, **trainer),
        runtime=schema.RuntimeConfig(), tracking=schema.TrackingConfig(enabled=False))


def _save(folder, cfg, epoch=1, batch=4):
    core.seed(0)
    data = build.build_data(cfg.data, seed=0)
    loader = build.build_loaders(data, cfg.data, cfg.trainer)[0]
    model = build.build_model(cfg.model, data.input_shape, data.num_classes)
    trainer = Trainer(model, build.build_optimizer(cfg.optim, model.parameters(), 0.01),
                      cfg.trainer)
    body = checkpoint.capture(trainer, loader, epoch, batch, fingerprint=resume.fingerprint(cfg))
    path = folder / checkpoint.checkpoint_name(7)
    checkpoint.save(body, path)
    return path


def test_not_resuming_finds_nothing():
    assert resume.find(_cfg(False), tracking.NullTracker()) is None
    assert resume.find(_cfg(""), tracking.NullTracker()) is None


def test_a_folder_resumes_from_its_newest_checkpoint(tmp_path):
    cfg = _cfg(str(tmp_path))
    path = _save(tmp_path, cfg)
    found = resume.find(cfg, tracking.NullTracker())
    assert found.path == str(path) and found.run_id is None and found.folder == str(tmp_path)


def test_settings_that_do_not_change_training_may_differ(tmp_path):
    _save(tmp_path, _cfg(False))
    cfg = _cfg(str(tmp_path), progress=False, checkpoint_every=5, keep_last=1, profile=True)
    cfg = dataclasses.replace(cfg, runtime=schema.RuntimeConfig(threads=2))
    assert resume.find(cfg, tracking.NullTracker()) is not None


def test_a_checkpoint_from_before_a_key_existed_resumes_at_that_keys_old_behaviour(
        tmp_path, monkeypatch):
    """Checkpoints written before trainer.accumulate, early_stop... existed lack those keys;
    they match the keys' defaults (the old behaviour), and nothing else."""
    added = ("trainer.accumulate", "trainer.early_stop", "trainer.early_stop_delta",
             "trainer.keep_best", "trainer.objective_direction")
    current = resume.fingerprint

    def old_fingerprint(cfg):
        return {k: v for k, v in current(cfg).items() if k not in added}

    monkeypatch.setattr(resume, "fingerprint", old_fingerprint)
    _save(tmp_path, _cfg(False))
    monkeypatch.setattr(resume, "fingerprint", current)
    assert resume.find(_cfg(str(tmp_path)), tracking.NullTracker()) is not None
    # The old checkpoint trained with the key's default: the error shows that value.
    with pytest.raises(checkpoint.CheckpointError, match="trainer.accumulate: checkpoint "
                                                         r"1 \(the default\) vs now 2"):
        resume.find(_cfg(str(tmp_path), accumulate=2), tracking.NullTracker())


def test_a_key_at_its_default_on_one_side_is_shown_with_its_value_not_as_absent(tmp_path):
    """A current checkpoint holds every key: a changed one shows both effective values."""
    _save(tmp_path, _cfg(False))
    with pytest.raises(checkpoint.CheckpointError) as info:
        resume.find(_cfg(str(tmp_path), accumulate=2, amp="O1"), tracking.NullTracker())
    message = str(info.value)
    assert "trainer.accumulate: checkpoint 1 vs now 2" in message
    assert "trainer.amp: checkpoint off vs now O1" in message
    assert "absent" not in message


def test_a_layer_argument_left_out_on_one_side_names_the_layers_default(tmp_path):
    _save(tmp_path, _cfg(False))
    cfg = _cfg(str(tmp_path))
    block = cfg.model.blocks["dense"]
    changed = dataclasses.replace(cfg.model, blocks={
        **cfg.model.blocks, "dense": {**block, "fc": {**block["fc"], "bias_attr": False}}})
    with pytest.raises(checkpoint.CheckpointError,
                       match=r"model.blocks.dense.fc.bias_attr: checkpoint \(not set: Linear's "
                             r"default\) vs now false"):
        resume.find(dataclasses.replace(cfg, model=changed), tracking.NullTracker())


def test_clear_errors_for_what_cannot_be_resumed(tmp_path):
    with pytest.raises(ConfigError, match="tracking is disabled"):
        resume.find(_cfg(True), tracking.NullTracker())
    with pytest.raises(ConfigError, match="neither a checkpoint path that exists"):
        resume.find(_cfg("0123abcd"), tracking.NullTracker())
    with pytest.raises(ConfigError, match="holds no checkpoint"):
        resume.find(_cfg(str(tmp_path)), tracking.NullTracker())
    _save(tmp_path, _cfg(False), epoch=3, batch=0)
    with pytest.raises(ConfigError, match="nothing to resume"):
        resume.find(_cfg(str(tmp_path)), tracking.NullTracker())
    with pytest.raises(checkpoint.CheckpointError, match="trainer.epochs: checkpoint 3 vs now 4"):
        resume.find(dataclasses.replace(_cfg(str(tmp_path)), trainer=schema.TrainerConfig(
            epochs=4, resume=str(tmp_path))), tracking.NullTracker())


class _Runs:
    """A tracker whose experiment holds runs of the wanted name (newest first)."""

    run_name = "mlp-adam"

    def __init__(self, *statuses, tags=None):
        self.runs = [SimpleNamespace(info=SimpleNamespace(run_id=f"run{i}", status=status),
                                     data=SimpleNamespace(tags=dict(tags or {})))
                     for i, status in enumerate(statuses)]

    def find_runs(self, name):
        assert name == self.run_name
        return self.runs


def test_resume_true_says_why_no_run_of_the_name_can_be_resumed(tmp_path):
    with pytest.raises(ConfigError, match=r"run1, KILLED, saved none: runs save resumable "
                                          r"checkpoints only with trainer.checkpoint_every=N"):
        resume.find(_cfg(True), _Runs("FINISHED", "KILLED", "FAILED"))
    with pytest.raises(ConfigError, match=r"\(2 run\(s\) of that name, all FINISHED\)"):
        resume.find(_cfg(True), _Runs("FINISHED", "FINISHED"))
    with pytest.raises(ConfigError, match="no unfinished run named 'mlp-adam' with a "
                                          "checkpoint: resume by"):
        resume.find(_cfg(True), _Runs())
    empty = tmp_path / "checkpoints"
    empty.mkdir()
    with pytest.raises(ConfigError, match=r"run0, KILLED, has none in .*checkpoints: it stopped "
                                          r"before its first checkpoint"):
        resume.find(_cfg(True), _Runs("KILLED", tags={resume.CHECKPOINT_TAG: str(empty)}))


def test_the_new_keys_validate_with_their_types():
    from runner.config.validation import validate

    base = {"model": {"name": "cnn", "freeze": ["conv1"]}, "optim": {"name": "adam"},
            "data": {"name": "digits"}}
    cfg = validate({**base, "trainer": {"resume": True, "checkpoint_every": 50, "keep_last": 2,
                                        "profile": True},
                    "inspect": {"every": 25, "layer_outputs": ["conv2", "fc"],
                                "param_stats": True, "grad_stats": True}})
    assert cfg.trainer.resume is True and cfg.model.freeze == ["conv1"]
    assert cfg.inspect.layer_outputs == ["conv2", "fc"] and resume.wanted(cfg)
    assert validate({**base, "trainer": {"resume": "0a1b"}}).trainer.resume == "0a1b"
    assert not resume.wanted(validate(base))
    with pytest.raises(ConfigError, match="inspect.layer_outputs .* a list of strings"):
        validate({**base, "inspect": {"layer_outputs": "fc"}})
    with pytest.raises(ConfigError, match="trainer.keep_last = 0 is not allowed"):
        validate({**base, "trainer": {"keep_last": 0}})
    with pytest.raises(ConfigError, match="trainer.resume = 3 has the wrong type"):
        validate({**base, "trainer": {"resume": 3}})
