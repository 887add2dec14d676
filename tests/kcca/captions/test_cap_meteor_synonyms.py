"""Meteor's synonym look-ups from the cached sorted arrays equal a plain reading of the jar's
two files (``SynonymDictionary.getSynSets`` / ``getStemSynSets``, coded the obvious way
below as the oracle)."""

from __future__ import annotations

import zipfile

import pytest

from kcca.captions._meteor import find_meteor_jar, meteor_available
from kcca.captions._meteor_engine.synonyms import SynonymDictionary, build_synonym_index, \
    java_lines
from tests.support.optional_tools import skip_unless

SUFFIX_RULES = (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
                ("shes", "sh"), ("men", "man"), ("ies", "y"), ("s", ""), ("ies", "y"),
                ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""),
                ("er", ""), ("est", ""), ("er", "e"), ("est", "e"))


class PlainSynonyms:
    """The oracle: the files in dictionaries, the morphology word by word."""

    def __init__(self, synsets_text: str, exceptions_text: str):
        lines = java_lines(synsets_text)
        self.raw = dict(zip(lines[0::2], lines[1::2]))
        self.bases: dict[str, list[str]] = {}
        exc = java_lines(exceptions_text)
        for base, forms in zip(exc[0::2], exc[1::2]):
            for form in forms.split():
                self.bases.setdefault(form, []).append(base)

    def synsets(self, word):
        raw = self.raw.get(word)
        return frozenset(int(t) for t in raw.split()) if raw is not None else frozenset()

    def morph(self, word):
        end = "ful" if word.endswith("ful") else ""
        if word.endswith("ss") or len(word) <= 2:
            return word
        for suffix, ending in SUFFIX_RULES:
            if word.endswith(suffix):
                base = word[:len(word) - len(suffix)] + ending
                if base in self.raw:
                    return base + end
        return ""

    def all_synsets(self, word):
        bases = self.bases.get(word)
        if bases is not None:
            stem = frozenset().union(*(self.synsets(b) for b in bases))
        else:
            stem = self.synsets(self.morph(word))
        return self.synsets(word) | stem


SYNSETS = "dog\n01\ndogs\n02\nchurch\n03 04\nmouse\n05\nglass\n06\nox\n07\nhappy\n08\n" \
          "dog\n09\nlie\n10\nlay\n11\n"
EXCEPTIONS = "mouse\nmice\nlie\nlay lain\n"


def test_small_files_every_path_of_the_morphology():
    """Listed words, suffix rules in order, an exception (with two forms and a listed form),
    'ss' words and two-letter words as their own base, later duplicates winning, unknown
    words and the empty word."""
    fast = SynonymDictionary.from_text(SYNSETS, EXCEPTIONS)
    plain = PlainSynonyms(SYNSETS, EXCEPTIONS)
    words = ["dog", "dogs", "churches", "church", "mice", "mouse", "glass", "glasses", "ox",
             "oxes", "happier", "happiest", "lay", "lain", "lies", "cat", "", "ss", "a",
             "dogging", "dogged", "mices"]
    assert fast.all_synsets_many(words) == [plain.all_synsets(w) for w in words]
    assert fast.all_synsets("dog") == frozenset({9})  # the later line wins
    assert fast.all_synsets("dogs") == frozenset({2, 9})
    assert fast.all_synsets("mice") == frozenset({5})
    assert fast.all_synsets("lay") == frozenset({10, 11})  # its own and its exception base's
    assert fast.synsets("cat") == frozenset() and fast.all_synsets("") == frozenset()
    assert fast.words() == sorted(plain.raw)


def test_an_index_of_another_version_is_refused():
    index = build_synonym_index(SYNSETS, EXCEPTIONS)
    with pytest.raises(ValueError, match="another version"):
        SynonymDictionary(dict(index, version=0))


@pytest.mark.slow
def test_every_word_of_the_jar_and_its_inflections_as_the_plain_reading():
    """All 147k listed words, every irregular form, and each word with the morphology's
    suffixes appended (so that every rule fires on listed bases)."""
    ok, why = meteor_available("python")
    skip_unless(ok, why)
    with zipfile.ZipFile(find_meteor_jar()) as z:
        synsets = z.read("synonym/english.synsets").decode("utf-8")
        exceptions = z.read("synonym/english.exceptions").decode("utf-8")
    fast = SynonymDictionary.from_text(synsets, exceptions)
    plain = PlainSynonyms(synsets, exceptions)
    words = list(plain.raw) + list(plain.bases)
    words += [w + s for w in list(plain.raw)[::7] for s in ("s", "es", "ed", "ing", "er", "est")]
    got = fast.all_synsets_many(words)
    wrong = [w for w, g in zip(words, got) if g != plain.all_synsets(w)]
    assert not wrong, wrong[:10]
    assert len(words) > 250_000
