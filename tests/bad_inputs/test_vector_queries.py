"""New images and captions given as vectors to a saved model of a ``vectors`` system: a bad
vectors file, a query the model cannot encode, or flags that do not go together are named
(exit 2, ``error:`` naming the file, a ``fix:``), never a traceback; a model file whose
vectors side does not fit its directions is refused when it is read."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from kcca._cache import Cache
from kcca._cli import main
from kcca.data._demo import make_demo_corpus
from kcca._model import ModelFormatError, fit_system, load_model, save_model
from kcca._model import file_format
from kcca._systems import load_spec
from kcca._systems.config import RunConfig
from tests.support.planted_vectors import DIM, plant_vectors

LINEAR = """name = "VEC"
preprocessing = "demo"

[image_kernel]
name = "vectors"
params = {path = "images.npy", function = "linear"}

[text_kernel]
name = "vectors"
params = {path = "captions.npz", function = "cosine", normalise = true}

[grid]
p = [1]
d = [1]
kappas = [0.1, 1.0]
n = "geometric:4:4"
"""


@pytest.fixture(scope="module")
def vectors_model(tmp_path_factory) -> tuple[Path, Path]:
    """A saved model of a vectors system on a small demo corpus with planted vectors (linear
    image kernel, cosine text kernel: both folded), and the folder of its vectors files."""
    folder = tmp_path_factory.mktemp("vectors")
    corpus = make_demo_corpus(n_train=40, n_dev=20, n_test=20, image_size=32, seed=1,
                              judgments=False)
    plant_vectors(corpus, folder)
    (folder / "VEC.toml").write_text(LINEAR, encoding="utf-8")
    spec = load_spec(folder / "VEC.toml")
    model = fit_system(corpus, spec, config=RunConfig.of(progress=False),
                       cache=Cache(folder / "cache"))
    return save_model(model, folder / "vec.kcca.npz"), folder


def _cli(capsys, command: list[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(command + ["--quiet", "--no-cache"])
    return code, capsys.readouterr().err


def _refused(code: int, err: str, *words: str) -> None:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert lines[0].startswith("error:") and any(ln.startswith("fix:") for ln in lines), err
    assert "Traceback" not in err and "unexpected" not in err
    for word in words:
        assert word in err, err


def _npz(path: Path, ids: list[str] | np.ndarray, vectors: np.ndarray) -> Path:
    np.savez(path, ids=np.array(ids), vectors=vectors)
    return path


def test_good_vectors_are_ranked(vectors_model, tmp_path, capsys):
    model, folder = vectors_model
    with np.load(folder / "captions.npz") as f:
        path = _npz(tmp_path / "new.npz", ["new caption"], f["vectors"][:1])
    capsys.readouterr()
    assert main(["query", "--vectors", str(path), "--model", str(model), "--quiet"]) == 0
    assert "caption new caption" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["annotate", "query"])
def test_wrong_dimension_is_named(vectors_model, tmp_path, capsys, command):
    """Vectors of another dimension than the model's (was: no --vectors option, exit 2 from
    argparse, or a sentence/image expected)."""
    model, _ = vectors_model
    path = _npz(tmp_path / "wide.npz", ["a"], np.ones((1, DIM + 3), dtype=np.float32))
    code, err = _cli(capsys, [command, "--vectors", str(path), "--model", str(model)])
    _refused(code, err, str(path), f"dimension {DIM + 3}", f"dimension {DIM}")


def test_bad_vectors_files_are_named(vectors_model, tmp_path, capsys):
    """NaN, a repeated id, an empty file, a .npy without its ids file, another format, a
    missing file: each named with the file, exit 2."""
    model, _ = vectors_model
    nan = np.ones((2, DIM), dtype=np.float32)
    nan[1, 2] = np.nan
    np.save(tmp_path / "lonely.npy", np.ones((1, DIM), dtype=np.float32))
    (tmp_path / "text.npz").write_text("not an archive", encoding="utf-8")
    cases = {
        _npz(tmp_path / "nan.npz", ["a", "b"], nan): ("id 'b'", "non-finite"),
        _npz(tmp_path / "twice.npz", ["a", "a"], np.ones((2, DIM))): ("given twice",),
        _npz(tmp_path / "empty.npz", np.array([], dtype=str), np.ones((0, DIM))): ("no vector",),
        tmp_path / "lonely.npy": ("lonely.ids.txt",),
        tmp_path / "text.npz": ("not a NumPy .npz archive",),
        tmp_path / "vectors.csv": ("extension",),
        tmp_path / "missing.npz": ("does not exist",),
    }
    (tmp_path / "vectors.csv").write_text("a,1\n", encoding="utf-8")
    for path, words in cases.items():
        code, err = _cli(capsys, ["annotate", "--vectors", str(path), "--model", str(model)])
        _refused(code, err, str(path), *words)


def test_a_sentence_or_an_image_for_a_vectors_side_is_named(vectors_model, tmp_path, capsys):
    """The model's kernels read vectors: a sentence, an image file, a folder of images or a
    caption file cannot be encoded; the fix gives the --vectors command."""
    model, _ = vectors_model
    code, err = _cli(capsys, ["query", "a dog", "--model", str(model)])
    _refused(code, err, "text kernel reads vectors", "kcca query --vectors")
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), np.full((32, 32, 3), 128, dtype=np.uint8))
    code, err = _cli(capsys, ["annotate", str(photo), "--model", str(model)])
    _refused(code, err, "image kernel reads vectors", "kcca annotate --vectors")
    code, err = _cli(capsys, ["query", "a dog", "--images", str(tmp_path), "--model", str(model)])
    _refused(code, err, "image kernel reads vectors")
    captions = tmp_path / "captions.txt"
    captions.write_text("a dog runs\n", encoding="utf-8")
    code, err = _cli(capsys, ["annotate", str(photo), "--captions", str(captions),
                              "--model", str(model)])
    _refused(code, err, "text kernel reads vectors")


def test_flags_that_do_not_go_together(vectors_model, tmp_path, capsys):
    model, folder = vectors_model
    vectors = str(folder / "captions.npz")
    for command, words in [
        (["query", "--model", str(model)], ("no query",)),
        (["annotate", "--model", str(model)], ("no query",)),
        (["query", "a dog", "--vectors", vectors, "--model", str(model)], ("not both",)),
        (["query", "--vectors", vectors, "--html", str(tmp_path / "p.html"),
          "--model", str(model)], ("--html",)),
        (["query", "--vectors", vectors, "--images", str(tmp_path), "--model", str(model)],
         ("--images",)),
        (["annotate", "--vectors", vectors, "--captions", vectors, "--model", str(model)],
         ("--captions",)),
    ]:
        code, err = _cli(capsys, command)
        _refused(code, err, *words)


def _rewritten(model: Path, path: Path, change) -> Path:
    """The model file with ``change`` applied to the state of its image VectorsEncoder, its
    hash made valid again."""
    with zipfile.ZipFile(model) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    header = json.loads(members["header.json"])

    def walk(node):
        if isinstance(node, dict):
            if node.get("$object") == "kcca._model.vectors:VectorsEncoder":
                state = dict(node["$state"])
                if state.get("side") == "image":
                    change(state)
                return {**node, "$state": state}
            return {k: walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    tree = json.dumps(walk(json.loads(members["model.json"]))).encode()
    arrays = {n[:-4]: np.lib.format.read_array(io.BytesIO(members[n]))
              for n in members if n.endswith(".npy")}
    header["sha256"] = file_format.content_hash(header, tree, arrays)
    members.update({"header.json": json.dumps(header).encode(), "model.json": tree})
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


@pytest.mark.parametrize("change, words", [
    pytest.param(lambda s: s.update(dim=DIM + 1), "directions have", id="dimension"),
    pytest.param(lambda s: s.update(function="sigmoid"), "settings are invalid", id="function"),
    pytest.param(lambda s: s.update(side="text"), "malformed", id="side"),
])
def test_a_vectors_side_that_does_not_fit_its_directions_is_refused(vectors_model, tmp_path,
                                                                    capsys, change, words):
    model, folder = vectors_model
    path = _rewritten(model, tmp_path / "bad.kcca.npz", change)
    with pytest.raises(ModelFormatError, match=words):
        load_model(path)
    code, err = _cli(capsys, ["annotate", "--vectors", str(folder / "captions.npz"),
                              "--model", str(path)])
    _refused(code, err, str(path), words)

