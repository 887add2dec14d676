"""Meteor's ``-norm`` normaliser (``edu.cmu.meteor.util.Normalizer``) for English, in Python.

With ``-norm`` Meteor 1.5 tokenises both segments with a Moses-style tokeniser before
lower-casing and matching (Denkowski & Lavie 2014, Section 2: "punctuation normalisation and
tokenisation"): symbols are split off, ``...`` runs are kept whole, commas are split except
inside numbers, curly quotes and dashes are unified, hyphens between letters or digits are
removed (``t-shirt`` -> ``t shirt``, so that partial credit is possible), English contractions
are split on the right (``dog's`` -> ``dog 's``), and a word-final period is split off unless
the word is a non-breaking prefix (``nonbreaking/english.prefixes`` in the jar: ``Mr.``,
``Dr.``, single capitals; ``No.`` only before a number) or is followed by a lower-case word;
dotted abbreviations lose their dots (``U.S.`` -> ``US``). Punctuation is kept (``-norm``,
not ``-noPunct``).

Every regular expression below is the jar's, with Java's ASCII-only character classes
written out (``\\s`` = ``[ \\t\\n\\x0b\\f\\r]``, ``\\p{Digit}`` = ``[0-9]``, ``\\p{Lower}`` =
``[a-z]``); Python's ``re.sub`` and Java's ``replaceAll`` scan the same way (leftmost,
non-overlapping). :func:`normalize_line` is checked against the jar in
``tests/kcca/captions/test_cap_meteor_engine.py``.
"""

from __future__ import annotations

import re
from typing import Mapping

# letters the jar treats as alphabetic: ASCII, Latin-1 and Latin Extended-A, Cyrillic
ALPHA = (
    "A-Za-z\u0160\u017d\u0161\u017e\u0178\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u017e"
    "\u0400-\u04ff\u0500-\u0527\ua640-\ua66e\ua67e-\ua697\u1d00-\u1d7f"
)
ALNUM = "0-9" + ALPHA

_SEP_OTHER = re.compile("([^" + ALNUM + r" \t\n\x0b\f\r.'`,\-\u2018\u2019])")
_MULTI_DOT = re.compile(r"\.(\.+)")
_MULTI_DOT2 = re.compile(r"DOTMULTI\.([^.])")
_COMMA = re.compile(r"([^0-9]),([^0-9])")
_COMMA2 = re.compile(r"([0-9]),([^0-9])")
_COMMA3 = re.compile(r"([^0-9]),([0-9])")
_QUOTE = re.compile("[`\u2018\u2019]")
_QUOTE2 = re.compile("[\u201c\u201d]|''")
_RM_DASH = re.compile("([" + ALNUM + r".])-([" + ALNUM + "])")
_CONT_EN = re.compile("([^" + ALPHA + "])'([^" + ALPHA + "])")
_CONT_EN2 = re.compile("([^" + ALPHA + "0-9])'([" + ALPHA + "])")
_CONT_EN3 = re.compile("([" + ALPHA + "])'([^" + ALPHA + "])")
_CONT_EN4 = re.compile("([" + ALPHA + "])'([" + ALPHA + "])")
_CONT_EN5 = re.compile("([0-9])'(s)")
_WHITE = re.compile("[ \u2000-\u200a\u202f\u205f\u3000\u00a0]+")
_NBP_ALPHA = re.compile("[" + ALPHA + "]")
_NBP_LOWER = re.compile("[a-z]")
_NBP_DIGITS = re.compile("[0-9]")
#: java.util.StringTokenizer's default delimiters
_TOKEN_SPLIT = re.compile("[ \t\n\r\f]+")
#: ASCII characters that str.split() also splits on
_OTHER_ASCII_SPACE = re.compile("[\x0b\x1c-\x1f]")
#: characters removed by Java's String.trim()
_JAVA_TRIM = "".join(chr(c) for c in range(0x21))
#: text that no rule changes except the whitespace clean-up (the common case, fast path)
PLAIN_LINE = re.compile("[a-z0-9 ]*")

NBP_ANY = 1
NBP_NUMERIC_ONLY = 2


def java_trim(text: str) -> str:
    """``String.trim()``: strip characters up to U+0020 at both ends."""
    if text and text[0] > " " and text[-1] > " ":
        return text  # nothing to strip (the common case, without scanning the set)
    return text.strip(_JAVA_TRIM)


def java_tokens(text: str) -> list[str]:
    """Tokens as ``java.util.StringTokenizer`` splits them (on space, tab, CR, LF, FF)."""
    if text.isascii() and not _OTHER_ASCII_SPACE.search(text):
        return text.split()  # the same split when no other character is whitespace to Python
    return [t for t in _TOKEN_SPLIT.split(text) if t]


def _split_periods(words: list[str], prefixes: Mapping[str, int]) -> str:
    """Rebuild the line, splitting word-final periods except after non-breaking prefixes."""
    out = []
    last = len(words) - 1
    for i, word in enumerate(words):
        if len(word) > 1 and word.endswith("."):
            pre = word[:-1]
            kind = prefixes.get(pre)
            nxt = words[i + 1] if i < last else None
            if "." in pre and _NBP_ALPHA.search(pre):
                out.append(word.replace(".", ""))  # U.S. -> US
            elif kind == NBP_ANY or (nxt is not None and _NBP_LOWER.match(nxt)):
                out.append(word)
            elif kind == NBP_NUMERIC_ONLY and nxt is not None and _NBP_DIGITS.match(nxt):
                out.append(word)
            else:
                out.append(pre + " .")
        else:
            out.append(word)
        out.append(" ")
    return "".join(out)


def normalize_line(line: str, prefixes: Mapping[str, int]) -> str:
    """Meteor 1.5's ``Normalizer.normalizeLine(line, English, keepPunctuation=True)``.

    ``prefixes`` maps non-breaking prefixes to :data:`NBP_ANY` or :data:`NBP_NUMERIC_ONLY`
    (:func:`kcca.captions._meteor_engine.resources.MeteorResources.nonbreaking_prefixes`).
    The result is not lower-cased yet (Meteor does that next).
    """
    if PLAIN_LINE.fullmatch(line):
        return java_trim(_WHITE.sub(" ", line))
    s = " " + line + " "
    s = _SEP_OTHER.sub(r" \1 ", s)
    s = _MULTI_DOT.sub(r" DOTMULTI\1", s)
    while "DOTMULTI." in s:
        s = _MULTI_DOT2.sub(r"DOTDOTMULTI \1", s)
        s = s.replace("DOTMULTI.", "DOTDOTMULTI")
    s = _COMMA.sub(r"\1 , \2", s)
    s = _COMMA2.sub(r"\1 , \2", s)
    s = _COMMA3.sub(r"\1 , \2", s)
    s = _QUOTE.sub("'", s)
    s = _QUOTE2.sub(' " ', s)
    s = s.replace("\u2013", "-").replace("--", "-")
    s = _RM_DASH.sub(r"\1 \2", s)
    s = _CONT_EN.sub(r"\1 ' \2", s)
    s = _CONT_EN2.sub(r"\1 ' \2", s)
    s = _CONT_EN3.sub(r"\1 ' \2", s)
    s = _CONT_EN4.sub(r"\1 '\2", s)
    s = _CONT_EN5.sub(r"\1 '\2", s)
    s = _split_periods(java_tokens(s), prefixes)
    while "DOTDOTMULTI" in s:
        s = s.replace("DOTDOTMULTI", "DOTMULTI.")
    s = s.replace("DOTMULTI", ".")
    return java_trim(_WHITE.sub(" ", s))
