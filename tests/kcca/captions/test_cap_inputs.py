"""Input checks of the scorer interface and the COCO JSON readers: errors name the id or the
file position; nothing is dropped silently."""

import json

import pytest

from kcca.captions import CaptionInputError, RougeL, available_scorers, evaluate_captions
from kcca.captions._registry import get_scorer
from kcca.captions._coco_io import check_id_types, load_coco_references, load_coco_results


@pytest.mark.parametrize("refs,cands,match", [
    ({1: ["a b"]}, {2: "a b"}, "image id 2"),
    ({1: []}, {1: "a b"}, "image id 1 has no reference"),
    ({1: ["a b", ""]}, {1: "a b"}, "reference caption 1 of image id 1 is empty"),
    ({1: ["a b", 3]}, {1: "a b"}, "reference caption 1 of image id 1 is a int"),
    ({1: ["a b"]}, {1: "   "}, "candidate caption of image id 1 is empty"),
    ({1: ["a b"]}, {1: None}, "image id 1"),
    ({1: ["a b"]}, {1: ["a", "b"]}, "exactly one"),
    ({1: "a b"}, {1: "a b"}, "list of strings"),
    ({1: ["a b"]}, {}, "no candidates"),
])
def test_bad_input_is_named(refs, cands, match):
    with pytest.raises(CaptionInputError, match=match):
        RougeL().compute_score(refs, cands)
    with pytest.raises(CaptionInputError, match=match):
        evaluate_captions(refs, cands, ("rouge_l",))


def test_registry():
    assert {"bleu", "rouge_l", "cider_d", "cider", "meteor"} <= set(available_scorers())
    assert get_scorer("CIDER_D", sigma=3.0).sigma == 3.0
    with pytest.raises(CaptionInputError, match="unknown caption metric"):
        get_scorer("spice")


def test_evaluate_reports_unscored_references_and_keeps_order():
    ev = evaluate_captions({"b": ["a dog"], "a": ["a cat"], "z": ["x"]},
                           {"a": "a cat", "b": "a dog"}, ("bleu", "rouge_l"))
    assert ev.ids == ["a", "b"] and ev.unscored_reference_ids == ["z"]
    assert ev.per_item["ROUGE-L"].tolist() == [1.0, 1.0]
    assert [r["image_id"] for r in ev.per_item_records()] == ["a", "b"]


def _write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))
    return p


def test_coco_annotation_and_result_files(tmp_path):
    ann = {"images": [{"id": 1}, {"id": 2}, {"id": 3}],
           "annotations": [{"image_id": 1, "id": 10, "caption": "A dog."},
                           {"image_id": 1, "id": 11, "caption": "A brown dog."},
                           {"image_id": 2, "id": 12, "caption": "A cat."}]}
    refs = load_coco_references(_write(tmp_path, "r.json", ann))
    assert refs == {1: ["A dog.", "A brown dog."], 2: ["A cat."], 3: []}
    res = load_coco_results(_write(tmp_path, "c.json", [{"image_id": 3, "caption": "x"}]))
    with pytest.raises(CaptionInputError, match="image id 3 has no reference"):
        evaluate_captions(refs, res)


@pytest.mark.parametrize("text,match", [
    ('{"annotations": [', "line 1 column"),
    ('{"images": []}', "annotations"),
    ('{"annotations": [{"image_id": 1}]}', r"annotations\[0\] has no \"caption\""),
    ('{"annotations": [{"caption": "x"}]}', r"annotations\[0\] has no \"image_id\""),
    ('{"annotations": [{"image_id": 1, "caption": ""}]}', "empty"),
    ('{"annotations": [{"image_id": [1], "caption": "a"}]}', "integer or a string"),
    ('"hello"', "expected a COCO annotation"),
])
def test_malformed_reference_files(tmp_path, text, match):
    with pytest.raises(CaptionInputError, match=match):
        load_coco_references(_write(tmp_path, "r.json", text))


@pytest.mark.parametrize("text,match", [
    ('[{"image_id": 1, "caption": "a"}, {"image_id": 1, "caption": "b"}]',
     r"entry \[1\]: second caption for image id 1 \(first at entry \[0\]\)"),
    ('[{"image_id": 1, "caption": 2}]', "must be a string"),
    ("[]", "no candidate"),
    ("[1, 2", "not valid JSON"),
])
def test_malformed_result_files(tmp_path, text, match):
    with pytest.raises(CaptionInputError, match=match):
        load_coco_results(_write(tmp_path, "c.json", text))


def test_missing_file_and_id_type_hint(tmp_path):
    with pytest.raises(CaptionInputError, match="does not exist"):
        load_coco_results(tmp_path / "none.json")
    with pytest.raises(CaptionInputError, match="same type"):
        check_id_types({1: ["a"]}, {"1": "a"}, "r.json", "c.json")
