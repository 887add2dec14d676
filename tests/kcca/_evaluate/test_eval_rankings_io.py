"""The rankings file: round trip and errors naming query and id."""

import json

import numpy as np
import pytest

from kcca.data._errors import DataError
from kcca._evaluate.rankings_io import read_rankings, write_rankings

POOL = [(f"i{k}.jpg", f"i{k}.jpg#2", f"caption {k}") for k in range(3)]


def _doc(tmp_path):
    ann = np.array([[0, 1, 2], [2, 1, 0], [1, 0, 2]])
    search = np.array([[2, 0, 1], [0, 1, 2], [1, 2, 0]])
    p = write_rankings(tmp_path / "doc.json", POOL, {"annotation": ann, "search": search},
                       system="toy")
    return ann, search, json.loads(p.read_text())


def test_round_trip(tmp_path):
    ann, search, _ = _doc(tmp_path)
    p = write_rankings(tmp_path / "r.json", POOL, {"annotation": ann, "search": search},
                       system="toy")
    r = read_rankings(p, POOL)
    assert r.system == "toy"
    assert np.array_equal(r.tasks["annotation"], ann)
    assert np.array_equal(r.tasks["search"], search)


def test_indices_and_own_candidate_order(tmp_path):
    doc = {"format": "kcca-rankings", "version": 1, "tasks": {"annotation": {
        "candidates": ["i2.jpg#2", "i0.jpg#2", "i1.jpg#2"],
        "rankings": {"i1.jpg": [0, 1, 2], "i0.jpg": ["i0.jpg#2", 2, 0], "i2.jpg": [2, 1, 0]}}}}
    p = tmp_path / "r.json"
    p.write_text(json.dumps(doc))
    r = read_rankings(p, POOL).tasks["annotation"]
    # rows in pool order; entries are pool caption indices
    assert r.tolist() == [[0, 1, 2], [2, 0, 1], [1, 0, 2]]


def _write(tmp_path, mutate):
    _, _, doc = _doc(tmp_path)
    mutate(doc)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(doc))
    return p


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d["tasks"]["annotation"]["rankings"].pop("i1.jpg"),
     "annotation query 'i1.jpg' has no ranking"),
    (lambda d: d["tasks"]["search"]["rankings"]["i0.jpg#2"].__setitem__(1, "i2.jpg"),
     "search query 'i0.jpg#2', position 2: candidate 'i2.jpg' appears twice"),
    (lambda d: d["tasks"]["annotation"]["rankings"]["i2.jpg"].__setitem__(0, 7),
     "annotation query 'i2.jpg', position 1: candidate index 7 is outside 0..2"),
    (lambda d: d["tasks"]["annotation"]["rankings"]["i2.jpg"].__setitem__(0, "zz.jpg#2"),
     "annotation query 'i2.jpg', position 1: candidate 'zz.jpg#2' is not in the pool"),
    (lambda d: d["tasks"]["annotation"]["rankings"].__setitem__("q.jpg", [0, 1, 2]),
     "annotation query 'q.jpg' is not in the pool"),
    (lambda d: d["tasks"]["annotation"]["rankings"]["i0.jpg"].pop(),
     "annotation query 'i0.jpg': ranking has 2 of 3 candidates; 'i2.jpg#2'"),
    (lambda d: d.__setitem__("version", 9), "unsupported rankings version 9"),
    (lambda d: d["tasks"].__setitem__("retrieval", {}), "unknown task 'retrieval'"),
])
def test_errors_name_query_and_id(tmp_path, mutate, message):
    with pytest.raises(DataError, match=message.replace("(", r"\(")):
        read_rankings(_write(tmp_path, mutate), POOL)


def test_duplicate_json_key_and_bad_json(tmp_path):
    p = tmp_path / "dup.json"
    p.write_text('{"format": "kcca-rankings", "version": 1, "tasks": {"annotation": '
                 '{"rankings": {"i0.jpg": [0, 1, 2], "i0.jpg": [0, 1, 2]}}}}')
    with pytest.raises(DataError, match="duplicate JSON key 'i0.jpg'"):
        read_rankings(p, POOL)
    q = tmp_path / "broken.json"
    q.write_text('{\n"format": ')
    with pytest.raises(DataError, match="broken.json:2: not valid JSON"):
        read_rankings(q, POOL)
