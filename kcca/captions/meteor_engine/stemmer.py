"""The Snowball English ("Porter2") stemmer exactly as the Meteor 1.5 jar runs it.

Meteor's stem stage (Denkowski & Lavie 2014, Section 2) matches two *different* words whose
Snowball stems are equal; the jar uses the Snowball-generated ``englishStemmer`` class of
2010 (``org.tartarus.snowball.ext.englishStemmer``). This module restates that algorithm
step by step (Porter 2001, "The English (Porter2) stemming algorithm"), following the jar's
class where versions of Porter2 differ: the prefixes that fix R1 are ``gener``, ``commun`` and
``arsen`` only, words of fewer than three characters are left alone, and the special-case
words are those of the 2010 version. ``tests/kcca/captions/test_cap_meteor_engine.py`` checks
it against the jar's own stems on every word of the Flickr 8K captions and of Meteor's
WordNet synonym list.

The input is one lower-cased token (Meteor lower-cases before matching); characters outside
``a-z`` are consonants, as in the generated Java. Lengths count code points, where Java
counts UTF-16 units (a difference only for characters outside the Basic Multilingual Plane).
"""

from __future__ import annotations

_V = frozenset("aeiouy")
#: vowels plus w, x and Y: a short syllable may not end in one of these
_V_WXY = frozenset("aeiouywxY")
#: letters that may precede a deleted "li" (Step 2)
_VALID_LI = frozenset("cdeghkmnrt")

#: whole words with a fixed stem (checked first; ``None`` = left unchanged)
_EXCEPTION1 = {
    "skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
    "idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
    "singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
    "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}
#: words that Step 1a may produce and that stop stemming there
_EXCEPTION2 = frozenset(("inning", "outing", "canning", "herring", "earring", "proceed",
                         "exceed", "succeed"))
_R1_PREFIXES = ("gener", "commun", "arsen")

_STEP1B = (("eedly", 1), ("ingly", 2), ("edly", 2), ("eed", 1), ("ing", 2), ("ed", 2))
_DOUBLES = frozenset(("bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"))
# Step 2 and 3: suffix -> replacement (the Snowball "among" picks the
# longest suffix present, then tests its condition; a failed condition ends the step)
_STEP2 = dict(sorted({
    "tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
    "izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
    "alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous",
    "ousness": "ous", "iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble",
    "ogi": "og", "fulli": "ful", "lessli": "less", "li": "",
}.items(), key=lambda kv: -len(kv[0])))
_STEP3 = dict(sorted({
    "tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic",
    "ical": "ic", "ful": "", "ness": "", "ative": "",
}.items(), key=lambda kv: -len(kv[0])))
_STEP4 = frozenset(("al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment",
                    "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion"))


def _lengths(suffixes) -> tuple[int, ...]:
    return tuple(sorted({len(x) for x in suffixes}, reverse=True))


_STEP2_LENGTHS, _STEP3_LENGTHS, _STEP4_LENGTHS = map(_lengths, (_STEP2, _STEP3, _STEP4))


def _longest(w: str, suffixes, lengths: tuple[int, ...]) -> str | None:
    """The longest suffix of ``w`` in ``suffixes`` (Snowball's ``among``), or None."""
    n = len(w)
    for k in lengths:
        if k <= n and w[n - k:] in suffixes:
            return w[n - k:]
    return None


def _regions(w: str) -> tuple[int, int]:
    """R1 and R2 start positions: each is the position after the first non-vowel that
    follows a vowel (R2: inside R1); the end of the word when there is none."""
    n = len(w)

    def after_vowel_consonant(start: int) -> int:
        i = start
        while i < n and w[i] not in _V:
            i += 1
        i += 1
        while i < n and w[i] in _V:
            i += 1
        return i + 1 if i < n else -1

    p1 = next((len(p) for p in _R1_PREFIXES if w.startswith(p)), None)
    if p1 is None:
        p1 = after_vowel_consonant(0)
        if p1 < 0:
            return n, n
    p2 = after_vowel_consonant(p1)
    return p1, (n if p2 < 0 else p2)


def _short_syllable(w: str) -> bool:
    """``w`` ends in a short syllable: non-vowel (not w, x, Y), vowel, non-vowel; or a
    two-letter word vowel, non-vowel."""
    n = len(w)
    if n >= 3 and w[-1] not in _V_WXY and w[-2] in _V and w[-3] not in _V:
        return True
    return n == 2 and w[0] in _V and w[1] not in _V


def _step1a(w: str) -> str:
    for suf in ("'s'", "'s", "'"):
        if w.endswith(suf):
            w = w[:-len(suf)]
            break
    if w.endswith("sses"):
        return w[:-2]
    if w.endswith("ied") or w.endswith("ies"):
        return w[:-3] + ("i" if len(w) > 4 else "ie")
    if w.endswith("ss") or w.endswith("us"):
        return w
    if w.endswith("s") and any(c in _V for c in w[:-2]):
        return w[:-1]
    return w


def _step1b(w: str, p1: int) -> str:
    for suf, kind in _STEP1B:
        if not w.endswith(suf):
            continue
        start = len(w) - len(suf)
        if kind == 1:
            return w[:start] + "ee" if start >= p1 else w
        if not any(c in _V for c in w[:start]):
            return w
        w = w[:start]
        if w.endswith(("at", "bl", "iz")):
            return w + "e"
        if w[-2:] in _DOUBLES:
            return w[:-1]
        if len(w) == p1 and _short_syllable(w):
            return w + "e"
        return w
    return w


def _step1c(w: str) -> str:
    if len(w) > 2 and w[-1] in "yY" and w[-2] not in _V:
        return w[:-1] + "i"
    return w


def _step2(w: str, p1: int) -> str:
    suf = _longest(w, _STEP2, _STEP2_LENGTHS)
    if suf is None:
        return w
    start = len(w) - len(suf)
    if start < p1:
        return w
    if suf == "ogi":
        return w[:start] + "og" if start > 0 and w[start - 1] == "l" else w
    if suf == "li":
        return w[:start] if start > 0 and w[start - 1] in _VALID_LI else w
    return w[:start] + _STEP2[suf]


def _step3(w: str, p1: int, p2: int) -> str:
    suf = _longest(w, _STEP3, _STEP3_LENGTHS)
    if suf is None:
        return w
    start = len(w) - len(suf)
    if start < p1 or (suf == "ative" and start < p2):
        return w
    return w[:start] + _STEP3[suf]


def _step4(w: str, p2: int) -> str:
    suf = _longest(w, _STEP4, _STEP4_LENGTHS)
    if suf is None:
        return w
    start = len(w) - len(suf)
    if start < p2 or (suf == "ion" and not (start > 0 and w[start - 1] in "st")):
        return w
    return w[:start]


def _step5(w: str, p1: int, p2: int) -> str:
    start = len(w) - 1
    if w.endswith("e"):
        if start >= p2 or (start >= p1 and not _short_syllable(w[:start])):
            return w[:start]
    elif w.endswith("l"):
        if start >= p2 and start > 0 and w[start - 1] == "l":
            return w[:start]
    return w


def stem(word: str) -> str:
    """The Snowball English stem of one lower-cased token, as Meteor 1.5's jar computes it."""
    special = _EXCEPTION1.get(word)
    if special is not None:
        return special
    if len(word) < 3:
        return word
    # prelude: drop a leading apostrophe; initial y and y after a vowel become Y
    w = word[1:] if word.startswith("'") else word
    y_found = False
    if w.startswith("y"):
        w = "Y" + w[1:]
        y_found = True
    if "y" in w:
        chars = list(w)
        for i in range(len(chars) - 1):
            if chars[i] in _V and chars[i + 1] == "y":
                chars[i + 1] = "Y"
                y_found = True
        w = "".join(chars)
    p1, p2 = _regions(w)
    w = _step1a(w)
    if w not in _EXCEPTION2:
        w = _step1b(w, p1)
        w = _step1c(w)
        w = _step2(w, p1)
        w = _step3(w, p1, p2)
        w = _step4(w, p2)
        w = _step5(w, p1, p2)
    return w.replace("Y", "y") if y_found else w
