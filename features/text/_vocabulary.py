"""Vocabulary statistics of preprocessed captions (the paper's 1,928 training words, Sec. 3.5.3)."""

from __future__ import annotations

from collections import Counter
from typing import Iterable, Sequence


def token_counts(token_lists: Iterable[Sequence[str]]) -> Counter:
    """Token -> number of occurrences over all token lists."""
    counts: Counter = Counter()
    for tokens in token_lists:
        if isinstance(tokens, str):
            raise TypeError(
                "expected token lists (lists of strings), got a string: "
                "preprocess the captions first"
            )
        counts.update(tokens)
    return counts


def vocabulary(token_lists: Iterable[Sequence[str]], min_count: int = 5) -> list[str]:
    """Words seen at least ``min_count`` times, sorted alphabetically.

    On the 30,000 Flickr 8K training captions preprocessed with the ``flickr8k-lemma`` preset
    this gives the paper's 1,928 words (Section 3.5.3; docs/paper-notes.md#text-preprocessing).
    """
    if min_count < 1:
        raise ValueError(f"min_count must be >= 1, got {min_count}")
    counts = token_counts(token_lists)
    return sorted(w for w, c in counts.items() if c >= min_count)


def vocabulary_stats(token_lists: Sequence[Sequence[str]], min_count: int = 5) -> dict:
    """Counts for reports: captions, tokens, types, vocabulary size, empty captions."""
    counts = token_counts(token_lists)
    return {
        "captions": len(token_lists),
        "tokens": sum(counts.values()),
        "types": len(counts),
        "min_count": min_count,
        "vocabulary": sum(1 for c in counts.values() if c >= min_count),
        "empty_captions": sum(1 for t in token_lists if not t),
        "mean_length": (sum(counts.values()) / len(token_lists)) if token_lists else 0.0,
    }
