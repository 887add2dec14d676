"""Step 2 of caption preprocessing (Section 4.1.1): spelling correction of unknown words.

The paper ran Linux ``spell``, which only lists words missing from its dictionary. Here a token
is *known* if it is in the dictionary: WordNet lemma names (inflected forms count through
WordNet's morphology, ``wordnet.morphy``) plus the Unix word list of ``corpora/words`` (the kind
of list ``spell`` checks against). The caption corpus itself is never the dictionary (every
misspelling is "in the corpus"). Known words are never changed. Tokens with a digit or an
apostrophe, and tokens shorter than ``min_length``, are left alone; a hyphenated token is known
if it is in the dictionary or all its parts are.

An unknown token is corrected only to a *unique best* candidate: candidates are known words seen
at least ``min_candidate_count`` times in the training captions and at least ``min_ratio`` times
as often as the unknown token, within optimal-string-alignment (Damerau) distance 1, or 2 for
tokens of ``long_word`` letters or more, and (``same_first_letter``) starting with the same
letter, or with the first two letters swapped (first letters are rarely mistyped). The best
candidates are those at the smallest distance; if there is more than one, the token is left
unchanged. The result is deterministic, and every change made on the training captions is
logged in ``corrections_``.

Unknown words of the domain are protected rather than "corrected" into a neighbour: a token
seen at least ``max_token_count`` times in the training captions ("biker", "bmx", "others"),
and a token whose inflectional stem (without -s, -es, -ed, -ing, -er, -ers) is also an unknown
word seen in training ("speedos" beside "speedo"), are left alone. Tokens shorter than
``min_length`` (4) are never corrected ("atv" is not "at").

The defaults were set by reading the full list of changes on the 30,000 Flickr 8K training
captions (``kcca preprocess --show -1``): with them about 240 token types (mostly seen once) are
corrected, for example "moutains" -> "mountains" (raw captions) or "mountain" (lemma file),
"mountian" -> "mountain", "restaraunt" -> "restaurant". A few wrong ones remain, mostly at
distance 2 ("peterson" -> "person", "razzling" -> "railing", "recieving" -> "retrieving"
because "receiving" is too rare to be a candidate); ``long_word=9`` removes about six wrong and
eight right distance-2 changes, including "moutains" in the lemma file.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from sklearn.base import BaseEstimator


_SUFFIXES = ("s", "es", "ed", "ing", "er", "ers")


def osa_distance(a: str, b: str) -> int:
    """Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps."""
    la, lb = len(a), len(b)
    prev2: list[int] = []
    prev = list(range(lb + 1))
    for i in range(1, la + 1):
        cur = [i] + [0] * lb
        for j in range(1, lb + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            v = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                v = min(v, prev2[j - 2] + 1)
            cur[j] = v
        prev2, prev = prev, cur
    return prev[lb]


def deletions(word: str, depth: int) -> set[str]:
    """All strings obtained from ``word`` by deleting up to ``depth`` characters (itself
    included)."""
    out = {word}
    frontier = {word}
    for _ in range(depth):
        frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
        out |= frontier
    return out


class KnownWords:
    """The spelling dictionary: WordNet lemma names + morphology, plus the Unix word list.

    Args:
        extra: further words to accept (for example compound forms the pipeline produces).
        use_wordnet, use_word_list: which dictionaries to consult.
    """

    def __init__(
        self, extra: Iterable[str] = (), use_wordnet: bool = True, use_word_list: bool = True
    ):
        from features.text import _resources as resources

        words: set[str] = set(w.lower() for w in extra)
        self._wn = None
        if use_wordnet:
            words |= resources.wordnet_lemma_names()
            self._wn = resources.wordnet()
        if use_word_list:
            words |= resources.word_list()
        self.words = frozenset(words)
        self._memo: dict[str, bool] = {}

    def __contains__(self, token: str) -> bool:
        hit = self._memo.get(token)
        if hit is None:
            hit = self._known(token)
            self._memo[token] = hit
        return hit

    def _known(self, token: str) -> bool:
        if token in self.words:
            return True
        if self._wn is not None and token.isalpha() and self._wn.morphy(token) is not None:
            return True
        if "-" in token:
            parts = [p for p in token.split("-") if p]
            return bool(parts) and all(p in self for p in parts)
        return False


@dataclass(eq=False, repr=False)
class SpellingCorrector(BaseEstimator):
    """Correct out-of-vocabulary tokens to a unique best frequent known word.

    Args:
        max_distance: edit distance allowed for ordinary tokens.
        long_word: tokens of at least this many characters may be corrected at distance
            ``long_distance``.
        long_distance: edit distance allowed for long tokens.
        min_length: shorter tokens are never corrected.
        min_candidate_count: a candidate must occur this often in the training captions.
        min_ratio: ... and at least this many times as often as the token it replaces.
        same_first_letter: a candidate must start with the token's first letter (or swap
            the token's first two letters).
        max_token_count: unknown tokens seen this often in training are left alone.
        protected: tokens never corrected (for example compound forms the pipeline produces).

    Attributes:
        corrections_: ``(token, correction, training count)`` for every training token changed,
            sorted by descending count then token.
        unknown_: ``(token, training count)`` of every unknown token seen in training (corrected
            or not), sorted the same way: what ``spell`` would list.
        candidates_: candidate word -> training count.
    """

    max_distance: int = 1
    long_word: int = 8
    long_distance: int = 2
    min_length: int = 4
    min_candidate_count: int = 5
    min_ratio: float = 3.0
    same_first_letter: bool = True
    max_token_count: int = 10
    protected: Iterable[str] = ()

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_known", None)  # rebuilt on demand (holds a WordNet reader)
        return state

    def _dictionary(self) -> KnownWords:
        known = getattr(self, "_known", None)
        if known is None:
            known = KnownWords(extra=self.protected)
            self._known = known
        return known

    def is_candidate_for_correction(self, token: str) -> bool:
        """True if ``token`` is an unknown plain word that this corrector may change."""
        if len(token) < self.min_length or not token.replace("-", "").isalpha():
            return False  # digits, apostrophes, very short tokens: left alone
        return token not in self._dictionary()

    def fit(self, token_lists: Sequence[Sequence[str]]) -> "SpellingCorrector":
        """Count training tokens, build the candidate index, correct the unknown ones."""
        if self.max_distance < 0 or self.long_distance < self.max_distance:
            raise ValueError(
                "need 0 <= max_distance <= long_distance, got "
                f"{self.max_distance}, {self.long_distance}"
            )
        counts: Counter[str] = Counter()
        for tokens in token_lists:
            counts.update(tokens)
        known = self._dictionary()
        protected = frozenset(self.protected)
        self.candidates_ = {
            w: c
            for w, c in counts.items()
            if c >= self.min_candidate_count and w.isalpha() and w in known
        }
        index: dict[str, list[str]] = defaultdict(list)
        for w in sorted(self.candidates_):
            for d in sorted(deletions(w, self.long_distance)):  # the index's order is saved
                index[d].append(w)
        self._index = dict(index)
        self._counts = counts
        self._protected = protected
        self._cache: dict[str, str] = {}
        unknown, corrections = [], []
        for tok, c in counts.items():
            if tok in protected or not self.is_candidate_for_correction(tok):
                continue
            unknown.append((tok, c))
            fixed = self.correct(tok)
            if fixed != tok:
                corrections.append((tok, fixed, c))
        unknown.sort(key=lambda x: (-x[1], x[0]))
        corrections.sort(key=lambda x: (-x[2], x[0]))
        self.unknown_ = unknown
        self.corrections_ = corrections
        return self

    def correct(self, token: str) -> str:
        """The correction of one token (the token itself when known or not uniquely fixable)."""
        if not hasattr(self, "candidates_"):
            raise RuntimeError("SpellingCorrector is not fitted: call fit(training token lists)")
        hit = self._cache.get(token)
        if hit is not None:
            return hit
        result = token
        if (
            token not in self._protected
            and self.is_candidate_for_correction(token)
            and self._counts.get(token, 0) < self.max_token_count
            and not self._inflects_unknown_word(token)
        ):
            result = self._best(token)
        self._cache[token] = result
        return result

    def _inflects_unknown_word(self, token: str) -> bool:
        """True if a stem of ``token`` is an unknown word also seen in training."""
        for suffix in _SUFFIXES:
            if token.endswith(suffix) and len(token) > len(suffix) + 2:
                stem = token[: -len(suffix)]
                if self._counts.get(stem, 0) > 0 and stem not in self._dictionary():
                    return True
        return False

    def _first_letters_ok(self, token: str, cand: str) -> bool:
        if not self.same_first_letter or token[0] == cand[0]:
            return True
        return len(token) > 1 and len(cand) > 1 and token[0] == cand[1] and token[1] == cand[0]

    def _best(self, token: str) -> str:
        limit = self.long_distance if len(token) >= self.long_word else self.max_distance
        if limit == 0:
            return token
        floor = self.min_ratio * self._counts.get(token, 0)
        found: set[str] = set()
        for d in deletions(token, limit):
            found.update(self._index.get(d, ()))
        best_d, best = limit + 1, []
        for cand in sorted(found):
            if self.candidates_[cand] < floor or not self._first_letters_ok(token, cand):
                continue
            dist = osa_distance(token, cand)
            if dist < best_d:
                best_d, best = dist, [cand]
            elif dist == best_d:
                best.append(cand)
        return best[0] if len(best) == 1 and best_d <= limit else token

    def transform(self, token_lists: Sequence[Sequence[str]]) -> list[list[str]]:
        """Correct every token list (unknown tokens only; new unknown words are fixed too)."""
        return [[self.correct(t) for t in tokens] for tokens in token_lists]
