"""Lin similarity sigma_Lin over WordNet 3.0 (Section 3.5.2, eq. 22-23).

Each word w is mapped to its first (most frequent) noun sense s_w (Bloehdorn et al., 2006).
P(s) is the probability that a random training token is an instance of synset s or of one of its
descendants: every token adds its count to its word's s_w and to each synset of the hypernym
closure H(s_w) (instance hypernyms included; each synset once per token). Then::

    sim_Lin(s_i, s_j) = 2 log P(LCS(s_i, s_j)) / (log P(s_i) + log P(s_j))        (eq. 22)

and the vector of w has one component per synset::

    w_Lin(i) = 2 log P(s_i) / (log P(s_w) + log P(s_i))   s_i in H(s_w)          (eq. 23)
             = 1                                           s_i = s_w
             = 0                                           otherwise

(an ancestor s_i of s_w is its own lowest common subsumer with s_w, so the first case is eq. 22).
f in eq. 23 is this probability P, not a raw count (counts give values above 1). A word without a
noun sense, or whose sense has count 0, has a zero vector: it is similar only to itself. The word
kernel is the cosine of these vectors (eq. 17-18). ``total`` chooses the denominator of P: all
training tokens (default, "a randomly drawn word") or only the tokens with a noun sense.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from features.text._word_kernel import WordKernel
from kcca.errors import SettingError

TOTALS = ("tokens", "mapped")


def first_noun_sense(word: str, wn=None):
    """The first WordNet noun synset of ``word`` (WordNet applies its morphology), or None."""
    if wn is None:
        from features.text._resources import wordnet

        wn = wordnet()
    senses = wn.synsets(word, pos="n")
    return senses[0] if senses else None


def hypernym_closure(synset) -> list:
    """H(s): every ancestor of ``synset`` through hypernym and instance-hypernym links."""
    return list(synset.closure(lambda s: s.hypernyms() + s.instance_hypernyms()))


@dataclass(eq=False, repr=False)
class LinSimilarity(BaseEstimator):
    """Lin vectors (eq. 23) with P(s) (eq. 22) estimated on training token lists.

    Args:
        min_count: the vocabulary is the training words seen at least this often.
        vocabulary: fixed vocabulary instead (overrides ``min_count``).
        total: denominator of P: ``"tokens"`` (all training tokens) or ``"mapped"`` (tokens
            whose word has a noun sense).
        name: the word kernel's name.

    Attributes:
        vocabulary_: the words (rows). synsets_: synset names (columns).
        sense_: vocabulary word -> its first noun synset name (None without one).
        word_sense_: every training word with a noun sense -> its synset name.
        ancestors_: synset name of each such sense -> itself and its hypernym closure.
        probability_: synset name -> P(s). vectors_: sparse (words, synsets), eq. 23.
    """

    min_count: int = 5
    vocabulary: Sequence[str] | None = None
    total: str = "tokens"
    name: str = "lin"

    def fit(self, sentences: Iterable[Sequence[str]]) -> "LinSimilarity":
        from features.text._resources import wordnet

        if self.total not in TOTALS:
            raise SettingError(f"total must be one of {TOTALS}, got {self.total!r}")
        wn = wordnet()
        counts: Counter = Counter()
        s: Any  # a sentence, then a synset
        for s in sentences:
            if isinstance(s, str):
                raise TypeError("expected sentences as token lists, got a string")
            counts.update(s)
        if self.vocabulary is None:
            vocab = sorted(w for w, c in counts.items() if c >= self.min_count)
        else:
            vocab = list(self.vocabulary)
        sense_of: dict[str, Any] = {}  # nltk synsets (untyped)
        closure_of: dict[Any, list] = {}
        synset_count: Counter = Counter()
        mapped = 0
        for w, c in counts.items():
            s = first_noun_sense(w, wn)
            sense_of[w] = s
            if s is None:
                continue
            if s not in closure_of:
                closure_of[s] = hypernym_closure(s)
            mapped += c
            synset_count[s] += c
            for h in closure_of[s]:
                synset_count[h] += c
        n = sum(counts.values()) if self.total == "tokens" else mapped
        prob = {s: c / n for s, c in synset_count.items()} if n else {}

        columns: dict[Any, int] = {}
        rows, cols, vals = [], [], []
        for r, w in enumerate(vocab):
            s = sense_of.get(w, None) if w in sense_of else first_noun_sense(w, wn)
            if s is None or prob.get(s, 0.0) <= 0.0:
                continue
            log_w = np.log(prob[s])
            entries = [(s, 1.0)]
            for h in closure_of.get(s) or hypernym_closure(s):
                log_h = np.log(prob[h])
                denom = log_w + log_h
                entries.append((h, 2.0 * log_h / denom if denom != 0 else 0.0))
            for syn, v in entries:
                if v != 0.0:
                    rows.append(r)
                    cols.append(columns.setdefault(syn, len(columns)))
                    vals.append(v)
        self.vocabulary_ = tuple(vocab)
        self.synsets_ = tuple(s.name() for s in columns)
        self.sense_ = {
            w: (sense_of[w].name() if sense_of.get(w) is not None else None)
            for w in vocab
            if w in sense_of
        }
        self.probability_ = {s.name(): p for s, p in prob.items()}
        self.word_sense_ = {w: s.name() for w, s in sense_of.items() if s is not None}
        self.ancestors_ = {
            s.name(): frozenset([s.name()] + [h.name() for h in closure])
            for s, closure in closure_of.items()
        }
        self.vectors_ = sp.csr_matrix((vals, (rows, cols)), shape=(len(vocab), len(columns)))
        return self

    def word_kernel(self) -> WordKernel:
        """The cosine word kernel over ``vocabulary_`` (eq. 17-18)."""
        return WordKernel.from_vectors(self.name, self.vocabulary_, self.vectors_)

    def similarity(self, a: str, b: str) -> float:
        """Eq. 22 between the first noun senses of two training words (1 for a == b).

        The lowest common subsumer is the common ancestor with the lowest P (the most specific);
        0 when either word has no counted noun sense or the senses share no ancestor.
        """
        if a == b:
            return 1.0
        sa, sb = self.word_sense_.get(a), self.word_sense_.get(b)
        if sa is None or sb is None:
            return 0.0
        ha, hb = self._ancestors(sa), self._ancestors(sb)
        common = ha & hb
        if not common:
            return 0.0
        p_lcs = min(self.probability_[s] for s in common)
        denom = np.log(self.probability_[sa]) + np.log(self.probability_[sb])
        return float(2.0 * np.log(p_lcs) / denom) if denom != 0 else 0.0

    def _ancestors(self, name: str) -> frozenset[str]:
        hit = self.ancestors_.get(name)
        if hit is None:
            from features.text._resources import wordnet

            syn = wordnet().synset(name)
            hit = frozenset([name] + [h.name() for h in hypernym_closure(syn)])
        return hit

    def nearest_similar(self, word: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` training words with the highest eq. 22 similarity to ``word`` (Figure 3's
        Lin column shows these values, not the cosine kernel)."""
        if word not in self.word_sense_:
            return []
        scores = [(w, self.similarity(word, w)) for w in self.word_sense_ if w != word]
        scores.sort(key=lambda ws: (-ws[1], ws[0]))
        return scores[:k]
