"""Malformed input files are named errors (exit status 2) naming the file, not a
``RecursionError``, ``MemoryError``, ``ValueError``, ``TypeError``, ``KeyError`` or OpenCV
error from inside a parser: JSON nested too deeply (candidates, references, rankings,
experiment and split files), TOML nested too deeply (experiment and run files), a number too
long to convert, ids of the wrong type, an image header lacking a field, an image size the
decoder refuses."""

from __future__ import annotations

import argparse
import json
import struct
from pathlib import Path

import pytest

from kcca.captions._coco_io import load_coco_references
from kcca.captions._scorer import CaptionInputError
from kcca._cli import describe_error, main
from kcca.data._json_splits import load_json_splits
from kcca.errors import DataError
from kcca._systems import load_spec
from kcca._systems.config import load_run_table
from tests.support.named_errors import one_error

DEEP_JSON = "[" * 100_000 + "]" * 100_000
DEEP_TOML = 'name = "X"\nx = ' + "[" * 100_000 + "]" * 100_000 + "\n"
NESTED = "nested too deeply to read"


def coco(folder: Path) -> tuple[Path, Path]:
    refs = {"images": [{"id": 1}], "annotations": [{"image_id": 1, "caption": "a dog runs"}]}
    (folder / "refs.json").write_text(json.dumps(refs))
    (folder / "cands.json").write_text(json.dumps([{"image_id": 1, "caption": "a dog"}]))
    return folder / "refs.json", folder / "cands.json"


# ------------------------------------------------------------------ deep or huge JSON
@pytest.mark.parametrize("which", ["--candidates", "--references"])
@pytest.mark.parametrize("content, fault", [
    (DEEP_JSON, f"JSON {NESTED}"),
    ("[" + "1" * 5000 + "]", "not valid JSON: Exceeds the limit (4300 digits)"),
], ids=["deep", "long-number"])
def test_a_deep_or_unconvertible_caption_file_is_named(tmp_path, capsys, which, content, fault):
    refs, cands = coco(tmp_path)
    bad = cands if which == "--candidates" else refs
    bad.write_text(content)
    code = main(["score-captions", "-r", str(refs), "-c", str(cands), "--no-meteor"])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error.startswith(f"{bad}: {fault}"), error
    assert not (tmp_path / "cands.scores.json").exists()


def test_a_deep_rankings_file_is_named(tmp_path, capsys):
    path = tmp_path / "run.json"
    path.write_text(DEEP_JSON)
    code = main(["evaluate", str(path), "--corpus", "demo", "--no-bleu-rouge"])
    error, _ = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == (f"{path}: JSON nested too deeply to read (more levels of [ ] or {{ }} "
                     "than Python's parser follows)"), error


def test_a_json_file_too_large_for_memory_is_named(tmp_path, monkeypatch):
    import json as json_module

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    path = tmp_path / "run.json"
    path.write_text("{}")
    monkeypatch.setattr(json_module, "loads", out_of_memory)
    from kcca._evaluate.rankings_io import read_rankings

    with pytest.raises(DataError, match=rf"^{path}: JSON too large to read in memory$"):
        read_rankings(path, [])


@pytest.mark.parametrize("name, text", [("x.json", DEEP_JSON), ("x.toml", DEEP_TOML)],
                         ids=["json", "toml"])
def test_a_deep_experiment_file_is_named(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(DataError, match=rf"^{path}: (JSON|TOML) {NESTED}"):
        load_spec(path)


def test_a_deep_run_file_is_named(tmp_path):
    (tmp_path / "run.toml").write_text("[run]\nseed = " + "[" * 100_000 + "]" * 100_000)
    with pytest.raises(DataError, match=rf"run\.toml: TOML {NESTED}"):
        load_run_table(tmp_path)


def test_a_run_file_whose_run_is_not_a_table_is_named(tmp_path):
    (tmp_path / "run.toml").write_text("run = 5\n")
    with pytest.raises(DataError, match=r"run\.toml: run must be a table \(\[run\]\), got integer"):
        load_run_table(tmp_path)


def test_a_deep_split_file_is_named(tmp_path):
    path = tmp_path / "dataset_x.json"
    path.write_text(DEEP_JSON)
    with pytest.raises(DataError, match=rf"dataset_x\.json: JSON {NESTED}"):
        load_json_splits(path)


# ------------------------------------------------------------------ values of the wrong type
def test_an_image_id_of_the_wrong_type_is_named(tmp_path):
    refs, _ = coco(tmp_path)
    refs.write_text(json.dumps({"images": [{"id": [1]}], "annotations": []}))
    with pytest.raises(CaptionInputError,
                       match=r'images\[0\]: "id" must be an integer or a string, not \[1\]'):
        load_coco_references(refs)


def test_a_split_name_of_the_wrong_type_is_named(tmp_path):
    doc = {"images": [{"filename": "a.jpg", "split": ["train"],
                       "sentences": [{"raw": "A dog."}]}]}
    path = tmp_path / "dataset_x.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(DataError, match=r"images\[0\] \(a\.jpg\): unknown split \['train'\]"):
        load_json_splits(path)


# ------------------------------------------------------------------ images
def test_a_pam_header_without_its_size_is_a_read_error(tmp_path):
    from kcca.data._errors import ImageReadError
    from kcca.data._images import read_image

    path = tmp_path / "x.pam"
    path.write_bytes(b"P7\nWIDTH 4\nDEPTH 3\nMAXVAL 255\nTUPLTYPE RGB\nENDHDR\n" + bytes(48))
    with pytest.raises(ImageReadError, match="x.pam"):
        read_image(path)


def test_an_image_size_the_decoder_refuses_names_the_file(tmp_path):
    """A Sun raster 2,097,152 pixels wide: OpenCV's decoder raises ``cv2.error``, read as the
    image error of the file (so that --skip-bad-images can leave it out)."""
    from kcca.data._errors import ImageReadError
    from kcca.data._images import read_image

    path = tmp_path / "wide.ras"
    path.write_bytes(b"\x59\xa6\x6a\x95" + struct.pack(">7I", 2**21, 1, 8, 2**21, 1, 0, 0)
                     + bytes(64))
    with pytest.raises(ImageReadError) as err:
        read_image(path)
    message, fix, status = describe_error(err.value, argparse.Namespace(command="annotate"))
    assert status == 2
    assert message.startswith(f"cannot read image {path}: not a decodable image (OpenCV: "), message
    assert fix == f"replace {path} with a valid copy of the image"


@pytest.mark.parametrize("which", ["--candidates", "--references"])
def test_an_empty_caption_points_at_allow_empty(tmp_path, capsys, which):
    """An empty caption in a COCO file: the fix names --allow-empty (it pointed at
    data/README.md, which says nothing of caption files)."""
    refs, cands = coco(tmp_path)
    if which == "--candidates":
        cands.write_text(json.dumps([{"image_id": 1, "caption": ""}]))
    else:
        refs.write_text(json.dumps({"images": [{"id": 1}],
                                    "annotations": [{"image_id": 1, "caption": " "}]}))
    code = main(["score-captions", "-r", str(refs), "-c", str(cands), "--no-meteor"])
    error, fix = one_error(capsys.readouterr().err)
    where = f"{cands}: entry [0]" if which == "--candidates" else f"{refs}: annotations[0]"
    assert code == 2 and error == f'{where}: "caption" is empty', error
    assert "--allow-empty" in fix and "data/README.md" not in fix
    assert main(["score-captions", "-r", str(refs), "-c", str(cands), "--no-meteor",
                 "--allow-empty"]) == 0
