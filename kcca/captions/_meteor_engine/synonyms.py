"""Meteor's WordNet synonym module (``SynonymDictionary``): synonym-set ids of a word.

Meteor's synonym stage (Denkowski & Lavie 2014, Section 2; Banerjee & Lavie 2005) matches two
different words that share a WordNet 3.0 synset. The jar ships the data as
``synonym/english.synsets`` (a word line, then a line of synset ids) and
``synonym/english.exceptions`` (a base form line, then a line of its irregular forms). The
synsets of a word are those of the word itself plus those of its base forms: the listed
irregular bases when the word is an exception, else the first base found by WordNet's
suffix-stripping morphology (``morph``; e.g. ``dogs`` -> ``dog``, ``churches`` -> ``church``).
The jar never loads ``english.relations`` (its loader is switched off), so neither does this.

:func:`build_synonym_index` turns the 147k entries into sorted arrays once (the project cache
keeps them, :mod:`kcca.captions._meteor_engine.resources`), so that a scoring run looks up its
vocabulary with one vectorised search instead of parsing the file into a dictionary.
"""

from __future__ import annotations

import re
from itertools import chain
from typing import Iterable, Sequence

import numpy as np

#: bump when the index layout changes (part of the cache key)
SYNONYM_INDEX_VERSION = 1

_LINES = re.compile(r"\r\n|\r|\n")

# WordNet 3.0's morphy suffix table (nouns, verbs, adjectives), in the jar's order
_SUFFIXES = (
    "s",
    "ses",
    "xes",
    "zes",
    "ches",
    "shes",
    "men",
    "ies",
    "s",
    "ies",
    "es",
    "es",
    "ed",
    "ed",
    "ing",
    "ing",
    "er",
    "est",
    "er",
    "est",
)
_ENDINGS = (
    "",
    "s",
    "x",
    "z",
    "ch",
    "sh",
    "man",
    "y",
    "",
    "y",
    "e",
    "",
    "e",
    "",
    "e",
    "",
    "",
    "",
    "e",
    "e",
)
_RULES = tuple(zip(_SUFFIXES, _ENDINGS))


def java_lines(text: str) -> list[str]:
    """Lines as ``BufferedReader.readLine`` returns them (no trailing empty line)."""
    lines = text.split("\n") if "\r" not in text else _LINES.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def build_synonym_index(synsets_text: str, exceptions_text: str) -> dict:
    """The two files as arrays: ``words`` (UTF-8 bytes, sorted), the synset ids of word ``k``
    at ``ids[offsets[k]:offsets[k + 1]]``, and the exceptions file's text (small)."""
    lines = java_lines(synsets_text)
    raw = dict(zip(lines[0::2], lines[1::2]))  # later duplicates win, as Hashtable.put
    encoded = sorted((w.encode("utf-8"), w) for w in raw)
    parsed = [[int(t) for t in raw[w].split()] for _, w in encoded]
    offsets = np.zeros(len(parsed) + 1, np.int64)
    np.cumsum([len(p) for p in parsed], out=offsets[1:])
    ids = np.fromiter(chain.from_iterable(parsed), np.int64, count=int(offsets[-1]))
    words = np.array([b for b, _ in encoded], dtype=bytes) if encoded else np.array([], "S1")
    return {
        "version": SYNONYM_INDEX_VERSION,
        "words": words,
        "offsets": offsets,
        "ids": ids,
        "exceptions": exceptions_text,
    }


class SynonymDictionary:
    """Synset ids per word, from the arrays of :func:`build_synonym_index`.

    Look-ups go through :meth:`all_synsets_many` (one ``searchsorted`` for a whole
    vocabulary); :meth:`synsets` and :meth:`all_synsets` answer one word.
    """

    def __init__(self, index: dict):
        if index.get("version") != SYNONYM_INDEX_VERSION:
            raise ValueError("synonym index of another version")
        self._words: np.ndarray = index["words"]
        self._offsets: np.ndarray = index["offsets"]
        self._ids: np.ndarray = index["ids"]
        self._bases: dict[str, list[str]] = {}
        exc = java_lines(index["exceptions"])
        for base, forms in zip(exc[0::2], exc[1::2]):
            for form in forms.split():
                self._bases.setdefault(form, []).append(base)
        self._memo: dict[str, frozenset[int]] = {}

    @classmethod
    def from_text(cls, synsets_text: str, exceptions_text: str) -> SynonymDictionary:
        """Parse the jar's two files (no cache)."""
        return cls(build_synonym_index(synsets_text, exceptions_text))

    def words(self) -> list[str]:
        """Every word listed in ``english.synsets`` (sorted by UTF-8 bytes)."""
        return [w.decode("utf-8") for w in self._words.tolist()]

    def _positions(self, words: Sequence[str]) -> list[int]:
        """Index of each word in the sorted list, -1 where it is not listed."""
        if not words or not self._words.size:
            return [-1] * len(words)
        query = np.array([w.encode("utf-8") for w in words], dtype=bytes)
        pos = np.searchsorted(self._words, query)
        found = pos < self._words.size
        found[found] = self._words[pos[found]] == query[found]
        return np.where(found, pos, -1).tolist()

    def _ids_at(self, k: int) -> frozenset[int]:
        if k < 0:
            return frozenset()
        return frozenset(self._ids[self._offsets[k] : self._offsets[k + 1]].tolist())

    def synsets(self, word: str) -> frozenset[int]:
        """``getSynSets``: the synset ids listed for ``word`` itself."""
        return self._ids_at(self._positions([word])[0])

    @staticmethod
    def _morph_plan(word: str) -> tuple[list[str] | None, list[str], str]:
        """WordNet's morphology as the jar codes it: ``(fixed, candidates, ending)``. Words
        ending in ``ss`` or of two letters are their own base (``fixed``); otherwise the
        first listed candidate (suffix rules in order) wins, with ``ful`` appended back when
        the word ends in it, and none listed gives ``""``."""
        if word.endswith("ss") or len(word) <= 2:
            return [word], [], ""
        end = "ful" if word.endswith("ful") else ""
        return (
            None,
            [
                word[: len(word) - len(suffix)] + ending
                for suffix, ending in _RULES
                if word.endswith(suffix)
            ],
            end,
        )

    def all_synsets_many(self, words: Iterable[str]) -> list[frozenset[int]]:
        """``synsets(w) | stem_synsets(w)`` for each word: what the synonym matcher compares.
        ``stem_synsets`` (``getStemSynSets``) takes the irregular bases of an exception, else
        the morphology's base."""
        words = list(words)
        todo = [w for w in dict.fromkeys(words) if w not in self._memo]
        if not todo:
            return [self._memo[w] for w in words]
        plans = []
        queries: list[str] = []
        for w in todo:
            bases = self._bases.get(w)
            plan = (bases, [], "") if bases is not None else self._morph_plan(w)
            plans.append(plan)
            queries.append(w)
            queries.extend(plan[0] or plan[1])
        pos = dict(zip(queries, self._positions(queries)))
        chosen: list[list[str]] = []
        for fixed, candidates, end in plans:
            if fixed is not None:
                chosen.append(fixed)
            else:
                base = next((c for c in candidates if pos[c] >= 0), None)
                chosen.append([base + end if base is not None else ""])
        missing = list(dict.fromkeys(b for bases in chosen for b in bases if b not in pos))
        pos.update(zip(missing, self._positions(missing)))
        for w, bases in zip(todo, chosen):
            out = set(self._ids_at(pos[w]))
            for b in bases:
                out |= self._ids_at(pos[b])
            self._memo[w] = frozenset(out)
        return [self._memo[w] for w in words]

    def all_synsets(self, word: str) -> frozenset[int]:
        """What the synonym matcher compares for one word: ``synsets(word) |
        stem_synsets(word)``."""
        return self.all_synsets_many([word])[0]
