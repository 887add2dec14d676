"""Config-keyed, atomic on-disk cache."""

import os

import numpy as np
import pytest

from kcca._cache import Cache, atomic_write, config_key


def test_config_key_stable_and_sensitive():
    a = {"p": 2, "levels": [0, 1, 2], "w": np.arange(3)}
    assert config_key(a) == config_key({"levels": [0, 1, 2], "w": np.arange(3), "p": 2})
    assert config_key(a) != config_key({**a, "p": 3})
    assert config_key(a) != config_key({**a, "w": np.arange(1, 4)})
    with pytest.raises(TypeError, match="cannot hash config value"):
        config_key({"f": object()})


def test_get_or_compute_caches(tmp_path):
    cache = Cache(tmp_path)
    calls = []

    def compute():
        calls.append(1)
        return np.ones(3)

    for _ in range(2):
        np.testing.assert_array_equal(cache.get_or_compute("stage", {"a": 1}, compute), 1)
    assert len(calls) == 1
    cache.get_or_compute("stage", {"a": 2}, compute)
    assert len(calls) == 2
    from kcca._cache_entry import check_entry

    head = check_entry(cache.path("stage", {"a": 1}))
    assert (head["stage"], head["config"]) == ("stage", {"a": 1})


def test_disabled_cache_always_computes():
    cache = Cache(None)
    calls = []
    for _ in range(2):
        cache.get_or_compute("s", {}, lambda: calls.append(1))
    assert len(calls) == 2 and not cache.has("s", {})


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.bin"

    def failing(tmp):
        open(tmp, "wb").write(b"partial")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, failing)
    assert not target.exists() and os.listdir(tmp_path) == []


def test_corrupt_entry_is_recomputed(tmp_path):
    cache = Cache(tmp_path)
    cache.save("s", {"k": 1}, [1, 2])
    cache.path("s", {"k": 1}).write_bytes(b"garbage")
    assert cache.get_or_compute("s", {"k": 1}, lambda: [3]) == [3]


# ------------------------------------------------------------------ array entries (.npz)
def test_array_entries_round_trip_without_pickle(tmp_path):
    """Arrays come back equal, strings and numbers as Python objects; the second call loads
    (compute is not called) and the file is an entry that np.load opens without pickle."""
    cache = Cache(tmp_path)
    value = {"words": np.array([b"a", b"bb"]), "ids": np.arange(5), "text": "x\ny",
             "version": 3, "empty": ""}
    got = cache.get_or_compute_arrays("arr", {"k": 1}, lambda: value)
    assert got is value
    loaded = cache.get_or_compute_arrays("arr", {"k": 1}, lambda: pytest.fail("recomputed"))
    assert loaded["text"] == "x\ny" and loaded["version"] == 3 and loaded["empty"] == ""
    assert isinstance(loaded["version"], int) and isinstance(loaded["text"], str)
    assert np.array_equal(loaded["words"], value["words"])
    assert np.array_equal(loaded["ids"], value["ids"])
    path = cache.path("arr", {"k": 1})
    with np.load(path, allow_pickle=False) as z:
        assert {"header.json", "tree.json"} <= set(z.files)
        assert all(z[m].dtype.kind in "biufSU" for m in z.files if m.startswith("arr_"))
    assert cache.stats["arr"] == {"computed": 1, "loaded": 1}


def test_a_corrupt_array_entry_is_recomputed(tmp_path):
    cache = Cache(tmp_path)
    cache.get_or_compute_arrays("arr", {"k": 1}, lambda: {"a": np.ones(3)})
    cache.path("arr", {"k": 1}).write_bytes(b"garbage")
    got = cache.get_or_compute_arrays("arr", {"k": 1}, lambda: {"a": np.zeros(2)})
    assert np.array_equal(got["a"], np.zeros(2))
    again = cache.get_or_compute_arrays("arr", {"k": 1}, lambda: pytest.fail("recomputed"))
    assert np.array_equal(again["a"], np.zeros(2))


def test_verify_and_prune_know_array_entries(tmp_path):
    """A stale array entry (its input file edited) and one whose header names another key
    are found and removed; the current entry stays."""
    from kcca._cache_audit import prune_cache, verify_cache

    src = tmp_path / "input.txt"
    src.write_text("one")
    root = tmp_path / "cache"
    cache = Cache(root)
    cache.get_or_compute_arrays("arr", {"k": 1}, lambda: {"a": np.ones(2)}, inputs=[src])
    cache.get_or_compute_arrays("arr", {"k": 2}, lambda: {"a": np.ones(2)})
    cache.get_or_compute_arrays("arr", {"k": 3}, lambda: {"a": np.ones(2)})
    moved = cache.path("arr", {"k": 3})
    moved.write_bytes(cache.path("arr", {"k": 2}).read_bytes())  # k=2's value under k=3's name
    audit = verify_cache(root)
    assert audit.current == 2 and list(audit.unusable) == [moved]
    src.write_text("two")
    audit = verify_cache(root)
    stale = cache.path("arr", {"k": 1})
    assert list(audit.stale) == [stale]
    removed = prune_cache(audit)
    assert set(removed) == {stale, moved}
    assert [p.name for p in (root / "arr").iterdir()] == [cache.path("arr", {"k": 2}).name]
