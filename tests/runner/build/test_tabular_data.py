"""Your own data without code: ``data=arrays`` (.npz, .npy pairs) and ``data=csv``.

The CLI runs start together (``run_all``; each ~3 s of start-up and a few epochs on tiny data);
the error cases stop before any run is opened. The transform is unit-tested in-process.
"""
from __future__ import annotations

import glob
from pathlib import Path

import numpy as np
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from core.datasets import DatasetError
from runner import build, infer
from runner.build import tabular
from runner.config import schema, tomlwrite
from runner.errors import ConfigError, UserError
from tests.runner.subprocesses import run_all

TRAIN = ["model=mlp", "trainer.progress=false", "runtime.threads=1"]


def _csv(path: Path, header: str, rows: list[str]) -> Path:
    path.write_text("\n".join([header, *rows]) + "\n")
    return path


def _easy_table(rng, n: int) -> list[str]:
    """Three named classes: 'alpha' for red rows, else 'beta' / 'gamma' by the sign of x1."""
    rows = []
    for _ in range(n):
        colour = rng.choice(["red", "green", "blue"])
        x1, x2 = rng.normal() * 10 + 50, rng.normal()
        label = "alpha" if colour == "red" else ("beta" if x1 > 50 else "gamma")
        rows.append(f"{x1:.3f},{colour},{x2:.3f},{label}")
    return rows


# --- one fixture starts every CLI case at once ------------------------------------------------
def _arrays_npz(folder: Path) -> list[str]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(120, 2, 3, 3))  # float64 images: taken as float32
    y = (x[:, 0, 0, 0] > 0).astype(np.int64)
    np.savez(folder / "train.npz", images=x, labels=y)
    return ["data=arrays", f"data.root={folder}", "data.x_key=images", "data.y_key=labels",
            "data.valid_size=20", "data.test_size=0.25", "trainer.epochs=1"]


def _arrays_npy(folder: Path) -> list[str]:
    rng = np.random.default_rng(1)
    for split, n in (("train", 90), ("valid", 20), ("test", 30)):
        x = rng.normal(size=(n, 5, 4)).astype(np.float32)  # [N, T, F]
        np.save(folder / f"{split}_x.npy", x)
        np.save(folder / f"{split}_y.npy", (x[:, 0, 0] > 0).astype(np.int32))
    return ["data=arrays", f"data.root={folder}", "data.x_file=train_x.npy",
            "data.y_file=train_y.npy", f"data.valid_x_file={folder / 'valid_x.npy'}",
            "data.valid_y_file=valid_y.npy", "data.test_x_file=test_x.npy",
            "data.test_y_file=test_y.npy", "trainer.epochs=1"]


def _csv_run(folder: Path) -> list[str]:
    _csv(folder / "table.csv", "x1,colour,x2,kind", _easy_table(np.random.default_rng(2), 600))
    return ["data=csv", f"data.root={folder}", "data.train=table.csv", "data.label=kind",
            "data.categorical=[colour]", "trainer.epochs=12", "trainer.batch_size=32",
            "optim.lr=0.01", "trainer.objective=test/acc"]


def _error_cases(base: Path) -> dict[str, tuple[list[str], list[str]]]:
    """name -> (overrides, needles of the one-line error); files are written under ``base``."""
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(20, 3)), rng.integers(0, 2, 20)
    np.savez(base / "nokey.npz", x=x, target=y)
    np.savez(base / "short.npz", x=x, y=y[:15])
    np.savez(base / "fractional.npz", x=x, y=y + 0.5)
    np.save(base / "x.npy", x)
    good = _easy_table(rng, 30)
    _csv(base / "good.csv", "x1,colour,x2,kind", good)
    _csv(base / "word.csv", "x1,colour,x2,kind", [*good[:7], "12.5,red,abc,alpha", *good[7:]])
    _csv(base / "unseen.csv", "x1,colour,x2,kind", ["1.0,purple,0.5,alpha", *good[:3]])
    (base / "empty.csv").write_text("")
    arrays, csv = ["data=arrays", f"data.root={base}"], ["data=csv", f"data.root={base}"]
    return {
        "missing_npz": ([*arrays, "data.train=nothing.npz"],
                        ["data.train", "nothing.npz does not exist", "expected an .npz file"]),
        "missing_key": ([*arrays, "data.train=nokey.npz"],
                        ["nokey.npz has no array 'y'", "its keys are x, target", "data.y_key"]),
        "length_mismatch": ([*arrays, "data.train=short.npz"],
                            ["short.npz", "x holds 20 samples", "but y 15 labels"]),
        "non_integer_labels": ([*arrays, "data.train=fractional.npz"],
                               ["fractional.npz", "is not an integer label"]),
        "half_a_pair": ([*arrays, "data.x_file=x.npy"],
                        ["data.x_file is set but data.y_file is not"]),
        "missing_csv": ([*csv, "data.train=none.csv"], ["none.csv does not exist"]),
        "empty_csv": ([*csv, "data.train=empty.csv"], ["empty.csv is empty", "header row"]),
        "non_numeric": ([*csv, "data.train=word.csv", "data.label=kind",
                         "data.categorical=[colour]"],
                        ["word.csv line 9, column 'x2': 'abc' is not a number"]),
        "unknown_label": ([*csv, "data.train=good.csv", "data.label=knd"],
                          ["data.label = 'knd' is not a column of", "did you mean 'kind'?",
                           "columns x1, colour, x2, kind"]),
        "unknown_feature": ([*csv, "data.train=good.csv", "data.label=kind",
                             "data.features=[x1,colur]"],
                            ["data.features = 'colur'", "did you mean 'colour'?"]),
        "unseen_category": ([*csv, "data.train=good.csv", "data.test=unseen.csv",
                             "data.label=kind", "data.categorical=[colour]"],
                            [("unseen.csv line 2, column 'colour': category 'purple' was not "
                              "seen in the training data"), "data.unknown_category=zeros"]),
        "test_size_rule": ([*csv, "data.test_size=2.5"],
                           ["data.test_size = 2.5 is not allowed"]),
    }


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """Every CLI case at once; name -> (returncode, stdout, stderr, cwd), and the needles."""
    jobs, needles = {}, {}
    for name, make in (("npz", _arrays_npz), ("npy", _arrays_npy), ("csv", _csv_run)):
        folder = tmp_path_factory.mktemp(name)
        jobs[name] = (folder, [*TRAIN, *make(folder)])
    data = tmp_path_factory.mktemp("bad_files")
    for name, (args, wanted) in _error_cases(data).items():
        jobs[name], needles[name] = (tmp_path_factory.mktemp(name), [*TRAIN, *args]), wanted
    return run_all(jobs, timeout=300), needles


def _bundle(cwd: Path) -> dict:
    (path,) = glob.glob(str(cwd / "outputs" / "*" / "*" / "model" / "data" / "inference" /
                            "model.toml"))
    return tomllib.loads(Path(path).read_text())


@pytest.mark.parametrize("case", ["npz", "npy", "csv"])
def test_runs_finish(cli, case):
    code, out, err, cwd = cli[0][case]
    assert code == 0, err[-3000:] + out[-2000:]
    assert (cwd / "mlflow.db").exists()


def test_arrays_keep_each_sample_shape(cli):
    assert _bundle(cli[0]["npz"][3])["input_shape"] == [2, 3, 3]
    assert _bundle(cli[0]["npy"][3])["input_shape"] == [5, 4]
    assert "preprocessing" not in _bundle(cli[0]["npz"][3])  # arrays are taken as they are


def test_csv_learns_the_easy_table_and_infers_a_raw_csv(cli, tmp_path, capsys):
    code, _, err, cwd = cli[0]["csv"]
    assert code == 0, err[-3000:]
    import mlflow  # noqa: PLC0415 - heavy, only here

    client = mlflow.MlflowClient(tracking_uri=f"sqlite:///{cwd / 'mlflow.db'}")
    (run,) = client.search_runs([e.experiment_id for e in client.search_experiments()])
    assert run.data.metrics["test/acc"] >= 0.9
    saved = _bundle(cwd)["preprocessing"]
    assert saved["classes"] == ["alpha", "beta", "gamma"]
    assert saved["categorical"] == {"colour": ["blue", "green", "red"]}
    assert saved["feature_names"] == ["x1", "colour=blue", "colour=green", "colour=red", "x2"]
    # A raw CSV (no label column) prepared by the saved transform; then with labels.
    rows = _easy_table(np.random.default_rng(9), 200)
    _csv(tmp_path / "new.csv", "x1,colour,x2,kind", rows)
    _csv(tmp_path / "raw.csv", "colour,x2,x1", [",".join([r.split(",")[i] for i in (1, 2, 0)])
                                                for r in rows])
    bundle_dir = glob.glob(str(cwd / "outputs" / "*" / "*" / "model"))[0]
    labelled = infer.main([f"run={bundle_dir}", f"input={tmp_path / 'new.csv'}",
                           f"out={tmp_path / 'a.npz'}"])
    assert (labelled["predicted"] == labelled["labels"]).mean() >= 0.9
    assert "alpha:" in capsys.readouterr().out
    raw = infer.main([f"run={bundle_dir}", f"input={tmp_path / 'raw.csv'}",
                      f"out={tmp_path / 'b.npz'}"])  # columns found by name, in any order
    assert "labels" not in raw and (raw["predicted"] == labelled["predicted"]).all()
    _csv(tmp_path / "odd.csv", "x1,colour,x2", ["50.0,purple,0.1"])
    with pytest.raises(UserError, match="odd.csv line 2, column 'colour': category 'purple'"
                                        r".*set unknown_category=zeros"):  # infer's own key
        infer.main([f"run={bundle_dir}", f"input={tmp_path / 'odd.csv'}"])
    zeros = infer.main([f"run={bundle_dir}", f"input={tmp_path / 'odd.csv'}",
                        "unknown_category=zeros", f"out={tmp_path / 'c.npz'}"])
    assert len(zeros["predicted"]) == 1  # purple: all zeros in the colour columns
    _csv(tmp_path / "short.csv", "x1,x2", ["50.0,0.1"])
    with pytest.raises(UserError, match="short.csv has no column 'colour'"):
        infer.main([f"run={bundle_dir}", f"input={tmp_path / 'short.csv'}"])


def test_runner_infer_reads_a_table_of_any_file_name_for_a_csv_model(cli, tmp_path):
    """Training takes any file name (data.train=table.tsv with data.delimiter), so infer reads
    any existing file but a .npy as the table; a name that is none of them says so."""
    code, _, err, cwd = cli[0]["csv"]
    assert code == 0, err[-3000:]
    bundle_dir = glob.glob(str(cwd / "outputs" / "*" / "*" / "model"))[0]
    rows = _easy_table(np.random.default_rng(5), 30)
    _csv(tmp_path / "new.csv", "x1,colour,x2,kind", rows)
    _csv(tmp_path / "NEW.CSV", "x1,colour,x2,kind", rows)
    _csv(tmp_path / "new.txt", "x1,colour,x2,kind", rows)
    expected = infer.main([f"run={bundle_dir}", f"input={tmp_path / 'new.csv'}",
                           f"out={tmp_path / 'a.npz'}"])["output"]
    for name in ("NEW.CSV", "new.txt"):
        got = infer.main([f"run={bundle_dir}", f"input={tmp_path / name}",
                          f"out={tmp_path / 'b.npz'}"])["output"]
        np.testing.assert_array_equal(got, expected)
    with pytest.raises(UserError, match=r"input=tst is neither a .npy file that exists nor a "
                                        r"split \(train, valid, test\), nor a table file"):
        infer.main([f"run={bundle_dir}", "input=tst", f"out={tmp_path / 'c.npz'}"])


def test_the_mlflow_model_of_a_csv_run_takes_the_raw_table(cli, tmp_path):
    """mlflow.pyfunc: a DataFrame of the training file's columns (pd.read_csv's integers and
    floats, any order, the label column ignored) is prepared as runner.infer prepares a CSV;
    what it cannot take is one paragraph that MLflow serves as HTTP 400."""
    import mlflow.pyfunc  # noqa: PLC0415 - heavy, only here
    import pandas as pd  # noqa: PLC0415
    from mlflow.exceptions import MlflowException  # noqa: PLC0415

    code, _, err, cwd = cli[0]["csv"]
    assert code == 0, err[-3000:]
    model_dir = glob.glob(str(cwd / "outputs" / "*" / "*" / "model"))[0]
    model = mlflow.pyfunc.load_model(model_dir)
    assert model.metadata.signature.inputs.input_names() == ["x1", "colour", "x2"]
    example = pd.read_json(Path(model_dir, "input_example.json"), orient="split")
    assert list(example.columns) == ["x1", "colour", "x2"] and len(example) == 5
    _csv(tmp_path / "new.csv", "x1,colour,x2,kind", _easy_table(np.random.default_rng(4), 50))
    expected = infer.main([f"run={model_dir}", f"input={tmp_path / 'new.csv'}",
                           "outputs=[softmax]", f"out={tmp_path / 'a.npz'}"])["softmax"]
    table = pd.read_csv(tmp_path / "new.csv")
    np.testing.assert_allclose(model.predict(table), expected, rtol=1e-5, atol=1e-7)
    whole = table[["x2", "colour", "x1"]].assign(x1=table["x1"].round().astype(np.int64))
    assert model.predict(whole).shape == (50, 3)  # integers where training had decimals
    with pytest.raises(UserError, match=r"the input table, row 2, column 'colour': category "
                                        r"'purple' was not seen .*known: blue, green, red") \
            as caught:
        model.predict(table.head(3).assign(colour=["red", "purple", "blue"]))
    assert isinstance(caught.value, MlflowException)
    assert caught.value.get_http_status_code() == 400
    with pytest.raises(UserError, match="row 1, column 'x2': 'abc' is not a number"):
        model.predict(table.head(1).assign(x2=["abc"]))
    with pytest.raises(MlflowException, match="params outputs = .'nope'. names 'nope', which "
                                              "is not a layer"):
        model.predict(table, params={"outputs": ["nope"]})


@pytest.mark.parametrize("case", [
    "missing_npz", "missing_key", "length_mismatch", "non_integer_labels", "half_a_pair",
    "missing_csv", "empty_csv", "non_numeric", "unknown_label", "unknown_feature",
    "unseen_category", "test_size_rule"])
def test_bad_files_are_one_paragraph_with_status_2(cli, case):
    results, needles = cli
    code, _, err, cwd = results[case]
    assert code == 2, err[-3000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tomlrun: error: "), err
    assert "Traceback" not in err
    for needle in needles[case]:
        assert needle in lines[0], (needle, lines[0])
    assert not (cwd / "mlflow.db").exists() and not (cwd / "mlruns").exists()


# --- in-process: the transform and the splits -------------------------------------------------
def _table(tmp_path: Path, rows: list[str], name: str = "t.csv") -> Path:
    return _csv(tmp_path / name, "a,c,label", rows)


def test_standardisation_is_learnt_on_the_training_rows_only(tmp_path):
    rng = np.random.default_rng(0)
    _table(tmp_path, [f"{v:.4f},u,{int(v > 5)}" for v in rng.normal(5, 2, 80)], "train.csv")
    _table(tmp_path, [f"{v:.4f},u,{int(v > 5)}" for v in rng.normal(100, 30, 40)], "test.csv")
    cfg = schema.CSVConfig(root=str(tmp_path), train="train.csv", test="test.csv",
                           valid_size=20, features=["a"])
    data = build.build_data(cfg, build.SPLIT_SEED)
    whole = np.loadtxt(tmp_path / "train.csv", delimiter=",", skiprows=1, usecols=0)
    order = np.random.default_rng(build.SPLIT_SEED).permutation(80)
    train_rows = whole[order[20:]]  # valid is cut out first; the rest trains
    saved = data.preprocessing
    assert saved["mean"][0] == pytest.approx(train_rows.mean())
    assert saved["std"][0] == pytest.approx(train_rows.std())
    assert saved["mean"][0] != pytest.approx(whole.mean())  # valid rows did not count
    valid_x = data.valid.arrays[0][:, 0]
    assert valid_x == pytest.approx((whole[order[:20]] - train_rows.mean()) / train_rows.std(),
                                    rel=1e-5)
    test_raw = np.loadtxt(tmp_path / "test.csv", delimiter=",", skiprows=1, usecols=0)
    assert data.test.arrays[0][:, 0] == pytest.approx(
        (test_raw - train_rows.mean()) / train_rows.std(), rel=1e-5)
    assert data.train.arrays[0].dtype == np.float32 and data.num_classes == 2


def test_transform_round_trips_through_the_bundle_toml(tmp_path):
    _table(tmp_path, ["1,x,cat", "2,y,dog", "3,x,cat", "4,z,bird"])
    table = tabular.read_table(str(tmp_path / "t.csv"))
    fitted = tabular.TabularTransform.fit(table, "label", [], ["c"], True)
    again = tabular.TabularTransform.from_dict(
        tomllib.loads(tomlwrite.dumps({"p": fitted.to_dict()}))["p"])
    x, y = again.apply(table)
    assert np.array_equal(x, fitted.features(table)) and list(y) == [1, 2, 1, 0]
    assert again.classes == ["bird", "cat", "dog"]
    assert x.shape == (4, 4) and x[:, 1:].sum(axis=1).tolist() == [1, 1, 1, 1]


def test_unseen_category_can_be_all_zeros(tmp_path):
    _table(tmp_path, ["1,x,0", "2,y,1"])
    _table(tmp_path, ["3,w,1"], "other.csv")
    fitted = tabular.TabularTransform.fit(tabular.read_table(str(tmp_path / "t.csv")), "label",
                                          [], ["c"], False, unknown_category="zeros")
    x = fitted.features(tabular.read_table(str(tmp_path / "other.csv")))
    assert x.tolist() == [[3.0, 0.0, 0.0]]
    fitted.unknown_category = "error"
    with pytest.raises(DatasetError, match="other.csv line 2, column 'c': category 'w'"):
        fitted.features(tabular.read_table(str(tmp_path / "other.csv")))


def test_integer_csv_labels_and_negative_ones(tmp_path):
    _table(tmp_path, ["1,x,0", "2,y,3", "3,x,-1"])
    table = tabular.read_table(str(tmp_path / "t.csv"))
    fitted = tabular.TabularTransform.fit(table, "label", ["a"], [], False)
    assert fitted.classes == []  # all integers: ids as they are ... but -1 is not an id
    with pytest.raises(DatasetError, match="line 4, column 'label': label '-1' is not an "
                                           "integer >= 0"):
        fitted.labels(table)


def test_splits_use_the_fixed_seed_and_accept_counts(tmp_path):
    x = np.arange(50, dtype=np.float64).reshape(50, 1)
    np.savez(tmp_path / "train.npz", x=x, y=np.arange(50) % 3)
    cfg = schema.ArraysConfig(root=str(tmp_path), valid_size=0.2, test_size=10)
    first = build.build_data(cfg, build.SPLIT_SEED)
    second = build.build_data(cfg, build.SPLIT_SEED)
    assert (len(first.train), len(first.valid), len(first.test)) == (32, 8, 10)
    assert np.array_equal(first.test.arrays[0], second.test.arrays[0])
    together = np.concatenate([d.arrays[0][:, 0] for d in (first.train, first.valid, first.test)])
    assert sorted(together.tolist()) == x[:, 0].tolist()  # a partition of the samples
    with pytest.raises(ConfigError, match="data.test_size=50 holds out all 50"):
        build.build_data(schema.ArraysConfig(root=str(tmp_path), test_size=50), 0)
    with pytest.raises(UserError, match="label 3 \\(sample 0\\) is not below num_classes = 3"):
        np.savez(tmp_path / "test.npz", x=x[:2], y=np.array([3, 0]))
        build.build_data(schema.ArraysConfig(root=str(tmp_path), test="test.npz"), 0)


def test_text_test_size_stays_a_fraction():
    from runner.config.validation import validate  # noqa: PLC0415

    base = {"model": {"name": "mlp"}, "optim": {"name": "adam"}}
    with pytest.raises(ConfigError, match="data.test_size = 5.0 is not allowed with data=text"):
        validate({**base, "data": {"name": "text", "test_size": 5}})
    assert validate({**base, "data": {"name": "csv", "test_size": 5}}).data.test_size == 5.0


def test_a_file_without_a_training_column_names_it(tmp_path):
    _table(tmp_path, ["1,x,0", "2,y,1"])
    _csv(tmp_path / "other.csv", "a,colour,label", ["1,x,0"])
    cfg = schema.CSVConfig(root=str(tmp_path), train="t.csv", test="other.csv", valid_size=0,
                           categorical=["c"])
    with pytest.raises(UserError, match="other.csv has no column 'c' \\(a column of the "
                                        "training file .*t.csv\\): "
                                        "its header has the columns a, colour, label"):
        build.build_data(cfg, 0)


def test_headers_need_unique_names_and_a_feature(tmp_path):
    _csv(tmp_path / "twice.csv", "a,b,a,label", ["1,2,3,0"])
    with pytest.raises(DatasetError, match="names column 'a' more than once"):
        tabular.read_table(str(tmp_path / "twice.csv"))
    _csv(tmp_path / "only.csv", "label", ["0"])
    with pytest.raises(DatasetError, match="no column but the label 'label'"):
        tabular.TabularTransform.fit(tabular.read_table(str(tmp_path / "only.csv")), "label",
                                     [], [], True)


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e39])  # 1e39 overflows float32 to inf
def test_non_finite_arrays_name_the_sample_and_position(tmp_path, bad):
    x = np.ones((20, 2, 3))
    x[7, 1, 2] = bad
    np.savez(tmp_path / "train.npz", x=x, y=np.arange(20) % 2)
    with pytest.raises(UserError, match=(r"train\.npz: x\[7\]\[1\]\[2\] = (nan|inf) is not a "
                                         r"finite number \(1 of the 20 samples have NaN or Inf")):
        build.build_data(schema.ArraysConfig(root=str(tmp_path)), 0)


def test_a_fraction_that_rounds_to_no_sample_is_refused(tmp_path):
    """test_size=0.99 left 2 samples whose 0.1 was no validation set, and the run then blamed
    "data.valid_size is 0"; a test fraction of a few samples gave an empty test set."""
    np.savez(tmp_path / "train.npz", x=np.ones((200, 2)), y=np.arange(200) % 2)
    with pytest.raises(ConfigError, match=r"data.valid_size=0.1 of the 2 left after "
                                          r"data.test_size samples holds out none"):
        build.build_data(schema.ArraysConfig(root=str(tmp_path), test_size=0.99), 0)
    with pytest.raises(ConfigError, match=r"data.test_size=0.001 of 200 samples holds out none "
                                          r"\(it rounds to 0\): use a whole count"):
        build.build_data(schema.ArraysConfig(root=str(tmp_path), test_size=0.001), 0)
    data = build.build_data(schema.ArraysConfig(root=str(tmp_path), valid_size=0), 0)
    assert data.valid is None and len(data.test) == 40  # valid_size = 0 is still no valid set


@pytest.mark.parametrize("separator, shown", [(";", ";"), ("\t", "\\t")])
def test_a_file_with_another_separator_says_which(tmp_path, separator, shown):
    rows = [separator.join([str(i), str(2 * i), str(i % 2)]) for i in range(30)]
    (tmp_path / "t.csv").write_text("\n".join([separator.join(["a", "b", "label"]), *rows]))
    with pytest.raises(UserError) as info:
        build.build_data(schema.CSVConfig(root=str(tmp_path), train="t.csv"), 0)
    assert f"the file seems separated by '{shown}', not by data.delimiter; set " \
           f"data.delimiter='{shown}')" in str(info.value)
    assert "did you mean" not in str(info.value)
    data = build.build_data(schema.CSVConfig(root=str(tmp_path), train="t.csv",
                                             delimiter=separator), 0)
    assert data.input_shape == (2,)


def test_a_file_that_is_not_an_npz_says_so(tmp_path):
    """numpy's "contains pickled (object) data ... allow_pickle" was passed on as the reason."""
    (tmp_path / "train.npz").write_text("x,y\n1,0\n")
    with pytest.raises(UserError, match=r"train\.npz cannot be read as an \.npz file: it is not "
                                        r"a zip archive of \.npy arrays \(numpy\.savez writes "
                                        r"one\)\.$"):
        build.build_data(schema.ArraysConfig(root=str(tmp_path)), 0)
