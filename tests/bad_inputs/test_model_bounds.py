"""A model file does not decide how much work or memory loading it takes.

A member that inflates to gigabytes is refused before it is inflated (checked here under a
memory limit), and a setting that drives work on load (the POS tagger rebuilt from its
configuration) is bounded.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from kcca._cache import Cache
from kcca._model import file_format
from kcca._model.build import demo_model
from tests.support.demo_model import demo_cache
from kcca._model.file_format import ModelFormatError

#: bytes the bomb's one array inflates to, and the address-space limit it is opened under
BOMB_BYTES = 2 << 30
MEMORY_LIMIT = 3 << 29  # 1.5 GiB


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> Path:
    """A 2 MB model file whose array member inflates to 2 GiB of zeros."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.kcca.npz"
    header = {"magic": file_format.MAGIC, "format_version": file_format.FORMAT_VERSION,
              "pools": {}, "sha256": "0"}
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        zf.writestr("header.json", json.dumps(header))
        zf.writestr("model.json", json.dumps({"$array": "arr_0"}))
        with zf.open("arr_0.npy", "w", force_zip64=True) as f:
            n = BOMB_BYTES // 8
            np.lib.format.write_array_header_2_0(
                f, {"descr": "<f8", "fortran_order": False, "shape": (n,)})
            block = bytes(1 << 24)
            for _ in range(BOMB_BYTES // len(block)):
                f.write(block)
    return path


@pytest.mark.slow
@pytest.mark.data_variables
def test_a_zip_bomb_is_refused_before_it_is_inflated(bomb, tmp_path):
    """Under a 1.5 GiB address-space limit: a named error and exit 2 (before: a MemoryError
    with exit 1, or 2.2 GB and 37 s without the limit)."""
    assert bomb.stat().st_size < BOMB_BYTES / 200
    limit = (
        "import resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
        "from kcca._cli import main; "
        "sys.exit(main(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", limit, "query", "a dog", "--model", str(bomb), "--no-cache"],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 2, proc.stderr
    assert f"error: {bomb}: refused: member arr_0.npy inflates" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and "fix:" in proc.stderr


def test_the_total_size_limit_is_named_and_can_be_raised(bomb, monkeypatch):
    monkeypatch.setattr(file_format, "MAX_INFLATION", 1e9)
    monkeypatch.setenv(file_format.MAX_MODEL_BYTES_ENV, str(1 << 30))
    with pytest.raises(ModelFormatError, match="over the limit of 1,073,741,824") as info:
        file_format.read(bomb)
    assert f"`export {file_format.MAX_MODEL_BYTES_ENV}=" in info.value.fix
    monkeypatch.setenv(file_format.MAX_MODEL_BYTES_ENV, "lots")
    from kcca.errors import DataError

    with pytest.raises(DataError, match="is not a positive whole number of bytes"):
        file_format.read(bomb)


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory) -> Path:
    """The demo model's file."""
    return Path(demo_model(Cache(demo_cache(tmp_path_factory))).info["file"])


def _rewrite_tree(src: Path, dst: Path, edit) -> Path:
    """A copy of a model file with its tree edited by ``edit(tree)`` and the hash renewed."""
    with zipfile.ZipFile(src) as zf:
        header = json.loads(zf.read(file_format.HEADER))
        tree = json.loads(zf.read(file_format.TREE))
        members = {n: zf.read(n) for n in zf.namelist()}
    edit(tree)
    raw = json.dumps(tree, separators=(",", ":")).encode()
    with np.load(src, allow_pickle=False) as z:
        arrays = {n: z[n] for n in z.files if n.startswith("arr_")}
    header["sha256"] = file_format.content_hash(header, raw, arrays)
    members[file_format.HEADER] = json.dumps(header).encode()
    members[file_format.TREE] = raw
    with zipfile.ZipFile(dst, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return dst


def _preprocessor_states(node):
    if isinstance(node, dict):
        if node.get("$object") == "features.text._pipeline:CaptionPreprocessor":
            yield node["$state"]
        for v in node.values():
            yield from _preprocessor_states(v)
    elif isinstance(node, list):
        for v in node:
            yield from _preprocessor_states(v)


@pytest.mark.slow
@pytest.mark.parametrize("setting, value", [("tagger_iter", 100_000),
                                            ("tagger_corpora", ["brown", "everything"]),
                                            ("tagger_max_sents", -1)])
def test_a_forged_tagger_setting_never_starts_training(demo_file, tmp_path, monkeypatch,
                                                       setting, value):
    """The tagger is rebuilt from the saved settings on load: an unbounded one is refused
    (before: the perceptron started 100,000 passes over Brown)."""
    src = demo_file

    def forge(tree):
        states = list(_preprocessor_states(tree))
        assert states
        for state in states:
            state[setting] = value
            state["tagger_"] = {"$rebuild": "pos-tagger"}

    forged = _rewrite_tree(src, tmp_path / "forged.kcca.npz", forge)
    import features.text._postag as postag

    def no_training(*a, **k):
        raise AssertionError("a tagger was trained from a model file's settings")

    monkeypatch.setattr(postag, "train_tagger", no_training)
    monkeypatch.setattr(postag, "_MEMO", {})
    with pytest.raises(ModelFormatError, match="malformed model tree"):
        file_format.read(forged, cache=Cache(tmp_path / "cache"))


def _forged_model(demo_file: Path, out: Path, edit) -> Path:
    """The demo model with ``edit(model)`` applied, written with a valid hash."""
    from kcca._model.saved import header_of

    header, model = file_format.read(demo_file)
    edit(model)
    return file_format.write(out, header_of(model), model)


def _nan_weight(model) -> None:
    kappa = next(iter(model.projections.x_weights))
    model.projections.x_weights[kappa][0, 0] = np.nan


def _far_model(model) -> None:
    task = next(iter(model.projections.selected))
    kappa, _ = model.projections.selected[task][0]
    model.projections.selected[task][0] = (kappa, 10**6)


@pytest.mark.parametrize("edit, words", [(_nan_weight, "holds NaN or infinite values"),
                                         (_far_model, "n=1000000) of")])
def test_forged_projections_are_refused_not_ranked(demo_file, tmp_path, capsys, edit, words):
    """Before: NaN directions ranked every candidate with a ``nan`` cosine, exit 0."""
    from kcca._cli import main

    forged = _forged_model(demo_file, tmp_path / "forged.kcca.npz", edit)
    code = main(["query", "a red dog", "--model", str(forged), "--no-cache", "--quiet"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"error: {forged}: " in err and words in err and "fix:" in err


@pytest.mark.parametrize("kind, words", [("folder", "is a folder, not a file"),
                                         ("device", "is a character device, not a file")])
def test_load_model_names_a_path_that_is_not_a_file(tmp_path, kind, words):
    """The Python API as the CLI: before, "does not exist" (and a fix writing to the path)."""
    from kcca._model.saved import load_model

    path = tmp_path if kind == "folder" else Path("/dev/zero")
    with pytest.raises(Exception, match=words) as info:
        load_model(path)
    assert "--out bow5.kcca.npz" in info.value.fix and str(path) not in info.value.fix
