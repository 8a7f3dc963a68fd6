"""core.audio load / save / info and core.audio.backends (Paddle's wave_backend): files written
by Python's wave module directly and read back, round trips at 8, 16 and 32 bits, Paddle's
docstring examples, scipy's WAV reader as a cross-check, and the errors naming the file."""
from __future__ import annotations

import io
import struct
import sys
import wave

import numpy as np
import pytest

import core
import core as paddle
from core.audio import backends

rng = np.random.default_rng(7)


def _write_with_wave(path, samples: np.ndarray, rate: int, width: int) -> None:
    """``samples`` [frames, channels] of the stored integer dtype, written by ``wave`` itself."""
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(samples.shape[1])
        writer.setsampwidth(width)
        writer.setframerate(rate)
        writer.writeframes(samples.astype(samples.dtype.newbyteorder("<")).tobytes())


def _riff(format_tag: int, channels: int, rate: int, bits: int, data: bytes,
          announced: int | None = None) -> bytes:
    """A WAV file's bytes with any format tag (1 PCM, 3 IEEE float) and a data chunk that may
    announce more bytes than it holds."""
    block = channels * bits // 8
    fmt = struct.pack("<HHIIHH", format_tag, channels, rate, rate * block, block, bits)
    size = len(data) if announced is None else announced
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + \
        struct.pack("<I", size) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


# ----- reading files written by the wave module --------------------------------------------------
@pytest.mark.parametrize("width, dtype, centre, scale", [(1, np.uint8, 128, 128),
                                                         (2, np.int16, 0, 2 ** 15),
                                                         (4, np.int32, 0, 2 ** 31)])
def test_load_reads_what_the_wave_module_wrote(tmp_path, width, dtype, centre, scale):
    limits = np.iinfo(dtype)
    stored = rng.integers(limits.min, limits.max, size=(50, 3), endpoint=True).astype(dtype)
    stored[0] = [limits.min, limits.max, centre]
    path = tmp_path / "x.wav"
    _write_with_wave(path, stored, 11025, width)
    waveform, rate = core.audio.load(path)
    assert rate == 11025 and isinstance(rate, int)
    assert isinstance(waveform, core.Tensor) and waveform.shape == [3, 50]  # channels first
    assert waveform.dtype == np.float32
    expected = (stored.astype(np.float64) - centre) / scale
    np.testing.assert_array_equal(waveform.numpy(), expected.T.astype(np.float32))
    # in [-1, 1]: in float32 the largest 32-bit sample, (2 ** 31 - 1) / 2 ** 31, rounds to 1
    assert waveform.numpy().min() >= -1.0 and waveform.numpy().max() <= 1.0
    raw, _ = core.audio.load(str(path), normalize=False, channels_first=False)
    assert raw.shape == [50, 3] and raw.dtype == dtype
    np.testing.assert_array_equal(raw.numpy(), stored)
    info = core.audio.info(str(path))
    assert (info.sample_rate, info.num_samples, info.num_channels, info.bits_per_sample,
            info.encoding) == (11025, 50, 3, 8 * width, "PCM_U" if width == 1 else "PCM_S")


def test_load_matches_scipys_wav_reader(tmp_path):
    wavfile = pytest.importorskip("scipy.io.wavfile")
    stored = rng.integers(-2 ** 15, 2 ** 15, size=(200, 2)).astype(np.int16)
    wavfile.write(tmp_path / "s.wav", 8000, stored)
    rate, expected = wavfile.read(tmp_path / "s.wav")
    raw, got_rate = core.audio.load(tmp_path / "s.wav", normalize=False, channels_first=False)
    assert got_rate == rate
    np.testing.assert_array_equal(raw.numpy(), expected)


def test_frame_offset_and_num_frames_cut_the_frames(tmp_path):
    stored = np.arange(40, dtype=np.int16).reshape(20, 2)
    _write_with_wave(tmp_path / "a.wav", stored, 8000, 2)
    part, _ = core.audio.load(tmp_path / "a.wav", frame_offset=3, num_frames=4, normalize=False)
    np.testing.assert_array_equal(part.numpy(), stored[3:7].T)
    rest, _ = core.audio.load(tmp_path / "a.wav", frame_offset=15, normalize=False)
    np.testing.assert_array_equal(rest.numpy(), stored[15:].T)  # num_frames=-1: to the end
    tail, _ = core.audio.load(tmp_path / "a.wav", frame_offset=18, num_frames=10)
    assert tail.shape == [2, 2]  # fewer when the file ends first
    empty, _ = core.audio.load(tmp_path / "a.wav", frame_offset=20, num_frames=0)
    assert empty.shape == [2, 0]


# ----- writing -----------------------------------------------------------------------------------
def test_paddles_docstring_example_saves_loads_and_describes(tmp_path):
    sample_rate, num_channels = 16000, 1
    num_frames = int(sample_rate * 0.5)
    wav_data = paddle.linspace(-1.0, 1.0, num_frames) * 0.1
    waveform = wav_data.tile([num_channels, 1])
    filepath = str(tmp_path / "test.wav")
    paddle.audio.save(filepath, waveform, sample_rate)
    wav_info = paddle.audio.info(filepath)
    assert (wav_info.sample_rate, wav_info.num_samples, wav_info.num_channels,
            wav_info.bits_per_sample, wav_info.encoding) == (16000, 8000, 1, 16, "PCM_S")
    wav_data_read, sr = paddle.audio.load(filepath)
    assert sr == 16000 and wav_data_read.shape == [1, 8000]
    np.testing.assert_allclose(wav_data_read.numpy(), waveform.numpy(), atol=2 ** -15)
    with wave.open(filepath) as reader:  # what Paddle writes: (x * 2 ** 15).astype('<h')
        stored = np.frombuffer(reader.readframes(8000), dtype="<i2")
    np.testing.assert_array_equal(stored, (waveform.numpy()[0] * 2 ** 15).astype("<i2"))


@pytest.mark.parametrize("bits", [8, 16, 32])
def test_float_samples_round_trip_at_each_width(tmp_path, bits):
    exact = rng.integers(-2 ** (bits - 1), 2 ** (bits - 1), size=(2, 300)) / 2.0 ** (bits - 1)
    path = tmp_path / "r.wav"
    core.audio.save(path, core.to_tensor(exact.astype(np.float64)), 22050,
                    bits_per_sample=bits)
    back, rate = core.audio.load(path)
    assert rate == 22050 and core.audio.info(path).bits_per_sample == bits
    np.testing.assert_array_equal(back.numpy(), exact.astype(np.float32))
    noisy = rng.uniform(-1, 1, size=(300, 2)).astype(np.float32)
    core.audio.save(path, noisy, 8000, channels_first=False, bits_per_sample=bits)
    back, _ = core.audio.load(path, channels_first=False)
    np.testing.assert_allclose(back.numpy(), noisy, atol=2.0 ** (1 - bits))


def test_out_of_range_floats_are_clipped_and_integers_written_as_they_are(tmp_path):
    path = tmp_path / "c.wav"
    core.audio.save(path, np.array([[1.0, -1.0, 2.0, -3.0, 0.5]], dtype=np.float32), 8000)
    raw, _ = core.audio.load(path, normalize=False)
    assert raw.numpy().tolist() == [[32767, -32768, 32767, -32768, 16384]]
    ints = np.array([[0, 255, 128]], dtype=np.int64)
    core.audio.save(path, ints, 8000, bits_per_sample=8, encoding="PCM_U")
    raw, _ = core.audio.load(path, normalize=False)
    assert raw.dtype == np.uint8 and raw.numpy().tolist() == [[0, 255, 128]]


def test_file_objects_are_read_and_written(tmp_path):
    buffer = io.BytesIO()
    samples = np.array([[0.25, -0.5, 0.0]], dtype=np.float32)
    core.audio.save(buffer, samples, 4000)
    buffer.seek(0)
    assert core.audio.info(buffer).num_samples == 3
    buffer.seek(0)
    back, rate = core.audio.load(buffer)
    assert rate == 4000 and back.numpy().tolist() == samples.tolist()


# ----- backends ----------------------------------------------------------------------------------
def test_the_backend_is_paddles_default_wave_backend():
    assert backends.list_available_backends() == ["wave_backend"]
    assert backends.get_current_backend() == "wave_backend"
    backends.set_backend("wave_backend")
    assert backends.get_current_backend() == "wave_backend"
    assert sorted(backends.__all__) == ["get_current_backend", "list_available_backends",
                                        "set_backend"]
    assert backends.AudioInfo(8000, 3, 1, 16, "PCM_S").num_channels == 1
    with pytest.raises(NotImplementedError, match=r"set_backend: backend_name='soundfile' is "
                       r"not available; the backends are \['wave_backend'\].*paddleaudio"):
        backends.set_backend("soundfile")
    assert backends.get_current_backend() == "wave_backend"
    assert sorted(core.audio.__all__) == ["backends", "datasets", "features", "functional",
                                          "info", "load", "save"]


# ----- errors ------------------------------------------------------------------------------------
def test_files_that_are_not_integer_pcm_wav_are_named(tmp_path):
    missing = tmp_path / "missing.wav"
    with pytest.raises(FileNotFoundError, match=f"load: {missing} is not a file"):
        core.audio.load(missing)
    with pytest.raises(FileNotFoundError, match=f"info: {missing} is not a file"):
        core.audio.info(str(missing))
    text = tmp_path / "notes.wav"
    text.write_text("not audio at all")
    cases = {text: "file does not start with RIFF id",
             tmp_path / "float.wav": "unknown format: 3",
             tmp_path / "24bit.wav": "24-bit samples"}
    (tmp_path / "float.wav").write_bytes(_riff(3, 1, 8000, 32, b"\0" * 16))
    (tmp_path / "24bit.wav").write_bytes(_riff(1, 1, 8000, 24, b"\0" * 12))
    for path, reason in cases.items():
        for fn in (core.audio.load, core.audio.info):
            with pytest.raises(NotImplementedError) as info:
                fn(path)
            message = str(info.value)
            assert message.startswith(f"{fn.__name__}: {path} is not a WAV file the "
                                      f"wave_backend reads ({reason})")
            assert "8-bit unsigned, 16- or 32-bit signed" in message and "\n" not in message
    cut = tmp_path / "cut.wav"
    cut.write_bytes(_riff(1, 2, 8000, 16, b"\1\0" * 10, announced=40))
    with pytest.raises(ValueError, match=f"load: {cut} is truncated: its header announces 10 "
                       r"frames, and frames 0..10 hold 20 of 40 bytes"):
        core.audio.load(cut)
    with pytest.raises(TypeError, match="load: filepath must be a path .* got int"):
        core.audio.load(3)


def test_an_extensible_pcm_header_reads_or_names_the_python_that_reads_it(tmp_path):
    """WAVE_FORMAT_EXTENSIBLE (what ffmpeg and libsndfile write for > 2 channels) with a PCM
    sub-format: Python's wave module reads it from 3.12 on; before, the
    NotImplementedError says so, as one paragraph."""
    samples = np.arange(-10, 10, dtype="<i2").reshape(10, 2)
    fmt = struct.pack("<HHIIHH", 0xFFFE, 2, 8000, 32000, 4, 16) + \
        struct.pack("<HHI", 22, 16, 3) + bytes.fromhex("0100000000001000800000aa00389b71")
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + \
        struct.pack("<I", samples.nbytes) + samples.tobytes()
    path = tmp_path / "extensible.wav"
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    if sys.version_info >= (3, 12):
        waveform, rate = core.audio.load(path, normalize=False)
        assert rate == 8000
        np.testing.assert_array_equal(waveform.numpy(), samples.T)
        return
    with pytest.raises(NotImplementedError) as info:
        core.audio.load(path)
    message = str(info.value)
    assert message.startswith(f"load: {path} is not a WAV file the wave_backend reads "
                              "(unknown format: 65534)")
    assert "WAVE_FORMAT_EXTENSIBLE header, which Python's wave module reads from Python " \
           f"3.12 on (this is Python 3.{sys.version_info.minor})" in message
    assert "\n" not in message


@pytest.mark.parametrize("kwargs, match", [
    ({"frame_offset": -1}, "load: frame_offset must be an int >= 0, got -1"),
    ({"frame_offset": 1.5}, "load: frame_offset must be an int >= 0, got 1.5"),
    ({"num_frames": -2}, r"load: num_frames \(-1: all\) must be an int >= 0, got -2"),
    ({"frame_offset": 6}, "load: frame_offset=6 is past the end of .*, which holds 5 frames"),
])
def test_bad_load_arguments_are_named(tmp_path, kwargs, match):
    core.audio.save(tmp_path / "f.wav", np.zeros((1, 5), np.float32), 8000)
    with pytest.raises(ValueError, match=match):
        core.audio.load(tmp_path / "f.wav", **kwargs)


@pytest.mark.parametrize("src, kwargs, error, match", [
    (np.zeros(5, np.float32), {}, ValueError, r"save: src must be 2-D .* got shape \[5\]"),
    ([[0.0]], {}, TypeError, "save: src must be a Tensor or a numpy array, got list"),
    (np.zeros((0, 5), np.float32), {}, ValueError, "save: src has no channel"),
    (np.zeros((1, 5), bool), {}, TypeError, "save: src must hold float or integer samples, got "
                                            "dtype bool"),
    (np.full((1, 2), 40000), {}, ValueError, r"16-bit WAV samples hold -32768..32767, but src "
                                             r"holds 40000..40000"),
    (np.zeros((1, 5), np.float32), {"bits_per_sample": 24}, ValueError,
     "save: bits_per_sample=24 must be 8, 16, 32 or None"),
    (np.zeros((1, 5), np.float32), {"encoding": "PCM_F"}, ValueError,
     "save: encoding='PCM_F' does not fit bits_per_sample=16: WAV stores 16-bit samples as "
     "'PCM_S'"),
    (np.zeros((1, 5), np.float32), {"sample_rate": 0}, ValueError,
     "save: sample_rate must be an int >= 1, got 0"),
])
def test_bad_save_arguments_are_named(tmp_path, src, kwargs, error, match):
    arguments = {"sample_rate": 8000, **kwargs}
    with pytest.raises(error, match=match):
        core.audio.save(tmp_path / "out.wav", src, **arguments)
    assert not (tmp_path / "out.wav").exists()
