"""Config-keyed, atomic on-disk cache."""

import os

import numpy as np
import pytest

from kcca.cache import Cache, atomic_write, config_key


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
    assert (cache.path("stage", {"a": 1}).with_suffix(".json")).exists()


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
