"""The cache deletes only its own files, no cache content runs code, and an entry says what it is.

Each test builds the faulty or hostile surroundings itself: a cache folder holding a link out of
it and a user's own files, a pickle planted where an entry is read, a folder others can write,
entries swapped by hand, a run under ``umask 000``.
"""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import sys

import numpy as np
import pytest

from kcca._cache import Cache, config_key
from kcca._cli import main

posix = pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")


class _Marker:
    """A pickle that creates a file when it is loaded (what an attacker would plant)."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _entry_files(root):
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


# ----------------------------------------------------------------------------- prune
def test_prune_deletes_nothing_outside_the_cache_and_no_file_of_the_user(tmp_path, capsys):
    """A link inside the cache to another folder, and a project folder given as --cache-dir
    by mistake: prune removes none of their files (before: every */*.json and */*.joblib)."""
    outside = tmp_path / "elsewhere"
    (outside / "sub").mkdir(parents=True)
    for name in ("settings.json", "model.joblib", "0123456789abcdef0123.json"):
        (outside / "sub" / name).write_text("{}")
    cache_dir = tmp_path / "cache"
    cache = Cache(cache_dir)
    cache.get_or_compute("stage", {"k": 1}, lambda: np.arange(3))
    os.symlink(outside / "sub", cache_dir / "linked")
    os.symlink(outside / "sub" / "settings.json", cache_dir / "stage" / "link.json")
    project = tmp_path / "project"
    (project / "runs").mkdir(parents=True)
    (project / "runs" / "final_model.joblib").write_bytes(b"user's model")
    (project / "runs" / "notes.json").write_text('{"stage": "runs"}')
    before_outside, before_project = _entry_files(outside), _entry_files(project)
    for root in (cache_dir, project):
        assert main(["cache", "prune", "--cache-dir", str(root)]) == 0
    out = capsys.readouterr().out
    assert "deleting 0 files (0 bytes)" in out and "left alone" in out
    assert _entry_files(outside) == before_outside
    assert _entry_files(project) == before_project
    assert (cache_dir / "stage" / f"{config_key({'k': 1})}.entry").is_file()


def test_prune_never_removes_entries_this_version_wrote(tmp_path, capsys):
    """Entries of stages that read no file (before: deleted by prune --unrecorded as
    'written by an older kcca')."""
    cache_dir = tmp_path / "cache"
    cache = Cache(cache_dir)
    for k in range(3):
        cache.get_or_compute("no-inputs", {"k": k}, lambda: {"a": np.ones(2)})
    files = _entry_files(cache_dir)
    assert main(["cache", "prune", "--cache-dir", str(cache_dir)]) == 0
    assert _entry_files(cache_dir) == files and len(files) == 3
    assert "3 entries current" in capsys.readouterr().out


def test_prune_lists_what_it_deletes_and_its_size_and_dry_run_keeps_it(tmp_path, capsys):
    src = tmp_path / "input.txt"
    src.write_text("one")
    cache_dir = tmp_path / "cache"
    Cache(cache_dir).get_or_compute("stage", {"k": 1}, lambda: np.ones(100), [src])
    src.write_text("two")
    entry = f"stage/{config_key({'k': 1})}.entry"
    size = (cache_dir / entry).stat().st_size / 1000
    assert main(["cache", "prune", "--dry-run", "--cache-dir", str(cache_dir)]) == 0
    out = capsys.readouterr().out
    assert f"would delete 1 files ({size:.1f} KB):" in out and f"{entry}  {size:.1f} KB" in out
    assert (cache_dir / entry).exists()
    assert main(["cache", "prune", "--cache-dir", str(cache_dir)]) == 0
    assert "removed 1 files" in capsys.readouterr().out and not (cache_dir / entry).exists()


def test_prune_removes_entries_of_the_older_pickle_format_only_when_they_prove_it(tmp_path):
    """An old ``<key>.joblib`` with a sidecar naming its stage and hashing to its key goes;
    a look-alike whose sidecar does not hash to its name stays."""
    import json

    stage = tmp_path / "cache" / "stage"
    stage.mkdir(parents=True)
    config = {"k": 1}
    key = config_key(config)
    (stage / f"{key}.joblib").write_bytes(b"old pickle")
    (stage / f"{key}.json").write_text(json.dumps({"stage": "stage", "config": config}))
    fake = "f" * 20
    (stage / f"{fake}.joblib").write_bytes(b"someone's file")
    (stage / f"{fake}.json").write_text(json.dumps({"stage": "stage", "config": config}))
    assert main(["cache", "prune", "--cache-dir", str(tmp_path / "cache")]) == 0
    assert sorted(p.name for p in stage.iterdir()) == [f"{fake}.joblib", f"{fake}.json"]


# ------------------------------------------------------------------- nothing runs code
def test_a_planted_pickle_never_runs(tmp_path):
    """A pickle at an entry's path (old and new name) is not loaded: the value is computed."""
    marker = tmp_path / "pwned"
    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: 1)  # makes the folder
    for suffix in (".entry", ".joblib"):
        path = cache.path("stage", {"k": 1}).with_suffix(suffix)
        path.write_bytes(pickle.dumps(_Marker(marker)))
    assert Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 42) == 42
    assert not marker.exists()


@posix
@pytest.mark.parametrize("mode", [0o777, 0o757])
def test_a_stage_folder_others_can_write_is_refused(tmp_path, mode):
    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: 1)
    folder = tmp_path / "cache" / "stage"
    folder.chmod(mode)
    from kcca._cache_entry import UntrustedCacheFile

    with pytest.raises(UntrustedCacheFile, match=f"cache folder {folder} is writable by every"):
        Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 2)


@posix
@pytest.mark.parametrize("mode", [0o666, 0o664])
def test_an_entry_others_can_write_is_refused_with_a_fix_that_runs(tmp_path, mode):
    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: 1)
    entry = cache.path("stage", {"k": 1})
    entry.chmod(mode)
    from kcca._cache_entry import UntrustedCacheFile

    with pytest.raises(UntrustedCacheFile, match="is writable by") as info:
        Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 2)
    fix = info.value.fix
    assert fix.startswith("if you wrote it: `chmod go-w ")
    subprocess.run(fix.split("`")[1], shell=True, check=True)  # the fix, as printed
    assert Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 2) == 1


@posix
@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_an_entry_of_another_user_is_refused(tmp_path):
    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: 1)
    os.chown(cache.path("stage", {"k": 1}), 65534, 65534)
    from kcca._cache_entry import UntrustedCacheFile

    with pytest.raises(UntrustedCacheFile, match="belongs to another user"):
        Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 2)


def test_an_entry_that_is_a_link_or_a_folder_is_named(tmp_path):
    from kcca.errors import DataError

    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: 1)
    entry = cache.path("stage", {"k": 1})
    target = tmp_path / "elsewhere.entry"
    entry.rename(target)
    entry.symlink_to(target)
    with pytest.raises(DataError, match="is a symbolic link"):
        Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 2)
    entry.unlink()
    entry.mkdir()
    with pytest.raises(DataError, match="is a folder, not a file"):
        Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 2)


@pytest.mark.data_variables
@posix
def test_under_umask_000_nothing_is_writable_by_others(tmp_path):
    code = (
        "import os, numpy as np; os.umask(0);"
        "from kcca._cache import Cache;"
        f"c = Cache({str(tmp_path / 'cache')!r});"
        "c.get_or_compute('stage', {'k': 1}, lambda: np.ones(2));"
        "c.save_record('records', 'a' * 20, 'item', [1], {})"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
    for p in [tmp_path / "cache", *(tmp_path / "cache").rglob("*")]:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert not mode & 0o022, (p, oct(mode))
    Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: pytest.fail("recomputed"))


# ------------------------------------------------------------------ an entry says what it is
def test_swapped_entries_are_recomputed_and_verify_names_them(tmp_path, capsys):
    """Two entries swapped by hand (before: each served the other's value, verify content)."""
    cache_dir = tmp_path / "cache"
    cache = Cache(cache_dir)
    a = cache.get_or_compute("system-test", {"system": "TRI5"}, lambda: {"r": np.arange(3)})
    b = cache.get_or_compute("system-test", {"system": "BoW5"}, lambda: {"r": np.arange(3) + 10})
    pa, pb = cache.path("system-test", {"system": "TRI5"}), cache.path("system-test",
                                                                       {"system": "BoW5"})
    tmp = pa.with_name("swap")
    pa.rename(tmp)
    pb.rename(pa)
    tmp.rename(pb)
    assert main(["cache", "verify", "--cache-dir", str(cache_dir)]) == 1
    out = capsys.readouterr().out
    assert "0 entries current, 0 stale (an input file changed), 2 damaged or misplaced" in out
    fresh = Cache(cache_dir)
    got_a = fresh.get_or_compute("system-test", {"system": "TRI5"}, lambda: {"r": a["r"]})
    got_b = fresh.get_or_compute("system-test", {"system": "BoW5"}, lambda: {"r": b["r"]})
    assert got_a["r"].tolist() == [0, 1, 2] and got_b["r"].tolist() == [10, 11, 12]
    assert fresh.stats["system-test"] == {"computed": 2, "loaded": 0}


def test_an_entry_naming_a_class_outside_the_list_is_not_rebuilt(tmp_path):
    """A forged header and tree naming ``os:system``: refused, computed again."""
    import json
    import zipfile

    cache = Cache(tmp_path / "cache")
    cache.get_or_compute("stage", {"k": 1}, lambda: 1)
    path = cache.path("stage", {"k": 1})
    with zipfile.ZipFile(path) as zf:
        head = json.loads(zf.read("header.json"))
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", json.dumps(head))
        zf.writestr("tree.json", json.dumps({"$object": "os:system", "$state": {"x": "id"}}))
    assert Cache(tmp_path / "cache").get_or_compute("stage", {"k": 1}, lambda: 7) == 7
