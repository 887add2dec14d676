"""Keyword metrics and baselines (Mason & Charniak 2012), hand-worked."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from kcca.captions._keywords import (
    CorpusFrequency, KeywordInputError, KeywordScorer, TfIdf, TopKResult, central_caption,
    documents_from_kernel, documents_from_rankings, gold_from_annotators, leave_one_out,
    make_baselines, mode_diagnostic, random_documents, run_baselines, semeval_scores,
    sentence_extraction, term_frequency, topk_prf, unique_mode,
)

ANN = [["dog", "ball", "grass"], ["dog", "ball"], ["dog", "run"], ["dog", "grass"],
       ["puppy", "grass", "grass"]]  # the repeated "grass" counts once for its annotator


def test_gold_and_mode():
    g = gold_from_annotators(ANN)
    assert g == Counter(dog=4, grass=3, ball=2, run=1, puppy=1)
    assert unique_mode(g) == "dog"
    assert unique_mode(Counter(a=1, b=1)) is None
    with pytest.raises(KeywordInputError, match="'im'.*empty gold"):
        gold_from_annotators([[], []], "im")
    with pytest.raises(KeywordInputError, match="non-string"):
        gold_from_annotators([["dog", 3]], "im")


def test_semeval_hand_worked():
    gold = {"a": gold_from_annotators(ANN), "b": gold_from_annotators([["cat"], ["dog"]])}
    system = {"a": ["grass", "dog", "cat", "grass"], "b": []}
    r = semeval_scores(gold, system)
    # a: best = grass 3/11; oot = (3 + 4 + 0)/11 (duplicate grass ignored); mode dog not best
    assert r.best_normal == pytest.approx((3 / 11, 3 / 11 / 2))
    assert r.oot_normal == pytest.approx((7 / 11, 7 / 11 / 2))
    assert r.n_items == 2 and r.n_attempted == 1 and r.n_mode_items == 1  # b has no single mode
    assert r.best_mode == (0.0, 0.0) and r.oot_mode == (1.0, 1.0)
    assert mode_diagnostic(gold) == (2, 1, Counter(dog=1))


def test_topk_prf_and_mason_f1():
    gold = {"a": gold_from_annotators(ANN), "b": gold_from_annotators([["cat"], ["dog"]])}
    res = topk_prf(gold, {"a": ["grass", "dog", "cat"], "b": []})
    assert res.precision[0] == pytest.approx(2 / 3) and np.isnan(res.precision[1])
    assert res.recall == pytest.approx([2 / 5, 0.0])
    assert res.mean_precision == pytest.approx(2 / 3) and res.mean_recall == pytest.approx(0.2)
    assert res.f1 == pytest.approx(2 * (2 / 3) * 0.2 / (2 / 3 + 0.2))
    # Mason & Charniak Table 2, term frequency: P 13.13, R 27.84 -> F1 17.84
    t = TopKResult(["x"], np.array([0.1313]), np.array([0.2784]))
    assert round(100 * t.f1, 2) == 17.84
    assert topk_prf({"a": Counter(x=1)}, {"a": list("abcdefghijkx")}, k=10).recall[0] == 0.0
    corpus, per = KeywordScorer().compute_score({"a": ANN}, {"a": ["dog"]})
    assert corpus[:2] == [1.0, 0.2] and per.shape == (2, 1)


def test_input_errors():
    gold = {"a": Counter(dog=1)}
    with pytest.raises(KeywordInputError, match="'z'.*unknown image id"):
        topk_prf(gold, {"a": [], "z": ["x"]})
    with pytest.raises(KeywordInputError, match="'a' has no system entry"):
        semeval_scores(gold, {})
    with pytest.raises(KeywordInputError, match="list of keyword strings"):
        topk_prf(gold, {"a": "dog"})


def test_frequency_baselines():
    doc = [["dog", "run"], ["dog", "ball"], ["cat"]]
    assert term_frequency(doc) == ["dog", "ball", "cat", "run"]          # ties alphabetical
    assert term_frequency(doc, {"run": 5, "cat": 2}) == ["dog", "run", "cat", "ball"]
    train = [[["dog"], ["dog", "ball"]], [["cat"]], [["dog", "grass"]]]
    tfidf = TfIdf().fit(train)
    assert tfidf.idf("dog") == pytest.approx(math.log(3 / 2))
    assert tfidf.idf("unseen") == pytest.approx(math.log(3))
    # dog: 2/3 * ln 1.5 = 0.270 < ball: 1/3 * ln 3 = 0.366
    assert tfidf.rank([["dog", "dog", "ball"]]) == ["ball", "dog"]
    cf = CorpusFrequency().fit(t for d in train for t in d)
    assert cf.rank()[:2] == ["dog", "ball"] and cf.counts_["dog"] == 3


def test_sentence_extraction_kl():
    assert central_caption([["a", "b"], ["a", "b"], ["z"]]) == 0           # tie: first
    doc = [["a"], ["a", "b"], ["c"]]
    # P_doc = (a 1/2, b 1/4, c 1/4); the caption covering a and b is nearest
    kl = []
    for cap in doc:
        c, denom = Counter(cap), len(cap) + 0.01 * 3
        kl.append(sum(p * math.log(p / ((c[w] + 0.01) / denom))
                      for w, p in {"a": .5, "b": .25, "c": .25}.items()))
    assert int(np.argmin(kl)) == 1 == central_caption(doc)
    assert sentence_extraction(doc) == ["a", "b"]
    with pytest.raises(KeywordInputError, match="no keywords"):
        central_caption([[], []])


def test_documents():
    caps = {"t1": [["x"]], "t2": [["y"], ["y2"]], "t3": [["z"]]}
    docs = documents_from_kernel(np.array([[0.1, 0.9, 0.5]]), ["q"], ["t1", "t2", "t3"], caps, 2)
    assert docs == {"q": [["y"], ["y2"], ["z"]]}
    with pytest.raises(KeywordInputError, match="'t1' is both a query"):
        documents_from_kernel(np.zeros((1, 1)), ["t1"], ["t1"], caps)
    with pytest.raises(KeywordInputError, match="shape"):
        documents_from_kernel(np.zeros((2, 3)), ["q"], ["t1", "t2", "t3"], caps)
    toks = {"c1": ["a"], "c2": ["b"], "q#0": ["own"]}
    d = documents_from_rankings({"q": ["q#0", "c2", "c1"]}, toks, top_n=1,
                                exclude=lambda i, c: c.startswith(i))
    assert d == {"q": [["b"]]}
    r1 = random_documents(["q"], ["t1", "t2", "t3"], caps, 2, seed=3)
    assert r1 == random_documents(["q"], ["t1", "t2", "t3"], caps, 2, seed=3)
    assert len(r1["q"]) in (2, 3)


def test_leave_one_out_hand_worked():
    caps = {"i": [["a", "b"], ["a"], ["a", "c"]]}
    res, skipped = leave_one_out(caps, {"tf": term_frequency})
    # held out 0: doc -> [a, c] vs {a, b}: P 1/2 R 1/2; 1: [a, b, c] vs {a}: P 1/3 R 1;
    # 2: [a, b] vs {a, c}: P 1/2 R 1/2
    t = res["tf"].topk
    assert skipped == 0
    assert t.mean_precision == pytest.approx(4 / 9) and t.mean_recall == pytest.approx(2 / 3)
    # best guess 'a' every time: credit 1/|R| = 1/2, 1/1, 1/2
    assert res["tf"].semeval.best_normal[0] == pytest.approx(2 / 3)
    with pytest.raises(KeywordInputError, match="at least 2"):
        leave_one_out({"i": [["a"]]}, {"tf": term_frequency})


def test_run_baselines_small():
    train = [[["dog", "ball"], ["dog"]], [["cat", "sofa"]]]
    bl = make_baselines(train)
    assert set(bl) == {"term frequency", "tf*idf", "corpus frequency", "sentence extraction"}
    gold = {"q": gold_from_annotators([["dog"], ["dog", "ball"]])}
    res = run_baselines(gold, {"q": train[0]}, bl)
    assert res["term frequency"].topk.recall[0] == 1.0
    assert res["corpus frequency"].semeval.best_mode == (1.0, 1.0)
    with pytest.raises(KeywordInputError, match="'q' has no document"):
        run_baselines(gold, {}, bl)


@pytest.mark.real_data
def test_flickr8k_leave_one_out_subset(flickr8k):
    from features.text._pipeline import CaptionPreprocessor

    pre = CaptionPreprocessor.paper_flickr8k()
    train_ids = flickr8k.split("train")[:300]
    test_ids = flickr8k.split("test")[:50]
    pre.fit([c for i in train_ids for c in flickr8k.lemmas[i]])
    tok = {i: pre.transform(list(flickr8k.lemmas[i])) for i in (*train_ids, *test_ids)}
    bl = make_baselines([tok[i] for i in train_ids])
    res, _ = leave_one_out({i: tok[i] for i in test_ids}, bl)
    tf = res["term frequency"].topk
    assert len(tf.image_ids) >= 245 and 0.1 < tf.mean_recall < 1.0
    assert res["term frequency"].topk.f1 > res["corpus frequency"].topk.f1
