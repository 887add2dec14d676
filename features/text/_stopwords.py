"""Step 4 of caption preprocessing (Section 4.1.1): stop-word removal.

The default list is NLTK's English stop words (179 words, read from ``$NLTK_DATA``); the
paper's vocabulary of 1,928 training words (Section 3.5.3) comes out with exactly this list.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from kcca.errors import SettingError

NLTK_ENGLISH = "nltk-english"


def resolve_stop_words(spec: str | Iterable[str] | None) -> frozenset[str]:
    """The stop-word set named by ``spec``: ``"nltk-english"``, ``None`` (none) or the words."""
    if spec is None:
        return frozenset()
    if isinstance(spec, str):
        if spec == NLTK_ENGLISH:
            from features.text._resources import stop_words

            return stop_words("english")
        raise SettingError(
            f"unknown stop-word list {spec!r}: use {NLTK_ENGLISH!r}, None, or "
            "an explicit list of words"
        )
    words = frozenset(spec)
    bad = [w for w in words if not isinstance(w, str)]
    if bad:
        raise TypeError(f"stop words must be strings; got {bad[:3]!r}")
    return frozenset(w.lower() for w in words)


def remove_stop_words(
    tokens: Sequence[str], stop_words: frozenset[str], surface: Sequence[str] | None = None
) -> list[str]:
    """Drop tokens in ``stop_words``.

    With ``surface`` (the un-lemmatised tokens, same length), a token is also dropped when its
    surface form is a stop word ("is" -> "be", "as" -> "a" are dropped either way).
    """
    if surface is None:
        return [t for t in tokens if t not in stop_words]
    if len(surface) != len(tokens):
        raise ValueError(
            f"surface tokens ({len(surface)}) and tokens ({len(tokens)}) differ in length"
        )
    return [t for t, s in zip(tokens, surface) if t not in stop_words and s not in stop_words]
