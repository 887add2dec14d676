"""Model files are data: a crafted or foreign ``--model`` file is refused and never runs code.

Each refusal goes through the CLI as a user sees it (exit 2, ``error:`` naming the file,
``fix:`` with a refit command that parses as ``kcca fit-model`` options); the round trip of
the demo model ranks exactly as the model in memory.
"""

from __future__ import annotations

import io
import json
import os
import pickle
import re
import shlex
import zipfile
from pathlib import Path

import cv2
import joblib
import numpy as np
import pytest

from kcca._cache import Cache
from kcca._cli import build_parser, main
from kcca._model import ModelFormatError, load_model
from kcca._model.build import demo_model
from tests.support.demo_model import demo_cache

QUERIES = ("a red circle", "a large blue square on the grass", "yellow star",
           "a striped triangle")


class _Payload:
    """Pickles to ``os.system(command)``: runs when unpickled."""

    def __init__(self, command: str):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo model as ``--model demo`` fits it, and the file it was cached to."""
    cache = Cache(demo_cache(tmp_path_factory))
    model = demo_model(cache)
    return model, Path(model.info["file"])


@pytest.fixture
def image(tmp_path) -> Path:
    path = tmp_path / "photo.png"
    cv2.imwrite(str(path), np.full((32, 32, 3), 128, dtype=np.uint8))
    return path


def _cli(capsys, command: list[str]) -> tuple[int, str]:
    code = main(command + ["--quiet", "--no-cache"])
    return code, capsys.readouterr().err


def _assert_refused(code: int, err: str, path: Path, *words: str) -> str:
    assert code == 2, err
    lines = err.strip().splitlines()
    error = [ln for ln in lines if ln.startswith("error:")]
    assert error and str(path) in error[0], err
    assert any(ln.startswith("fix:") for ln in lines), err
    assert "Traceback" not in err
    for w in words:
        assert w in err, err
    return err


def _assert_fix_runs(fix: str) -> None:
    """The fix names a ``kcca fit-model`` command whose options all exist."""
    commands = re.findall(r"`(kcca fit-model [^`]*)`", fix)
    assert commands, fix
    for command in commands:
        args = build_parser().parse_args(shlex.split(command)[1:])
        assert args.command == "fit-model" and args.out


# ------------------------------------------------------------------ pickles never load
@pytest.mark.parametrize("command", ["query", "annotate"])
def test_pickle_payload_is_refused_and_never_runs(command, tmp_path, image, capsys):
    marker = tmp_path / "PWNED"
    evil = tmp_path / "shared-model.joblib"
    evil.write_bytes(pickle.dumps(_Payload(f"touch {shlex.quote(str(marker))}")))
    argv = (["query", "x", "--model", str(evil)] if command == "query"
            else ["annotate", str(image), "--model", str(evil)])
    code, err = _cli(capsys, argv)
    assert not marker.exists(), "loading the model file ran its code"
    _assert_refused(code, err, evil, "refit")


def test_pickled_array_inside_a_zip_never_runs(tmp_path, capsys):
    """An ``.npy`` member holding a pickled object array is refused, not unpickled."""
    from kcca._model import file_format

    marker = tmp_path / "PWNED"
    member = io.BytesIO()
    payload = np.array([_Payload(f"touch {shlex.quote(str(marker))}")], dtype=object)
    np.lib.format.write_array(member, payload, allow_pickle=True)
    path = tmp_path / "evil.kcca.npz"
    header = {"magic": file_format.MAGIC, "format_version": file_format.FORMAT_VERSION,
              "pools": {}, "sha256": "0"}
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", json.dumps(header))
        zf.writestr("model.json", json.dumps({"$array": "arr_0"}))
        zf.writestr("arr_0.npy", member.getvalue())
    code, err = _cli(capsys, ["query", "x", "--model", str(path)])
    assert not marker.exists()
    _assert_refused(code, err, path)


# ------------------------------------------------------------------ old and foreign files
@pytest.mark.slow
def test_old_joblib_model_is_refused_with_the_refit_command(demo, tmp_path, capsys):
    """A model of the old format (joblib of header + FittedSystem) is not unpickled."""
    model, _ = demo
    old = tmp_path / "bow5.joblib"
    joblib.dump({"header": {"magic": "kcca-fitted-system", "format_version": 1,
                            "kcca_version": "0.1.0", "spec": model.spec.as_dict(),
                            "corpus": model.corpus}, "model": model}, old)
    with pytest.raises(ModelFormatError, match="old joblib") as exc:
        load_model(old)
    assert str(old) in str(exc.value)
    _assert_fix_runs(exc.value.fix)
    compressed = tmp_path / "bow5-z.joblib"
    joblib.dump({"model": model}, compressed, compress=3)
    with pytest.raises(ModelFormatError, match="old joblib"):
        load_model(compressed)
    code, err = _cli(capsys, ["query", "a red circle", "--model", str(old)])
    _assert_refused(code, err, old, "kcca fit-model")


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {n: zf.read(n) for n in zf.namelist()}


def _write_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_tampered_array_is_refused(demo, tmp_path, capsys):
    """A consistent zip (valid CRCs) whose array changed after writing: hash mismatch."""
    members = _members(demo[1])
    name = max((n for n in members if n.endswith(".npy")), key=lambda n: len(members[n]))
    array = np.lib.format.read_array(io.BytesIO(members[name]))
    array.flat[0] += 1
    buf = io.BytesIO()
    np.lib.format.write_array(buf, array)
    members[name] = buf.getvalue()
    path = _write_zip(tmp_path / "tampered.kcca.npz", members)
    code, err = _cli(capsys, ["query", "a red circle", "--model", str(path)])
    _assert_refused(code, err, path, "hash")


def test_truncated_file_is_refused(demo, tmp_path, capsys):
    data = demo[1].read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 100):
        path = tmp_path / f"cut-{cut}.kcca.npz"
        path.write_bytes(data[:cut])
        code, err = _cli(capsys, ["query", "a red circle", "--model", str(path)])
        _assert_refused(code, err, path, "truncated")


def test_truncated_pickle_never_runs_its_payload(tmp_path, capsys):
    """A pickle runs what it has read before it finds the end missing: never start one."""
    marker = tmp_path / "PWNED"
    data = pickle.dumps([_Payload(f"touch {shlex.quote(str(marker))}"), b"x" * 1000])
    path = tmp_path / "cut.joblib"
    path.write_bytes(data[:-500])
    code, err = _cli(capsys, ["query", "x", "--model", str(path)])
    assert not marker.exists(), "loading the truncated model file ran its code"
    _assert_refused(code, err, path)


def _crafted(path: Path, tree: object, **header_fields) -> Path:
    """A zip laid out as a model file, with a valid hash, holding ``tree``."""
    from kcca._model import file_format

    raw = json.dumps(tree).encode()
    header = {"magic": file_format.MAGIC, "format_version": file_format.FORMAT_VERSION,
              "pools": {}, **header_fields}
    header["sha256"] = file_format.content_hash(header, raw, {})
    return _write_zip(path, {"header.json": json.dumps(header).encode(), "model.json": raw})


@pytest.mark.parametrize("name", ["posix:system", "os:system", "builtins:eval",
                                  "kcca._model.file_format:write", "subprocess:Popen"])
def test_unknown_class_name_is_refused(name, tmp_path, capsys):
    marker = tmp_path / "PWNED"
    tree = {"$object": name, "$state": {"command": f"touch {marker}"}}
    path = _crafted(tmp_path / "unknown.kcca.npz", tree)
    with pytest.raises(ModelFormatError, match="refused: it names the class") as exc:
        load_model(path)
    assert repr(name) in str(exc.value)
    code, err = _cli(capsys, ["query", "x", "--model", str(path)])
    _assert_refused(code, err, path, name)
    assert not marker.exists()


def test_a_header_nested_too_deeply_is_refused(tmp_path, capsys):
    """header.json nested 200,000 deep (was an unexpected RecursionError, exit 1)."""
    path = _write_zip(tmp_path / "deep.kcca.npz",
                      {"header.json": b"[" * 200_000 + b"]" * 200_000, "model.json": b"[]"})
    with pytest.raises(ModelFormatError, match="nested too deeply"):
        load_model(path)
    code, err = _cli(capsys, ["query", "x", "--model", str(path)])
    _assert_refused(code, err, path, "nested too deeply")


def _emptied(demo_file: Path, path: Path, class_name: str) -> Path:
    """The demo model file with the state of every object of ``class_name`` emptied, its hash
    made valid again."""
    from kcca._model import file_format

    members = _members(demo_file)
    header = json.loads(members["header.json"])

    def empty(node: dict) -> dict:  # each object of the tree as the parser makes it
        if node.get("$object") == class_name:
            return {"$object": class_name, "$state": {}}
        return node

    tree = json.dumps(json.loads(members["model.json"], object_hook=empty)).encode()
    assert tree != members["model.json"], class_name
    arrays = {n[:-4]: np.lib.format.read_array(io.BytesIO(members[n]))
              for n in members if n.endswith(".npy")}
    header["sha256"] = file_format.content_hash(header, tree, arrays)
    members.update({"header.json": json.dumps(header).encode(), "model.json": tree})
    return _write_zip(path, members)


@pytest.mark.slow
@pytest.mark.parametrize("class_name", ["kcca._model.saved:FittedSystem",
                                        "kcca._model.encoders:TextEncoder",
                                        "kcca._systems.fitted:Projections",
                                        "features.text._idf:Idf",
                                        "kcca.data._demo:DemoImages"])
def test_an_allowed_class_with_an_empty_state_is_refused(demo, tmp_path, capsys, class_name):
    """An object of an allowed class whose state is empty (was an unexpected AttributeError
    when the model was used, exit 1): refused when the file is read, naming the class."""
    path = _emptied(demo[1], tmp_path / "empty.kcca.npz", class_name)
    with pytest.raises(ModelFormatError, match=f"the state of {class_name} lacks"):
        load_model(path)
    code, err = _cli(capsys, ["query", "a red circle", "--model", str(path)])
    _assert_refused(code, err, path, "lacks")


def _without(demo_file, path, class_name, attribute):
    """The demo model file with ``attribute`` removed from the state of every object of
    ``class_name``, its hash made valid again."""
    from kcca._model import file_format

    members = _members(demo_file)
    header = json.loads(members["header.json"])

    def drop(node: dict) -> dict:  # each object of the tree as the parser makes it
        if node.get("$object") == class_name and attribute in node.get("$state", {}):
            state = {k: v for k, v in node["$state"].items() if k != attribute}
            return {**node, "$state": state}
        return node

    tree = json.dumps(json.loads(members["model.json"], object_hook=drop)).encode()
    assert tree != members["model.json"], (class_name, attribute)
    arrays = {n[:-4]: np.lib.format.read_array(io.BytesIO(members[n]))
              for n in members if n.endswith(".npy")}
    header["sha256"] = file_format.content_hash(header, tree, arrays)
    members.update({"header.json": json.dumps(header).encode(), "model.json": tree})
    return _write_zip(path, members)


@pytest.mark.slow
@pytest.mark.parametrize("class_name, attribute", [
    ("features.kernels._image:PyramidKernel", "train_matrix_"),
    ("features.text._trigram_kernel:TrigramKernel", "idf_"),
    ("features._codebook:Codebook", "cluster_centers_"),
    ("features.text._pipeline:CaptionPreprocessor", "stop_words_"),
])
def test_a_fitted_estimator_without_a_fitted_attribute_is_refused(demo, tmp_path, capsys,
                                                                   class_name, attribute):
    """A kernel, codebook or preprocessor whose parameters are all there but one of its
    fitted attributes is not (was a 'not fitted' error or an AttributeError when the model
    was used): refused when the file is read, naming the class and the attribute."""
    path = _without(demo[1], tmp_path / "unfitted.kcca.npz", class_name, attribute)
    with pytest.raises(ModelFormatError, match=f"the state of {class_name} lacks.*{attribute}"):
        load_model(path)
    code, err = _cli(capsys, ["query", "a red circle", "--model", str(path)])
    _assert_refused(code, err, path, "lacks")


@pytest.mark.parametrize("case", ["zip without header", "wrong magic", "other version",
                                  "not a model", "empty", "text"])
def test_foreign_files_are_refused(case, tmp_path, capsys):
    path = tmp_path / "model.kcca.npz"
    if case == "zip without header":
        np.savez(path, weights=np.zeros(3))
    elif case == "wrong magic":
        _crafted(path, [], magic="not-kcca")
    elif case == "other version":
        from kcca._model import file_format

        _crafted(path, [], format_version=file_format.FORMAT_VERSION + 1,
                 spec={"name": "BoW5", "short_name": "BoW5"}, corpus="flickr8k")
    elif case == "not a model":
        _crafted(path, {"$tuple": [1, 2]})
    elif case == "empty":
        path.write_bytes(b"")
    else:
        path.write_text("weights = [1, 2, 3]\n")
    code, err = _cli(capsys, ["query", "x", "--model", str(path)])
    _assert_refused(code, err, path)
    with pytest.raises(ModelFormatError) as exc:
        load_model(path)
    _assert_fix_runs(exc.value.fix)
    if case == "other version":
        assert "--system BoW5" in exc.value.fix


# ------------------------------------------------------------------ round trip
@pytest.mark.slow
def test_demo_model_round_trip_ranks_identically(demo, image):
    """The cached demo file, loaded, gives the in-memory model's scores and rankings."""
    model, path = demo
    with path.open("rb") as f:
        assert f.read(4) == b"PK\x03\x04"  # a zip (np.load opens it), not a pickle
    with np.load(path, allow_pickle=False) as npz:
        assert "header.json" in npz.files
    loaded = load_model(path)
    assert loaded is not model and loaded.spec == model.spec and loaded.chosen == model.chosen
    for q in QUERIES:
        a, b = model.rank_images(q), loaded.rank_images(q)
        np.testing.assert_array_equal(a.indices, b.indices)
        np.testing.assert_array_equal(a.points, b.points)
        np.testing.assert_array_equal(a.cosine, b.cosine)
        assert a.tokens == b.tokens
    for i in model.image_pool.ids[:3]:
        pixels = model.image_pool.source(i)
        np.testing.assert_array_equal(pixels, loaded.image_pool.source(i))
        a, b = model.rank_captions(pixels), loaded.rank_captions(pixels)
        np.testing.assert_array_equal(a.indices, b.indices)
        np.testing.assert_array_equal(a.points, b.points)
        np.testing.assert_array_equal(a.cosine, b.cosine)
    a, b = model.rank_captions(image), loaded.rank_captions(image)
    np.testing.assert_array_equal(a.indices, b.indices)
    np.testing.assert_array_equal(a.cosine, b.cosine)


def test_query_page_reads_no_pool_image_outside_the_data_folder(demo, tmp_path, capsys,
                                                                monkeypatch):
    """A model file whose pool names image files elsewhere: the page reads none of them
    (no thumbnails, a warning naming the model file and the first file) unless the data
    folder named holds them."""
    from kcca.data._images import ImageFiles
    from kcca._model import file_format
    from kcca._model.saved import header_of

    secret = tmp_path / "outside" / "secret.png"
    secret.parent.mkdir()
    cv2.imwrite(str(secret), np.full((32, 32, 3), 200, dtype=np.uint8))
    header, model = file_format.read(demo[1])
    model.image_pool.source = ImageFiles({i: str(secret) for i in model.image_pool.ids})
    forged = file_format.write(tmp_path / "forged.kcca.npz", header_of(model), model)
    monkeypatch.delenv("KCCA_DATA_DIR", raising=False)
    page = tmp_path / "page.html"
    query = ["query", "a red circle", "--model", str(forged), "--html", str(page)]
    code, err = _cli(capsys, query)
    assert code == 0, err
    assert "data:image/jpeg;base64," not in page.read_text(encoding="utf-8")
    assert f"warning: {forged}:" in err.replace("\n", " ") and str(secret) in err.replace(
        "\n", "")
    code, err = _cli(capsys, [*query, "--data-dir", str(secret.parent)])
    assert code == 0 and "warning" not in err, err
    assert page.read_text(encoding="utf-8").count("data:image/jpeg;base64,") >= 10


@pytest.mark.parametrize("command", ["query", "annotate"])
def test_vectors_for_a_model_of_images_and_sentences_are_named(demo, tmp_path, capsys,
                                                               command):
    """--vectors gives queries as vectors: a model whose kernel of that side reads sentences
    or images is named, with the fix to give those instead (exit 2)."""
    path = tmp_path / "new.npz"
    np.savez(path, ids=np.array(["a"]), vectors=np.ones((1, 4)))
    code, err = _cli(capsys, [command, "--vectors", str(path), "--model", str(demo[1])])
    assert code == 2 and "not vectors" in err and "fix: drop --vectors" in err, err
    assert "Traceback" not in err
