"""Faults of the machine are named errors (exit status 2), not ``unexpected OSError``: a
read-only cache, output or working folder, a read-only home (the default cache folder), a full
disk, the file size limit (``ulimit -f``), a dangling or looping symbolic link as the cache or
output folder. Each error names the path, the fault and the flag that chose the path; the fix
names that flag. Folders that cannot be written are found before any work, and scores already
computed are printed before a failed write.

Tests that mount a file system (tmpfs, read-only bind mounts) need root and skip without it.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kcca._cli import describe_error, main
from tests.support.named_errors import one_error

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def mount(tmp_path):
    """``mount(name, size=..., read_only=..., bind=...)``: a tmpfs (or a bind mount of
    ``bind``) at ``tmp_path/name``, unmounted at the end; skips without root."""
    mounted: list[Path] = []

    def _mount(name: str, *, size: str = "64k", read_only: bool = False,
               bind: Path | None = None) -> Path:
        if os.geteuid() != 0:
            pytest.skip("mounting a file system needs root")
        folder = tmp_path / name
        folder.mkdir()
        if bind is not None:
            cmd = ["mount", "--bind", "-o", "ro", str(bind), str(folder)]
        else:
            opts = f"size={size}" + (",ro" if read_only else "")
            cmd = ["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(folder)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"cannot mount ({' '.join(cmd)}): {done.stderr.strip()}")
        mounted.append(folder)
        if bind is not None and not os.statvfs(folder).f_flag & os.ST_RDONLY:
            pytest.skip("this kernel made the bind mount writable")
        return folder

    yield _mount
    for folder in reversed(mounted):
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def demo_argv(out: Path | None, *extra: str) -> list[str]:
    """A tiny demo run (seconds, should a fault get through) writing to ``out``."""
    return ["demo", *(["--out", str(out)] if out is not None else []), "--n-train", "10",
            "--n-dev", "5", "--n-test", "5", "--image-size", "32", "--sheet", "1", "--p", "2",
            "--d", "1", "--kappas", "0.5", "--n-count", "3", "--quiet", *extra]


def fill(folder: Path, leave: int = 0) -> None:
    """Fill the file system of ``folder`` up to ``leave`` free bytes."""
    with open(folder / "filler", "wb") as fh:
        while True:
            free = os.statvfs(folder).f_bavail * os.statvfs(folder).f_frsize - leave
            if free <= 0:
                break
            try:
                fh.write(b"\0" * min(free, 4096))
                fh.flush()
            except OSError:
                break


def coco_files(folder: Path, n: int = 300) -> tuple[Path, Path]:
    """A references and a candidates file of ``n`` images (per-item scores of some 50 KB)."""
    refs = {"images": [{"id": i} for i in range(n)],
            "annotations": [{"image_id": i, "caption": f"a dog number {i} runs on the grass"}
                            for i in range(n)]}
    cands = [{"image_id": i, "caption": f"a dog runs on grass {i}"} for i in range(n)]
    (folder / "refs.json").write_text(json.dumps(refs))
    (folder / "cands.json").write_text(json.dumps(cands))
    return folder / "refs.json", folder / "cands.json"


# ------------------------------------------------------------------ read-only folders
def test_a_read_only_cache_folder_is_named_before_any_work(tmp_path, capsys, mount):
    ro = mount("ro", read_only=True)
    code = main(demo_argv(tmp_path / "out", "--cache-dir", str(ro / "cache")))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"{ro}: read-only file system (--cache-dir {ro / 'cache'})", error
    assert "--cache-dir DIR" in fix and "--no-cache" in fix, fix
    assert not (tmp_path / "out").exists()  # found before the first stage wrote anything


def test_a_read_only_output_folder_is_named_before_any_work(tmp_path, capsys, mount):
    (tmp_path / "results").mkdir()
    ro = mount("ro", bind=tmp_path / "results")
    code = main(demo_argv(ro / "demo", "--no-cache"))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"{ro}: read-only file system (--out {ro / 'demo'})", error
    assert fix == "give a path you can write with --out DIR", fix


def test_a_read_only_working_folder_is_named(tmp_path, capsys, mount, monkeypatch):
    """``kcca demo`` without ``--out`` writes ./kcca-demo-out."""
    (tmp_path / "work").mkdir()
    ro = mount("ro", bind=tmp_path / "work")
    monkeypatch.chdir(ro)
    code = main(demo_argv(None, "--no-cache"))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == (f"{ro} (the working folder): read-only file system "
                     "(--out kcca-demo-out)"), error
    assert "--out DIR" in fix


def test_a_read_only_home_is_named_as_the_default_cache_folder(tmp_path, capsys, mount,
                                                               monkeypatch):
    (tmp_path / "home").mkdir()
    home = mount("ro-home", bind=tmp_path / "home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("KCCA_CACHE_DIR", raising=False)
    code = main(demo_argv(tmp_path / "out"))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == (f"{home}: read-only file system (the default cache folder "
                     f"{home / '.cache' / 'kcca'})"), error
    assert "--cache-dir DIR" in fix and "KCCA_CACHE_DIR" in fix, fix
    assert not (tmp_path / "out").exists()


def test_a_file_on_the_output_path_is_named(tmp_path, capsys):
    (tmp_path / "afile").write_text("keep me")
    code = main(["evaluate", str(tmp_path / "run.json"), "--output",
                 str(tmp_path / "afile" / "out.json")])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == (f"{tmp_path / 'afile'} is a file, not a folder "
                     f"(--output {tmp_path / 'afile' / 'out.json'})"), error
    assert "--output FILE" in fix


# ------------------------------------------------------------------ full disk, size limit
def test_a_full_disk_is_named_before_any_work(tmp_path, capsys, mount):
    full = mount("full")
    fill(full)
    code = main(demo_argv(full / "out", "--no-cache"))
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"{full}: no space left on the device (--out {full / 'out'})", error
    assert fix.startswith(f"free space on the file system of {full} (`df -h {full}`)"), fix
    assert "--out DIR" in fix


def test_a_disk_that_fills_while_writing_keeps_the_scores(tmp_path, capsys, mount):
    """The scores are printed before the per-item file is written (before: never printed)."""
    refs, cands = coco_files(tmp_path)
    full = mount("full")
    fill(full, leave=12_000)
    out = full / "scores.json"
    code = main(["score-captions", "-r", str(refs), "-c", str(cands), "--no-meteor",
                 "--per-item", str(out)])
    captured = capsys.readouterr()
    error, fix = one_error(captured.err)
    assert code == 2
    assert error == f"{out}: no space left on the device (--per-item)", error
    assert f"`df -h {full}`" in fix and "--per-item OUT.json" in fix, fix
    assert "300 images scored" in captured.out and "BLEU-4" in captured.out, captured.out


@pytest.mark.data_variables
def test_the_file_size_limit_is_named_and_keeps_the_scores(tmp_path):
    """``ulimit -f``: SIGXFSZ is ignored, so the write raises EFBIG, named (before:
    ``unexpected OSError``, exit status 1, the scores never printed)."""
    resource = pytest.importorskip("resource")
    refs, cands = coco_files(tmp_path)
    out = tmp_path / "scores.json"

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (16_384, 16_384))

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-m", "kcca", "score-captions", "-r", str(refs),
                           "-c", str(cands), "--no-meteor", "--per-item", str(out)],
                          capture_output=True, text=True, env=env, cwd=tmp_path,
                          preexec_fn=limit, timeout=300)
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    error, fix = one_error(done.stderr)
    assert error.startswith(f"{out}: file too large for the file size limit (ulimit -f)"), error
    assert "`ulimit -f unlimited`" in fix and "--per-item OUT.json" in fix, fix
    assert "300 images scored" in done.stdout, done.stdout


# ------------------------------------------------------------------ symbolic links
@pytest.mark.parametrize("flag", ["--cache-dir", "--out"])
@pytest.mark.parametrize("link", ["dangling", "loop"])
def test_a_broken_link_as_cache_or_output_folder_is_named(tmp_path, capsys, flag, link):
    path = tmp_path / "link"
    path.symlink_to(tmp_path / "nowhere" if link == "dangling" else path)
    if flag == "--out":
        argv = demo_argv(path, "--no-cache")
    else:
        argv = demo_argv(tmp_path / "out", "--cache-dir", str(path))
    code = main(argv)
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    what = (f"a symbolic link to {tmp_path / 'nowhere'}, which does not exist"
            if link == "dangling" else "a symbolic link loop")
    assert error == f"{path} is {what} ({flag})", error
    assert fix.startswith(f"repair or remove the symbolic link {path} (`ls -l {path}`"), fix
    assert f"{flag} DIR" in fix, fix
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ a fault mid-way
def test_a_fault_without_a_file_name_names_the_file_being_written(tmp_path):
    """A full disk reports no file name: the error names the file the writer was writing
    and the flag of the folder it is in."""
    from kcca._cache import atomic_write

    def write(tmp: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    target = tmp_path / "cache" / "stage" / "entry"
    with pytest.raises(OSError) as err:
        atomic_write(target, write)
    args = argparse.Namespace(command="features", cache_dir=str(tmp_path / "cache"),
                              no_cache=False)
    message, fix, status = describe_error(err.value, args)
    assert status == 2
    assert message == f"{target}: no space left on the device (--cache-dir {tmp_path / 'cache'})"
    assert fix.startswith(f"free space on the file system of {target.parent}"), fix
    assert "--no-cache" in fix
