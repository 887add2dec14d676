"""The Snowball English ("Porter2") stemmer as the Meteor 1.5 jar runs it.

Meteor's stem stage (Denkowski & Lavie 2014, Section 2) matches two *different* words whose
Snowball stems are equal; the jar uses Snowball's generated ``englishStemmer`` Java class of
2010. ``snowballstemmer`` 2.x is Snowball's own generated Python code of that version of the
algorithm: it agrees with the jar on every word of the Flickr 8K captions and of Meteor's
synonym list (``tests/kcca/captions/test_cap_meteor_engine.py`` checks this against the jar)
and on all 157,769 words of WordNet 3.0's lemma names. Snowball 3 changed the English
algorithm (``added``: 2.x and the jar ``ad``, 3.x ``add``; 175 of those words differ), so the
dependency is ``snowballstemmer>=2.2,<3``, and the pure-Python class is used directly, never
the PyStemmer (Snowball 3) C extension that ``snowballstemmer.stemmer`` prefers when present.
NLTK's own port differs on 16 of the WordNet words (``realization``: jar ``realiz``).

The input is one lower-cased token (Meteor lower-cases before matching).
"""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=None)
def _stemmer():
    from snowballstemmer.english_stemmer import EnglishStemmer

    return EnglishStemmer()


def stem(word: str) -> str:
    """The Snowball English stem of one lower-cased token, as Meteor 1.5's jar computes it."""
    return _stemmer().stemWord(word)
