"""core.audio.datasets ESC50 and TESS on tiny zip archives built here with the real layouts
(ESC-50-master/meta/esc50.csv + audio/, TESS_Toronto_emotional_speech_set/<folder>/*.wav),
fetched from file:// URLs into a data home under a temporary HOME: Paddle's folds, labels,
'raw' waveforms and features against core.audio.features on the same waveform, batches, the
cache, and the errors."""
from __future__ import annotations

import hashlib
import io
import wave
import zipfile

import numpy as np
import pytest

import core
from core.audio import features
from core.audio.datasets import ESC50, TESS
from core.datasets import DatasetError
from core.datasets.download import default_cache_dir

RATE = 8000
ESC_ROWS = [  # filename, fold, target, category: two per fold
    ("1-100038-A-14.wav", 1, 14, "chirping_birds"), ("1-100210-A-36.wav", 1, 36, "vacuum_cleaner"),
    ("2-100648-A-43.wav", 2, 43, "car_horn"), ("2-101676-A-10.wav", 2, 10, "rain"),
    ("3-100018-A-18.wav", 3, 18, "toilet_flush"), ("3-100024-A-0.wav", 3, 0, "dog"),
    ("4-102844-A-49.wav", 4, 49, "hand_saw"), ("4-104958-A-3.wav", 4, 3, "cow"),
    ("5-103415-A-2.wav", 5, 2, "pig"), ("5-117118-A-42.wav", 5, 42, "siren"),
]
TESS_FILES = ["OAF_angry/OAF_back_angry.wav", "OAF_Fear/OAF_bar_fear.wav",
              "YAF_pleasant_surprised/YAF_bath_ps.wav", "YAF_sad/YAF_bean_sad.wav",
              "OAF_neutral/OAF_base_neutral.wav"]


def _wav_bytes(seed: int, frames: int = 600) -> tuple[bytes, np.ndarray]:
    """A mono 16-bit WAV of ``frames`` random samples, and its float32 waveform."""
    stored = np.random.default_rng(seed).integers(-3000, 3000, size=frames).astype("<i2")
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(RATE)
        writer.writeframes(stored.tobytes())
    return buffer.getvalue(), (stored / 2 ** 15).astype(np.float32)


def _archive(path, members: dict) -> dict:
    with zipfile.ZipFile(path, "w") as zipped:
        for name, data in members.items():
            zipped.writestr(name, data)
    return {"url": path.as_uri(), "md5": hashlib.md5(path.read_bytes()).hexdigest()}


@pytest.fixture
def esc50(tmp_path, monkeypatch):
    """ESC-50-master.zip with ten recordings, two per fold; HOME a temporary folder:
    (archive, {filename: waveform})."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    csv = "filename,fold,target,category,esc10,src_file,take\n" + "".join(
        f"{name},{fold},{target},{category},False,{name[2:8]},A\n"
        for name, fold, target, category in ESC_ROWS)
    members, waves = {"ESC-50-master/meta/esc50.csv": csv}, {}
    for seed, (name, *_) in enumerate(ESC_ROWS):
        members[f"ESC-50-master/audio/{name}"], waves[name] = _wav_bytes(seed)
    return _archive(tmp_path / "ESC-50-master.zip", members), waves


@pytest.fixture
def tess(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    members, waves = {}, {}
    for seed, name in enumerate(TESS_FILES):
        path = f"TESS_Toronto_emotional_speech_set/{name}"
        members[path], waves[name.split("/")[1]] = _wav_bytes(seed, 500 + seed)
    return _archive(tmp_path / "TESS_Toronto_emotional_speech_set.zip", members), waves


# ----- ESC50 -------------------------------------------------------------------------------------
def test_esc50_folds_labels_and_raw_waveforms(esc50, tmp_path):
    archive, waves = esc50
    dev = ESC50(mode="dev", split=3, archive=archive)
    home = tmp_path / "home" / ".cache" / "tomlrun" / "esc50"
    assert dev.files == [str(home / "ESC-50-master" / "audio" / n) for n in
                         ("3-100018-A-18.wav", "3-100024-A-0.wav")]
    assert dev.labels == [18, 0] and len(dev) == 2
    feat, label = dev[1]
    assert isinstance(feat, core.Tensor) and feat.dtype == np.float32 and feat.shape == [600]
    assert label == 0 and isinstance(label, int)
    np.testing.assert_array_equal(feat.numpy(), waves["3-100024-A-0.wav"])
    assert dev.sample_rate == RATE
    train = ESC50(split=3)  # unpacked already: Paddle's archive is not fetched
    assert len(train) == 8 and train.labels == [14, 36, 43, 10, 49, 3, 2, 42]
    assert ESC50.label_list[14] == "Chirping birds" and len(ESC50.label_list) == 50
    assert ESC50.archive == {"url": "https://paddleaudio.bj.bcebos.com/datasets/"
                                    "ESC-50-master.zip",
                             "md5": "7771e4b9d86d0945acce719c7a59305a"}


def test_esc50_mfcc_is_core_audio_features_on_the_waveform(esc50):
    archive, waves = esc50
    data = ESC50(mode="dev", split=1, feat_type="mfcc", archive=archive, n_mfcc=13, n_fft=256,
                 n_mels=32)
    feat, label = data[0]
    layer = features.MFCC(sr=RATE, n_mfcc=13, n_fft=256, n_mels=32)
    expected = layer(core.to_tensor(waves["1-100038-A-14.wav"][None]))[0]
    assert feat.shape == [13, 600 // 64 + 1] and label == 14
    np.testing.assert_allclose(feat.numpy(), expected.numpy(), rtol=1e-5, atol=1e-4)
    mel = ESC50(mode="dev", split=1, feat_type="logmelspectrogram", n_fft=128, n_mels=16)[1][0]
    assert mel.shape == [16, 600 // 32 + 1]


def test_esc50_batches_through_the_data_loader(esc50):
    archive, waves = esc50
    data = ESC50(mode="train", split=5, archive=archive)
    feats, labels = next(iter(core.io.DataLoader(data, batch_size=4)))
    assert list(feats.shape) == [4, 600]
    assert np.asarray(labels).tolist() == [14, 36, 43, 10]
    np.testing.assert_array_equal(np.asarray(feats)[2], waves["2-100648-A-43.wav"])


@pytest.mark.parametrize("kwargs, error, match", [
    ({"split": 6}, ValueError, r"ESC50: split=6 must be an int, 1 <= split <= 5"),
    ({"split": "1"}, ValueError, "ESC50: split='1' must be an int"),
    ({"mode": "test"}, ValueError, "ESC50: mode='test' must be 'train' or 'dev'"),
    ({"feat_type": "mel"}, ValueError, r"ESC50: feat_type='mel' is unknown; it must be one of "
                                       r"\['raw', 'melspectrogram', 'mfcc'"),
    ({"feat_type": "mfcc", "n_mfccs": 3}, TypeError, "builds core.audio.features.MFCC, which "
                                                     "takes no argument 'n_mfccs'"),
    ({"feat_type": "mfcc", "sr": 3}, TypeError, "ESC50: sr is the sample rate of each file"),
    ({"archive": "http://x/y.zip"}, TypeError, "ESC50: archive must be a dict"),
])
def test_esc50_bad_arguments_are_named(esc50, kwargs, error, match):
    archive, _ = esc50
    with pytest.raises(error, match=match):  # checked before the archive is fetched
        ESC50(**{"archive": archive, **kwargs})
    assert not (default_cache_dir("esc50") / "ESC-50-master").exists()


def test_an_archive_that_is_not_the_dataset_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    other = _archive(tmp_path / "other.zip", {"something/else.txt": "x"})
    with pytest.raises(DatasetError, match="ESC50: .*other.zip has no top folder "
                       "ESC-50-master/: it is not the ESC50 archive"):
        ESC50(archive=other)
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"neither zip nor tar")
    with pytest.raises(DatasetError, match="junk.zip is not a readable zip or tar archive"):
        ESC50(archive={"url": junk.as_uri(), "md5": None})
    with pytest.raises(DatasetError, match="every mirror failed"):
        ESC50(archive={"url": (tmp_path / "absent.zip").as_uri(), "md5": None})
    wrong = _archive(tmp_path / "ESC-50-master.zip", {"ESC-50-master/meta/esc50.csv": "h\n"})
    with pytest.raises(DatasetError, match="every mirror failed"):
        ESC50(archive={**wrong, "md5": "0" * 32})
    cache = tmp_path / "home" / ".cache" / "tomlrun" / "esc50"
    assert not (cache / "ESC-50-master.zip").exists()  # a bad md5 leaves nothing
    with pytest.raises(DatasetError, match=r"ESC-50-master/audio is not there"):
        ESC50(archive=wrong)
    assert [p.name for p in cache.iterdir() if p.name.startswith(".unpack")] == []


def test_a_bad_csv_row_is_named(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    archive = _archive(tmp_path / "ESC-50-master.zip", {
        "ESC-50-master/meta/esc50.csv": "filename,fold,target\na.wav,one,3\n",
        "ESC-50-master/audio/a.wav": _wav_bytes(0)[0]})
    with pytest.raises(DatasetError, match=r"ESC50: line 2 of .*esc50.csv is not a row of "
                       "filename,fold,target,category,esc10,src_file,take"):
        ESC50(archive=archive)


# ----- TESS --------------------------------------------------------------------------------------
def test_tess_folds_by_sorted_position_and_labels_the_emotion(tess, tmp_path):
    archive, waves = tess
    dev = TESS(mode="dev", n_folds=2, split=1, archive=archive)
    names = sorted(TESS_FILES)  # OAF_Fear, OAF_angry, OAF_neutral, YAF_pleasant.., YAF_sad
    home = tmp_path / "home" / ".cache" / "tomlrun" / "tess" / "TESS_Toronto_emotional_speech_set"
    assert dev.files == [str(home / names[i]) for i in (0, 2, 4)]
    assert dev.labels == [2, 4, 6]  # fear, neutral, sad
    train = TESS(mode="train", n_folds=2, split=1)
    assert train.files == [str(home / names[i]) for i in (1, 3)] and train.labels == [0, 5]
    feat, label = train[1]
    assert label == 5 and TESS.label_list[label] == "ps"
    np.testing.assert_array_equal(feat.numpy(), waves["YAF_bath_ps.wav"])
    assert len(TESS()) == 4 and len(TESS(mode="dev")) == 1  # five folds by default


def test_tess_spectrogram_is_core_audio_features_on_the_waveform(tess):
    archive, waves = tess
    data = TESS(mode="dev", n_folds=1, split=1, feat_type="spectrogram", archive=archive,
                n_fft=64, hop_length=16)
    feat, _ = data[0]
    expected = features.Spectrogram(n_fft=64, hop_length=16)(
        core.to_tensor(waves["OAF_bar_fear.wav"][None]))[0]
    assert feat.shape == expected.shape == [33, 501 // 16 + 1]
    np.testing.assert_allclose(feat.numpy(), expected.numpy(), rtol=1e-6)
    mel, _ = TESS(mode="dev", n_folds=1, feat_type="melspectrogram", n_fft=128, n_mels=20)[0]
    expected = features.MelSpectrogram(sr=RATE, n_fft=128, n_mels=20)(
        core.to_tensor(waves["OAF_bar_fear.wav"][None]))[0]
    np.testing.assert_allclose(mel.numpy(), expected.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_folds": 0}, "TESS: n_folds=0 must be an int >= 1"),
    ({"n_folds": 3, "split": 4}, r"TESS: split=4 must be an int, 1 <= split <= 3"),
    ({"mode": "valid"}, "TESS: mode='valid' must be 'train' or 'dev'"),
])
def test_tess_bad_arguments_are_named(tess, kwargs, match):
    archive, _ = tess
    with pytest.raises(ValueError, match=match):
        TESS(archive=archive, **kwargs)
    assert not default_cache_dir("tess").exists()


def test_tess_names_a_file_it_cannot_label(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    archive = _archive(tmp_path / "t.zip", {
        "TESS_Toronto_emotional_speech_set/x/OAF_back_bored.wav": _wav_bytes(0)[0]})
    with pytest.raises(DatasetError, match=r"TESS: .*OAF_back_bored.wav is not named "
                       r"<speaker>_<word>_<emotion>.wav with an emotion of \['angry'"):
        TESS(archive=archive)


# ----- the base class ----------------------------------------------------------------------------
def test_audio_classification_dataset_reads_given_files(tmp_path):
    from core.audio.datasets.dataset import AudioClassificationDataset  # noqa: PLC0415

    stereo = np.random.default_rng(3).uniform(-0.5, 0.5, size=(2, 300)).astype(np.float32)
    core.audio.save(tmp_path / "stereo.wav", stereo, RATE)
    (tmp_path / "mono.wav").write_bytes(_wav_bytes(4, 300)[0])
    files = [str(tmp_path / "stereo.wav"), str(tmp_path / "mono.wav")]
    data = AudioClassificationDataset(files, [7, 1])
    feat, label = data[0]
    assert feat.shape == [2, 300] and label == 7  # more than one channel: [C, T]
    np.testing.assert_allclose(feat.numpy(), stereo, atol=2 ** -15)
    assert data[1][0].shape == [300] and len(data) == 2
    spec = AudioClassificationDataset(files, [7, 1], feat_type="spectrogram", n_fft=32)
    assert spec[1][0].shape == [17, 300 // 512 + 1] and spec.feat_config == {"n_fft": 32}
    with pytest.raises(ValueError, match="AudioClassificationDataset: files and labels must be "
                       "as long, got 2 files and 1 labels"):
        AudioClassificationDataset(files, [7])


def test_features_of_a_stereo_file_are_each_channels(tmp_path):
    """Paddle's dataset hands a [1, C, T] batch to the feature layer for a C-channel file,
    which its stft refuses; here each channel gets its features, [C, ..., frames]."""
    from core.audio.datasets.dataset import AudioClassificationDataset  # noqa: PLC0415

    stereo = np.random.default_rng(5).uniform(-0.5, 0.5, size=(2, 400)).astype(np.float32)
    core.audio.save(tmp_path / "stereo.wav", stereo, RATE)
    waveform = core.audio.load(tmp_path / "stereo.wav")[0]
    for feat_type, layer, kwargs in [
            ("melspectrogram", features.MelSpectrogram, {"n_fft": 64, "n_mels": 8}),
            ("mfcc", features.MFCC, {"n_fft": 64, "n_mels": 8, "n_mfcc": 5}),
            ("spectrogram", features.Spectrogram, {"n_fft": 64})]:
        data = AudioClassificationDataset([str(tmp_path / "stereo.wav")], [3],
                                          feat_type=feat_type, **kwargs)
        feat, label = data[0]
        args = kwargs if feat_type == "spectrogram" else {"sr": RATE, **kwargs}
        want = layer(**args)(waveform).numpy()
        assert feat.shape == list(want.shape) and feat.shape[0] == 2 and label == 3
        np.testing.assert_allclose(feat.numpy(), want, rtol=1e-5, atol=1e-6)
        mono = layer(**args)(waveform[1:2]).numpy()[0]  # channel 1 alone, as a mono file
        np.testing.assert_allclose(feat.numpy()[1], mono, rtol=1e-5, atol=1e-6)
