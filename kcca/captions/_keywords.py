"""Keyword (image annotation) metrics and baselines of Mason & Charniak (2012) on captions.

**Gold.** An image's five captions are five annotators; an annotator's keywords are the
content-word lemmas of its caption (each counted once per annotator). The gold ``R_j`` is the
multiset union: keyword -> number of annotators who used it (:func:`gold_from_annotators`).

**Metrics.**

* Top-k P/R/F1 (Section 5.2, BBC): the system's first ``k`` (10) keywords ``A_j`` against the
  gold keyword *types* ``G_j``: ``P_j = |A_j ∩ G_j| / |A_j|``, ``R_j = |A_j ∩ G_j| / |G_j|``;
  P is averaged over images with at least one system keyword, R over all images, and F1 is the
  harmonic mean of the averaged P and R (Table 2's F1 is computed this way:
  P 13.13, R 27.84 -> F1 17.84).
* SemEval lexical-substitution scores (Section 6.2, McCarthy & Navigli 2007):
  ``best normal = mean_j |a_j ∈ R_j| / |R_j|`` for the single best keyword ``a_j`` (its count in
  the multiset, over the multiset's size); ``oot normal = mean_j sum_{a ∈ A_j} |a ∈ R_j| / |R_j|``
  for up to ten guesses (duplicates removed); the *mode* variants score only images whose gold
  has a single most frequent keyword: 1 when the best guess is it (best mode) or when it is
  among the ten (oot mode). As in the SemEval scorer, precision averages over the images the
  system attempted (gave >= 1 keyword) and recall over all images (they coincide when every
  image is attempted).
* Mode-count diagnostic (Section 6.3): how many images have a single mode, and which keywords
  those modes are (:func:`mode_diagnostic`) — Mason & Charniak found 28 of 300 UNT images, 21 of
  them "cartoon".

**Baselines** (Section 4), each ranking the keywords of a *document*: term frequency,
tf*idf (``idf = ln(N / n_t)`` over training images as documents; an unseen term gets
``n_t = 1``), corpus frequency (the most frequent keywords of the training captions, the same
for every image), and sentence extraction (the document's caption with the minimum
``KL(P_doc || P_caption)``, the caption's distribution smoothed additively with ``alpha`` over
the document vocabulary, as in KLSum; its keywords ordered by document frequency). Ties are
broken by training corpus frequency, then alphabetically. "Document title" does not apply:
Flickr 8K images have no title or co-occurring text.

**Documents** are never the gold itself: the captions of the image's nearest *training* images
under an image kernel (:func:`documents_from_kernel`, from a precomputed test x train block),
the top captions a ranking system returns (:func:`documents_from_rankings`), or, as a floor,
the captions of seeded random training images (:func:`random_documents`). The leave-one-out
upper bound (:func:`leave_one_out`) uses four captions of the image as the document and the
fifth as a single-annotator gold; each (image, held-out caption) pair is one item.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Hashable, Iterable, Mapping, Sequence

import numpy as np

from kcca.captions._image_ids import matched_image_ids
from kcca.data._errors import DataError

Tokens = Sequence[str]
Document = Sequence[Tokens]  # a list of captions, each a list of keyword tokens


class KeywordInputError(DataError):
    """Bad keyword-evaluation input: unknown ids, empty gold, non-string keywords."""


def _check_tokens(tokens, what: str) -> list[str]:
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise KeywordInputError(
            f"{what} must be a list of keyword strings, not {type(tokens).__name__}"
        )
    for t in tokens:
        if not isinstance(t, str) or not t.strip():
            raise KeywordInputError(f"{what} holds an empty or non-string keyword {t!r}")
    return list(tokens)


def gold_from_annotators(annotators: Sequence[Tokens], image_id: Hashable = "?") -> Counter:
    """Keyword -> number of annotators (captions) using it; each annotator counts once."""
    if isinstance(annotators, str) or not isinstance(annotators, Sequence) or not annotators:
        raise KeywordInputError(f"image {image_id!r} has no annotators (captions)")
    gold: Counter = Counter()
    for m, toks in enumerate(annotators):
        gold.update(set(_check_tokens(toks, f"annotator {m} of image {image_id!r}")))
    if not gold:
        raise KeywordInputError(f"image {image_id!r}: no annotator gave a keyword (empty gold)")
    return gold


def unique_mode(gold: Counter) -> str | None:
    """The single most frequent keyword, or ``None`` when the maximum count is shared."""
    if not gold:
        return None
    top = gold.most_common(2)
    if len(top) == 2 and top[0][1] == top[1][1]:
        return None
    return top[0][0]


def _dedupe(keywords: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(keywords))


def _check_inputs(
    gold: Mapping[Hashable, Counter], system: Mapping[Hashable, Sequence[str]]
) -> list[Hashable]:
    matched_image_ids(
        gold,
        system,
        KeywordInputError,
        not_mappings="gold and system must be dicts keyed by image id",
        unknown="system keywords for image id {id!r}, which has no gold (unknown image id)",
        unscored=(
            "gold image id {id!r} has no system entry (give an empty "
            "list for an image the system does not annotate)"
        ),
    )
    for i in gold:
        if not gold[i]:
            raise KeywordInputError(f"image {i!r} has an empty gold")
        _check_tokens(system[i], f"system keywords of image {i!r}")
    return list(gold)


@dataclass
class TopKResult:
    """Top-k keyword P/R/F1: per-image arrays (P is NaN where nothing was guessed)."""

    image_ids: list[Hashable]
    precision: np.ndarray
    recall: np.ndarray

    @property
    def mean_precision(self) -> float:
        p = self.precision[~np.isnan(self.precision)]
        return float(p.mean()) if len(p) else 0.0

    @property
    def mean_recall(self) -> float:
        return float(self.recall.mean())

    @property
    def f1(self) -> float:
        p, r = self.mean_precision, self.mean_recall
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def topk_prf(
    gold: Mapping[Hashable, Counter], system: Mapping[Hashable, Sequence[str]], k: int = 10
) -> TopKResult:
    """P/R/F1 of the first ``k`` distinct system keywords against the gold types."""
    ids = _check_inputs(gold, system)
    p, r = [], []
    for i in ids:
        guess = set(_dedupe(system[i])[:k])
        types = set(gold[i])
        hit = len(guess & types)
        p.append(hit / len(guess) if guess else np.nan)
        r.append(hit / len(types))
    return TopKResult(ids, np.asarray(p, float), np.asarray(r, float))


@dataclass
class SemEvalResult:
    """The four SemEval measures (precision and recall each) and the item counts."""

    best_normal: tuple[float, float]
    best_mode: tuple[float, float]
    oot_normal: tuple[float, float]
    oot_mode: tuple[float, float]
    n_items: int
    n_attempted: int
    n_mode_items: int
    per_item_best: np.ndarray  # NaN where not attempted
    per_item_oot: np.ndarray


def semeval_scores(
    gold: Mapping[Hashable, Counter], system: Mapping[Hashable, Sequence[str]], n_oot: int = 10
) -> SemEvalResult:
    """best / oot, normal / mode (see the module docstring); ``system`` lists are ranked."""
    ids = _check_inputs(gold, system)
    best, oot, bmode, omode = [], [], [], []
    for i in ids:
        g = gold[i]
        size = sum(g.values())
        guesses = _dedupe(system[i])
        mode = unique_mode(g)
        if not guesses:
            best.append(np.nan)
            oot.append(np.nan)
            if mode is not None:
                bmode.append(np.nan)
                omode.append(np.nan)
            continue
        best.append(g.get(guesses[0], 0) / size)
        top = guesses[:n_oot]
        oot.append(sum(g.get(a, 0) for a in top) / size)
        if mode is not None:
            bmode.append(float(guesses[0] == mode))
            omode.append(float(mode in top))

    def pr(values: list[float]) -> tuple[float, float]:
        a = np.asarray(values, float)
        if len(a) == 0:
            return float("nan"), float("nan")
        done = a[~np.isnan(a)]
        return (float(done.mean()) if len(done) else 0.0), float(done.sum() / len(a))

    b = np.asarray(best, float)
    return SemEvalResult(
        pr(best),
        pr(bmode),
        pr(oot),
        pr(omode),
        len(ids),
        int((~np.isnan(b)).sum()),
        len(bmode),
        b,
        np.asarray(oot, float),
    )


def mode_diagnostic(gold: Mapping[Hashable, Counter]) -> tuple[int, int, Counter]:
    """``(images, images with a single mode, Counter of those mode keywords)``."""
    modes = Counter(m for m in (unique_mode(g) for g in gold.values()) if m is not None)
    return len(gold), sum(modes.values()), modes


class KeywordScorer:
    """Top-k P/R/F1 with the scorer interface: ``compute_score(references, candidates)``.

    ``references``: image id -> annotators' keyword lists; ``candidates``: image id -> ranked
    keyword list. Returns ``([P, R, F1], per-image array (2, n): P (NaN if no guess), R)``.
    """

    name = "keywords"
    labels = ("P", "R")

    def __init__(self, k: int = 10):
        self.k = k

    def compute_score(self, references, candidates) -> tuple[list[float], np.ndarray]:
        gold = {i: gold_from_annotators(a, i) for i, a in references.items()}
        res = topk_prf(gold, candidates, self.k)
        return (
            [res.mean_precision, res.mean_recall, res.f1],
            np.vstack([res.precision, res.recall]),
        )


# ------------------------------------------------------------------ baselines
def _ranked(scores: Mapping[str, float], tiebreak: Mapping[str, int] | None) -> list[str]:
    tb = tiebreak or {}
    return sorted(scores, key=lambda w: (-scores[w], -tb.get(w, 0), w))


def _doc_counts(document: Document, where: str = "document") -> Counter:
    if isinstance(document, str) or not isinstance(document, Sequence):
        raise KeywordInputError(f"{where} must be a list of token lists")
    c: Counter = Counter()
    for m, toks in enumerate(document):
        c.update(_check_tokens(toks, f"caption {m} of the {where}"))
    return c


class CorpusFrequency:
    """Keyword token frequencies over the training captions (Section 4.3)."""

    def fit(self, captions: Iterable[Tokens]) -> "CorpusFrequency":
        self.counts_ = Counter(t for toks in captions for t in toks)
        if not self.counts_:
            raise KeywordInputError("no training keywords to count")
        return self

    def rank(self, document: Document | None = None) -> list[str]:
        """The training vocabulary by frequency (the document is ignored)."""
        return _ranked(self.counts_, None)


def term_frequency(document: Document, tiebreak: Mapping[str, int] | None = None) -> list[str]:
    """Document keywords by term frequency (count / document length; Section 4.1)."""
    c = _doc_counts(document)
    total = sum(c.values()) or 1
    return _ranked({w: n / total for w, n in c.items()}, tiebreak)


class TfIdf:
    """tf*idf with ``idf = ln(N / n_t)`` over training documents (Section 4.2)."""

    def fit(self, documents: Iterable[Document]) -> "TfIdf":
        df: Counter = Counter()
        n = 0
        for doc in documents:
            n += 1
            df.update({t for toks in doc for t in toks})
        if n == 0:
            raise KeywordInputError("no training documents for the idf")
        self.n_documents_ = n
        self.df_ = df
        return self

    def idf(self, term: str) -> float:
        return math.log(self.n_documents_ / max(self.df_.get(term, 0), 1))

    def rank(self, document: Document, tiebreak: Mapping[str, int] | None = None) -> list[str]:
        c = _doc_counts(document)
        total = sum(c.values()) or 1
        return _ranked({w: n / total * self.idf(w) for w, n in c.items()}, tiebreak)


def central_caption(document: Document, alpha: float = 0.01) -> int:
    """Index of the caption with the minimum ``KL(P_doc || P_caption)`` (Section 4.5).

    ``P_caption(w) = (c(w) + alpha) / (|caption| + alpha |V_doc|)`` over the document
    vocabulary. Captions without keywords are never chosen; ties go to the first caption.
    """
    if alpha <= 0:
        raise ValueError("alpha must be > 0")
    doc = _doc_counts(document)
    if not doc:
        raise KeywordInputError("the document has no keywords")
    total, vocab = sum(doc.values()), len(doc)
    best, best_kl = -1, math.inf
    for m, toks in enumerate(document):
        if not toks:
            continue
        c = Counter(toks)
        denom = len(toks) + alpha * vocab
        kl = sum(
            (n / total) * math.log((n / total) / ((c.get(w, 0) + alpha) / denom))
            for w, n in doc.items()
        )
        if kl < best_kl - 1e-12:
            best, best_kl = m, kl
    return best


def sentence_extraction(
    document: Document, tiebreak: Mapping[str, int] | None = None, alpha: float = 0.01
) -> list[str]:
    """The most central caption's keywords, ordered by document frequency."""
    m = central_caption(document, alpha)
    doc = _doc_counts(document)
    return _ranked({w: doc[w] for w in set(document[m])}, tiebreak)


Baseline = Callable[[Document], list[str]]


def make_baselines(train_documents: Sequence[Document], alpha: float = 0.01) -> dict[str, Baseline]:
    """The four applicable baselines fitted on training documents (images' caption lists)."""
    cf = CorpusFrequency().fit(t for doc in train_documents for t in doc)
    tfidf = TfIdf().fit(train_documents)
    tb = cf.counts_
    return {
        "term frequency": lambda d: term_frequency(d, tb),
        "tf*idf": lambda d: tfidf.rank(d, tb),
        "corpus frequency": lambda d: cf.rank(d),
        "sentence extraction": lambda d: sentence_extraction(d, tb, alpha),
    }


# ------------------------------------------------------------------ documents
def documents_from_kernel(
    kernel: np.ndarray,
    row_ids: Sequence[Hashable],
    col_ids: Sequence[Hashable],
    captions: Mapping[Hashable, Document],
    n_neighbours: int = 5,
) -> dict[Hashable, list]:
    """Captions of each test image's ``n_neighbours`` most similar training images.

    ``kernel``: a precomputed image-kernel block (test x train), rows ``row_ids``, columns
    ``col_ids``; ties by column order. A column id equal to its row id is an error (the
    document would contain the gold).
    """
    K = np.asarray(kernel, dtype=float)
    if K.shape != (len(row_ids), len(col_ids)):
        raise KeywordInputError(
            f"kernel block has shape {K.shape}, expected "
            f"({len(row_ids)}, {len(col_ids)}) from the id lists"
        )
    if not np.isfinite(K).all():
        raise KeywordInputError("kernel block has non-finite values")
    training = set(col_ids)
    both = [i for i in row_ids if i in training]
    if both:
        raise KeywordInputError(
            f"image {both[0]!r} is both a query and a training image: its document would "
            "contain its gold"
        )
    for c in col_ids:
        if c not in captions:
            raise KeywordInputError(f"training image {c!r} has no captions")
    order = np.argsort(-K, axis=1, kind="stable")[:, :n_neighbours]
    return {
        r: [toks for j in order[a] for toks in captions[col_ids[j]]] for a, r in enumerate(row_ids)
    }


def documents_from_rankings(
    rankings: Mapping[Hashable, Sequence[Hashable]],
    caption_tokens: Mapping[Hashable, Tokens],
    top_n: int = 5,
    exclude: Callable[[Hashable, Hashable], bool] | None = None,
) -> dict[Hashable, list]:
    """The top ``top_n`` captions a ranking system returns for each image.

    ``rankings``: image id -> ranked caption ids; ``exclude(image, caption_id)`` says which
    captions may not enter the document (e.g. the image's own captions).
    """
    out = {}
    for i, ranked in rankings.items():
        doc = []
        for cid in ranked:
            if exclude is not None and exclude(i, cid):
                continue
            if cid not in caption_tokens:
                raise KeywordInputError(f"ranking of image {i!r} returns unknown caption {cid!r}")
            doc.append(caption_tokens[cid])
            if len(doc) == top_n:
                break
        out[i] = doc
    return out


def random_documents(
    image_ids: Sequence[Hashable],
    train_ids: Sequence[Hashable],
    captions: Mapping[Hashable, Document],
    n_images: int = 5,
    seed: int = 0,
) -> dict[Hashable, list]:
    """A floor: the captions of ``n_images`` seeded random training images per image."""
    rng = np.random.default_rng(seed)
    train_ids = list(train_ids)
    out = {}
    for i in image_ids:
        pick = rng.choice(len(train_ids), size=n_images, replace=False)
        out[i] = [toks for j in pick for toks in captions[train_ids[j]]]
    return out


@dataclass
class KeywordEvaluation:
    """All keyword measures of one system."""

    topk: TopKResult
    semeval: SemEvalResult


def evaluate_keywords(
    gold: Mapping[Hashable, Counter], system: Mapping[Hashable, Sequence[str]], k: int = 10
) -> KeywordEvaluation:
    return KeywordEvaluation(topk_prf(gold, system, k), semeval_scores(gold, system, k))


def run_baselines(
    gold: Mapping[Hashable, Counter],
    documents: Mapping[Hashable, Document],
    baselines: Mapping[str, Baseline],
    k: int = 10,
) -> dict[str, KeywordEvaluation]:
    """Each baseline over each image's document, scored against the gold."""
    for i in gold:
        if i not in documents:
            raise KeywordInputError(f"image {i!r} has no document")
    return {
        name: evaluate_keywords(
            gold, {i: fn(documents[i])[:k] if documents[i] else [] for i in gold}, k
        )
        for name, fn in baselines.items()
    }


def leave_one_out(
    captions: Mapping[Hashable, Document], baselines: Mapping[str, Baseline], k: int = 10
) -> tuple[dict[str, KeywordEvaluation], int]:
    """Upper bound: four captions as the document, the fifth as a single-annotator gold.

    Items are ``(image id, held-out index)``; a held-out caption without keywords has no gold
    and is skipped (the count is returned).
    """
    gold: dict[Hashable, Counter] = {}  # keys: (image id, held-out index)
    docs: dict[Hashable, Document] = {}
    skipped = 0
    for i, caps in captions.items():
        if len(caps) < 2:
            raise KeywordInputError(
                f"image {i!r} has {len(caps)} caption(s); leave-one-out needs at least 2"
            )
        for m, toks in enumerate(caps):
            if not toks:
                skipped += 1
                continue
            gold[(i, m)] = Counter(set(toks))
            docs[(i, m)] = [c for j, c in enumerate(caps) if j != m]
    return run_baselines(gold, docs, baselines, k), skipped
