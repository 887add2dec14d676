"""A path that should be a file but is a folder, a named pipe (FIFO), a device, a symbolic link
loop or a link to nothing is named as what it is (``kcca._file_kinds.check_regular_file``),
before anything is read: ``--model`` of ``kcca query`` / ``kcca annotate`` (before: "does not
exist", with a fix suggesting ``--out /dev/zero``), and annotate's image and ``--captions``
(a FIFO or ``/dev/zero`` would be read for ever)."""

from __future__ import annotations

import os
import types
from pathlib import Path

import pytest

from kcca._cli import main
from tests.support.named_errors import one_error


def make(tmp_path: Path, kind: str) -> Path:
    """A path of ``kind`` under ``tmp_path`` (``/dev/zero`` for a device)."""
    path = tmp_path / f"model-{kind}"
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here")
        os.mkfifo(path)
    elif kind == "device":
        if not Path("/dev/zero").exists():
            pytest.skip("no /dev/zero")
        return Path("/dev/zero")
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "dangling":
        path.symlink_to(tmp_path / "nowhere")
    return path


KINDS = {
    "folder": "a folder",
    "fifo": "a named pipe (FIFO)",
    "device": "a character device",
    "loop": "a symbolic link loop",
    "dangling": "a symbolic link to {tmp}/nowhere, which does not exist",
}


@pytest.mark.parametrize("command", ["query", "annotate"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_a_model_path_that_is_not_a_file_is_named(tmp_path, capsys, command, kind):
    path = make(tmp_path, kind)
    argv = (["query", "a dog", "--model", str(path)] if command == "query"
            else ["annotate", str(tmp_path / "dog.jpg"), "--model", str(path)])
    code = main([*argv, "--no-cache"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    what = KINDS[kind].format(tmp=tmp_path)
    assert error == f"--model: model file {path} is {what}, not a file", error
    assert str(path) not in fix, fix  # never `--out /dev/zero`
    assert "--out FILE.kcca.npz" in fix and "--model demo" in fix, fix


def test_a_missing_model_file_is_named_with_the_fit_that_writes_it(tmp_path, capsys):
    path = tmp_path / "bow5.kcca.npz"
    code = main(["query", "a dog", "--model", str(path), "--no-cache"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"--model: model file {path} does not exist", error
    assert f"`kcca fit-model --system BoW5 --out {path}`" in fix, fix


@pytest.fixture
def stub_model(monkeypatch):
    """``kcca annotate`` with a model that is never loaded (the inputs fail first)."""
    import kcca._cli.annotate_cmd as annotate_cmd

    stub = types.SimpleNamespace(caption_pool=None,
                                 caption_pool_from_file=lambda path: pytest.fail("read"))
    monkeypatch.setattr(annotate_cmd, "load_model_from_args", lambda args: stub)
    monkeypatch.setattr(annotate_cmd, "check_model_args", lambda args: None)  # "it is there"
    return stub


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_an_annotate_image_that_is_not_a_file_is_named(tmp_path, capsys, stub_model, kind):
    path = make(tmp_path, kind)
    code = main(["annotate", str(path), "--model", "stub.kcca.npz", "--no-cache"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"image {path} is {KINDS[kind]}, not a file", error
    assert fix == "give the path of an image file (JPEG, PNG, ...)"


def test_an_annotate_captions_fifo_is_named(tmp_path, capsys, stub_model):
    path = make(tmp_path, "fifo")
    code = main(["annotate", str(tmp_path / "dog.jpg"), "--model", "stub.kcca.npz",
                 "--captions", str(path), "--no-cache"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"--captions: captions file {path} is a named pipe (FIFO), not a file", error
    assert "--captions" in fix
