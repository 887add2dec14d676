"""Text items for the text kernels: what a kernel accepts and how it is normalised.

The text kernels (Sections 3.4-3.5) never preprocess: an item holds already preprocessed
token lists. Two shapes are accepted:

* a *caption*: a list (or tuple) of tokens, ``["dog", "run", "beach"]`` - one-caption item,
  as in the dev/test pools;
* a *multi-caption item*: a list of captions, ``[["dog", "run"], ["puppy", "play"], ...]`` -
  the five captions of one training image are one item (docs/design.md#kernel-contract).

``[]`` is read as one empty caption. An empty caption (also one left empty by stop-word
removal) has zero features; the kernels give it a defined value (see each kernel) and
:func:`as_items` counts empty captions in an :class:`EmptyCaptionWarning`. A plain string as
an item, or a non-string token, is an error naming the item and the fix.
"""

from __future__ import annotations

import warnings
from typing import Any, Sequence

import numpy as np

Caption = tuple[str, ...]
TextItem = tuple[Caption, ...]


class EmptyCaptionWarning(UserWarning):
    """Some captions have no tokens: they get zero features (never silently dropped)."""


def _caption(tokens: Any, where: str) -> Caption:
    if isinstance(tokens, str):
        raise TypeError(
            f"{where} is a string ({tokens[:40]!r}), not a token list: items must be token lists "
            "(list[str]) or lists of token lists; tokenise and preprocess the captions first"
        )
    out = tuple(tokens)
    for t in out:
        if not isinstance(t, str):
            raise TypeError(
                f"{where} holds a token of type {type(t).__name__} ({t!r}); tokens must be str"
            )
    return out


def as_item(item: Any, where: str = "item") -> TextItem:
    """One item as a tuple of captions (each a tuple of tokens)."""
    if isinstance(item, str):
        raise TypeError(
            f"{where} is a string ({item[:40]!r}): items must be token lists (list[str]) or "
            "lists of token lists; tokenise and preprocess the captions first"
        )
    try:
        seq = list(item)
    except TypeError:
        raise TypeError(
            f"{where} of type {type(item).__name__} is not a token list or a list of token lists"
        ) from None
    if not seq:
        return ((),)
    if all(isinstance(t, str) for t in seq):
        return (tuple(seq),)
    if any(isinstance(t, str) for t in seq):
        raise TypeError(
            f"{where} mixes tokens and captions; pass either one caption (list[str]) or a list "
            "of captions (list[list[str]])"
        )
    return tuple(_caption(c, f"caption {k} of {where}") for k, c in enumerate(seq))


def as_items(items: Sequence[Any], what: str = "items", warn: bool = True) -> list[TextItem]:
    """Normalise a sequence of items; warn (once) with the number of empty captions."""
    if isinstance(items, str):
        raise TypeError(f"{what} is a string; pass a list of items (token lists)")
    out = [as_item(it, f"{what}[{i}]") for i, it in enumerate(items)]
    if warn:
        warn_empty(out, what)
    return out


def count_empty(items: Sequence[TextItem]) -> tuple[int, int]:
    """(number of empty captions, number of captions)."""
    n_empty = sum(1 for it in items for c in it if len(c) == 0)
    return n_empty, sum(len(it) for it in items)


def warn_empty(items: Sequence[TextItem], what: str = "items") -> int:
    """Emit an :class:`EmptyCaptionWarning` when some captions are empty; return their count."""
    n_empty, n = count_empty(items)
    if n_empty:
        first = next(i for i, it in enumerate(items) if any(len(c) == 0 for c in it))
        warnings.warn(
            f"{n_empty} of {n} captions in {what} are empty (first in item {first}); they get "
            "zero features (normalised kernels: 0 against every item, 1 on the diagonal). "
            "Check the preprocessing if this is unexpected.",
            EmptyCaptionWarning,
            stacklevel=3,
        )
    return n_empty


def one_caption_each(items: Sequence[TextItem], random_state: int | None) -> list[TextItem]:
    """BoW1 / TRI1: reduce each item to one caption drawn with ``random_state`` (Sec. 3.4.1)."""
    rng = np.random.default_rng(random_state)
    return [(it[int(rng.integers(len(it)))],) for it in items]


def vocabulary(items: Sequence[TextItem]) -> dict[str, int]:
    """Word -> id, in order of first occurrence."""
    index: dict[str, int] = {}
    for it in items:
        for c in it:
            for w in c:
                if w not in index:
                    index[w] = len(index)
    return index
