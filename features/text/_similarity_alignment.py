"""Alignment-based similarity sigma_A (Section 3.5.4, eq. 25).

Captions of the same training image are treated as translations of each other. Each caption is
reduced to its nouns (resp. its verbs), IBM Model 1 and then Model 2 (Brown et al., 1993) are
trained by EM over every ordered pair (i != j) of noun-only (verb-only) captions of the same
image (5 captions: 20 ordered pairs; pairs with an empty side are skipped), and the translation
tables give P_n(w_i | w) and P_v(w_i | w). The vector of w has one component per word::

    w_A(i) = P_n(w_i | w) P_n(w) + P_v(w_i | w) P_v(w)                           (eq. 25)

where P_n(w), P_v(w) are the fractions of w's training occurrences tagged noun / verb. Nouns are
words seen at least 5 times as a noun and tagged noun in at least 50% of their occurrences;
verbs are tagged verb at least 25 times and in at least 25% of their occurrences (Sec. 3.5.4). The
word kernel is the cosine of these vectors (eq. 17-18).

EM is vectorised: every (target token, source position) link of every pair is one entry of flat
arrays, posteriors are normalised with ``np.bincount`` and counts collected the same way. The
source side has a NULL word (as GIZA++); Model 2 adds the alignment distribution
a(i | j, l, m) (source position i in 0..l, 0 = NULL, target position j in 1..m) and starts from
Model 1's translation table with uniform a.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from features.text._word_kernel import WordKernel

NOUN, VERB = "NOUN", "VERB"


# ------------------------------------------------------------------ IBM Models 1-2 by EM
@dataclass
class _Links:
    """Flat arrays over all (pair, target position j, source position i) links."""

    src: np.ndarray  # source word id (0 = NULL, word k -> k + 1)
    tgt: np.ndarray  # target word id
    token: np.ndarray  # which target token (pair, j) the link belongs to
    akey: np.ndarray  # index into the flat a(i | j, l, m) table
    n_tokens: int
    max_len: int


def _links(pairs: Sequence[tuple[Sequence[int], Sequence[int]]]) -> _Links:
    lens = [(len(s), len(t)) for s, t in pairs]
    max_len = max((max(a, b) for a, b in lens), default=0)
    L1 = max_len + 1
    src, tgt, token, akey = [], [], [], []
    tok = 0
    for (s, t), (l, m) in zip(pairs, lens):
        s_ids = np.concatenate([[0], np.asarray(s, dtype=np.int64) + 1])
        i_pos = np.arange(l + 1)
        for j, f in enumerate(t, start=1):
            src.append(s_ids)
            tgt.append(np.full(l + 1, f, dtype=np.int64))
            token.append(np.full(l + 1, tok, dtype=np.int64))
            akey.append(((l * L1 + m) * L1 + j) * L1 + i_pos)
            tok += 1

    def cat(xs):
        return np.concatenate(xs) if xs else np.zeros(0, np.int64)

    return _Links(cat(src), cat(tgt), cat(token), cat(akey), tok, max_len)


def _posterior(weights: np.ndarray, links: _Links) -> np.ndarray:
    denom = np.bincount(links.token, weights=weights, minlength=links.n_tokens)
    return weights / denom[links.token]


def _normalise_rows(counts: np.ndarray) -> np.ndarray:
    totals = counts.sum(axis=1, keepdims=True)
    return np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)


@dataclass(eq=False, repr=False)
class IBMAligner(BaseEstimator):
    """IBM Model 1 for ``model1_iterations`` EM steps, then Model 2 for ``model2_iterations``.

    ``fit(pairs, n_words)`` takes (source ids, target ids) pairs over one vocabulary of
    ``n_words`` words.

    Attributes:
        translation_: (n_words + 1, n_words) t(target | source); row 0 is NULL, row k + 1 word k.
        alignment_: flat a(i | j, l, m) table indexed as ``((l*L1 + m)*L1 + j)*L1 + i`` with
            ``L1 = max_len_ + 1`` (None without Model 2 iterations).
        log_likelihood_: per EM iteration, sum of log P(target token) over all pairs.
    """

    model1_iterations: int = 5
    model2_iterations: int = 5

    def fit(
        self, pairs: Sequence[tuple[Sequence[int], Sequence[int]]], n_words: int
    ) -> "IBMAligner":
        pairs = [(s, t) for s, t in pairs if len(s) and len(t)]
        links = _links(pairs)
        V = n_words
        t = np.full((V + 1, V), 1.0 / max(V, 1))
        self.log_likelihood_: list[float] = []
        tv = links.src * V + links.tgt
        for _ in range(self.model1_iterations):
            w = t[links.src, links.tgt]
            self._record(w, links, model2=False)
            post = _posterior(w, links)
            t = _normalise_rows(
                np.bincount(tv, weights=post, minlength=(V + 1) * V).reshape(V + 1, V)
            )
        a: np.ndarray | None = None
        L1 = links.max_len + 1
        if self.model2_iterations > 0:
            # uniform start: a(i | j, l, m) = 1 / (l + 1)
            l_of = links.akey // (L1**3)
            a = np.zeros(L1**4)
            a[links.akey] = 1.0 / (l_of + 1)
            group = links.akey // L1  # (l, m, j): a is normalised over i within a group
            for _ in range(self.model2_iterations):
                w = t[links.src, links.tgt] * a[links.akey]
                self._record(w, links, model2=True)
                post = _posterior(w, links)
                t = _normalise_rows(
                    np.bincount(tv, weights=post, minlength=(V + 1) * V).reshape(V + 1, V)
                )
                ca = np.bincount(links.akey, weights=post, minlength=L1**4)
                tot = np.bincount(group, weights=post, minlength=L1**3)
                a = np.divide(
                    ca, np.repeat(tot, L1), out=np.zeros_like(ca), where=np.repeat(tot, L1) > 0
                )
        self.translation_ = t
        self.alignment_ = a
        self.max_len_ = links.max_len
        self.n_pairs_ = len(pairs)
        return self

    def _record(self, w: np.ndarray, links: _Links, model2: bool) -> None:
        """Log-likelihood of the data under the current parameters (before the M-step)."""
        per_token: np.ndarray = np.bincount(links.token, weights=w, minlength=links.n_tokens)
        if not model2:  # Model 1: P(f_j) = sum_i t(f_j | e_i) / (l + 1)
            l_plus_1 = np.bincount(links.token, minlength=links.n_tokens)
            per_token = per_token / np.maximum(l_plus_1, 1)
        with np.errstate(divide="ignore"):
            self.log_likelihood_.append(float(np.log(per_token[per_token > 0]).sum()))

    def translation_matrix(self) -> np.ndarray:
        """(n_words, n_words) t(target | source) without the NULL row."""
        return self.translation_[1:]


# ------------------------------------------------------------------ data preparation
def caption_pairs(groups: Iterable[Sequence[Sequence[int]]]) -> list[tuple[list[int], list[int]]]:
    """Ordered pairs (i != j) of the captions of each group (image); empty captions skipped."""
    out = []
    for group in groups:
        caps = [list(c) for c in group]
        for i, a in enumerate(caps):
            for j, b in enumerate(caps):
                if i != j and a and b:
                    out.append((a, b))
    return out


@dataclass(frozen=True)
class PosStatistics:
    """Occurrence counts of each lemma: all, tagged noun, tagged verb."""

    total: Counter
    noun: Counter
    verb: Counter

    @classmethod
    def count(cls, tagged: Iterable[Sequence[tuple[str, str]]]) -> "PosStatistics":
        total: Counter[str] = Counter()
        noun: Counter[str] = Counter()
        verb: Counter[str] = Counter()
        for cap in tagged:
            for w, tag in cap:
                total[w] += 1
                if tag == NOUN:
                    noun[w] += 1
                elif tag == VERB:
                    verb[w] += 1
        return cls(total, noun, verb)

    def nouns(self, min_count: int = 5, min_fraction: float = 0.5) -> list[str]:
        """Seen >= ``min_count`` times as a noun and tagged noun in >= ``min_fraction``."""
        return sorted(
            w for w, c in self.noun.items() if c >= min_count and c >= min_fraction * self.total[w]
        )

    def verbs(self, min_count: int = 25, min_fraction: float = 0.25) -> list[str]:
        """Tagged verb >= ``min_count`` times and in >= ``min_fraction`` of occurrences."""
        return sorted(
            w for w, c in self.verb.items() if c >= min_count and c >= min_fraction * self.total[w]
        )

    def fraction(self, word: str, tag: str) -> float:
        """P_n(w) or P_v(w): the fraction of w's occurrences tagged ``tag``."""
        n = self.total.get(word, 0)
        c = (self.noun if tag == NOUN else self.verb).get(word, 0)
        return c / n if n else 0.0


@dataclass(eq=False, repr=False)
class AlignmentSimilarity(BaseEstimator):
    """Alignment vectors (eq. 25) from POS-tagged training captions grouped by image.

    ``fit(groups)``: ``groups`` is one list per training image of its captions, each caption a
    list of ``(lemma, universal tag)`` (stop words and punctuation already removed).

    Args:
        noun_min_count, noun_min_fraction, verb_min_count, verb_min_fraction: vocabulary
            thresholds (Section 3.5.4: 5, 0.5, 25, 0.25).
        model1_iterations, model2_iterations: EM iterations of IBM Model 1 and Model 2.
        name: the word kernel's name.

    Attributes:
        nouns_, verbs_: the noun and verb vocabularies. vocabulary_: their union (rows and
        columns). stats_: :class:`PosStatistics`. noun_aligner_, verb_aligner_: the fitted
        :class:`IBMAligner`. vectors_: (V, V) eq. 25 vectors (rows: w; columns: w_i).
    """

    noun_min_count: int = 5
    noun_min_fraction: float = 0.5
    verb_min_count: int = 25
    verb_min_fraction: float = 0.25
    model1_iterations: int = 5
    model2_iterations: int = 5
    name: str = "align"

    def fit(self, groups: Sequence[Sequence[Sequence[tuple[str, str]]]]) -> "AlignmentSimilarity":
        groups = [[list(c) for c in g] for g in groups]
        stats = PosStatistics.count(c for g in groups for c in g)
        nouns = stats.nouns(self.noun_min_count, self.noun_min_fraction)
        verbs = stats.verbs(self.verb_min_count, self.verb_min_fraction)
        vocab = sorted(set(nouns) | set(verbs))
        index = {w: k for k, w in enumerate(vocab)}
        V = len(vocab)
        vectors = np.zeros((V, V))
        aligners = {}
        for tag, words in ((NOUN, set(nouns)), (VERB, set(verbs))):
            reduced = [
                [[index[w] for w, t in c if t == tag and w in words] for c in g] for g in groups
            ]
            aligner = IBMAligner(self.model1_iterations, self.model2_iterations)
            aligner.fit(caption_pairs(reduced), V)
            aligners[tag] = aligner
            rows = np.array([index[w] for w in sorted(words)], dtype=np.int64)
            weight = np.array([stats.fraction(w, tag) for w in sorted(words)])
            if len(rows):
                vectors[rows] += aligner.translation_matrix()[rows] * weight[:, None]
        self.stats_ = stats
        self.nouns_ = tuple(nouns)
        self.verbs_ = tuple(verbs)
        self.vocabulary_ = tuple(vocab)
        self.noun_aligner_ = aligners[NOUN]
        self.verb_aligner_ = aligners[VERB]
        self.vectors_ = vectors
        return self

    def word_kernel(self) -> WordKernel:
        """The cosine word kernel over ``vocabulary_`` (eq. 17-18)."""
        return WordKernel.from_vectors(self.name, self.vocabulary_, sp.csr_matrix(self.vectors_))


# ------------------------------------------------------------------ tagging raw captions
def tag_caption(text: str, tagger, lemmatizer, stop_words: frozenset[str]) -> list[tuple[str, str]]:
    """(lemma, universal tag) of one RAW caption.

    Tokenised (treebank, lower-cased) and tagged with punctuation and stop words in (Section
    3.5.4), then lemmatised under the tag by ``lemmatizer(token, tag)`` (e.g.
    :class:`features.text._english_corpus.Lemmatizer` guided by the caption vocabulary);
    punctuation and stop words (surface form or lemma) are dropped afterwards.
    """
    from features.text._postag import tag_tokens
    from features.text._tokenize import has_alnum, tokenize

    tokens = tokenize(text, method="treebank", lowercase=True, drop_punctuation=False)
    tags = tag_tokens(tagger, tokens)
    out = []
    for tok, tag in zip(tokens, tags):
        if not has_alnum(tok) or tok in stop_words:
            continue
        lemma = lemmatizer(tok, tag)
        if lemma not in stop_words:
            out.append((lemma, tag))
    return out
