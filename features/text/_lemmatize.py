"""Step 5 of caption preprocessing (Section 4.1.1): WordNet lemmatisation with a POS guess.

Each token is reduced with WordNet's morphology (``morphy``) under the part of speech its
universal tag names (NOUN -> n, VERB -> v, ADJ -> a, ADV -> r). When morphology offers several
lemmas, the one with the highest WordNet (SemCor) tag count wins, then the shorter, then the
alphabetically first: "riding" -> "ride" (not "rid", NLTK's shortest choice), "men" -> "man"
(not "men", WordNet's first form). If that part of speech gives no lemma, the other open-class
parts of speech are tried in the order n, v, a, r (taggers mistag verbs as nouns in this
domain, Sec. 3.5.4). Closed-class tokens (DET, ADP, PRON, ...) and words WordNet does not know are
kept as they are. Tags must come from the raw, un-lemmatised caption (Section 3.5.4).
"""

from __future__ import annotations

from typing import Any, Sequence

from sklearn.base import BaseEstimator

UNIVERSAL_TO_WORDNET = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}
_OPEN = ("n", "v", "a", "r")


class WordNetLemmatizer(BaseEstimator):
    """Lemmatise tagged tokens with WordNet (found through ``$NLTK_DATA``).

    Args:
        fallback: try the other open-class parts of speech when the tagged one gives no lemma.
    """

    def __init__(self, fallback: bool = True):
        self.fallback = fallback

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_wn", None)  # the WordNet reader is looked up again on demand
        state.pop("_memo", None)
        return state

    def _reader(self) -> Any:  # nltk's WordNet reader
        wn = getattr(self, "_wn", None)
        if wn is None:
            from features.text._resources import wordnet

            wn = self._wn = wordnet()
            self._memo: dict[tuple[str, str], str] = {}
        return wn

    def lemma(self, token: str, tag: str | None) -> str:
        """The lemma of one token given its universal tag (``None``: try n, v, a, r)."""
        wn = self._reader()
        pos = UNIVERSAL_TO_WORDNET.get(tag) if tag is not None else "n"
        if pos is None:
            return token
        key = (token, tag or "")
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        order = [pos] + ([p for p in _OPEN if p != pos] if self.fallback or tag is None else [])
        result = token
        for p in order:
            lemmas = wn._morphy(token, p)
            if lemmas:
                result = min(lemmas, key=lambda l: (-self._count(wn, l, p), len(l), l))
                break
        self._memo[key] = result
        return result

    @staticmethod
    def _count(wn, lemma: str, pos: str) -> int:
        return sum(x.count() for x in wn.lemmas(lemma, pos))

    def lemmatize(self, tokens: Sequence[str], tags: Sequence[str] | None) -> list[str]:
        """Lemmas of a token list; ``tags`` are universal POS tags of the same length."""
        if tags is None:
            return [self.lemma(t, None) for t in tokens]
        if len(tags) != len(tokens):
            raise ValueError(f"got {len(tags)} tags for {len(tokens)} tokens: {list(tokens)!r}")
        return [self.lemma(t, g) for t, g in zip(tokens, tags)]
