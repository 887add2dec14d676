"""The all-captions retrieval protocol of the later literature: R@1/5/10, median and mean rank.

Hodosh et al. (2013, Section 4.1.1) rank a test pool holding one caption per image. The papers
that followed (Karpathy & Fei-Fei 2015; Kiros et al. 2014; Faghri et al. 2018, "VSE++") put
every test caption in the pool, five per image, and report:

* **image annotation** (image -> text, "i2t"): each image ranks all captions; its rank is the
  best (first) rank among its own captions;
* **image search** (text -> image, "t2i"): each caption ranks all images; its rank is the rank
  of its image;
* per direction R@1, R@5, R@10 (percent of queries ranked within k), the median and the mean
  rank (1-based), and ``rsum``, the sum of the six recalls.

Flickr 8K and 30K test on 1,000 images ("1K"). COCO reports "5K" (all 5,000 test images in one
pool) and "1K": the mean over five folds of 1,000 consecutive images each, every figure (the
median rank too) averaged over the folds.

Conventions, those of the public evaluation code (VSE++ ``evaluation.py``, kept by SCAN and
later work), so that the numbers compare with the literature's:

* **ties**: that code orders candidates with ``numpy.argsort(scores)[::-1]``. Its default sort
  is not stable, so its order among equal scores is left to NumPy (it differs across versions
  and CPUs); the stable reading of the same line, the default here
  (``ties="reversed-argsort"``), puts the candidate with the **higher index first** among equal
  scores. ``ties="gold-last"`` is the toolkit's own rule instead (a tie never favours the gold
  item, :mod:`kcca._evaluate.original`);
* **median rank** = ``floor(median(rank - 1)) + 1``: for an even number of queries the lower
  of the two middle ranks when they differ by one, not their mean (the toolkit's Tables 3 and
  11 take the mean, :func:`kcca._evaluate.original.median_rank`);
* **mean rank** = ``mean(rank - 1) + 1``; recalls ``100.0 * hits / n_queries``;
* with folds, each fold is a pool of its own, and the result is the column mean over the folds
  of (R@1, R@5, R@10, median, mean) per direction and of each fold's ``rsum``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from kcca.errors import DataError, unknown_name
from kcca._evaluate.index_arrays import checked_index_array

#: candidate order among equal scores (module docstring)
TIE_RULES = ("reversed-argsort", "gold-last")
#: the literature's recall cut-offs
RECALL_KS = (1, 5, 10)
#: captions per test image in the standard layout (Flickr 8K/30K, COCO's first five)
CAPTIONS_PER_IMAGE = 5
#: boolean cells a comparison may hold at once; larger pools are compared in row blocks
_BLOCK_CELLS = 1 << 24


@dataclass(frozen=True)
class DirectionMetrics:
    """One direction's figures: recalls in percent, median and mean rank (1-based)."""

    r1: float
    r5: float
    r10: float
    median_rank: float
    mean_rank: float


@dataclass(frozen=True)
class RetrievalProtocolResult:
    """Both directions of the all-captions protocol (module docstring).

    ``annotation`` is image -> text (i2t), ``search`` text -> image (t2i); ``rsum`` the sum of
    their six recalls (with folds, the mean of the folds' sums). ``n_images`` and
    ``n_captions`` count the test images and captions of all folds together; ``protocol``
    names the protocol, e.g. ``"all-captions 1K (mean of 5 folds)"``.
    """

    protocol: str
    annotation: DirectionMetrics
    search: DirectionMetrics
    rsum: float
    n_images: int
    n_captions: int
    n_folds: int
    ties: str

    def as_dict(self) -> dict:
        """Plain data (JSON-ready): the fields, each direction as a dict."""
        return asdict(self)


def protocol_name(n_images: int, n_folds: int = 1) -> str:
    """``"all-captions 1K"``, ``"all-captions 5K"``, ``"all-captions 1K (mean of 5 folds)"``:
    the literature's names of a pool of ``n_images`` (one fold) images."""
    size = f"{n_images // 1000}K" if n_images % 1000 == 0 else f"{n_images:,} images"
    folds = f" (mean of {n_folds} folds)" if n_folds > 1 else ""
    return f"all-captions {size}{folds}"


def standard_caption_images(
    n_images: int, captions_per_image: int = CAPTIONS_PER_IMAGE
) -> np.ndarray:
    """The image index of each caption when image ``i`` owns captions
    ``captions_per_image * i`` .. ``captions_per_image * (i + 1) - 1`` (the standard layout)."""
    if captions_per_image < 1:
        raise DataError(f"captions_per_image must be >= 1, got {captions_per_image}")
    return np.repeat(np.arange(n_images, dtype=np.int64), captions_per_image)


# --------------------------------------------------------------------------- checks


def _checked_scores(scores: object, what: str) -> np.ndarray:
    """``scores`` as a 2-d, non-empty, NaN-free real array (float dtype kept, others float64)."""
    s = np.asarray(scores)
    if s.dtype == bool or not (
        np.issubdtype(s.dtype, np.floating) or np.issubdtype(s.dtype, np.integer)
    ):
        raise DataError(
            f"{what} must hold real numbers, got dtype {s.dtype}",
            fix="pass the similarity scores as a float array",
        )
    if not np.issubdtype(s.dtype, np.floating):
        s = s.astype(np.float64)
    if s.ndim != 2 or 0 in s.shape:
        raise DataError(f"{what} must be a non-empty 2-d array, got shape {s.shape}")
    nan = np.isnan(s)
    if nan.any():
        r, c = map(int, np.argwhere(nan)[0])
        raise DataError(
            f"{what}[{r}, {c}] is NaN ({int(nan.sum())} NaN scores)",
            fix="a NaN score has no rank: fix the model or features that produced it",
        )
    return s


def _checked_caption_images(
    caption_images: Sequence[int] | np.ndarray | None,
    n_images: int,
    n_captions: int,
    captions_per_image: int,
) -> np.ndarray:
    """Each caption's image index, checked: in range, every image with a caption."""
    if caption_images is None:
        if n_captions != captions_per_image * n_images:
            raise DataError(
                f"{n_images} images and {n_captions} captions do not make the standard layout "
                f"of {captions_per_image} consecutive captions per image",
                fix="pass caption_images (the image index of each caption) or the "
                "captions_per_image of the pool",
            )
        return standard_caption_images(n_images, captions_per_image)
    g = checked_index_array(
        caption_images,
        n_captions,
        n_images,
        name="caption_images",
        meaning="integer image indices (one per column of the similarity matrix)",
        row="caption",
        index="image index",
    )
    lonely = np.flatnonzero(np.bincount(g, minlength=n_images) == 0)
    if lonely.size:
        raise DataError(
            f"image {int(lonely[0])} has no caption in the pool ({lonely.size} such images): "
            "its annotation rank is undefined",
            fix="leave images without captions out of the similarity matrix",
        )
    return g


def _checked_ties(ties: str) -> str:
    if ties not in TIE_RULES:
        raise unknown_name("tie rule", ties, TIE_RULES)
    return ties


def _row_blocks(n_rows: int, n_columns: int) -> list[slice]:
    step = max(1, _BLOCK_CELLS // max(1, n_columns))
    return [slice(a, min(a + step, n_rows)) for a in range(0, n_rows, step)]


# --------------------------------------------------------------------------- ranks


def _annotation_ranks(s: np.ndarray, g: np.ndarray, ties: str) -> np.ndarray:
    n_images, n_captions = s.shape
    own = s[g, np.arange(n_captions)]  # each caption's score for its own image
    best = np.full(n_images, -np.inf, dtype=s.dtype)
    np.maximum.at(best, g, own)
    at_best = own == best[g]  # captions reaching their image's best score
    ranks = np.empty(n_images, dtype=np.int64)
    if ties == "reversed-argsort":
        # the first of an image's captions in the order is its best-scoring one, the highest
        # index among equals; a candidate precedes it when (score, index) is larger
        first = np.full(n_images, -1, dtype=np.int64)
        np.maximum.at(first, g[at_best], np.flatnonzero(at_best))
        index = np.arange(n_captions)
        for rows in _row_blocks(n_images, n_captions):
            b, m = s[rows], best[rows, None]
            ahead = (b > m) | ((b == m) & (index > first[rows, None]))
            ranks[rows] = np.count_nonzero(ahead, axis=1)
    else:  # gold-last: every other caption with the best score goes ahead of the image's own
        own_at_best = np.bincount(g[at_best], minlength=n_images)
        for rows in _row_blocks(n_images, n_captions):
            ranks[rows] = np.count_nonzero(s[rows] >= best[rows, None], axis=1)
        ranks -= own_at_best
    return ranks + 1


def _search_ranks(t: np.ndarray, g: np.ndarray, ties: str) -> np.ndarray:
    n_captions, n_images = t.shape
    ranks = np.empty(n_captions, dtype=np.int64)
    index = np.arange(n_images)
    for rows in _row_blocks(n_captions, n_images):
        b, gold = t[rows], g[rows]
        own = b[np.arange(b.shape[0]), gold][:, None]
        if ties == "reversed-argsort":
            ahead = (b > own) | ((b == own) & (index > gold[:, None]))
            ranks[rows] = np.count_nonzero(ahead, axis=1)
        else:  # gold-last
            ranks[rows] = np.count_nonzero(b >= own, axis=1) - 1
    return ranks + 1


def annotation_ranks(
    similarity: np.ndarray,
    caption_images: Sequence[int] | np.ndarray | None = None,
    *,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
    ties: str = "reversed-argsort",
) -> np.ndarray:
    """Image annotation (i2t): per image, the 1-based best rank among its own captions.

    ``similarity`` is ``(n_images, n_captions)``, higher is better; ``caption_images[c]`` the
    image of caption ``c`` (default: ``captions_per_image`` consecutive captions per image).
    """
    s = _checked_scores(similarity, "similarity")
    g = _checked_caption_images(caption_images, s.shape[0], s.shape[1], captions_per_image)
    return _annotation_ranks(s, g, _checked_ties(ties))


def search_ranks(
    search_similarity: np.ndarray,
    caption_images: Sequence[int] | np.ndarray | None = None,
    *,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
    ties: str = "reversed-argsort",
) -> np.ndarray:
    """Image search (t2i): per caption, the 1-based rank of its image.

    ``search_similarity`` is ``(n_captions, n_images)`` (the transpose of an embedding
    model's similarity), higher is better; ``caption_images`` as in :func:`annotation_ranks`.
    """
    t = _checked_scores(search_similarity, "search_similarity")
    g = _checked_caption_images(caption_images, t.shape[1], t.shape[0], captions_per_image)
    return _search_ranks(t, g, _checked_ties(ties))


def direction_metrics(ranks: np.ndarray) -> DirectionMetrics:
    """R@1/5/10 (percent), median and mean rank of 1-based ranks, the literature's way
    (module docstring: the median of an even count is floored)."""
    r = np.asarray(ranks)
    if r.ndim != 1 or r.size == 0 or not np.issubdtype(r.dtype, np.integer) or (r < 1).any():
        raise DataError(
            f"ranks must be a non-empty 1-d integer array of ranks >= 1, got shape {r.shape} "
            f"dtype {r.dtype}"
        )
    zero_based = r.astype(np.float64) - 1.0
    n = len(zero_based)
    r1, r5, r10 = (100.0 * int(np.count_nonzero(zero_based < k)) / n for k in RECALL_KS)
    median = float(np.floor(np.median(zero_based)) + 1)
    return DirectionMetrics(r1, r5, r10, median, float(zero_based.mean() + 1))


# --------------------------------------------------------------------------- protocol


def fold_slices(n_images: int, n_folds: int) -> list[slice]:
    """The image ranges of ``n_folds`` equal folds of consecutive images (COCO 1K: 5)."""
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 1:
        raise DataError(f"n_folds must be a positive integer, got {n_folds!r}")
    if n_images % n_folds:
        raise DataError(
            f"{n_images} images do not divide into {n_folds} equal folds",
            fix="use a number of folds that divides the number of test images "
            "(COCO 1K: 5 folds of 1,000 of its 5,000 test images)",
        )
    size = n_images // n_folds
    return [slice(f * size, (f + 1) * size) for f in range(n_folds)]


def metrics_over_folds(
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    *,
    n_images: int,
    n_captions: int,
    ties: str = "reversed-argsort",
) -> RetrievalProtocolResult:
    """The protocol's result from each fold's ``(annotation ranks, search ranks)`` (1-based):
    the column mean over folds of both directions' figures and of each fold's rsum.
    ``n_images`` and ``n_captions`` count the images and captions of all folds together."""
    if not folds:
        raise DataError("no folds to average")
    rows = []
    for ann_ranks, search in folds:
        a, s = direction_metrics(ann_ranks), direction_metrics(search)
        rsum = a.r1 + a.r5 + a.r10 + s.r1 + s.r5 + s.r10
        rows.append([*_values(a), *_values(s), rsum])
    mean = np.array(rows, dtype=np.float64).mean(axis=0)
    values = [float(v) for v in mean]
    return RetrievalProtocolResult(
        protocol_name(n_images // len(folds), len(folds)),
        DirectionMetrics(*values[0:5]),
        DirectionMetrics(*values[5:10]),
        values[10],
        n_images,
        n_captions,
        len(folds),
        _checked_ties(ties),
    )


def _values(m: DirectionMetrics) -> list[float]:
    return [m.r1, m.r5, m.r10, m.median_rank, m.mean_rank]


def retrieval_protocol(
    similarity: np.ndarray,
    caption_images: Sequence[int] | np.ndarray | None = None,
    *,
    captions_per_image: int = CAPTIONS_PER_IMAGE,
    n_folds: int = 1,
    search_similarity: np.ndarray | None = None,
    ties: str = "reversed-argsort",
) -> RetrievalProtocolResult:
    """The all-captions protocol (module docstring) of an ``(n_images, n_captions)`` matrix.

    Args:
        similarity: score of every test image against every test caption, higher is better.
        caption_images: the image index of each caption (column); default the standard layout,
            ``captions_per_image`` consecutive captions per image.
        captions_per_image: the standard layout's captions per image (5).
        n_folds: split the images into this many equal folds of consecutive images, each
            with its own captions as a separate pool, and average (COCO 1K: 5; 5K: 1).
        search_similarity: ``(n_captions, n_images)`` scores for image search when they are
            not the transpose of ``similarity`` (e.g. a per-task Borda aggregate); default
            ``similarity.T``.
        ties: order among equal scores, one of :data:`TIE_RULES` (module docstring).

    Raises:
        DataError: shapes that do not match, NaN scores, caption indices out of range or an
            image without a caption, folds that do not divide the images, an unknown tie rule.
    """
    ties = _checked_ties(ties)
    s = _checked_scores(similarity, "similarity")
    n_images, n_captions = s.shape
    g = _checked_caption_images(caption_images, n_images, n_captions, captions_per_image)
    if search_similarity is None:
        t = s.T
    else:
        t = _checked_scores(search_similarity, "search_similarity")
        if t.shape != (n_captions, n_images):
            raise DataError(
                f"search_similarity must be (n_captions, n_images) = {(n_captions, n_images)} "
                f"for a similarity of shape {s.shape}, got {t.shape}"
            )
    folds = []
    for images in fold_slices(n_images, n_folds):
        captions = _as_slice(np.flatnonzero((g >= images.start) & (g < images.stop)))
        g_fold = g[captions] - images.start
        folds.append(
            (
                _annotation_ranks(s[images, captions], g_fold, ties),
                _search_ranks(t[captions, images], g_fold, ties),
            )
        )
    return metrics_over_folds(folds, n_images=n_images, n_captions=n_captions, ties=ties)


def _as_slice(index: np.ndarray) -> slice | np.ndarray:
    """Consecutive indices as a slice (a view of the scores, no copy), others as they are."""
    if index.size and index[-1] - index[0] + 1 == index.size:
        return slice(int(index[0]), int(index[-1]) + 1)
    return index
