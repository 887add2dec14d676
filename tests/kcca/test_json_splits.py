"""The generic JSON split-format loader (Flickr 30K / COCO style)."""

import json

import cv2
import numpy as np
import pytest

from kcca.data import load_corpus
from kcca.data._errors import DataError
from kcca.data._json_splits import load_json_splits


def _doc(n=6):
    splits = ["train", "train", "restval", "val", "test", "test"]
    return {"dataset": "toy", "images": [
        {"filename": f"{k}.jpg", "split": splits[k % 6],
         "sentences": [{"raw": f"caption {j} of {k}", "tokens": ["caption", str(j)]}
                       for j in range(5)]} for k in range(n)]}


def _write(tmp_path, doc):
    p = tmp_path / "dataset_toy.json"
    p.write_text(json.dumps(doc))
    return p


def test_loads_splits_and_pools(tmp_path):
    c = load_json_splits(_write(tmp_path, _doc()))
    assert c.name == "toy"
    assert c.split("train") == ("0.jpg", "1.jpg", "2.jpg")  # restval joins train
    assert c.split("dev") == ("3.jpg",)
    assert c.pool("test")[0] == ("4.jpg", "4.jpg#2", "caption 2 of 4")
    assert load_corpus(str(_write(tmp_path, _doc()))).summary()["captions"] == 30


def test_tokens_used_when_raw_missing_and_filepath_prefix(tmp_path):
    doc = _doc()
    for s in doc["images"][0]["sentences"]:
        del s["raw"]
    doc["images"][1]["filepath"] = "val2014"
    c = load_json_splits(_write(tmp_path, doc))
    assert c.captions["0.jpg"][1] == "caption 1"
    assert "val2014/1.jpg" in c.captions


def test_images_checked_and_read(tmp_path):
    doc = _doc()
    doc["images"][0]["filepath"] = "sub"
    (tmp_path / "img" / "sub").mkdir(parents=True)
    for item in doc["images"]:
        folder = tmp_path / "img" / item.get("filepath", "")
        cv2.imwrite(str(folder / item["filename"]), np.zeros((5, 7, 3), np.uint8))
    c = load_json_splits(_write(tmp_path, doc), tmp_path / "img")
    assert c.load_image("sub/0.jpg").shape == (5, 7, 3)
    (tmp_path / "img" / "5.jpg").unlink()
    with pytest.raises(DataError, match=r"missing .*5\.jpg"):
        load_json_splits(_write(tmp_path, doc), tmp_path / "img")


@pytest.mark.parametrize("mutate,expected", [
    (lambda d: d["images"][2].update(split="holdout"),
     r"images\[2\] \(2\.jpg\): unknown split 'holdout'"),
    (lambda d: d["images"][1].update(filename="0.jpg"), r"images\[1\] \(0\.jpg\): duplicate image"),
    (lambda d: d["images"][3]["sentences"][4].update(raw="  "),
     r"images\[3\] \(3\.jpg\) sentence 4: empty caption"),
    (lambda d: d["images"][0].update(sentences=[]),
     r"images\[0\] \(0\.jpg\): needs a non-empty 'sentences'"),
    (lambda d: d["images"][0].pop("filename"), r"images\[0\]: needs a 'filename'"),
])
def test_bad_items_named(tmp_path, mutate, expected):
    doc = _doc()
    mutate(doc)
    with pytest.raises(DataError, match=expected):
        load_json_splits(_write(tmp_path, doc))


def test_invalid_json(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text('{"images": [ {"filename": "a.jpg",, } ]}')
    with pytest.raises(DataError, match=r"bad\.json:1: not valid JSON: .* at line 1 column"):
        load_json_splits(p)
