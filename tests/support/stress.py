"""Seeded random caption-like strings for testing tokenisers against their reference.

:func:`stress_strings` draws strings that look like image captions gone wrong: a few
pieces, each from one of the families below, joined by a space, by nothing (so pieces glue
into things like ``dog's-eye``, ``3.5won't`` or ``,No.``) or by other white space. The same
seed always gives the same strings (Python's :class:`random.Random`, no global state), so a
test can compare a tokeniser with its reference implementation (the COCO evaluation's Java
PTB tokeniser, Chen et al. 2015, Section 3.1, for :mod:`kcca.captions._tokenizer`; Meteor's
for the METEOR wrapper) on thousands of strings in one batch and report the failing ones.

Families:

* words: lower-case, Capitalised and UPPER-CASE caption words, single letters;
* clitics and apostrophes: ``'s n't 're 'll 've 'd 'm`` (upper case too), odd ones
  (``'em 'n' 'tis 'twas y'all o'clock rock'n'roll d'Artagnan O'Neil '90s 'cause``),
  contractions (``can't won't cannot gonna wanna``), with ``'``, ``’``, ``‘`` or ````` ``;
* hyphens: intra-word (``t-shirt``), leading, trailing, doubled, runs of 1-6, before
  punctuation; soft hyphens;
* punctuation runs: ``. , ; : ! ? ?! ... .. . . .`` and longer runs;
* numbers: integers, decimals, thousands separators, signs, times, fractions (``1/2``,
  ``3 1/2``, ``3-1/2``), dates, phone numbers, ordinals, percentages, currency (``$5.00``,
  ``US$``, ``£ € ¥ ¢``), superscripts and subscripts;
* symbols ``+ = * & % $ # @ ^ < > / \\ | ~ _`` alone, doubled and inside words (``AT&T``,
  ``c++``, ``a/b``), smileys (``:) ;-( ^_^ (x_x)``);
* brackets ``( ) [ ] { }``, alone and around words;
* quotes: straight, doubled, backticks, curly, guillemets, low-9 quotes, around words;
* non-ASCII: accented Latin letters (``é ü ñ ß``), combining accents, Greek, Cyrillic,
  Hebrew, Arabic, Devanagari, CJK, Hangul, letters newer than Unicode 6, Unicode fractions,
  dashes, ellipsis, bullets and other symbols, emoji and other characters outside the Basic
  Multilingual Plane, control and zero-width characters;
* abbreviations and acronyms: ``Mr. Dr. St. U.S. e.g. etc. Inc. Jan. Calif.``, ``No. 5``,
  ``Fig. 3``, ``a.m.``, and sentence starts after them (``U.S. The``);
* markup and addresses: URLs, ``www.`` and ``.com`` names, e-mail addresses, ``@user``,
  ``#tag``, file names, SGML/HTML tags and entities (``&amp; &quot; &eacute;``);
* white space: spaces, tabs, no-break and other Unicode spaces, and line breaks (``\\n``,
  which pycocoevalcap turns into a space, and ``\\r``, U+2028 ..., which it passes on).
"""

from __future__ import annotations

import random

__all__ = ["stress_string", "stress_strings"]

_WORDS = (
    "a an the dog dogs man men woman girl boy child children people two three "
    "black white red brown small big running runs jumps playing sits in on at with "
    "of and near water grass ball street snow beach shirt bike horse cat is are "
    "wearing holding looking standing front while his her their its over through "
    "no art fig pp op ca prop bldg co pty ltd lim est tel sq"
).split()
_CAPS = (
    "A The Two He She It They This That There These We You Here However After "
    "About According An As At But Earlier If In Last Many More Now Once One Other "
    "Our Since So Some Such Their Then When While What Yet Mr Ms I U X"
).split()
_CLITICS = [
    "'s",
    "'S",
    "n't",
    "N'T",
    "'re",
    "'RE",
    "'ll",
    "'ve",
    "'d",
    "'D",
    "'m",
    "'M",
    "'em",
    "'n'",
    "'n",
    "'tis",
    "'twas",
    "'cause",
    "'til",
    "'till",
    "'90s",
    "'90",
    "'05",
    "s'",
    "'",
]
_APOS_WORDS = [
    "can't",
    "won't",
    "don't",
    "isn't",
    "ain't",
    "cannot",
    "gonna",
    "wanna",
    "gotta",
    "lemme",
    "gimme",
    "y'all",
    "Y'know",
    "o'clock",
    "rock'n'roll",
    "d'Artagnan",
    "O'Neil",
    "L'amour",
    "l'eau",
    "j'ai",
    "ma'am",
    "ne'er",
    "c'mon",
    "li'l",
    "nat'l",
    "cont'd",
    "e'er",
    "s'mores",
    "ev'ry",
    "nor'easter",
    "Dunkin'",
    "somethin'",
    "ol'",
    "shouldn't've",
    "dogs'",
    "Cap'n",
    "c'est",
    "D'Souza",
    "O'o",
    "Shi'ite",
    "Qur'an",
    "Ala'a",
    "Ma'Ann",
    "you'Re",
]
_APOSTROPHES = ["'", "'", "'", "\u2019", "\u2018", "`", "\u201b", "&apos;"]
_HYPHEN_WORDS = [
    "t-shirt",
    "well-known",
    "x-ray",
    "e-mail",
    "pro-",
    "anti-",
    "re-",
    "-ing",
    "mid-'90s",
    "U.S.-based",
    "ice-cream-covered",
    "4-year-old",
    "a-b-c",
    "C-3PO",
    "co-op",
    "pre-K",
    "-LRB-",
    "-rsb-",
    "S&P-500",
    "non-U.S.",
    "U.S.-U.K.",
    "Sino-U.S.",
    "twenty-one",
    "x_ray",
    "ab\u2010cd",
]
_PUNCT = [
    ".",
    ",",
    ";",
    ":",
    "!",
    "?",
    "?!",
    "!!",
    "...",
    "..",
    "....",
    "......",
    ". . .",
    ". .",
    ",,",
    ".,",
    "!?",
    "?.",
    ";;",
    "::",
    "\u3001",
    "\u3002",
    "\u00a1",
    "\u00bf",
]
_SYMBOLS = list("+=*&%$#@^<>/\\|~_") + [
    "**",
    "&&",
    "<<",
    ">>",
    "->",
    "=>",
    "||",
    "//",
    "\\*",
    "##",
    "@@",
    "__",
    "%%",
    "^^",
    "~~",
]
_SMILEYS = [
    ":)",
    ":(",
    ";)",
    ":-)",
    ":-D",
    ":P",
    ":p",
    "=)",
    ":o)",
    ":'(",
    "<:)",
    ">:(",
    ":]",
    ":[",
    ":|",
    ":\\",
    ":{",
    ":@",
    "^_^",
    "x_x",
    "-_-",
    "'_'",
    "(^_^)",
    "(x_x)",
    "(^.^)",
    "(^-^)",
    "(>_<)",
    "^.[^x=~<>]",
    "<3",
    "XD",
]
_SYMBOL_WORDS = [
    "c++",
    "C++",
    "C#",
    "f#",
    "AT&T",
    "R&D",
    "A+B",
    "AT&amp;T",
    "a/b",
    "w/",
    "and/or",
    "1/2/3",
    "A/B/C",
    "x-y/z",
    "US$",
    "C$",
    "$",
    "#1",
    "a=b",
    "x*y",
    "S&Ls",
    "C.D.s",
    "it's/its",
]
_BRACKETS = list("()[]{}")
_QUOTES = [
    "'",
    '"',
    "`",
    "``",
    "''",
    "\u201c",
    "\u201d",
    "\u2018",
    "\u2019",
    "\u00ab",
    "\u00bb",
    "\u201a",
    "\u201e",
    "\u201f",
    "\u2039",
    "\u203a",
    "&quot;",
    "\u0091",
    "\u0092",
    "\u0093",
    "\u0094",
    '""',
    "'''",
    "\u201c\u201d",
]
_NON_ASCII_WORDS = [
    "caf\u00e9",
    "na\u00efve",
    "\u00fcber",
    "ma\u00f1ana",
    "stra\u00dfe",
    "Zo\u00eb",
    "S\u00e3o",
    "\u00c6r\u00f8",
    "cafe\u0301",
    "\u00c9cole",
    "\u0130stanbul",
    "\u0131",
    "\u017fun",
    "\u212aans.",
    "\u00b5m",
    "\u5317\u4eac",
    "\u6771\u4eac",
    "\u4e2d\u6587",
    "\ud55c\uad6d\uc5b4",
    "\u041c\u043e\u0441\u043a\u0432\u0430",
    "\u0395\u039b\u039b\u0391\u03a3",
    "\u05e2\u05d1\u05e8\u05d9\u05ea",
    "\u0627\u0644\u0639\u0631\u0628\u064a",
    "\u0939\u093f\u0928\u094d\u0926\u0940",
    "\u0e44\u0e17\u0e22",
    "\u3072\u3089\u304c\u306a",
    "\u30ab\u30bf\u30ab\u30ca",
    "\u1e9e",
    "\u0528\u0529",
    "\u08a1",
    "\u13a0\u13f5",
    "\u2160\u2161",
    "\u24b6\u24d0",
    "\u00aa\u00ba",
    "\u2070\u00b9\u00b2",
    "\u2082\u2083",
    "\u207a\u00b2",
    "\u0660\u0661\u066b\u0662",
    "\u07c0\u07c1",
    "\u0966\u0967",
    "\u0de6",
    "\u00bd",
    "3\u00bd",
    "\u00bc",
    "\u00be",
    "\u2153",
    "\u2154",
    "\u215b",
    "1\u20442",
    "\u2013",
    "\u2014",
    "\u2015",
    "\u2010",
    "\u2011",
    "\u058a",
    "\u2026",
    "\u2022",
    "\u00a9",
    "\u00ae",
    "\u2122",
    "\u00b0",
    "\u00d7",
    "\u00f7",
    "\u00a7",
    "\u00b6",
    "\u00b7",
    "\u2190",
    "\u2200",
    "\u2605",
    "\u00a3",
    "\u20ac",
    "\u00a5",
    "\u00a2",
    "\u00a4",
    "\u0080",
    "\u20a0",
    "\uffe5",
    "\u0e3f",
    "\U0001f600",
    "\U0001f44d\U0001f3fd",
    "\U00020000",
    "\u200b",
    "\u200e",
    "\ufeff",
    "\u00ad",
    "\x00",
    "\x07",
    "\x1b",
    "\x7f",
    "\u0085",
    "\u202f",
    "\u1680",
    "\u2028x",
    "\u0301",
    "\ufb01",
    "\uff21\uff22",
    "\uff01",
    "\u037e",
    "\u0589",
    "\u061f",
    "\u06d4",
    "\u07fa",
    "\u0387",
    "\u05be",
    "\u2044",
    "\u2030",
    "\u203b",
]
_ABBREVIATIONS = [
    "Mr.",
    "Mrs.",
    "Ms.",
    "Dr.",
    "Drs.",
    "St.",
    "Ste.",
    "Jr.",
    "Sr.",
    "Prof.",
    "Gen.",
    "Co.",
    "Cos.",
    "Inc.",
    "Ltd.",
    "Corp.",
    "Pty.",
    "Bros.",
    "U.S.",
    "U.K.",
    "u.s.",
    "e.g.",
    "i.e.",
    "etc.",
    "vs.",
    "Jan.",
    "Feb.",
    "Sept.",
    "Mon.",
    "Tues.",
    "No.",
    "no.",
    "Nos.",
    "Fig.",
    "Figs.",
    "Art.",
    "pp.",
    "op.",
    "ca.",
    "Prop.",
    "Bldg.",
    "a.m.",
    "p.m.",
    "A.M.",
    "Ph.D.",
    "Ed.D.",
    "Calif.",
    "Mass.",
    "mass.",
    "Ark.",
    "ark.",
    "Wash.",
    "Ill.",
    "Pa.",
    "Del.",
    "Ave.",
    "Mt.",
    "Ft.",
    "Blvd.",
    "Rd.",
    "approx.",
    "a.k.a.",
    "Mfg.",
    "Mtg.",
    "Esq.",
    "al.",
    "seq.",
    "tel.",
    "ext.",
    "sq.",
    "Ste.",
    "Capt.",
    "I.",
    "A.",
    "X.",
    "S.C.U.B.A.",
    "Alex.",
    "Wm.",
    "cf.",
    "TREAS.",
    "Ph.",
    "Dept.",
    "Mlle.",
    "Messrs.",
    "Kans.",
    "Wisc.",
    "Pte.",
    "PTY.",
    "Pts.",
]
_MARKUP = [
    "http://example.com",
    "https://www.flickr.com/photos/x_y/123?a=b&c=d.",
    "http://a.b/c).",
    "www.flickr.com",
    "www.example.co.uk/path",
    "google.com",
    "en.wikipedia.org/wiki/Dog",
    "example.net.",
    "john@example.com",
    "<john.smith@mail.example.org>",
    "&lt;a@b.c&gt;",
    "@user_1",
    "#hashtag",
    "#caf\u00e9",
    "photo.jpg",
    "IMG_1234.JPG",
    "index.html",
    "a.b.txt,",
    "file.tar.gz",
    "<b>",
    "</b>",
    "<br/>",
    "<br />",
    "<a href='x'>",
    '<img src="a b.jpg">',
    "<!-- x -->",
    "<?xml version='1.0'?>",
    "<p class=x>",
    "&amp;",
    "&quot;",
    "&lt;",
    "&gt;",
    "&nbsp;",
    "&eacute;",
    "&Auml;",
    "&#39;",
    "&mdash;",
    "&ndash;",
    "&HT;",
    "&apos;s",
    "&AMP;",
    "&QUOT;",
    "&Quot;",
    "&APOS;s",
    "&LT;",
    "&GT;",
    "&NBSP;",
    "&EACUTE;",
    "&Ouml;",
    "AT&AMP;T",
    "&MDASH;",
    "&amp",
    "&#x41;",
    "(555) 123-4567",
    "555-1234",
    "555 1234",
    "555.123.4567",
    "+1 555 123 4567",
    "12/25/2014",
    "1-2-2014",
    "2014-01-02",
]
# separators: mostly a space or nothing; other white space and line breaks now and then
_SPACES = (
    [" "] * 60
    + [""] * 25
    + ["  ", " ", "\t", "\u00a0", "\u2003", "\u3000", "\n", " \n ", "\u200b", "\t "]
)
_RARE_SPACES = ["\r", "\r\n", "\u2028", "\u2029", "\x0b", "\x0c", "\u0085", "\x1c"]
_ODD_CHARS = (
    "'\"`.,;:!?-+=*&%$#@^<>/\\|~_()[]{}0123456789 \u00a0\u00ad\u2019\u2018\u201c"
    "\u201d\u2013\u2014\u2026\u00bd\u00e9\u00df"
)


def _number(rng: random.Random) -> str:
    k = rng.randrange(17)
    n = rng.randrange(1, 10 ** rng.randrange(1, 6))
    if k == 0:
        return str(n)
    if k == 1:
        return f"{n}.{rng.randrange(100)}"
    if k == 2:
        return f"{n:,}"
    if k == 3:
        return rng.choice("-+") + str(n)
    if k == 4:
        return f"{rng.randrange(1, 13)}:{rng.randrange(60):02d}"
    if k == 5:
        return f"{rng.randrange(1, 10)}/{rng.randrange(1, 100)}"
    if k == 6:
        sep = rng.choice([" ", "-", "\u00a0"])
        return f"{rng.randrange(1, 10)}{sep}{rng.randrange(1, 10)}/{rng.randrange(2, 10)}"
    if k == 7:
        return f"{rng.randrange(1, 13)}/{rng.randrange(1, 32)}/{rng.randrange(1, 2030)}"
    if k == 8:
        return str(n) + rng.choice(["st", "nd", "rd", "th", "s", "%", "km", "x", "D"])
    if k == 9:
        return rng.choice(["$", "US$", "\u00a3", "\u20ac", "\u00a5", "#", "\u00a2"]) + str(n)
    if k == 10:
        return f"${n}.{rng.randrange(100):02d}"
    if k == 11:
        return "." + str(n)
    if k == 12:
        return f"{n}\\/{rng.randrange(1, 10)}"
    if k == 13:
        return f"{rng.randrange(100, 1000)}{rng.choice('- .')}{rng.randrange(1000, 10000)}"
    if k == 14:
        return f"1{rng.choice(',.:')}{rng.randrange(1000)}{rng.choice(',.:')}{rng.randrange(10)}"
    if k == 15:
        return f"{n}\u00ad{rng.randrange(10)}"
    return str(n) + rng.choice(["'s", "-year-old", ".", ",", "-", "x", "0s"])


def _with_apostrophe(rng: random.Random, piece: str) -> str:
    if "'" in piece and rng.random() < 0.3:
        return piece.replace("'", rng.choice(_APOSTROPHES))
    return piece


def _piece(rng: random.Random) -> str:
    k = rng.random()
    if k < 0.24:
        w = rng.choice(_WORDS)
        r = rng.random()
        return w.capitalize() if r < 0.15 else w.upper() if r < 0.2 else w
    if k < 0.30:
        return rng.choice(_CAPS)
    if k < 0.37:
        return _with_apostrophe(rng, rng.choice(_CLITICS))
    if k < 0.42:
        return _with_apostrophe(rng, rng.choice(_APOS_WORDS))
    if k < 0.46:
        return rng.choice(_HYPHEN_WORDS) if rng.random() < 0.6 else "-" * rng.randrange(1, 7)
    if k < 0.54:
        return rng.choice(_PUNCT)
    if k < 0.61:
        return _number(rng)
    if k < 0.66:
        return rng.choice(_SYMBOLS) if rng.random() < 0.6 else rng.choice(_SMILEYS)
    if k < 0.69:
        return rng.choice(_SYMBOL_WORDS)
    if k < 0.73:
        b = rng.choice(["()", "[]", "{}"])
        return rng.choice([b[0], b[1], b[0] + rng.choice(_WORDS) + b[1]])
    if k < 0.78:
        q = rng.choice(_QUOTES)
        return q if rng.random() < 0.6 else q + rng.choice(_WORDS) + rng.choice(_QUOTES)
    if k < 0.85:
        return rng.choice(_NON_ASCII_WORDS)
    if k < 0.92:
        return rng.choice(_ABBREVIATIONS)
    if k < 0.96:
        return rng.choice(_MARKUP)
    return "".join(rng.choice(_ODD_CHARS) for _ in range(rng.randrange(1, 5)))


def stress_string(rng: random.Random) -> str:
    """One caption-like string of 1-12 pieces drawn from ``rng``."""
    parts = []
    for j in range(rng.randrange(1, 13)):
        if j:
            parts.append(rng.choice(_SPACES if rng.random() < 0.99 else _RARE_SPACES))
        parts.append(_piece(rng))
    return "".join(parts)


def stress_strings(n: int = 10_000, seed: int = 0) -> list[str]:
    """``n`` caption-like strings, the same for the same ``seed``."""
    rng = random.Random(seed)
    return [stress_string(rng) for _ in range(n)]
