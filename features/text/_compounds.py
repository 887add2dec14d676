"""Step 3 of caption preprocessing (Section 4.1.1): normalising compound words.

The paper maps *t-shirt*, *t shirt* and *tee-shirt* to one form, *t-shirt*. Spelling variants of
a compound ``a b`` come in three shapes: spaced (the bigram ``a b``), hyphenated (``a-b``) and
solid (``ab``). :class:`CompoundNormalizer` learns, from training captions only, which families
occur in more than one shape and maps every variant to the family's canonical form: the more
frequent of the hyphenated and solid forms (a tie goes to the hyphenated one). The rules are
conservative:

* the canonical form must occur at least ``min_count`` times (default 5);
* a spaced bigram is merged only if neither word is a stop word (``a way`` is not ``away``,
  ``in to`` is not ``into``) and the single-token forms together are at least
  ``min_ratio`` times (default 1) as frequent as the bigram, so a common phrase whose solid form
  is a rarer, different word (``black top`` vs ``blacktop``) is left alone;
* parts are alphabetic; a solid form is split at every position into two parts of at least
  ``min_part_length`` letters (default 1, so ``tshirt`` = ``t`` + ``shirt``).

*tee* -> *t* cannot be learned from spellings, so a small hand table (:data:`HAND_TABLE`) is
applied before the learned merges and overrides them. Every merge is logged in ``merges_``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from sklearn.base import BaseEstimator

from kcca.errors import SettingError

#: Hand-written variants the corpus cannot teach (the t-shirt family of Section 4.1.1);
#: keys are token tuples, values the canonical token.
HAND_TABLE: dict[tuple[str, ...], str] = {
    ("tee", "shirt"): "t-shirt",
    ("tee-shirt",): "t-shirt",
    ("teeshirt",): "t-shirt",
    ("t", "shirt"): "t-shirt",
    ("tshirt",): "t-shirt",
    ("t-shirt",): "t-shirt",
    ("tee", "shirts"): "t-shirts",
    ("tee-shirts",): "t-shirts",
    ("teeshirts",): "t-shirts",
    ("t", "shirts"): "t-shirts",
    ("tshirts",): "t-shirts",
    ("t-shirts",): "t-shirts",
}


def _alpha(s: str) -> bool:
    return s.isalpha()


@dataclass(eq=False, repr=False)
class CompoundNormalizer(BaseEstimator):
    """Map spaced / hyphenated / solid spellings of a compound to one canonical token.

    Args:
        min_count: minimum training count of a family's canonical form.
        min_ratio: a spaced bigram is merged only if (hyphenated + solid count) >=
            ``min_ratio`` * (bigram count).
        min_part_length: shortest part when splitting a solid token into two words.
        stop_words: words that block merging a spaced bigram (``None``: NLTK English list).
        hand_table: extra variants applied first (``None``: :data:`HAND_TABLE`; ``{}``: none).
        learn: learn merges from the corpus (``False``: the hand table only).

    Attributes:
        merges_: list of ``(variant, canonical, count)``: each learned or hand-table merge seen
            in training, ``variant`` a space-joined token sequence, sorted by descending count.
        table_: variant token tuple -> canonical token (hand table plus learned merges).
    """

    min_count: int = 5
    min_ratio: float = 1.0
    min_part_length: int = 1
    stop_words: Iterable[str] | None = None
    hand_table: Mapping[tuple[str, ...], str] | None = None
    learn: bool = True

    # ------------------------------------------------------------------ fit
    def fit(self, token_lists: Sequence[Sequence[str]]) -> "CompoundNormalizer":
        """Learn compound families from tokenised, lower-cased training captions."""
        if self.min_count < 1:
            raise SettingError(f"min_count must be >= 1, got {self.min_count}")
        hand = dict(HAND_TABLE if self.hand_table is None else self.hand_table)
        for key, value in hand.items():
            if not isinstance(key, tuple) or not (1 <= len(key) <= 2) or not isinstance(value, str):
                raise SettingError(
                    f"hand_table entry {key!r}: {value!r} must map a tuple of one "
                    "or two tokens to a string"
                )
        if self.stop_words is None:
            from features.text._resources import stop_words

            stops = stop_words()
        else:
            stops = frozenset(self.stop_words)

        uni: Counter[str] = Counter()
        bi: Counter[tuple[str, ...]] = Counter()  # bigrams; longer variants count 0
        for tokens in token_lists:
            uni.update(tokens)
            bi.update(zip(tokens, tokens[1:]))

        learned: dict[tuple[str, ...], str] = {}
        if self.learn:
            learned = self._learn(uni, bi, stops)
        table = dict(learned)
        table.update(hand)  # the hand table overrides learned merges

        merges = []
        for variant, canonical in table.items():
            n = uni[variant[0]] if len(variant) == 1 else bi[variant]
            if n > 0 and variant != (canonical,):
                merges.append((" ".join(variant), canonical, n))
        merges.sort(key=lambda m: (-m[2], m[0]))
        self.table_ = {k: v for k, v in table.items() if k != (v,)}
        self.merges_ = merges
        return self

    def _families(self, uni: Counter, bi: Counter) -> set[tuple[str, str]]:
        fams: set[tuple[str, str]] = set()
        m = self.min_part_length
        for tok in uni:
            if tok.count("-") == 1:
                a, b = tok.split("-")
                if _alpha(a) and _alpha(b):
                    fams.add((a, b))
            elif _alpha(tok) and len(tok) >= 2 * m:
                for i in range(m, len(tok) - m + 1):
                    a, b = tok[:i], tok[i:]
                    if bi.get((a, b), 0) or uni.get(f"{a}-{b}", 0):
                        fams.add((a, b))
        return fams

    def _learn(self, uni: Counter, bi: Counter, stops: frozenset[str]) -> dict:
        table: dict[tuple[str, ...], str] = {}
        for a, b in sorted(self._families(uni, bi)):
            hyph, solid = f"{a}-{b}", a + b
            h, s, p = uni.get(hyph, 0), uni.get(solid, 0), bi.get((a, b), 0)
            if (h > 0) + (s > 0) + (p > 0) < 2:
                continue  # one spelling only: nothing to normalise
            canonical = hyph if h >= s else solid
            if max(h, s) < self.min_count:
                continue
            if h > 0 and s > 0:
                other = solid if canonical == hyph else hyph
                table[(other,)] = canonical
            if p > 0 and a not in stops and b not in stops and h + s >= self.min_ratio * p:
                table[(a, b)] = canonical
        return table

    # ------------------------------------------------------------ transform
    def transform_one(self, tokens: Sequence[str]) -> list[str]:
        """Apply the merges to one token list, greedily left to right (bigrams first)."""
        table = self.table_
        out: list[str] = []
        i, n = 0, len(tokens)
        while i < n:
            if i + 1 < n and (tokens[i], tokens[i + 1]) in table:
                out.append(table[(tokens[i], tokens[i + 1])])
                i += 2
                continue
            out.append(table.get((tokens[i],), tokens[i]))
            i += 1
        return out

    def transform(self, token_lists: Sequence[Sequence[str]]) -> list[list[str]]:
        """Apply the merges to every token list."""
        if not hasattr(self, "table_"):
            raise RuntimeError("CompoundNormalizer is not fitted: call fit(training token lists)")
        return [self.transform_one(t) for t in token_lists]

    @property
    def canonical_forms_(self) -> frozenset[str]:
        """Every token the normaliser can output for a merged compound."""
        return frozenset(self.table_.values())
