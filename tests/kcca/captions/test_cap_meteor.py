"""METEOR: clear messages when the jar (either engine) or Java (the Java engine) is missing,
and the Java engine's parity with the fixture (pycocoevalcap's Meteor) when Java and the jar
are present (slow: the JVM loads the paraphrase table). The Python engine is tested in
test_cap_meteor_engine.py."""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from kcca.captions import Meteor, MeteorUnavailable, evaluate_captions, meteor_available
from tests.support.optional_tools import skip_unless

FIXTURE = Path(__file__).parent / "data" / "coco_parity_flickr8k_test.json.gz"


def test_missing_jar_gives_a_clear_message_and_no_fake_meteor(monkeypatch, tmp_path):
    monkeypatch.setenv("KCCA_METEOR_JAR", str(tmp_path / "nope.jar"))
    ok, why = meteor_available()
    assert not ok and "pycocoevalcap" in why and "nope.jar" in why
    with pytest.raises(MeteorUnavailable, match="Java|jar"):
        Meteor().compute_score({1: ["a b"]}, {1: "a b"})
    ev = evaluate_captions({1: ["a dog runs"]}, {1: "a dog"}, ("bleu", "meteor"))
    assert "METEOR" not in ev.corpus and "meteor" in ev.unavailable
    assert "n/a" in ev.table()


def test_missing_java_only_stops_the_java_engine(monkeypatch):
    monkeypatch.setenv("KCCA_JAVA", "/nonexistent/java")
    ok, why = meteor_available("java")
    assert not ok and "Java" in why
    # the default (Python) engine needs the jar's files only
    assert meteor_available() == meteor_available("python")
    assert "Java" not in meteor_available("python")[1]


@pytest.mark.slow
def test_meteor_parity_when_java_is_present():
    ok, why = meteor_available("java")
    skip_unless(ok, why)
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        fx = json.load(f)
    n = 30  # per-segment scores do not depend on the other items
    ids = fx["image_ids"][:n]
    refs = dict(zip(ids, fx["references_tokenized"][:n]))
    cands = dict(zip(ids, fx["candidates_tokenized"][:n]))
    corpus, per_item = Meteor(engine="java").compute_score(refs, cands)
    np.testing.assert_allclose(per_item, fx["per_item"]["METEOR"][:n], atol=1e-6)
    assert 0 < corpus < 1
