"""Content selection metric and baselines (Wang & Gaizauskas 2015, Sections 3.1, 4, 5).

**Metric** (eq. 1-3). For image ``I`` with gold descriptions ``G_1..G_M`` (each the set of
unique concepts, i.e. bounding boxes, it references) and a system selection ``S``::

    P = (1/M) sum_m |G_m ∩ S| / |S|        (1)
    R = (1/M) sum_m |G_m ∩ S| / |G_m|      (2)
    F = 2 P R / (P + R)                    (3)

and the final P, R, F are the means over images (F is the mean of per-image F, not the F of
the mean P and R; the paper also reports standard deviations, see
:meth:`ContentSelectionResult.std`).

**Cases the paper leaves open**, defined here (each a parameter):

* ``|S| = 0`` (the system selects nothing): eq. 1 is 0/0. Default ``empty_selection="zero"``:
  P = R = F = 0 (selecting nothing earns nothing); ``"one"`` gives P = 1 (the BAST release's
  convention), R = 0, F = 0.
* ``|G_m| = 0`` (a description references no concept): eq. 2's term is 0/0. Default
  ``empty_description="skip"``: the description is left out of the recall average (R averages
  over the M' descriptions with a non-empty set) but kept in the precision average, where its
  term is well defined (0). ``"zero"`` counts its recall term as 0 (M stays the divisor).
* An image whose descriptions are *all* empty, or that has no description, is an error naming
  the image (there is no gold to score against).
* ``F`` when ``P + R = 0``: 0.

**Upper bound** (Section 5): each description in turn is the "system" (``S = G_m``) and the
others are the gold; an image's P, R, F are the means over its M rotations, then averaged over
images (each image counts once).

**Box-based API**: :class:`Box` (id, concept label, optional geometry), :class:`BoxImage`.
Baselines return *ordered* box-id lists; the first ``k`` are the selection
(``min(k, N_box)``, Section 5):

* :func:`random_ranking` (seeded), :func:`size_ranking` (larger first),
  :func:`position_ranking` (centroid nearer the image centre first) (Section 4.1);
* :class:`UnigramPrior` (boxes by how often their concept is referenced in training
  descriptions) and :class:`BigramPrior` (greedy: the concept most likely to *start* a
  description, then repeatedly the concept most likely to follow the previous one
  *immediately*, i.e. with no other concept reference in between; it stops when no remaining
  candidate is "likely to follow": here, when no remaining concept has a training bigram count
  >= ``min_count`` (default 1, i.e. seen at least once) after the previous one) (Section 4.2);
* :func:`fuse_rankings`: re-rank by the mean of two systems' ranks; boxes the bigram system
  did not select share the tied rank ``0.5 ((N_bbox + 1) - N_s) + N_s`` (Section 5.1).

Ties (not specified by the paper) are broken deterministically: by the secondary key stated
in each function, then by the boxes' input order. When no candidate has ever started a
training description, the bigram system starts with the unigram prior's first choice (the
paper does not say; documented choice).

**Caption-only adaptation** (for corpora without boxes, e.g. Flickr 8K): a caption's concepts
are its noun lemmas (``kind="lemma"``) or the first WordNet noun synset of each noun lemma
(``kind="synset"``; a noun without a synset keeps its lemma), in order of first mention,
stop words excluded (:class:`CaptionConcepts`). An image's candidate pool (the analogue of its
gold boxes) is the union of the concepts of its captions; note that this pool contains only
concepts somebody mentioned, unlike real boxes, so random selection is much stronger here than
in the paper's Table 1.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, AbstractSet, Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

from kcca.captions._image_ids import matched_image_ids
from kcca.data._errors import DataError

if TYPE_CHECKING:
    from features.text._lemmatize import WordNetLemmatizer


class ContentSelectionError(DataError):
    """Bad content-selection input: unknown ids, empty gold, wrong types."""


# --------------------------------------------------------------------- metric
EMPTY_SELECTION = ("zero", "one")
EMPTY_DESCRIPTION = ("skip", "zero")


def image_prf(
    gold: Sequence[AbstractSet],
    selected: AbstractSet,
    *,
    empty_selection: str = "zero",
    empty_description: str = "skip",
    image_id: Hashable = "?",
) -> tuple[float, float, float]:
    """P, R, F of one image (eq. 1-3) with the open cases defined in the module docstring."""
    if empty_selection not in EMPTY_SELECTION:
        raise ValueError(f"empty_selection must be one of {EMPTY_SELECTION}")
    if empty_description not in EMPTY_DESCRIPTION:
        raise ValueError(f"empty_description must be one of {EMPTY_DESCRIPTION}")
    if len(gold) == 0:
        raise ContentSelectionError(f"image {image_id!r} has no gold description")
    gold = [frozenset(g) for g in gold]
    if not any(gold):
        raise ContentSelectionError(
            f"image {image_id!r}: every gold description references no concept (empty gold)"
        )
    s = frozenset(selected)
    if not s:
        return (1.0 if empty_selection == "one" else 0.0), 0.0, 0.0
    p = sum(len(g & s) for g in gold) / (len(gold) * len(s))
    if empty_description == "skip":
        nonempty = [g for g in gold if g]
        r = sum(len(g & s) / len(g) for g in nonempty) / len(nonempty)
    else:
        r = sum(len(g & s) / len(g) for g in gold if g) / len(gold)
    f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
    return p, r, f


@dataclass
class ContentSelectionResult:
    """Per-image P, R, F (arrays over ``image_ids``) and their means / standard deviations."""

    image_ids: list[Hashable]
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray

    def mean(self) -> tuple[float, float, float]:
        return float(self.precision.mean()), float(self.recall.mean()), float(self.f1.mean())

    def std(self) -> tuple[float, float, float]:
        """Population standard deviations over images (the paper's ± values)."""
        return float(self.precision.std()), float(self.recall.std()), float(self.f1.std())


def _check_sets(value, what: str) -> frozenset:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ContentSelectionError(f"{what} must be a set of concepts, not {type(value).__name__}")
    return frozenset(value)


class ContentSelectionScorer:
    """Eq. 1-3 with the scorer interface of :mod:`kcca.captions._scorer`.

    ``references``: image id -> list of gold concept sets (one per description);
    ``candidates``: image id -> the selected concept (box id) set. Every candidate id must
    have references; reference images without a candidate raise unless
    ``missing="empty"`` (scored as an empty selection).
    """

    name = "content_selection"
    labels = ("P", "R", "F")

    def __init__(
        self, empty_selection: str = "zero", empty_description: str = "skip", missing: str = "error"
    ):
        if missing not in ("error", "empty"):
            raise ValueError("missing must be 'error' or 'empty'")
        self.empty_selection = empty_selection
        self.empty_description = empty_description
        self.missing = missing

    def score(
        self,
        references: Mapping[Hashable, Sequence[AbstractSet]],
        candidates: Mapping[Hashable, AbstractSet],
    ) -> ContentSelectionResult:
        if isinstance(references, Mapping) and isinstance(candidates, Mapping) and not candidates:
            raise ContentSelectionError("no candidates to score")
        ids = matched_image_ids(
            references,
            candidates,
            ContentSelectionError,
            not_mappings="references and candidates must be dicts keyed by image id",
            unknown="candidate image id {id!r} has no gold descriptions (unknown image id)",
            unscored="gold image id {id!r} has no selection" if self.missing == "error" else None,
        )
        rows = []
        for i in ids:
            refs = references[i]
            if isinstance(refs, (str, bytes)) or not isinstance(refs, Sequence):
                raise ContentSelectionError(
                    f"gold of image {i!r} must be a list of concept sets, not {type(refs).__name__}"
                )
            gold = [
                _check_sets(g, f"gold description {m} of image {i!r}") for m, g in enumerate(refs)
            ]
            sel = _check_sets(candidates.get(i, ()), f"selection of image {i!r}")
            rows.append(
                image_prf(
                    gold,
                    sel,
                    empty_selection=self.empty_selection,
                    empty_description=self.empty_description,
                    image_id=i,
                )
            )
        a = np.asarray(rows, dtype=float)
        return ContentSelectionResult(ids, a[:, 0], a[:, 1], a[:, 2])

    def compute_score(self, references, candidates) -> tuple[list[float], np.ndarray]:
        """``([mean P, mean R, mean F], per-image array (3, n))``."""
        res = self.score(references, candidates)
        return list(res.mean()), np.vstack([res.precision, res.recall, res.f1])


def upper_bound(
    references: Mapping[Hashable, Sequence[AbstractSet]],
    *,
    empty_selection: str = "zero",
    empty_description: str = "skip",
) -> ContentSelectionResult:
    """Human upper bound (Section 5): each description against the image's others.

    An image needs at least two descriptions. A rotation whose held-out description is empty
    is scored with the ``empty_selection`` rule; a rotation whose remaining descriptions are all
    empty is skipped (no gold), and an image with no scorable rotation is an error.
    """
    ids, rows = [], []
    for i, refs in references.items():
        sets = [_check_sets(g, f"gold description {m} of image {i!r}") for m, g in enumerate(refs)]
        if len(sets) < 2:
            raise ContentSelectionError(
                f"image {i!r} has {len(sets)} description(s); the upper bound needs at least 2"
            )
        rot = []
        for m in range(len(sets)):
            others = sets[:m] + sets[m + 1 :]
            if not any(others):
                continue
            rot.append(
                image_prf(
                    others,
                    sets[m],
                    empty_selection=empty_selection,
                    empty_description=empty_description,
                    image_id=i,
                )
            )
        if not rot:
            raise ContentSelectionError(f"image {i!r}: no description has a concept")
        ids.append(i)
        rows.append(np.mean(rot, axis=0))
    a = np.asarray(rows, dtype=float)
    return ContentSelectionResult(ids, a[:, 0], a[:, 1], a[:, 2])


# ---------------------------------------------------------------------- boxes
@dataclass(frozen=True)
class Box:
    """A labelled bounding box: ``label`` is its concept (e.g. a WordNet synset)."""

    box_id: Hashable
    label: str
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.width / 2, self.y + self.height / 2


@dataclass(frozen=True)
class BoxImage:
    """An image's gold boxes (the system's input) and its size (for the position cue)."""

    image_id: Hashable
    boxes: tuple[Box, ...]
    width: float = 0.0
    height: float = 0.0

    def __post_init__(self) -> None:
        ids = [b.box_id for b in self.boxes]
        if len(set(ids)) != len(ids):
            dup = next(i for i in ids if ids.count(i) > 1)
            raise ContentSelectionError(f"image {self.image_id!r}: box id {dup!r} repeats")


def _check_k(k: int | None, n: int) -> int:
    if k is None:
        return n
    if not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"k must be a non-negative integer or None, got {k!r}")
    return min(int(k), n)


def select(ranking: Sequence[Hashable], k: int | None) -> frozenset:
    """The first ``min(k, len(ranking))`` box ids of a ranking, as a set."""
    return frozenset(ranking[: _check_k(k, len(ranking))])


def random_ranking(image: BoxImage, seed: int | np.random.Generator) -> list[Hashable]:
    """A uniformly random order of the boxes (seeded; Section 5's random baseline)."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    order = rng.permutation(len(image.boxes))
    return [image.boxes[i].box_id for i in order]


def size_ranking(image: BoxImage) -> list[Hashable]:
    """Boxes by area, largest first; ties by input order (Section 4.1 (i))."""
    idx = sorted(range(len(image.boxes)), key=lambda i: (-image.boxes[i].area, i))
    return [image.boxes[i].box_id for i in idx]


def position_ranking(image: BoxImage) -> list[Hashable]:
    """Boxes by distance of the centroid to the image centre, nearest first (Section 4.1 (ii))."""
    if image.width <= 0 or image.height <= 0:
        raise ContentSelectionError(
            f"image {image.image_id!r}: the position cue needs the image width and height"
        )
    cx, cy = image.width / 2, image.height / 2

    def dist(i: int) -> float:
        bx, by = image.boxes[i].centre
        return math.hypot(bx - cx, by - cy)

    idx = sorted(range(len(image.boxes)), key=lambda i: (dist(i), i))
    return [image.boxes[i].box_id for i in idx]


def _check_sequences(sequences: Iterable[Sequence[str]]) -> list[list[str]]:
    out = []
    for j, seq in enumerate(sequences):
        if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
            raise ContentSelectionError(
                f"training description {j} must be a sequence of concept "
                f"labels, not {type(seq).__name__}"
            )
        out.append([str(c) for c in seq])
    if not out:
        raise ContentSelectionError("no training descriptions to fit the prior on")
    return out


class UnigramPrior:
    """Concept frequencies over training descriptions (Section 4.2, first baseline).

    ``fit(sequences)``: each sequence is one training description's concept references in
    order; a concept counts once per reference.
    """

    def fit(self, sequences: Iterable[Sequence[str]]) -> "UnigramPrior":
        self.counts_ = Counter(c for seq in _check_sequences(sequences) for c in seq)
        return self

    def ranking(self, image: BoxImage) -> list[Hashable]:
        """Boxes by training frequency of their label, most frequent first; ties by input order."""
        idx = sorted(
            range(len(image.boxes)), key=lambda i: (-self.counts_.get(image.boxes[i].label, 0), i)
        )
        return [image.boxes[i].box_id for i in idx]


class BigramPrior:
    """Greedy bigram content selection with the stopping rule (Section 4.2, second baseline).

    ``start_[c]``: how many training descriptions reference ``c`` first; ``bigrams_[a][b]``:
    how often a reference to ``b`` immediately follows one to ``a`` (no other concept reference
    between them). Args: ``min_count``: a concept is "likely to follow" when its bigram count
    after the previous one is at least this (default 1).
    """

    def __init__(self, min_count: int = 1):
        if min_count < 1:
            raise ValueError("min_count must be >= 1")
        self.min_count = min_count

    def fit(self, sequences: Iterable[Sequence[str]]) -> "BigramPrior":
        seqs = _check_sequences(sequences)
        self.start_: Counter = Counter(s[0] for s in seqs if s)
        self.bigrams_: dict[str, Counter] = {}
        for s in seqs:
            for a, b in zip(s, s[1:]):
                self.bigrams_.setdefault(a, Counter())[b] += 1
        self.unigram_ = UnigramPrior().fit(seqs)
        return self

    def ranking(self, image: BoxImage, k: int | None = None) -> list[Hashable]:
        """The greedy selection, in selection order (may be shorter than ``k``: stopping rule).

        First box: the highest start count (ties: unigram count, then input order); if no
        candidate ever started a description, the unigram prior's first box. Next boxes: the
        highest bigram count after the previous box's concept (ties: unigram count, then input
        order), while that count is >= ``min_count``.
        """
        n = _check_k(k, len(image.boxes))
        uni = self.unigram_.counts_
        remaining = list(range(len(image.boxes)))
        chosen: list[int] = []
        if n == 0 or not remaining:
            return []
        lab = lambda i: image.boxes[i].label  # noqa: E731
        first = min(remaining, key=lambda i: (-self.start_.get(lab(i), 0), -uni.get(lab(i), 0), i))
        chosen.append(first)
        remaining.remove(first)
        while len(chosen) < n and remaining:
            follow = self.bigrams_.get(lab(chosen[-1]), Counter())
            best = min(remaining, key=lambda i: (-follow.get(lab(i), 0), -uni.get(lab(i), 0), i))
            if follow.get(lab(best), 0) < self.min_count:
                break  # nothing remaining is likely to follow: stop
            chosen.append(best)
            remaining.remove(best)
        return [image.boxes[i].box_id for i in chosen]


def tied_rank(n_total: int, n_selected: int) -> float:
    """Rank shared by the boxes a partial ranking left out: ``0.5((N+1) - N_s) + N_s``.

    It is the mean of the free ranks ``N_s + 1 .. N`` (Section 5.1: 3 of 9 -> 6.5).
    """
    if not 0 <= n_selected <= n_total:
        raise ValueError(f"n_selected={n_selected} must be within 0..n_total={n_total}")
    return 0.5 * ((n_total + 1) - n_selected) + n_selected


def fuse_rankings(full: Sequence[Hashable], partial: Sequence[Hashable]) -> list[Hashable]:
    """Re-rank by the mean of two ranks (Section 5.1).

    ``full`` ranks every box (e.g. bounding-box position); ``partial`` may rank only some (the
    bigram system's selection); boxes missing from ``partial`` get :func:`tied_rank`. Ties in
    the mean rank are broken by the ``full`` ranking.
    """
    if len(set(full)) != len(full):
        raise ContentSelectionError("the full ranking repeats a box")
    unknown = [b for b in partial if b not in set(full)]
    if unknown or len(set(partial)) != len(partial):
        raise ContentSelectionError(
            f"the partial ranking has unknown or repeated boxes: {unknown[:3] or partial}"
        )
    n, ns = len(full), len(partial)
    r_full = {b: i + 1 for i, b in enumerate(full)}
    r_part = {b: i + 1.0 for i, b in enumerate(partial)}
    tied = tied_rank(n, ns)
    return sorted(full, key=lambda b: ((r_full[b] + r_part.get(b, tied)) / 2, r_full[b]))


# ---------------------------------------------------------- caption-only mode
class CaptionConcepts:
    """Concepts of a caption: noun lemmas or WordNet noun synsets, in order of first mention.

    Args:
        kind: ``"lemma"`` or ``"synset"``.
        tagger: a callable ``tokens -> universal tags``; default: the project's POS tagger
            (:func:`features.text._postag.load_tagger` with ``tagger_kind``).
        tagger_kind: ``"ngram"`` (default, trains in seconds) or ``"perceptron"``.
        stop_words: words never taken as concepts (default NLTK's English list).
    """

    def __init__(
        self,
        kind: str = "lemma",
        tagger: Callable[[list[str]], list[str]] | None = None,
        tagger_kind: str = "ngram",
        stop_words: AbstractSet[str] | None = None,
    ):
        if kind not in ("lemma", "synset"):
            raise ValueError(f"kind must be 'lemma' or 'synset', got {kind!r}")
        self.kind = kind
        self.tagger = tagger
        self.tagger_kind = tagger_kind
        self.stop_words = stop_words
        self._lemmatizer: WordNetLemmatizer | None = None
        self._memo: dict[str, str] = {}

    def _setup(self) -> None:
        if self.tagger is None:
            from features.text._postag import TaggerConfig, load_tagger, tag_tokens

            model = load_tagger(TaggerConfig(kind=self.tagger_kind))
            self.tagger = lambda toks: tag_tokens(model, toks)
        if self.stop_words is None:
            from features.text._resources import stop_words

            self.stop_words = stop_words()
        if self._lemmatizer is None:
            from features.text._lemmatize import WordNetLemmatizer

            self._lemmatizer = WordNetLemmatizer()

    def _concept(self, lemma: str) -> str:
        if self.kind == "lemma":
            return lemma
        hit = self._memo.get(lemma)
        if hit is None:
            from features.text._resources import wordnet

            syns = wordnet().synsets(lemma, "n")
            hit = self._memo[lemma] = syns[0].name() if syns else lemma
        return hit

    def __call__(self, caption: str, caption_id: Hashable = "?") -> list[str]:
        if not isinstance(caption, str) or not caption.strip():
            raise ContentSelectionError(f"caption {caption_id!r} is empty or not a string")
        self._setup()
        # _setup() filled these in
        assert self.tagger is not None and self.stop_words is not None
        assert self._lemmatizer is not None
        from features.text._tokenize import tokenize

        tokens = tokenize(caption)
        tags = self.tagger(tokens) if tokens else []
        out: list[str] = []
        for tok, tag in zip(tokens, tags):
            if tag != "NOUN" or tok in self.stop_words:
                continue
            c = self._concept(self._lemmatizer.lemma(tok, "NOUN"))
            if c not in out:
                out.append(c)
        return out


def caption_pool(concept_lists: Sequence[Sequence[str]], image_id: Hashable = "?") -> BoxImage:
    """An image's candidate pool in caption-only mode: the sorted union of its concepts."""
    union = sorted({c for cs in concept_lists for c in cs})
    return BoxImage(image_id, tuple(Box(c, c) for c in union))


def evaluate_caption_baselines(
    gold: Mapping[Hashable, Sequence[Sequence[str]]],
    train: Iterable[Sequence[str]],
    ks: Sequence[int] = tuple(range(1, 11)),
    seed: int = 0,
    min_count: int = 1,
) -> dict[str, list[ContentSelectionResult]]:
    """Caption-only baselines at each ``k``: random, unigram, bigram, bigram+unigram fusion.

    ``gold``: image id -> concept lists of its captions (also the candidate pool, see the module
    docstring); ``train``: concept lists of training captions (for the priors). The random
    baseline draws one permutation per image from ``seed`` and takes its first k. The fusion
    fuses the unigram ranking (full) with the uncapped bigram selection (partial).
    """
    train = list(train)
    uni = UnigramPrior().fit(train)
    bi = BigramPrior(min_count=min_count).fit(train)
    rng = np.random.default_rng(seed)
    refs = {i: [frozenset(c) for c in caps] for i, caps in gold.items()}
    rankings: dict[str, dict[Hashable, list]] = {
        "random": {},
        "unigram": {},
        "bigram": {},
        "bigram+unigram": {},
    }
    for i, caps in gold.items():
        pool = caption_pool(caps, i)
        rankings["random"][i] = random_ranking(pool, rng)
        rankings["unigram"][i] = uni.ranking(pool)
        rankings["bigram"][i] = bi.ranking(pool)
        rankings["bigram+unigram"][i] = fuse_rankings(rankings["unigram"][i], rankings["bigram"][i])
    scorer = ContentSelectionScorer()
    return {
        name: [scorer.score(refs, {i: select(r, k) for i, r in rk.items()}) for k in ks]
        for name, rk in rankings.items()
    }
