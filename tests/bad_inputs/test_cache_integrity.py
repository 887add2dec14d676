"""A cache entry is served only when it holds what was written, of the type its reader expects.

Each test changes an entry after it was written, the way a damaged disk or a hand edit would
(the header kept, so that only the content says so), or plants what ``kcca cache verify``
must not wait on, and checks that the run recomputes, verify names it and nothing hangs.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kcca._cache import Cache
from kcca._cli import main

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


# ------------------------------------------------------------------ content digest
def test_a_test_ranking_changed_in_the_cache_is_recomputed_and_ranks_as_before(
    demo_run, capsys, caplog
):
    """Before: the demo's second run served the changed rankings (different rankings files,
    no word), and ``kcca cache verify`` called the entries current."""
    tmp_path = demo_run
    entries = sorted((tmp_path / "cache" / "system-test").glob("*.entry"))
    assert len(entries) == 2
    for entry in entries:
        _rewrite(entry, _reverse_first_ranking)
    capsys.readouterr()
    assert main(["cache", "verify", "--cache-dir", str(tmp_path / "cache")]) == 1
    out = capsys.readouterr().out
    assert "2 damaged or misplaced" in out and "does not match the content digest" in out
    assert _demo(tmp_path, "again") == 0
    assert _rankings(tmp_path / "again") == _rankings(tmp_path / "first")
    warned = " ".join(r.getMessage() for r in caplog.records)
    assert all(str(e) in warned for e in entries) and "computed again" in warned
    assert main(["cache", "verify", "--cache-dir", str(tmp_path / "cache")]) == 0


@pytest.mark.parametrize("change", [
    lambda name, v: np.full_like(v, np.nan) if name.endswith(".npy") else v,
    lambda name, v: v.replace(b"[3,3]", b"[9,1]") if name == "tree.json" else v,
    lambda name, v: v.replace(b'"inputs": {}', b'"inputs": {"/x": "0"}')
    if name == "header.json" else v,
], ids=["nan-filled-gram", "tree", "header"])
def test_an_entry_changed_after_it_was_written_is_recomputed(tmp_path, change):
    """A Gram filled with NaN (before: served, and the run blamed the kernel), a changed tree
    or header: each is recomputed and the computed value served."""
    gram = np.arange(9.0).reshape(3, 3)
    Cache(tmp_path / "cache").get_or_compute("system-image-gram", {"k": 1}, lambda: {"g": gram})
    path = Cache(tmp_path / "cache").path("system-image-gram", {"k": 1})
    _rewrite(path, change)
    cache = Cache(tmp_path / "cache")
    got = cache.get_or_compute("system-image-gram", {"k": 1}, lambda: {"g": gram.copy()})
    assert np.array_equal(got["g"], gram)
    assert cache.stats["system-image-gram"] == {"computed": 1, "loaded": 0}


def test_an_entry_without_a_content_digest_is_recomputed_and_prune_removes_it(tmp_path):
    """An entry of format version 1 (before the content digest): another format, recomputed;
    prune may remove it since its header proves it is the cache's own."""
    cache_dir = tmp_path / "cache"
    Cache(cache_dir).get_or_compute("stage", {"k": 1}, lambda: np.ones(3))
    path = Cache(cache_dir).path("stage", {"k": 1})

    def version_1(name, value):
        if name != "header.json":
            return value
        head = json.loads(value)
        head.pop("digest", None)
        return json.dumps({**head, "format_version": 1}).encode()

    _rewrite(path, version_1)
    Cache(cache_dir).get_or_compute("other", {"k": 1}, lambda: np.arange(3))
    _rewrite(Cache(cache_dir).path("other", {"k": 1}), _reverse_first_ranking)
    assert main(["cache", "prune", "--cache-dir", str(cache_dir)]) == 0
    assert not path.exists() and not Cache(cache_dir).path("other", {"k": 1}).exists()
    cache = Cache(cache_dir)
    assert cache.get_or_compute("stage", {"k": 1}, lambda: np.zeros(3)).tolist() == [0, 0, 0]


def test_an_edited_meteor_paraphrase_index_is_built_again(tmp_path):
    """Before: the changed index was loaded (every METEOR score moved; a damaged one gave
    'unexpected IndexError'), and verify called it current."""
    import gzip

    from kcca._cache_audit import verify_cache
    from kcca.captions._meteor import find_meteor_jar, meteor_available
    from kcca.captions._meteor_engine import MeteorResources

    ok, why = meteor_available("python")
    if not ok:
        pytest.skip(why)
    table = tmp_path / "paraphrase-en.gz"
    table.write_bytes(gzip.compress(b"0.5\na dog\na hound\n0.2\ndog\nhound\n0.3\nthe\na\n"))
    cache_dir = tmp_path / "cache"
    built = MeteorResources(find_meteor_jar(), table, cache_dir)
    index = built.paraphrases
    assert built.index_source == "built"
    (entry,) = (cache_dir / "meteor-paraphrase").glob("*.entry")
    _rewrite(entry, lambda name, v: v[::-1].copy() if name.endswith(".npy") and v.ndim else v)
    assert [str(p) for p in verify_cache(cache_dir).unusable] == [str(entry)]
    again = MeteorResources(find_meteor_jar(), table, cache_dir)
    assert again.paraphrases.n_entries == index.n_entries and again.index_source == "built"
    assert again.paraphrases.word_id == index.word_id
    assert np.array_equal(again.paraphrases.level_keys, index.level_keys)
    assert MeteorResources(find_meteor_jar(), table, cache_dir).paraphrases is not None
    assert not verify_cache(cache_dir).unusable


# ------------------------------------------------------------------ the value's type
def test_an_entry_of_the_right_key_holding_another_type_is_recomputed(demo_run, capsys):
    """Each dev outcome replaced by a well-formed entry holding a string (before:
    'unexpected AttributeError', exit 1): recomputed, the same rankings."""
    from kcca._cache_entry import check_entry, write_entry

    tmp_path = demo_run
    entries = sorted((tmp_path / "cache" / "system-dev").glob("*.entry"))
    assert entries
    for entry in entries:
        head = check_entry(entry)
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
    from kcca._cache_entry import write_entry

    write_entry(cache.path("arrays", {"k": 1}), {"a": [1, 2]},
                {k: head[k] for k in ("stage", "key", "config", "inputs")})
    got = cache.get_or_compute_arrays("arrays", {"k": 1}, lambda: {"a": np.zeros(2)})
    assert got["a"].tolist() == [0, 0]


# ------------------------------------------------------------------ bounded verify
@pytest.mark.data_variables
@posix
def test_verify_and_prune_never_wait_on_a_fifo_or_device_an_entry_names(tmp_path):
    """An input file that is ``/dev/zero`` or a FIFO, and an older record folder's
    ``inputs.json`` that is a FIFO (before: verify and prune blocked for ever)."""
    from kcca._cache_entry import check_entry, write_entry

    cache_dir = tmp_path / "cache"
    cache = Cache(cache_dir)
    cache.get_or_compute("stage", {"k": 1}, lambda: np.ones(2))
    path = cache.path("stage", {"k": 1})
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    head = check_entry(path)
    inputs = {"/dev/zero": "0" * 64, str(fifo): "0" * 64}
    write_entry(path, np.ones(2), {**{k: head[k] for k in ("stage", "key", "config")},
                                   "inputs": inputs})
    records = cache_dir / "features" / ("a" * 20)
    records.mkdir(parents=True)
    os.mkfifo(records / "inputs.json")
    os.mkfifo(cache_dir / "stage" / f"{'b' * 20}.json")
    (cache_dir / "stage" / f"{'b' * 20}.joblib").write_bytes(b"x")
    run = [sys.executable, "-m", "kcca", "cache"]
    verify = subprocess.run([*run, "verify", "--cache-dir", str(cache_dir)], capture_output=True,
                            text=True, timeout=120)
    assert verify.returncode == 1, verify.stderr
    assert "1 stale" in verify.stdout and "/dev/zero is not a regular file" in verify.stdout
    prune = subprocess.run([*run, "prune", "--cache-dir", str(cache_dir)], capture_output=True,
                           text=True, timeout=120)
    assert prune.returncode == 0 and "removed 1 files" in prune.stdout, prune.stderr
    assert not path.exists() and (records / "inputs.json").exists()


# ------------------------------------------------------------------ misleading fixes
def test_an_entry_replaced_by_a_folder_is_named_and_the_fix_removes_it(demo_run, capsys):
    """Before: the fix said to pass --cache-dir with a folder of one's own, as if the folder
    were another user's."""
    tmp_path = demo_run
    entry = sorted((tmp_path / "cache" / "system-test").glob("*.entry"))[0]
    entry.unlink()
    entry.mkdir()
    capsys.readouterr()
    assert _demo(tmp_path, "again") == 2
    err = capsys.readouterr().err
    assert f"error: cache entry {entry} is a folder, not a file" in err
    fix = re.search(r"fix: .*`(rm -r [^`]+)`", err)
    assert fix and "your own" not in err, err
    subprocess.run(shlex.split(fix.group(1)), check=True)
    assert _demo(tmp_path, "again") == 0
    assert _rankings(tmp_path / "again") == _rankings(tmp_path / "first")
