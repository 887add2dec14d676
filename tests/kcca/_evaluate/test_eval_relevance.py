"""Crowd relevance rules and the relevance matrix (Section 4.3.2)."""

from fractions import Fraction

import numpy as np
import pytest

from kcca.data._corpus import CrowdJudgment
from kcca.data._errors import DataError
from kcca._evaluate.relevance import PRESETS, RelevanceRule, get_rule, relevance_matrix


def test_rules_on_vote_counts():
    paper, two, maj = PRESETS["paper"], PRESETS["two-thirds"], PRESETS["majority"]
    # (yes, no): 2 of 4 = 1/2; 2 of 3 = 2/3; 3 of 5 = 0.6; 1 of 3
    yes = np.array([2, 2, 3, 1, 0, 3])
    no = np.array([2, 1, 2, 2, 3, 0])
    assert paper.relevant(yes, no).tolist() == [True, True, True, False, False, True]
    assert two.relevant(yes, no).tolist() == [False, True, False, False, False, True]
    assert maj.relevant(yes, no).tolist() == [False, True, True, False, False, True]
    assert paper.relevant(1, 1) is True


def test_rule_errors():
    with pytest.raises(DataError, match="unknown relevance rule 'half'"):
        get_rule("half")
    with pytest.raises(DataError, match="outside"):
        RelevanceRule("x", Fraction(3, 2))
    with pytest.raises(DataError, match="at least one vote"):
        PRESETS["paper"].relevant(0, 0)


def _pool(n):
    return [(f"i{k}.jpg", f"i{k}.jpg#2", f"caption {k}") for k in range(n)]


def test_matrix_originals_unjudged_and_histograms():
    pool = _pool(4)
    crowd = {
        ("i0.jpg", "i1.jpg#2"): CrowdJudgment("i0.jpg", "i1.jpg#2", 2 / 3, 2, 1),
        ("i0.jpg", "i2.jpg#2"): CrowdJudgment("i0.jpg", "i2.jpg#2", 0.5, 2, 2),
        ("i0.jpg", "i3.jpg#2"): CrowdJudgment("i0.jpg", "i3.jpg#2", 0.0, 0, 3),
        ("i1.jpg", "i1.jpg#2"): CrowdJudgment("i1.jpg", "i1.jpg#2", 0.0, 0, 3),  # rejected
        ("x.jpg", "i1.jpg#2"): CrowdJudgment("x.jpg", "i1.jpg#2", 1.0, 3, 0),    # other pool
    }
    m = relevance_matrix(pool, crowd, "paper")
    assert m.relevant[0].tolist() == [True, True, True, False]
    assert m.relevant[1, 1]  # originals always relevant, whatever the crowd said
    assert m.judged[0].tolist() == [True, True, True, True]
    assert not m.judged[2, 0]  # unjudged
    assert m.n_added == 2 and m.n_outside_pool == 1 and m.n_judged_pairs == 4
    assert m.count_histogram("annotation") == [3, 0, 1, 0]  # image 0 has 3 relevant captions
    # search: caption 1 relevant to images 0 and 1, caption 2 to images 0 and 2
    assert m.count_histogram("search") == [2, 2, 0, 0]
    assert relevance_matrix(pool, crowd, "two-thirds").n_added == 1
    rel_s, _ = m.for_task("search")
    assert np.array_equal(rel_s, m.relevant.T)
    with pytest.raises(DataError, match="unknown task"):
        m.for_task("retrieval")


@pytest.mark.real_data
def test_paper_counts_from_released_file(flickr8k):
    from kcca._evaluate.relevance import corpus_relevance

    expected = {
        "paper": (2031, [446, 202, 100, 252], [331, 228, 124, 317]),
        "two-thirds": (1996, [451, 201, 101, 247], [334, 230, 129, 307]),
        "majority": (2004, None, None),
    }
    for rule, (added, captions, images) in expected.items():
        m = corpus_relevance(flickr8k, "test", rule)
        assert m.n_added == added
        if captions:
            assert m.count_histogram("search") == captions
            assert m.count_histogram("annotation") == images
