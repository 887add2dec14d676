"""Meteor's WordNet synonym module (``SynonymDictionary``): synonym-set ids of a word.

Meteor's synonym stage (Denkowski & Lavie 2014, Section 2; Banerjee & Lavie 2005) matches two
different words that share a WordNet 3.0 synset. The jar ships the data as
``synonym/english.synsets`` (a word line, then a line of synset ids) and
``synonym/english.exceptions`` (a base form line, then a line of its irregular forms). The
synsets of a word are those of the word itself plus those of its base forms: the listed
irregular bases when the word is an exception, else the first base found by WordNet's
suffix-stripping morphology (``morph``; e.g. ``dogs`` -> ``dog``, ``churches`` -> ``church``).
The jar never loads ``english.relations`` (its loader is switched off), so neither does this.
"""

from __future__ import annotations

import re

_LINES = re.compile(r"\r\n|\r|\n")

# WordNet 3.0's morphy suffix table (nouns, verbs, adjectives), in the jar's order
_SUFFIXES = ("s", "ses", "xes", "zes", "ches", "shes", "men", "ies",
             "s", "ies", "es", "es", "ed", "ed", "ing", "ing",
             "er", "est", "er", "est")
_ENDINGS = ("", "s", "x", "z", "ch", "sh", "man", "y",
            "", "y", "e", "", "e", "", "e", "",
            "", "", "e", "e")


def java_lines(text: str) -> list[str]:
    """Lines as ``BufferedReader.readLine`` returns them (no trailing empty line)."""
    lines = text.split("\n") if "\r" not in text else _LINES.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


class SynonymDictionary:
    """Synset ids per word, from the jar's ``english.synsets`` and ``english.exceptions``.

    Parsing of the id lists is lazy: only the words asked for are converted.
    """

    def __init__(self, synsets_text: str, exceptions_text: str):
        lines = java_lines(synsets_text)
        # later duplicates win, as Hashtable.put
        self._raw: dict[str, str] = dict(zip(lines[0::2], lines[1::2]))
        self._bases: dict[str, list[str]] = {}
        exc = java_lines(exceptions_text)
        for base, forms in zip(exc[0::2], exc[1::2]):
            for form in forms.split():
                self._bases.setdefault(form, []).append(base)
        self._parsed: dict[str, frozenset[int]] = {}
        self._memo: dict[str, frozenset[int]] = {}

    def synsets(self, word: str) -> frozenset[int]:
        """``getSynSets``: the synset ids listed for ``word`` itself."""
        got = self._parsed.get(word)
        if got is None:
            raw = self._raw.get(word)
            got = frozenset(int(t) for t in raw.split()) if raw is not None else frozenset()
            self._parsed[word] = got
        return got

    def _morph(self, word: str) -> str:
        """WordNet's morphology as the jar codes it: the first suffix rule whose result is
        a listed word, else ``""`` (words ending in ``ss`` or of two letters: the word)."""
        end = "ful" if word.endswith("ful") else ""
        if word.endswith("ss") or len(word) <= 2:
            return word
        for suffix, ending in zip(_SUFFIXES, _ENDINGS):
            if word.endswith(suffix):
                base = word[:len(word) - len(suffix)] + ending
                if base in self._raw:
                    return base + end
        return ""

    def stem_synsets(self, word: str) -> frozenset[int]:
        """``getStemSynSets``: synsets of the irregular bases, else of the morphy base."""
        bases = self._bases.get(word)
        if bases is not None:
            out: set[int] = set()
            for b in bases:
                out |= self.synsets(b)
            return frozenset(out)
        return self.synsets(self._morph(word))

    def all_synsets(self, word: str) -> frozenset[int]:
        """What the synonym matcher compares: ``synsets(word) | stem_synsets(word)``."""
        got = self._memo.get(word)
        if got is None:
            got = self._memo[word] = self.synsets(word) | self.stem_synsets(word)
        return got
