"""Bad text input is named, never accepted silently: a UTF-8 byte-order mark, bytes that are
not UTF-8, non-finite numbers in the judgment files, and captions with no words to score.

Each case goes through the reader and, where a command reads the file, ``kcca._cli.main``:
exit status 2, ``error:`` naming the file (and line or byte offset), and a ``fix:`` whose
command repairs the file when run as printed.
"""

from __future__ import annotations

import json
import re
import subprocess
import types
from pathlib import Path

import numpy as np
import pytest

from kcca.captions._coco_io import load_coco_references, load_coco_results
from kcca.captions._evaluate import evaluate_captions
from kcca.captions._flickr_st import read_tuples
from kcca.captions._scorer import CaptionInputError
from kcca._cli import main
from kcca.data._errors import DataError
from kcca.data._flickr8k import (CROWD_FILE, EXPERT_FILE, LEMMA_FILE, TOKEN_FILE,
                                load_flickr8k, read_caption_file, read_crowd_judgments)
from kcca.data._json_splits import load_json_splits
from kcca._evaluate.rankings_io import read_rankings, write_rankings

from tests.support.fake_flickr8k import write_fake_flickr8k

BOM = b"\xef\xbb\xbf"
BOM_TEXT = "starts with a UTF-8 byte-order mark (BOM)"


# ---------------------------------------------------------------- helpers
def _prepend_bom(path: Path) -> Path:
    path.write_bytes(BOM + path.read_bytes())
    return path


def _cli_error(capsys, argv: list[str]) -> tuple[str, str]:
    """Run ``kcca ARGV``; assert exit 2 and return the ``error:`` and ``fix:`` lines."""
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    error = [line for line in err.splitlines() if line.startswith("error: ")]
    fix = [line for line in err.splitlines() if line.startswith("fix: ")]
    assert error and fix, err
    return error[0], fix[0]


def _run_fix(fix: str, path: Path) -> None:
    """Run the command quoted in a ``fix:`` line, as printed; it must name ``path``."""
    commands = re.findall(r"`([^`]+)`", fix)
    assert commands, fix
    assert str(path) in commands[0]
    subprocess.run(commands[0], shell=True, check=True, cwd="/")


def _assert_bom_error(error: str, path: Path) -> None:
    assert str(path) in error and BOM_TEXT in error, error


@pytest.fixture
def flickr(tmp_path) -> Path:
    """A fake Flickr 8K folder (with images, so that `kcca data` can load it)."""
    return write_fake_flickr8k(tmp_path)


# ---------------------------------------------------------------- Flickr 8K text files
@pytest.mark.data_variables
def test_bom_in_caption_file_is_named_and_the_fix_removes_it(flickr, tmp_path, capsys):
    path = _prepend_bom(flickr / TOKEN_FILE)
    with pytest.raises(DataError, match=re.escape(BOM_TEXT)) as exc:
        read_caption_file(path)
    _assert_bom_error(str(exc.value), path)
    error, fix = _cli_error(capsys, ["data", "--data-dir", str(tmp_path)])
    _assert_bom_error(error, path)
    _run_fix(fix, path)
    assert not path.read_bytes().startswith(BOM)
    assert main(["data", "--data-dir", str(tmp_path)]) == 0


@pytest.mark.parametrize("name", [
    pytest.param(LEMMA_FILE, id="lemma"),
    pytest.param("Flickr_8k.devImages.txt", id="split"),
    pytest.param(EXPERT_FILE, id="judgment"),
])
def test_bom_in_a_corpus_file_is_named(flickr, tmp_path, capsys, name):
    path = _prepend_bom(flickr / name)
    with pytest.raises(DataError, match=re.escape(BOM_TEXT)):
        load_flickr8k(tmp_path, images=False)
    error, _ = _cli_error(capsys, ["data", "--data-dir", str(tmp_path)])
    _assert_bom_error(error, path)


def test_bom_inside_a_joined_file_names_the_line(flickr, tmp_path):
    path = flickr / TOKEN_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:5]) + "\ufeff" + "".join(lines[5:]), encoding="utf-8")
    with pytest.raises(DataError, match=rf"{TOKEN_FILE}:6: line starts with a byte-order mark"):
        load_flickr8k(tmp_path, images=False)


@pytest.mark.data_variables
def test_latin1_caption_file_names_line_and_offset(flickr, tmp_path, capsys):
    path = flickr / TOKEN_FILE
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2].replace("A dog", "A café dog")
    path.write_bytes("".join(lines).encode("latin-1"))
    offset = len("".join(lines[:2]).encode()) + lines[2].index("é")
    pattern = rf"{TOKEN_FILE}:3: not UTF-8 text \(byte 0xe9 at byte offset {offset}"
    with pytest.raises(DataError, match=pattern):
        read_caption_file(path)
    error, fix = _cli_error(capsys, ["data", "--data-dir", str(tmp_path)])
    assert re.search(pattern, error) and "as UTF-8" in error, error
    _run_fix(fix, path)
    assert "A café dog" in load_flickr8k(tmp_path, images=False).captions["a.jpg"][2]


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "Infinity"])
def test_non_finite_crowd_fraction_is_an_error(flickr, tmp_path, capsys, value):
    path = flickr / CROWD_FILE
    path.write_text(f"d.jpg\td.jpg#2\t1\t3\t0\nd.jpg\ta.jpg#2\t{value}\t2\t2\n")
    captions = read_caption_file(flickr / TOKEN_FILE)
    pattern = rf"{CROWD_FILE}:2: fraction '{value}' is not a finite number"
    with pytest.raises(DataError, match=pattern):
        read_crowd_judgments(path, captions)
    error, _ = _cli_error(capsys, ["data", "--data-dir", str(tmp_path)])
    assert re.search(pattern, error), error


def test_crowd_fraction_outside_0_1_is_an_error(flickr):
    path = flickr / CROWD_FILE
    path.write_text("d.jpg\td.jpg#2\t1.005\t3\t0\n")
    with pytest.raises(DataError, match=rf"{CROWD_FILE}:1: fraction 1.005 is outside"):
        read_crowd_judgments(path, read_caption_file(flickr / TOKEN_FILE))


@pytest.mark.data_variables
def test_bom_in_flickr_st_file_is_named(tmp_path):
    path = tmp_path / "clean_images_annotations.txt"
    path.write_bytes(BOM + b"1;FNAME;a.jpg#0;PRED;(['2'], ['runs']);A0;(['1'], ['dog']);A1;"
                     b"([], None);LOC_HEAD;([], None);LOC_PREP;([], None);LOC_TYPE;('-', None)\n")
    with pytest.raises(DataError, match=re.escape(BOM_TEXT)) as exc:
        read_tuples(path)
    _run_fix(exc.value.fix, path)
    assert read_tuples(path)[0].image_id == "a.jpg"


@pytest.mark.data_variables
def test_bom_in_json_split_file_is_named(tmp_path, capsys):
    path = tmp_path / "dataset_tiny.json"
    doc = {"dataset": "tiny", "images": [
        {"filename": "a.jpg", "split": "train", "sentences": [{"raw": "A dog."}]}]}
    path.write_bytes(BOM + json.dumps(doc).encode())
    with pytest.raises(DataError, match=re.escape(BOM_TEXT)):
        load_json_splits(path)
    error, fix = _cli_error(capsys, ["data", "--corpus", str(path)])
    _assert_bom_error(error, path)
    _run_fix(fix, path)
    assert load_json_splits(path).captions == {"a.jpg": ("A dog.",)}


# ---------------------------------------------------------------- rankings files
@pytest.fixture(scope="module")
def demo_pool():
    from kcca.data import load_corpus

    return load_corpus("demo", seed=0).pool("test")


@pytest.fixture
def rankings_file(demo_pool, tmp_path) -> Path:
    n = len(demo_pool)
    rng = np.random.default_rng(0)
    ranks = np.argsort(rng.random((n, n)), axis=1)
    return write_rankings(tmp_path / "run.json", demo_pool,
                          {"annotation": ranks, "search": ranks}, system="run", corpus="demo")


def _evaluate(path: Path) -> list[str]:
    return ["evaluate", str(path), "--corpus", "demo", "--no-bleu-rouge"]


@pytest.mark.data_variables
def test_bom_in_rankings_file_is_named(demo_pool, rankings_file, capsys):
    _prepend_bom(rankings_file)
    with pytest.raises(DataError, match=re.escape(BOM_TEXT)):
        read_rankings(rankings_file, demo_pool)
    error, fix = _cli_error(capsys, _evaluate(rankings_file))
    _assert_bom_error(error, rankings_file)
    _run_fix(fix, rankings_file)
    assert read_rankings(rankings_file, demo_pool).system == "run"


@pytest.mark.data_variables
def test_latin1_rankings_file_is_named(demo_pool, rankings_file, capsys):
    doc = json.loads(rankings_file.read_text(encoding="utf-8"))
    doc["system"] = "système"
    rankings_file.write_bytes(json.dumps(doc, ensure_ascii=False).encode("latin-1"))
    pattern = r"run\.json:1: not UTF-8 text \(byte 0xe8 at byte offset \d+"
    with pytest.raises(DataError, match=pattern):
        read_rankings(rankings_file, demo_pool)
    error, fix = _cli_error(capsys, _evaluate(rankings_file))
    assert str(rankings_file) in error and re.search(pattern, error), error
    _run_fix(fix, rankings_file)
    assert read_rankings(rankings_file, demo_pool).system == "système"


# ---------------------------------------------------------------- score-captions files
REFS = {"images": [{"id": 1}, {"id": 2}, {"id": 3}],
        "annotations": [{"image_id": 1, "caption": "A dog runs on the grass."},
                        {"image_id": 2, "caption": "Two children play soccer."},
                        {"image_id": 3, "caption": "A café by the river."}]}
CANDS = [{"image_id": 1, "caption": "A dog running."},
         {"image_id": 2, "caption": "Children play."},
         {"image_id": 3, "caption": "A café."}]


@pytest.fixture
def coco(tmp_path) -> tuple[Path, Path]:
    r, c = tmp_path / "refs.json", tmp_path / "cands.json"
    r.write_text(json.dumps(REFS, ensure_ascii=False), encoding="utf-8")
    c.write_text(json.dumps(CANDS, ensure_ascii=False), encoding="utf-8")
    return r, c


def _score(r: Path, c: Path, *extra: str) -> list[str]:
    return ["score-captions", "-r", str(r), "-c", str(c), "--no-meteor",
            "--per-item", str(c.with_name("scores.json")), *extra]


@pytest.mark.data_variables
@pytest.mark.parametrize("which", ["references", "candidates"])
def test_bom_in_caption_json_is_named(coco, capsys, which):
    r, c = coco
    path = _prepend_bom(r if which == "references" else c)
    loader = load_coco_references if which == "references" else load_coco_results
    with pytest.raises(CaptionInputError, match=re.escape(BOM_TEXT)):
        loader(path)
    error, fix = _cli_error(capsys, _score(r, c))
    _assert_bom_error(error, path)
    _run_fix(fix, path)
    assert main(_score(r, c)) == 0


@pytest.mark.data_variables
@pytest.mark.parametrize("which", ["references", "candidates"])
def test_latin1_caption_json_is_named(coco, capsys, which):
    r, c = coco
    path = r if which == "references" else c
    path.write_bytes(path.read_text(encoding="utf-8").encode("latin-1"))
    pattern = r":1: not UTF-8 text \(byte 0xe9 at byte offset \d+"
    loader = load_coco_references if which == "references" else load_coco_results
    with pytest.raises(CaptionInputError, match=pattern):
        loader(path)
    error, fix = _cli_error(capsys, _score(r, c))
    assert str(path) in error and re.search(pattern, error), error
    _run_fix(fix, path)
    assert main(_score(r, c)) == 0


@pytest.mark.data_variables
def test_utf16_caption_json_is_named(coco, capsys):
    r, c = coco
    c.write_text(json.dumps(CANDS), encoding="utf-16")
    error, fix = _cli_error(capsys, _score(r, c))
    assert f"{c} is UTF-16 text" in error
    _run_fix(fix, c)
    assert main(_score(r, c)) == 0


# ---------------------------------------------------------------- empty captions
def test_candidates_without_words_are_an_error_listing_them(coco, capsys):
    r, c = coco
    cands = [dict(CANDS[0], caption="..."), CANDS[1], dict(CANDS[2], caption="!")]
    c.write_text(json.dumps(cands))
    refs, res = load_coco_references(r), load_coco_results(c)
    with pytest.raises(CaptionInputError, match=r"2 candidate caption\(s\) have no words after "
                       r"tokenisation: image id 1 \('\.\.\.'\), image id 3 \('!'\)"):
        evaluate_captions(refs, res, ("bleu",))
    error, fix = _cli_error(capsys, _score(r, c))
    assert str(c) in error and "image id 1 ('...')" in error and "image id 3 ('!')" in error
    assert "--allow-empty" in fix


def test_allow_empty_scores_them_0_with_a_warning_each(coco, capsys):
    r, c = coco
    c.write_text(json.dumps([dict(CANDS[0], caption="..."), dict(CANDS[1], caption=""),
                             CANDS[2]]))
    capsys.readouterr()
    assert main(_score(r, c, "--allow-empty")) == 0
    warnings = [line for line in capsys.readouterr().err.splitlines()
                if line.startswith("warning: ")]
    assert len(warnings) == 2, warnings
    assert "image id 1 ('...')" in warnings[0] and "image id 2 ('')" in warnings[1]
    assert all(str(c) in w and "scored 0" in w for w in warnings)
    data = json.loads(c.with_name("scores.json").read_text())
    assert data["empty_candidates"] == [1, 2]
    per_item = {row["image_id"]: row for row in data["per_item"]}
    assert all(per_item[i][m] == 0.0 for i in (1, 2) for m in ("BLEU-1", "ROUGE-L", "CIDEr-D"))
    assert per_item[3]["BLEU-1"] > 0


def test_reference_without_words_is_an_error(coco, capsys):
    r, c = coco
    refs = json.loads(r.read_text(encoding="utf-8"))
    refs["annotations"].append({"image_id": 2, "caption": "- ; ..."})
    r.write_text(json.dumps(refs))
    error, _ = _cli_error(capsys, _score(r, c))
    assert str(r) in error and "image id 2 reference 1 ('- ; ...')" in error, error


# ---------------------------------------------------------------- kcca annotate --captions
def _stub_model(monkeypatch):
    """`kcca annotate` with a stand-in model: the caption file is read by the real
    FittedSystem.caption_pool_from_file, and fails before any model is needed."""
    from kcca._cli import annotate_cmd
    from kcca._model.saved import FittedSystem

    stub = types.SimpleNamespace(caption_pool=None)
    stub.caption_pool_from_file = lambda path: FittedSystem.caption_pool_from_file(stub, path)
    monkeypatch.setattr(annotate_cmd, "load_model_from_args", lambda args: stub)
    monkeypatch.setattr(annotate_cmd, "check_model_args", lambda args: None)  # "it is there"
    return stub


@pytest.mark.data_variables
def test_bom_in_annotate_caption_file_is_named(tmp_path, capsys, monkeypatch):
    stub = _stub_model(monkeypatch)
    path = tmp_path / "captions.txt"
    path.write_bytes(BOM + "x#0\tA dog runs.\nx#1\tA cat sits.\n".encode())
    with pytest.raises(DataError, match=re.escape(BOM_TEXT)):
        stub.caption_pool_from_file(path)
    error, fix = _cli_error(capsys, ["annotate", str(tmp_path / "image.png"), "--model",
                                     "stub.joblib", "--captions", str(path)])
    _assert_bom_error(error, path)
    _run_fix(fix, path)
    assert path.read_bytes().startswith(b"x#0\tA dog")


@pytest.mark.data_variables
def test_latin1_annotate_caption_file_is_named(tmp_path, capsys, monkeypatch):
    _stub_model(monkeypatch)
    path = tmp_path / "captions.txt"
    path.write_bytes("A dog runs.\nA dog at a café.\n".encode("latin-1"))
    error, fix = _cli_error(capsys, ["annotate", str(tmp_path / "image.png"), "--model",
                                     "stub.joblib", "--captions", str(path)])
    assert f"{path}:2: not UTF-8 text (byte 0xe9 at byte offset 26" in error, error
    _run_fix(fix, path)
    assert path.read_text(encoding="utf-8") == "A dog runs.\nA dog at a café.\n"
