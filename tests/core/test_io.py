"""Dataset, TensorDataset and DataLoader: order, shuffling, batching and argument checks."""
from __future__ import annotations

import numpy as np
import pytest

import core
from core.io import DataLoader, Dataset, TensorDataset, dataset_arrays, default_collate


def make_arrays(n=10):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    y = np.arange(n, dtype=np.int64)
    return x, y


class ListDataset(Dataset):
    """A generic dataset (no ``arrays``): the loader must read it sample by sample."""

    def __init__(self, n=10):
        self.x, self.y = make_arrays(n)
        self.calls = 0

    def __getitem__(self, index):
        self.calls += 1
        return self.x[index], int(self.y[index])

    def __len__(self):
        return len(self.y)


class NoGetitemDataset(TensorDataset):
    """Array-backed; reading one sample fails, so only the fancy-index path can batch it."""

    def __getitem__(self, index):
        raise AssertionError("the array fast path must not read samples one by one")


def labels_of(loader):
    return [batch[1].tolist() for batch in loader]


# ----- TensorDataset ---------------------------------------------------------------------
def test_tensor_dataset_items_and_length():
    x, y = make_arrays(4)
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    xi, yi = ds[2]
    np.testing.assert_array_equal(xi, x[2])
    assert yi == 2
    assert all(a is b for a, b in zip(dataset_arrays(ds), (x, y), strict=True))


def test_tensor_dataset_accepts_a_list_and_tensors():
    x, y = make_arrays(3)
    ds = TensorDataset([core.to_tensor(x), y])
    assert len(ds) == 3 and isinstance(ds.arrays[0], np.ndarray)


@pytest.mark.parametrize("arrays, match", [
    ((), "at least one array"),
    ((np.zeros(3), np.zeros(4)), r"same length.*\[3, 4\]"),
    ((np.float32(1.0),), "scalar"),
])
def test_tensor_dataset_rejects_bad_arrays(arrays, match):
    with pytest.raises(ValueError, match=match):
        TensorDataset(*arrays)


def test_abstract_dataset_names_the_missing_method():
    class Incomplete(Dataset):
        pass

    with pytest.raises(NotImplementedError, match="Incomplete must implement __getitem__"):
        Incomplete()[0]
    with pytest.raises(NotImplementedError, match="__len__"):
        len(Incomplete())


# ----- order and length ----------------------------------------------------------------------
def test_sequential_order_and_partial_last_batch():
    loader = DataLoader(TensorDataset(*make_arrays(10)), batch_size=4)
    assert len(loader) == 3
    assert labels_of(loader) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    x, y = next(iter(loader))
    assert x.shape == (4, 3) and x.dtype == np.float32 and y.dtype == np.int64
    np.testing.assert_array_equal(x, make_arrays(10)[0][:4])


def test_drop_last_drops_the_short_tail():
    loader = DataLoader(TensorDataset(*make_arrays(10)), batch_size=4, drop_last=True)
    assert len(loader) == 2
    assert labels_of(loader) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    shuffled = DataLoader(TensorDataset(*make_arrays(10)), batch_size=4, drop_last=True,
                          shuffle=True, seed=1)
    batches = labels_of(shuffled)
    assert [len(b) for b in batches] == [4, 4]
    assert len(set(sum(batches, []))) == 8


@pytest.mark.parametrize("n, batch, drop_last, expected", [
    (10, 1, False, 10), (10, 3, False, 4), (10, 3, True, 3), (9, 3, True, 3), (2, 5, True, 0),
    (2, 5, False, 1), (0, 4, False, 0),
])
def test_len_is_the_number_of_batches(n, batch, drop_last, expected):
    loader = DataLoader(TensorDataset(*make_arrays(n)), batch_size=batch, drop_last=drop_last)
    assert len(loader) == expected
    assert len(list(loader)) == expected


def test_callable_form_matches_iteration():
    loader = DataLoader(TensorDataset(*make_arrays(7)), batch_size=3)
    assert labels_of(loader()) == labels_of(loader) == [[0, 1, 2], [3, 4, 5], [6]]
    for images, labels in loader():  # Paddle's spelling unpacks the same way
        assert len(images) == len(labels)


# ----- shuffling -----------------------------------------------------------------------------
def test_shuffle_visits_each_sample_once_and_reshuffles_each_pass():
    loader = DataLoader(TensorDataset(*make_arrays(50)), batch_size=8, shuffle=True, seed=0)
    passes = [sum(labels_of(loader), []) for _ in range(3)]
    for order in passes:
        assert sorted(order) == list(range(50))
    assert passes[0] != passes[1] != passes[2]
    assert passes[0] != list(range(50))


def test_same_seed_same_orders_and_other_seed_other_orders():
    def orders(seed):
        loader = DataLoader(TensorDataset(*make_arrays(30)), batch_size=7, shuffle=True,
                            seed=seed)
        return [labels_of(loader) for _ in range(2)]

    assert orders(5) == orders(5)
    assert orders(5) != orders(6)


def test_without_seed_the_order_follows_core_seed():
    def first_pass():
        return labels_of(DataLoader(TensorDataset(*make_arrays(30)), batch_size=30,
                                    shuffle=True))

    core.seed(11)
    a = first_pass()
    core.seed(11)
    assert first_pass() == a
    core.seed(12)
    assert first_pass() != a


def test_images_stay_paired_with_labels_when_shuffled():
    x, y = make_arrays(20)
    for xb, yb in DataLoader(TensorDataset(x, y), batch_size=6, shuffle=True, seed=3):
        np.testing.assert_array_equal(xb, x[yb])


# ----- fast path versus generic datasets -----------------------------------------------------
def test_array_backed_dataset_is_batched_without_reading_samples():
    loader = DataLoader(NoGetitemDataset(*make_arrays(9)), batch_size=4, shuffle=True, seed=2)
    assert sorted(sum(labels_of(loader), [])) == list(range(9))


def test_generic_dataset_is_stacked_and_matches_the_fast_path():
    generic = ListDataset(10)
    slow = DataLoader(generic, batch_size=4, shuffle=True, seed=9)
    fast = DataLoader(TensorDataset(*make_arrays(10)), batch_size=4, shuffle=True, seed=9)
    for (xs, ys), (xf, yf) in zip(slow, fast, strict=True):
        np.testing.assert_array_equal(xs, xf)
        np.testing.assert_array_equal(ys, yf)
        assert xs.dtype == np.float32 and ys.dtype.kind == "i"
    assert generic.calls == 10


def test_collate_fn_receives_the_list_of_samples():
    seen = []

    def collate(samples):
        seen.append(len(samples))
        return "batch"

    loader = DataLoader(TensorDataset(*make_arrays(5)), batch_size=2, collate_fn=collate)
    assert list(loader) == ["batch"] * 3
    assert seen == [2, 2, 1]


def test_default_collate_keeps_dicts_and_rejects_ragged_samples():
    batch = default_collate([{"x": np.ones(2), "y": 1}, {"x": np.zeros(2), "y": 0}])
    assert batch["x"].shape == (2, 2)
    np.testing.assert_array_equal(batch["y"], [1, 0])
    with pytest.raises(ValueError, match="different shapes"):
        default_collate([np.ones(2), np.ones(3)])
    with pytest.raises(ValueError, match="different numbers of fields"):
        default_collate([(1, 2), (1,)])


def test_return_tensors_yields_core_tensors():
    loader = DataLoader(TensorDataset(*make_arrays(6)), batch_size=4, return_tensors=True)
    x, y = next(iter(loader))
    assert isinstance(x, core.Tensor) and isinstance(y, core.Tensor)
    assert x.shape == [4, 3] and str(y.dtype) == "int64" and x.stop_gradient


# ----- argument checks -----------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, error, match", [
    ({"batch_size": 0}, ValueError, "batch_size must be a positive integer"),
    ({"batch_size": 2.5}, ValueError, "batch_size"),
    ({"batch_size": True}, ValueError, "batch_size"),
    ({"collate_fn": 3}, TypeError, "collate_fn must be callable"),
    ({"seed": -1}, ValueError, "seed must be a non-negative integer"),
    ({"seed": "x"}, ValueError, "seed"),
])
def test_bad_arguments_are_named(kwargs, error, match):
    with pytest.raises(error, match=match):
        DataLoader(TensorDataset(*make_arrays(3)), **kwargs)


def test_a_non_dataset_is_refused():
    with pytest.raises(TypeError, match="__getitem__ and __len__"):
        DataLoader(42)


def test_random_split_and_subset_cover_the_dataset_once_and_stay_array_backed():
    from core.io import Subset, random_split

    data = TensorDataset([np.arange(10, dtype="float32")[:, None], np.arange(10)])
    parts = random_split(data, [7, 3], generator=0)
    assert [len(p) for p in parts] == [7, 3]
    seen = sorted(int(p[i][1]) for p in parts for i in range(len(p)))
    assert seen == list(range(10))
    assert parts[0].arrays[0].shape == (7, 1)  # batches are still cut with one fancy index
    again = random_split(data, [7, 3], generator=0)
    assert list(again[0].indices) == list(parts[0].indices)
    assert [len(p) for p in random_split(data, [0.5, 0.3, 0.2], generator=1)] == [5, 3, 2]
    batches = list(DataLoader(parts[1], batch_size=2))
    assert [len(b[1]) for b in batches] == [2, 1]
    assert int(Subset(data, [4, 2])[1][1]) == 2
    with pytest.raises(ValueError, match="sum to the dataset's 10 samples"):
        random_split(data, [5, 4])
    with pytest.raises(IndexError, match="outside a dataset of 10"):
        Subset(data, [10])
