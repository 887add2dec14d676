"""The all-captions retrieval protocol (kcca._evaluate.retrieval_protocol): a hand-worked pool,
ties, folds, errors, and bit-for-bit agreement with SCAN's / VSE++'s evaluation loops
(tests/support/retrieval_oracles.py)."""

from __future__ import annotations

import numpy as np
import pytest

from kcca.errors import DataError, UnknownNameError
from kcca._evaluate.retrieval_protocol import (
    DirectionMetrics,
    annotation_ranks,
    direction_metrics,
    fold_slices,
    metrics_over_folds,
    protocol_name,
    retrieval_protocol,
    search_ranks,
    standard_caption_images,
)
from tests.support.retrieval_oracles import gold_last_ranks, scan_evalrank

# Three images, two captions each: caption c belongs to image c // 2.
#
#            c0    c1    c2    c3    c4    c5
HAND = np.array(
    [
        [0.90, 0.10, 0.80, 0.30, 0.20, 0.00],  # image 0, own captions c0 c1
        [0.85, 0.40, 0.70, 0.60, 0.80, 0.20],  # image 1, own captions c2 c3
        [0.70, 0.60, 0.50, 0.40, 0.30, 0.25],  # image 2, own captions c4 c5
    ]
)
# Annotation (each row sorted, best rank of the image's own captions):
#   image 0: c0 .90 first                               -> rank 1
#   image 1: c0 .85, c4 .80, c2 .70                      -> rank 3
#   image 2: c0 .70, c1 .60, c2 .50, c3 .40, c4 .30      -> rank 5
#   R@1 = 1/3 = 33.33..%, R@5 = R@10 = 100%; 0-based ranks 0 2 4: median 2 -> 2 + 1 = 3;
#   mean (0 + 2 + 4) / 3 + 1 = 3.
# Search (each column sorted, rank of the caption's image):
#   c0 (image 0): .90 .85 .70 -> 1     c1 (image 0): .60 (i2) .40 (i1) .10 (i0) -> 3
#   c2 (image 1): .80 (i0) .70 (i1)  -> 2     c3 (image 1): .60 (i1) first -> 1
#   c4 (image 2): .80 (i1) .30 (i2)  -> 2     c5 (image 2): .25 (i2) first -> 1
#   R@1 = 3/6 = 50%, R@5 = R@10 = 100%; 0-based ranks 0 2 1 0 1 0: median of 0 0 0 1 1 2 is
#   0.5 -> floor 0 + 1 = 1 (the mean of the 1-based middle ranks would be 1.5);
#   mean 4/6 + 1 = 1.666..
# rsum = 33.33.. + 100 + 100 + 50 + 100 + 100 = 483.33..
HAND_ANNOTATION = [1, 3, 5]
HAND_SEARCH = [1, 3, 2, 1, 2, 1]


def test_hand_worked_ranks():
    np.testing.assert_array_equal(annotation_ranks(HAND, captions_per_image=2), HAND_ANNOTATION)
    np.testing.assert_array_equal(search_ranks(HAND.T, captions_per_image=2), HAND_SEARCH)


def test_hand_worked_metrics():
    r = retrieval_protocol(HAND, captions_per_image=2)
    assert r.annotation == DirectionMetrics(100 / 3, 100.0, 100.0, 3.0, 3.0)
    assert r.search == DirectionMetrics(50.0, 100.0, 100.0, 1.0, pytest.approx(5 / 3))
    assert r.rsum == pytest.approx(100 / 3 + 450)
    assert (r.n_images, r.n_captions, r.n_folds) == (3, 6, 1)
    assert r.protocol == "all-captions 3 images"
    assert r.as_dict()["search"]["r1"] == 50.0


def test_caption_images_in_any_order_equal_the_standard_layout():
    """Columns shuffled with their image indices give the same figures (no ties here)."""
    perm = np.array([5, 2, 0, 4, 1, 3])
    shuffled = retrieval_protocol(HAND[:, perm], standard_caption_images(3, 2)[perm])
    assert shuffled == retrieval_protocol(HAND, captions_per_image=2)


def test_images_with_different_numbers_of_captions():
    """caption_images need not give each image the same count: image 0 keeps c0 only."""
    g = np.array([0, 1, 1, 2, 2])
    s = HAND[:, [0, 2, 3, 4, 5]]
    np.testing.assert_array_equal(annotation_ranks(s, g), [1, 3, 4])
    np.testing.assert_array_equal(search_ranks(s.T, g), [1, 2, 1, 2, 1])


def test_search_similarity_need_not_be_the_transpose():
    """A per-task score (e.g. Borda) for search: its own (n_captions, n_images) matrix."""
    search = -HAND.T  # reversed order: every caption's image moves to the other end
    r = retrieval_protocol(HAND, captions_per_image=2, search_similarity=search)
    np.testing.assert_array_equal(search_ranks(search, captions_per_image=2), [3, 1, 2, 3, 2, 3])
    assert r.annotation == retrieval_protocol(HAND, captions_per_image=2).annotation
    assert r.search == direction_metrics(np.array([3, 1, 2, 3, 2, 3]))


# --------------------------------------------------------------------------- ties


def test_ties_reversed_argsort_puts_the_higher_index_first():
    """All scores equal: the order is c3 c2 c1 c0 (captions), i1 i0 (images), as
    ``np.argsort(scores, kind="stable")[::-1]``."""
    s = np.zeros((2, 4))
    np.testing.assert_array_equal(annotation_ranks(s, captions_per_image=2), [3, 1])
    np.testing.assert_array_equal(search_ranks(s.T, captions_per_image=2), [2, 2, 1, 1])
    assert np.argsort(np.zeros(4), kind="stable")[::-1].tolist() == [3, 2, 1, 0]


def test_ties_gold_last_never_favour_the_gold_item():
    s = np.zeros((2, 4))
    np.testing.assert_array_equal(
        annotation_ranks(s, captions_per_image=2, ties="gold-last"), [3, 3]
    )
    np.testing.assert_array_equal(
        search_ranks(s.T, captions_per_image=2, ties="gold-last"), [2, 2, 2, 2]
    )
    assert retrieval_protocol(s, captions_per_image=2, ties="gold-last").ties == "gold-last"


def test_ties_within_an_images_own_captions():
    """Image 0's captions c0, c1 tie with c2 at the top: under reversed-argsort c2 then c1
    lead (rank 2); gold-last puts c2 first (rank 2 as well); a tie among own captions only
    costs nothing."""
    s = np.array([[0.5, 0.5, 0.5, 0.1], [0.0, 0.0, 0.9, 0.9]])
    np.testing.assert_array_equal(annotation_ranks(s, captions_per_image=2), [2, 1])
    np.testing.assert_array_equal(
        annotation_ranks(s, captions_per_image=2, ties="gold-last"), [2, 1]
    )
    s2 = np.array([[0.5, 0.5, 0.1, 0.1], [0.0, 0.0, 0.9, 0.9]])
    np.testing.assert_array_equal(annotation_ranks(s2, captions_per_image=2), [1, 1])
    np.testing.assert_array_equal(
        annotation_ranks(s2, captions_per_image=2, ties="gold-last"), [1, 1]
    )


@pytest.mark.parametrize("seed", range(4))
def test_gold_last_equals_a_plain_sort(seed):
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 3, size=(12, 60)).astype(np.float32)
    g = standard_caption_images(12)
    own = [set(np.flatnonzero(g == i)) for i in range(12)]
    np.testing.assert_array_equal(annotation_ranks(s, ties="gold-last"), gold_last_ranks(s, own))
    np.testing.assert_array_equal(
        search_ranks(s.T, ties="gold-last"), gold_last_ranks(s.T, [{int(i)} for i in g])
    )


# --------------------------------------------------------------------------- folds


def test_folds_average_each_folds_own_pool():
    rng = np.random.default_rng(7)
    s = rng.standard_normal((20, 100))
    r = retrieval_protocol(s, n_folds=4)
    parts = [retrieval_protocol(s[i * 5 : (i + 1) * 5, i * 25 : (i + 1) * 25]) for i in range(4)]
    assert r.annotation.r1 == pytest.approx(np.mean([p.annotation.r1 for p in parts]))
    assert r.search.median_rank == pytest.approx(np.mean([p.search.median_rank for p in parts]))
    assert r.rsum == pytest.approx(np.mean([p.rsum for p in parts]))
    assert r.protocol == "all-captions 5 images (mean of 4 folds)"
    assert (r.n_images, r.n_captions, r.n_folds) == (20, 100, 4)


def test_folds_ignore_scores_across_folds():
    """Only each fold's diagonal block counts: scores between folds change nothing."""
    rng = np.random.default_rng(8)
    s = rng.standard_normal((10, 50))
    t = s.copy()
    t[:5, 25:] = 99.0
    t[5:, :25] = 99.0
    assert retrieval_protocol(s, n_folds=2) == retrieval_protocol(t, n_folds=2)


def test_one_fold_is_the_whole_pool_and_names():
    assert fold_slices(5000, 5)[1] == slice(1000, 2000)
    assert protocol_name(1000, 5) == "all-captions 1K (mean of 5 folds)"
    assert protocol_name(5000) == "all-captions 5K"
    assert protocol_name(1000) == "all-captions 1K"


def test_metrics_over_folds_matches_the_protocol():
    s = np.random.default_rng(9).standard_normal((10, 50))
    folds = [
        (annotation_ranks(s[:5, :25]), search_ranks(s[:5, :25].T)),
        (annotation_ranks(s[5:, 25:]), search_ranks(s[5:, 25:].T)),
    ]
    assert metrics_over_folds(folds, n_images=10, n_captions=50) == retrieval_protocol(s, n_folds=2)


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: retrieval_protocol(np.zeros((3, 14))), "standard layout"),
        (lambda: retrieval_protocol(np.zeros((3, 15)), [0, 1]), "caption_images must be 15"),
        (lambda: retrieval_protocol(np.zeros((2, 3)), [0, 1, 2]), "outside 0..1"),
        (lambda: retrieval_protocol(np.zeros((3, 3)), [0, 0, 1]), "image 2 has no caption"),
        (lambda: retrieval_protocol(np.zeros((2, 2)), [0.0, 1.0]), "integer image indices"),
        (lambda: retrieval_protocol(np.zeros(10)), "2-d"),
        (lambda: retrieval_protocol(np.zeros((0, 0))), "non-empty"),
        (lambda: retrieval_protocol(np.array([["a"]])), "real numbers"),
        (lambda: retrieval_protocol(np.zeros((3, 15)), n_folds=2), "do not divide into 2"),
        (lambda: retrieval_protocol(np.zeros((3, 15)), n_folds=0), "positive integer"),
        (
            lambda: retrieval_protocol(np.zeros((2, 10)), search_similarity=np.zeros((2, 10))),
            "search_similarity must be (n_captions, n_images) = (10, 2)",
        ),
        (lambda: direction_metrics(np.array([0, 1])), "ranks >= 1"),
        (lambda: standard_caption_images(3, 0), "captions_per_image"),
    ],
)
def test_errors_name_the_problem(call, message):
    with pytest.raises(DataError) as exc:
        call()
    assert message in str(exc.value)
    assert exc.value.fix


def test_nan_scores_are_an_error_naming_the_cell():
    s = np.zeros((2, 10))
    s[1, 7] = np.nan
    with pytest.raises(DataError, match=r"similarity\[1, 7\] is NaN"):
        retrieval_protocol(s)
    with pytest.raises(DataError, match=r"search_similarity\[7, 1\] is NaN"):
        retrieval_protocol(np.zeros((2, 10)), search_similarity=s.T)


def test_unknown_tie_rule():
    with pytest.raises(UnknownNameError, match="did you mean 'gold-last'"):
        retrieval_protocol(np.zeros((2, 10)), ties="gold_last")


def test_infinite_scores_rank():
    s = np.zeros((2, 10))
    s[0, :5] = np.inf
    s[1, 5:] = -np.inf
    np.testing.assert_array_equal(annotation_ranks(s), [1, 6])


# --------------------------------------------------------------------------- oracle


def _as_oracle(r) -> dict:
    a, s = r.annotation, r.search
    return {
        "i2t": (a.r1, a.r5, a.r10, a.median_rank, a.mean_rank),
        "t2i": (s.r1, s.r5, s.r10, s.median_rank, s.mean_rank),
        "rsum": r.rsum,
    }


def _exactly(oracle: dict) -> dict:
    return {
        k: tuple(map(float, v)) if isinstance(v, tuple) else float(v) for k, v in oracle.items()
    }


def _matrices(n_images: int, seed: int):
    """Seeded (n, 5n) similarities: noise; noise with the own captions lifted (realistic
    recalls); few distinct values (many ties, own captions included); float32 and float64."""
    rng = np.random.default_rng(seed)
    own = standard_caption_images(n_images)[None, :] == np.arange(n_images)[:, None]
    noise = rng.standard_normal((n_images, 5 * n_images))
    yield "noise", noise
    yield "signal", (noise + 2.5 * own).astype(np.float32)
    yield "ties", rng.integers(0, 4, size=noise.shape).astype(np.float32)
    yield "ties-signal", np.round(noise + 2.0 * own)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_images, fold5", [(7, False), (30, False), (40, True), (60, True)])
def test_equals_scan_evaluation_to_the_last_bit(seed, n_images, fold5):
    for kind, sims in _matrices(n_images, seed):
        ours = retrieval_protocol(sims, n_folds=5 if fold5 else 1)
        assert _as_oracle(ours) == _exactly(scan_evalrank(sims, fold5)), kind


@pytest.mark.slow
def test_equals_scan_evaluation_on_coco_1k_five_folds():
    """The COCO 1K protocol at full size: 5,000 images x 25,000 captions, 5 folds."""
    rng = np.random.default_rng(2014)
    n = 5000
    sims = rng.standard_normal((n, 5 * n), dtype=np.float32)
    sims[np.repeat(np.arange(n), 5), np.arange(5 * n)] += 3.0
    sims = np.round(sims, 1)  # ties
    ours = retrieval_protocol(sims, n_folds=5)
    assert _as_oracle(ours) == _exactly(scan_evalrank(sims, fold5=True))
    assert ours.protocol == "all-captions 1K (mean of 5 folds)"
