"""The Snowball English ("Porter2") stemmer as the Meteor 1.5 jar runs it.

Meteor's stem stage (Denkowski & Lavie 2014, Section 2) matches two *different* words whose
Snowball stems are equal; the jar uses Snowball's generated ``englishStemmer`` Java class. The
``snowballstemmer`` package is Snowball's own generated Python code of the same algorithm, and
gives the same stems: ``tests/kcca/captions/test_cap_meteor_engine.py`` checks it against the
jar's stems on every word of the Flickr 8K captions and of Meteor's synonym list, and it
agrees with the jar on all 157,769 words of WordNet 3.0's lemma names (NLTK's own Snowball
port differs on 16 of them, e.g. ``realization``: jar ``realiz``, NLTK ``realize``).

The input is one lower-cased token (Meteor lower-cases before matching).
"""

from __future__ import annotations

import functools


@functools.lru_cache(maxsize=None)
def _stemmer():
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def stem(word: str) -> str:
    """The Snowball English stem of one lower-cased token, as Meteor 1.5's jar computes it."""
    return _stemmer().stemWord(word)
