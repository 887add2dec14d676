"""Unigram BLEU and ROUGE as the paper defines them (Section 4.2.2, eq. 28 and the next one).

For an image ``i`` with reference captions ``R_i`` and a candidate caption ``s``::

    BLEU(i, s)  = sum_w min(c_s(w), max_{r in R_i} c_r(w)) / sum_w c_s(w)            (eq. 28)
    ROUGE(i, s) = sum_{r in R_i} sum_w min(c_s(w), c_r(w)) / sum_{r in R_i} sum_w c_r(w)

unigram only, no brevity penalty; a system's score is the mean of its sentence-level scores.
Preprocessing (Sec. 4.2.2): tokenise, break up hyphenated words, strip non-alphanumeric characters,
lower-case. ROUGE, and the BLEU_pre filter of Section 4.3.2, also remove stop words and apply
the Porter stemmer (Lin 2004). A candidate left with no tokens scores 0.

The paper tokenised with OpenNLP, which splits clitics (``man's`` -> ``man 's``);
:func:`tokenize` does the same by default (``split_clitics=True``), so the ``s`` left after
stripping is a stop word for ROUGE. Stop words are NLTK's English list (179 words, read
from ``$NLTK_DATA``); Lin's ROUGE script has its own longer list (a documented difference).
The generated demo corpus needs no NLTK data: its scores use :data:`DEMO_STOP_WORDS`, the words
of that list its grammar can write, which gives the same tokens.

All-pairs scores of a pool (1,000 x 1,000 = 10^6 pairs) are computed with sparse count
matrices: for non-negative integers, ``min(a, b) = sum_{t >= 1} [a >= t][b >= t]``, so each
sum of minima is a short sum of sparse matrix products.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import scipy.sparse as sp

from kcca.data._errors import DataError

REFERENCE_SETS = ("R5", "R4", "R1-gold", "R1-other")

_CLITIC = re.compile(r"(?i)(n't|'s|'re|'ve|'ll|'d|'m)\b")
_HYPHEN = re.compile(r"[-\u2010-\u2015]")
_NON_ALNUM = re.compile(r"[^0-9a-zA-Z\s]")


def tokenize(text: str, *, split_clitics: bool = True) -> list[str]:
    """The paper's BLEU/ROUGE preprocessing: split hyphens, strip non-alphanumerics, lower-case.

    ``split_clitics`` separates English clitics first, as OpenNLP's tokeniser does
    (``dog's`` -> ``dog s``, ``don't`` -> ``do nt``).
    """
    if split_clitics:
        text = _CLITIC.sub(r" \1", text)
    text = _HYPHEN.sub(" ", text)
    text = _NON_ALNUM.sub("", text)
    return text.lower().split()


@functools.lru_cache(maxsize=2)
def _stemmer(mode: str):
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer(mode=mode)


@functools.lru_cache(maxsize=200_000)
def _stem(word: str, mode: str) -> str:
    return _stemmer(mode).stem(word)


def default_stop_words() -> frozenset[str]:
    """NLTK's English stop words (179), from ``$NLTK_DATA`` via ``features.text._resources``."""
    from features.text._resources import stop_words

    return stop_words("english")


#: NLTK's English stop words that the demo grammar (:mod:`kcca.data._demo_grammar`) can write:
#: on the demo corpus they remove exactly what the whole list removes (a test checks this)
DEMO_STOP_WORDS = frozenset(
    "a above against an and are at below can down here in is its no of on over than that the "
    "there this to under up we with you".split()
)


def is_demo_corpus(corpus) -> bool:
    """Whether ``corpus`` is the generated demo corpus (named ``demo`` or ``demo-...``)."""
    name = str(getattr(corpus, "name", ""))
    return name == "demo" or name.startswith("demo-")


def corpus_stop_words(corpus) -> frozenset[str]:
    """The stop words of ``corpus``'s scores: :data:`DEMO_STOP_WORDS` for the demo corpus (no
    NLTK data needed), NLTK's English list otherwise."""
    return DEMO_STOP_WORDS if is_demo_corpus(corpus) else default_stop_words()


@dataclass(frozen=True)
class Preprocessor:
    """Tokenise, then optionally drop stop words and Porter-stem (ROUGE, BLEU_pre)."""

    stem: bool = False
    remove_stop_words: bool = False
    split_clitics: bool = True
    porter_mode: str = "ORIGINAL_ALGORITHM"

    def __call__(self, text: str, stop_words: frozenset[str] | None = None) -> list[str]:
        tokens = tokenize(text, split_clitics=self.split_clitics)
        if self.remove_stop_words:
            sw = default_stop_words() if stop_words is None else stop_words
            tokens = [t for t in tokens if t not in sw]
        if self.stem:
            tokens = [_stem(t, self.porter_mode) for t in tokens]
        return tokens


PLAIN = Preprocessor()
"""BLEU's preprocessing."""
ROUGE_STYLE = Preprocessor(stem=True, remove_stop_words=True)
"""ROUGE's (and BLEU_pre's) preprocessing: stop words removed, Porter-stemmed."""


class CountMatrices:
    """Token lists turned into sparse count matrices over one shared vocabulary."""

    def __init__(self) -> None:
        self.vocab: dict[str, int] = {}

    def __call__(self, docs: Sequence[Sequence[str]]) -> sp.csr_matrix:
        rows, cols = [], []
        for r, doc in enumerate(docs):
            for w in doc:
                rows.append(r)
                cols.append(self.vocab.setdefault(w, len(self.vocab)))
        data = np.ones(len(rows), dtype=np.int64)
        m = sp.coo_matrix((data, (rows, cols)), shape=(len(docs), max(len(self.vocab), 1)))
        return m.tocsr()  # duplicates summed: term counts

    def resize(self, m: sp.csr_matrix) -> sp.csr_matrix:
        m = m.copy()
        m.resize((m.shape[0], max(len(self.vocab), 1)))
        return m


def _levels(m: sp.csr_matrix, t: int) -> sp.csr_matrix:
    out = m.copy()
    out.data = (out.data >= t).astype(np.int64)
    out.eliminate_zeros()
    return out


def _sum_min_all_pairs(a: sp.csr_matrix, b: sp.csr_matrix) -> np.ndarray:
    """``out[i, j] = sum_w min(a[i, w], b[j, w])`` for non-negative integer counts."""
    top = int(min(a.max() if a.nnz else 0, b.max() if b.nnz else 0))
    out = np.zeros((a.shape[0], b.shape[0]))
    for t in range(1, top + 1):
        out += (_levels(a, t) @ _levels(b, t).T).toarray()
    return out


def _counts(refs: Sequence[Sequence[Sequence[str]]], cands: Sequence[Sequence[str]]):
    n_refs = {len(r) for r in refs}
    if 0 in n_refs:
        bad = next(i for i, r in enumerate(refs) if not r)
        raise DataError(f"image {bad} has no reference caption")
    cm = CountMatrices()
    cand = cm(cands)
    width = max(n_refs)
    per_ref = []
    for k in range(width):
        per_ref.append(cm([r[k] if k < len(r) else [] for r in refs]))
    cand = cm.resize(cand)
    per_ref = [cm.resize(m) for m in per_ref]
    return cand, per_ref


def bleu_matrix(
    references: Sequence[Sequence[Sequence[str]]], candidates: Sequence[Sequence[str]]
) -> np.ndarray:
    """Eq. 28 for every (image, candidate) pair: ``out[i, j]`` = BLEU of candidate j for image i.

    ``references[i]`` is the list of token lists of image i; ``candidates[j]`` a token list.
    """
    cand, per_ref = _counts(references, candidates)
    max_ref = per_ref[0]
    for m in per_ref[1:]:
        max_ref = max_ref.maximum(m)
    num = _sum_min_all_pairs(max_ref.tocsr(), cand)
    length = np.asarray(cand.sum(axis=1)).ravel().astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(length[None, :] > 0, num / length[None, :], 0.0)
    return out


def rouge_matrix(
    references: Sequence[Sequence[Sequence[str]]], candidates: Sequence[Sequence[str]]
) -> np.ndarray:
    """The paper's unigram ROUGE for every (image, candidate) pair (recall against all refs)."""
    cand, per_ref = _counts(references, candidates)
    top = int(cand.max()) if cand.nnz else 0
    num = np.zeros((len(references), len(candidates)))
    for t in range(1, top + 1):
        level_sum = _levels(per_ref[0], t)
        for m in per_ref[1:]:
            level_sum = level_sum + _levels(m, t)
        num += (level_sum @ _levels(cand, t).T).toarray()
    # per_ref is never empty (_counts), so the sum is an array, not 0
    ref_len = sum(
        np.asarray(m.sum(axis=1)).ravel()  # type: ignore[union-attr]
        for m in per_ref
    ).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(ref_len[:, None] > 0, num / ref_len[:, None], 0.0)
    return out


def sentence_bleu(references: Sequence[Sequence[str]], candidate: Sequence[str]) -> float:
    """Eq. 28 for one pair, written plainly (reference implementation for tests and small use)."""
    if not candidate:
        return 0.0
    from collections import Counter

    c = Counter(candidate)
    refs = [Counter(r) for r in references]
    clipped = sum(min(n, max((r[w] for r in refs), default=0)) for w, n in c.items())
    return clipped / sum(c.values())


def sentence_rouge(references: Sequence[Sequence[str]], candidate: Sequence[str]) -> float:
    """The paper's unigram ROUGE for one pair, written plainly."""
    from collections import Counter

    c = Counter(candidate)
    refs = [Counter(r) for r in references]
    den = sum(sum(r.values()) for r in refs)
    if den == 0:
        return 0.0
    return sum(min(c[w], n) for r in refs for w, n in r.items()) / den


def compute_score(
    references: Sequence[Sequence[Sequence[str]]],
    candidates: Sequence[Sequence[str]],
    metric: str = "bleu",
) -> tuple[float, np.ndarray]:
    """pycocoevalcap-style paired scoring: candidate i against references i.

    Returns ``(mean of sentence scores, per-item scores)`` (footnote 6: averaged sentence level).
    """
    if len(references) != len(candidates):
        raise DataError(f"{len(references)} reference sets but {len(candidates)} candidates")
    fn = {"bleu": sentence_bleu, "rouge": sentence_rouge}.get(metric)
    if fn is None:
        raise DataError(f"unknown metric {metric!r}: use 'bleu' or 'rouge'")
    per = np.array([fn(r, c) for r, c in zip(references, candidates)], dtype=float)
    return (float(per.mean()) if per.size else float("nan")), per


# ------------------------------------------------------------------ pools and reference sets
def reference_texts(
    captions: Sequence[str], kind: str, pool_index: int = 2, other_index: int | None = None
) -> list[str]:
    """The reference captions of one image for a reference set of Tables 2, 8 and 9.

    ``R5``: all five captions (the pool caption included); ``R1-gold``: the pool caption only;
    ``R4``: the other four; ``R1-other``: one of those four, caption ``other_index`` (default:
    the first caption that is not the pool caption).
    """
    if kind == "R5":
        return list(captions)
    if kind == "R1-gold":
        return [captions[pool_index]]
    others = [c for k, c in enumerate(captions) if k != pool_index]
    if kind == "R4":
        return others
    if kind == "R1-other":
        k = other_index if other_index is not None else (0 if pool_index != 0 else 1)
        if k == pool_index or not 0 <= k < len(captions):
            raise DataError(
                f"R1-other needs a caption index other than the pool's "
                f"#{pool_index} within 0..{len(captions) - 1}, got {k}"
            )
        return [captions[k]]
    raise DataError(f"unknown reference set {kind!r}; use one of {REFERENCE_SETS}")


def pool_score_matrix(
    corpus,
    split: str = "test",
    metric: str = "bleu",
    references: str = "R5",
    preprocessor: Preprocessor | None = None,
    other_index: int | None = None,
) -> np.ndarray:
    """BLEU or ROUGE of every (pool image, pool caption) pair of a corpus split.

    Default preprocessing: :data:`PLAIN` for BLEU, :data:`ROUGE_STYLE` for ROUGE; pass
    ``metric="bleu", preprocessor=ROUGE_STYLE`` for BLEU_pre.
    """
    if metric not in ("bleu", "rouge"):
        raise DataError(f"unknown metric {metric!r}: use 'bleu' or 'rouge'")
    prep = preprocessor or (PLAIN if metric == "bleu" else ROUGE_STYLE)
    sw = corpus_stop_words(corpus) if prep.remove_stop_words else None
    pool = corpus.pool(split)
    k = corpus.pool_caption_index
    refs = [
        [prep(t, sw) for t in reference_texts(corpus.captions[img], references, k, other_index)]
        for img, _, _ in pool
    ]
    cands = [prep(text, sw) for _, _, text in pool]
    fn = bleu_matrix if metric == "bleu" else rouge_matrix
    return fn(refs, cands)
