"""A cache entry is served only when it holds what was written, of the type its reader expects.

Each test changes an entry after it was written, the way a damaged disk or a hand edit would
(the header kept, so that only the content says so), or plants what ``kcca cache verify``
must not wait on, and checks that the run recomputes, verify names it and nothing hangs.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kcca.cache import Cache
from kcca.cli import main

posix = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="POSIX FIFOs")

#: a small demo run (a few seconds): the rankings its test stage stores are what is changed
DEMO = ["demo", "--n-train", "60", "--n-dev", "20", "--n-test", "20", "--n-count", "4",
        "--p", "2", "--d", "1", "--kappas", "1", "--image-size", "32", "--quiet"]


def _rewrite(path: Path, change) -> None:
    """Rewrite the entry at ``path`` member by member, ``change(name, value)`` giving each
    member's new content (bytes for header.json and tree.json, an array for the others)."""
    with zipfile.ZipFile(path) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            if name.endswith(".npy"):
                buf = io.BytesIO()
                np.save(buf, change(name, np.load(io.BytesIO(data))))
                data = buf.getvalue()
            else:
                data = change(name, data)
            zf.writestr(name, data)


def _reverse_first_ranking(name, value):
    """The first ranking of the first task (a 20 x 20 test pool) in reverse order."""
    if name.endswith(".npy"):
        value = value.copy()
        value[:20] = value[:20][::-1]
    return value


def _demo(tmp_path: Path, out: str) -> int:
    return main(["--cache-dir", str(tmp_path / "cache"), *DEMO, "--out", str(tmp_path / out)])


@pytest.fixture(scope="module")
def _demo_once(tmp_path_factory) -> Path:
    """A folder holding the cache and rankings (``first``) of one small demo run."""
    folder = tmp_path_factory.mktemp("demo")
    assert _demo(folder, "first") == 0
    return folder


@pytest.fixture
def demo_run(_demo_once, tmp_path) -> Path:
    """``tmp_path`` with a copy of :func:`_demo_once`'s cache and rankings."""
    import shutil

    for name in ("cache", "first"):
        shutil.copytree(_demo_once / name, tmp_path / name, symlinks=True)
    return tmp_path


def _rankings(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("rankings_*.json"))}


# ------------------------------------------------------------------ the value's type
def test_an_entry_of_the_right_key_holding_another_type_is_recomputed(demo_run, capsys):
    """Each dev outcome replaced by a well-formed entry holding a string (before:
    'unexpected AttributeError', exit 1): recomputed, the same rankings."""
    from kcca.cache_entry import read_header_of, write_entry

    tmp_path = demo_run
    entries = sorted((tmp_path / "cache" / "system-dev").glob("*.entry"))
    assert entries
    for entry in entries:
        head = read_header_of(entry)
        write_entry(entry, "not an outcome", {k: head[k] for k in ("stage", "key", "config",
                                                                     "inputs")})
    capsys.readouterr()
    assert _demo(tmp_path, "again") == 0
    assert "unexpected" not in capsys.readouterr().err
    assert _rankings(tmp_path / "again") == _rankings(tmp_path / "first")


def test_get_or_compute_serves_only_the_expected_type(tmp_path):
    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: "text")
    got = cache.get_or_compute("stage", {"k": 1}, lambda: {"a": 1}, expect=dict)
    assert got == {"a": 1}
    assert cache.get_or_compute("stage", {"k": 1}, lambda: pytest.fail("recomputed"),
                                expect=dict) == {"a": 1}
    cache.get_or_compute_arrays("arrays", {"k": 1}, lambda: {"a": np.ones(2)})
    with zipfile.ZipFile(cache.path("arrays", {"k": 1})) as zf:
        head = json.loads(zf.read("header.json"))
    from kcca.cache_entry import write_entry

    write_entry(cache.path("arrays", {"k": 1}), {"a": [1, 2]},
                {k: head[k] for k in ("stage", "key", "config", "inputs")})
    got = cache.get_or_compute_arrays("arrays", {"k": 1}, lambda: {"a": np.zeros(2)})
    assert got["a"].tolist() == [0, 0]
