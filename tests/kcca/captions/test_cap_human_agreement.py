"""Human agreement (Chen et al. 2015, Section 4): word-level weighted precision / recall
against a brute-force enumeration, the p/k model, PHR, leave-one-out metrics, the plot."""

import itertools
import random

import numpy as np
import pytest

from kcca.captions import evaluate_captions
from kcca.captions._human_agreement import (NOT_COMPARABLE, human_agreement_report,
                                           leave_one_out_metrics, model_precision,
                                           precision_at_human_recall, word_agreement)

CAPS = {1: ["dog runs", "dog sits", "cat sits"], 2: ["cat runs", "bird flies", "bird sits"]}


def test_hand_worked_word_counts():
    wa = word_agreement(CAPS, words=["dog"])
    # k = 1: held-out "dog runs" -> reference "dog sits" (tp 1) or "cat sits" (fp 1), each
    # with probability 1/2; the same for "dog sits": tp = fp = 1; cw = 0.5 + 0.5 + 1 = 2
    # k = 2: both held-out dog captions see one dog caption: tp 2, fp 0; cw = 1 + 1 + 2 = 4
    assert wa.ks == [1, 2]
    np.testing.assert_allclose(wa.tp[:, 0], [1, 2])
    np.testing.assert_allclose(wa.fp[:, 0], [1, 0])
    np.testing.assert_allclose(wa.cw[:, 0], [2, 4])
    np.testing.assert_allclose(wa.precision[:, 0], [0.5, 1.0])
    np.testing.assert_allclose(wa.recall[:, 0], [0.5, 0.5])


def _brute_force(captions, word, k):
    tp = fp = cw = 0.0
    for caps in captions.values():
        has = [word in c.split() for c in caps]
        for h in range(len(caps)):
            others = [j for j in range(len(caps)) if j != h]
            subsets = list(itertools.combinations(others, k))
            for sub in subsets:
                c = sum(has[j] for j in sub)
                cw += c / len(subsets)
                if has[h]:
                    if c:
                        tp += c / len(subsets)
                    else:
                        fp += 1 / len(subsets)
    return tp, fp, cw


def test_closed_form_equals_enumeration_over_reference_subsets():
    rng = random.Random(5)
    vocab = ["dog", "cat", "man", "ball", "red", "runs"]
    caps = {i: [" ".join(rng.sample(vocab, rng.randint(1, 4))) for _ in range(5)]
            for i in range(40)}
    wa = word_agreement(caps, words=vocab)
    for a, k in enumerate(wa.ks):
        for j, w in enumerate(vocab):
            np.testing.assert_allclose((wa.tp[a, j], wa.fp[a, j], wa.cw[a, j]),
                                       _brute_force(caps, w, k), rtol=1e-12, atol=1e-12)
    # recall does not depend on k (Chen et al.: H_r = p), precision grows with k
    r = wa.recall
    np.testing.assert_allclose(r, np.broadcast_to(r[0], r.shape))
    overall = wa.overall()
    assert overall[1][0] < overall[4][0]


def test_model_curve():
    assert model_precision(0.5, 4) == pytest.approx(2 / (2 + 0.5 ** 4))
    assert model_precision(0.3, 1) == pytest.approx(0.3)  # k = 1: precision = recall
    assert model_precision(1.0, 4) == pytest.approx(1.0)


def test_precision_at_human_recall():
    scores = [0.9, 0.8, 0.7, 0.1]
    positives = [2, 0, 1, 0]  # total weight 3
    # thresholds: (R, P) = (2/3, 1), (2/3, 2/3), (1, 3/4), (1, 3/5)
    assert precision_at_human_recall(scores, positives, 0.5) == pytest.approx(1.0)
    assert precision_at_human_recall(scores, positives, 0.9) == pytest.approx(0.75)
    with pytest.raises(ValueError):
        precision_at_human_recall([0.1], [0], 0.5)


def test_leave_one_out_equals_rotations():
    loo = leave_one_out_metrics(CAPS, ("rouge_l",))
    rot = [evaluate_captions({i: [c for n, c in enumerate(v) if n != j] for i, v in CAPS.items()},
                             {i: v[j] for i, v in CAPS.items()}, ("rouge_l",)).corpus["ROUGE-L"]
           for j in range(3)]
    assert loo["ROUGE-L"]["per_rotation"] == pytest.approx(rot)
    assert loo["ROUGE-L"]["mean"] == pytest.approx(np.mean(rot))


def test_leave_one_out_scores_with_the_metric_parameters_given(monkeypatch, tmp_path):
    """The METEOR engine chosen (kcca score-captions --human-agreement --meteor-engine) is
    the one that scores: the Java engine without Java is reported unavailable as such (the
    parameters were dropped and the default Python engine scored instead)."""
    monkeypatch.setenv("KCCA_JAVA", str(tmp_path / "no-java"))
    loo = leave_one_out_metrics(CAPS, ("rouge_l", "meteor"), {"meteor": {"engine": "java"}})
    assert "Java" in loo["METEOR"]["unavailable"]
    rep = human_agreement_report(CAPS, ("meteor",), metric_params={"meteor": {"engine": "java"}})
    assert "Java" in rep["leave_one_out"]["METEOR"]["unavailable"]


def test_report_says_not_comparable_and_plots(tmp_path):
    png = tmp_path / "ha.png"
    rep = human_agreement_report(CAPS, ("bleu", "rouge_l"), plot_path=str(png))
    assert "NOT comparable" in rep["note"] and rep["note"] == NOT_COMPARABLE
    assert "5" in NOT_COMPARABLE and "40" in NOT_COMPARABLE
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert set(rep["word_agreement"]["per_k_all_words"]) == {"1", "2"}
