"""Parity with pycocoevalcap 1.2 on Flickr 8K test images (candidate #0, references #1-#4).

The fixture (``data/coco_parity_flickr8k_test.json.gz``, made once by
``scripts/make_coco_parity_fixture.py`` with pycocoevalcap 1.2 and Java) holds the
tokenised inputs and pycocoevalcap's corpus and per-item scores; the metric part needs
neither Java nor pycocoevalcap. The tokeniser part compares our tokens of the raw captions
(read from the real data, skipped when absent) with the Java tokeniser's tokens in the
fixture; ``test_cap_tokenizer_java.py`` runs the Java tokeniser itself on all Flickr 8K and
Flickr-ST texts, stress strings and every BMP character.
"""

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from kcca.captions import Bleu, CiderD, RougeL, evaluate_captions
from kcca.captions._tokenizer import tokenize

FIXTURE = Path(__file__).parent / "data" / "coco_parity_flickr8k_test.json.gz"
TOL = 1e-6

@pytest.fixture(scope="module")
def fixture():
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        return json.load(f)


def test_fixture_is_small_and_pinned(fixture):
    assert FIXTURE.stat().st_size < 1_000_000
    assert fixture["pycocoevalcap_version"] == "1.2"
    assert len(fixture["image_ids"]) == 1000


def _inputs(fx):
    refs = dict(zip(fx["image_ids"], fx["references_tokenized"]))
    cands = dict(zip(fx["image_ids"], fx["candidates_tokenized"]))
    return refs, cands


@pytest.mark.parametrize("scorer", [Bleu(4), RougeL(), CiderD()], ids=lambda s: s.name)
def test_metric_parity_on_pycocoevalcap_tokens(fixture, scorer):
    refs, cands = _inputs(fixture)
    corpus, per_item = scorer.compute_score(refs, cands)
    corpus = np.atleast_1d(corpus)
    per_item = np.atleast_2d(per_item)
    for k, label in enumerate(scorer.labels):
        assert abs(corpus[k] - fixture["corpus"][label]) <= TOL, label
        diff = np.abs(per_item[k] - np.array(fixture["per_item"][label]))
        assert diff.max() <= TOL, (label, int(diff.argmax()))


def test_evaluate_captions_on_pretokenised_input(fixture):
    refs, cands = _inputs(fixture)
    ev = evaluate_captions(refs, cands, ("bleu", "rouge_l", "cider_d"), tokenize=False)
    for label in ("BLEU-1", "BLEU-4", "ROUGE-L", "CIDEr-D"):
        assert abs(ev.corpus[label] - fixture["corpus"][label]) <= TOL
        assert np.abs(ev.per_item[label] - fixture["per_item"][label]).max() <= TOL


@pytest.mark.real_data
def test_tokeniser_matches_java_on_flickr8k_test_captions(fixture, flickr8k):
    ids = fixture["image_ids"]
    mismatches = []
    for iid, cand, refs in zip(ids, fixture["candidates_tokenized"],
                               fixture["references_tokenized"]):
        raw = flickr8k.captions[iid]
        for n, java in zip(range(5), [cand] + refs):
            if tokenize(raw[n]) != java.split():
                mismatches.append((f"{iid}#{n}", raw[n], java))
    assert not mismatches, mismatches[:5]


@pytest.mark.real_data
def test_end_to_end_from_raw_text_equals_pycocoevalcap(fixture, flickr8k):
    ids = fixture["image_ids"]
    refs = {i: list(flickr8k.captions[i][1:5]) for i in ids}
    cands = {i: flickr8k.captions[i][0] for i in ids}
    ev = evaluate_captions(refs, cands, ("bleu", "rouge_l", "cider_d"))
    for label in ("BLEU-1", "BLEU-2", "BLEU-3", "BLEU-4", "ROUGE-L", "CIDEr-D"):
        assert abs(ev.corpus[label] - fixture["corpus"][label]) <= TOL


def test_per_item_scores_feed_the_paired_randomisation_test(fixture):
    """Two "systems" on the same images: caption #0 (the fixture's candidate) vs reference #1
    scored against the rest; the per-item arrays pair up image by image."""
    stats = pytest.importorskip("kcca._evaluate.statistics")
    ids = fixture["image_ids"][:200]
    refs0 = {i: r for i, r in zip(ids, fixture["references_tokenized"])}
    cands0 = {i: c for i, c in zip(ids, fixture["candidates_tokenized"])}
    refs1 = {i: [cands0[i]] + refs0[i][1:] for i in ids}
    cands1 = {i: refs0[i][0] for i in ids}
    a = CiderD().compute_score(refs0, cands0)[1]
    b = CiderD().compute_score(refs1, cands1)[1]
    res = stats.randomization_test(a, b, n_samples=2000, seed=0)
    assert res.observed == pytest.approx(a.mean() - b.mean())
    assert 0 < res.p_value <= 1
