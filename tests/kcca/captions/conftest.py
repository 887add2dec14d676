"""Shared fixtures of the caption-metric tests."""

import json

import pytest


@pytest.fixture
def files(tmp_path):
    """A COCO references file and a candidates file of two images (4 references)."""
    refs = {"images": [{"id": 1}, {"id": 2}],
            "annotations": [{"image_id": 1, "id": 1, "caption": "A dog runs on the grass."},
                            {"image_id": 1, "id": 2, "caption": "A brown dog is running."},
                            {"image_id": 2, "id": 3, "caption": "Two children play soccer."},
                            {"image_id": 2, "id": 4, "caption": "Kids kick a ball."}]}
    cands = [{"image_id": 1, "caption": "A dog running on grass."},
             {"image_id": 2, "caption": "Children playing with a ball."}]
    r, c = tmp_path / "refs.json", tmp_path / "cands.json"
    r.write_text(json.dumps(refs))
    c.write_text(json.dumps(cands))
    return r, c
