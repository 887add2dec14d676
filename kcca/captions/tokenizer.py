"""A pure-Python PTB-style tokeniser equal in effect to the COCO caption evaluation's.

The COCO code (Chen et al. 2015, Section 3.1; pycocoevalcap ``ptbtokenizer.py``) runs
Stanford CoreNLP 3.4.1's ``PTBTokenizer -preserveLines -lowerCase`` and then drops the tokens
of its punctuation list::

    '' ' `` ` -LRB- -RRB- -LCB- -RCB- . ? ! , : - -- ... ;

Because the tokeniser lower-cases *before* that filter, the bracket tokens come out as
``-lrb-``, ``-rrb-``, ``-lsb-``, ``-rsb-``, ``-lcb-``, ``-rcb-`` and are **kept** (the list
holds the upper-case forms); runs such as ``?!`` or ``!!!`` are one token and are kept too.
This module reproduces that output (the tokens that survive the filter) without Java:

* clitics are split as in the Penn Treebank: ``'s 're 've 'll 'd 'm n't`` (``can't`` ->
  ``ca n't``), ``cannot gonna wanna gotta lemme gimme 'tis 'twas`` are split in two;
* a word followed by ``.`` loses the period unless it is an acronym (``u.s.``, ``d.c.``, a
  single letter) or one of PTBLexer's abbreviations (``mr. st. jr. etc. inc.`` ...; ``no.
  art. fig.`` only before a number); periods inside a word (``avrovulcan.com``) stay;
* ``$ # % & = * + < > ^`` and quote characters are split off; intra-word hyphens stay
  (``t-shirt``), leading, trailing and doubled hyphens are split;
* numbers keep their inner ``, . : /`` (``1,000 3.5 2:30 1/2``).

On all 40,460 raw Flickr 8K captions the result equals the Java tokeniser's (checked by
``tests/kcca/captions/test_cap_parity.py`` when Java and pycocoevalcap are present; the one
caption that needed a rule of its own is ``3350614753_5624e181b3.jpg#1``, "An ant
's-eye-view", which Java splits into ``'s eye-view``). Known differences, absent from Flickr
8K: ``y'all`` (Java ``y' all``), ``5'10"`` (Java ``5 '10``), ``mid-'90s`` (Java ``mid
'90s``), and PTBLexer's rarer abbreviation rules. Non-ASCII input is handled for the common
cases (curly quotes, en/em dashes, the ellipsis character, pound sign), but the parity
claim is for ASCII text.
"""

from __future__ import annotations

import re
from typing import Hashable, Iterable, Mapping, Sequence

from kcca.captions.scorer import CaptionInputError

#: pycocoevalcap 1.2's ``PUNCTUATIONS`` (removed after tokenisation; case-sensitive).
PUNCTUATIONS = frozenset(["''", "'", "``", "`", "-LRB-", "-RRB-", "-LCB-", "-RCB-",
                          ".", "?", "!", ",", ":", "-", "--", "...", ";"])

# PTBLexer 3.4.1 abbreviations whose period stays attached (case-insensitive).
_ABBREV_ALWAYS = frozenset("""
jan feb mar apr jun jul aug sep sept oct nov dec mon tue tues wed thu thurs fri
inc co cos corp pty pte ptys ptes ltd plc bancorp bhd assn univ intl sys
jr sr bros blvd rd esq etc al seq
mr mrs ms miss dr drs prof profs sen sens rep reps atty attys lt col gen messrs gov govs
adm rev maj sgt cpl pvt capt st ste ave pres lieut hon brig cmdr comdr pfc spc supt supts
det m mm mme mmes mlle mlles vs alex wm jos cie cf treas ph tel est ext sq ft bldg
""".split())
# Abbreviations that keep their period only when a number follows (PTBLexer's ABBREV3).
_ABBREV_BEFORE_NUMBER = frozenset("ca fig figs prop no nos art pp op".split())
_ACRONYM = re.compile(r"^(?:[a-z](?:\.[a-z])+|(?:ed|ph)\.d|a\.k\.a)$", re.I)

_CONTRACTIONS = {
    "cannot": ("can", "not"), "gonna": ("gon", "na"), "gotta": ("got", "ta"),
    "wanna": ("wan", "na"), "lemme": ("lem", "me"), "gimme": ("gim", "me"),
    "'tis": ("'t", "is"), "'twas": ("'t", "was"),
}
# Words that keep a leading apostrophe: clitics standing alone ("dog 's") and a few others.
_KEEP_AFTER_QUOTE = frozenset(["s", "re", "ve", "ll", "d", "m", "t", "em", "n'", "n"])
_CLITIC_HYPHEN = re.compile(r"^('(?:s|re|ve|ll|d|m))-+(.+)$")
_CLITIC = re.compile(r"^(.+?)(n't|'s|'re|'ve|'ll|'d|'m)$", re.I)
_BRACKETS = {"(": "-lrb-", ")": "-rrb-", "[": "-lsb-", "]": "-rsb-", "{": "-lcb-", "}": "-rcb-"}
_UNICODE = {"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'", "\u2013": " -- ",
            "\u2014": " -- ", "\u2026": "...", "\u00a3": "#", "\u00a0": " "}
_UNICODE_RE = re.compile("|".join(map(re.escape, _UNICODE)))
# Characters always split off as tokens of their own.
_SYMBOLS = re.compile(r"([$#%&=*+<>^\[\](){}\"]|--+)")
_INNER = re.compile(r"(\.\.+|'n')")  # ellipses and 'n' split even inside a word
_NUMBER = re.compile(r"^[0-9]+(?:[,.:/][0-9]+)*$")


def _split_word(word: str, next_word: str | None, out: list[str]) -> None:
    """Tokenise one whitespace-free chunk with no symbols; append the kept tokens."""
    m = _CLITIC_HYPHEN.match(word)
    if m is not None:  # "'s-eye-view" -> "'s" "eye-view" (PTBLexer splits the clitic)
        out.append(m.group(1))
        word = m.group(2)
    # leading quotes and hyphens
    while word and word[0] in "'`-":
        if word[0] == "'" and len(word) > 1 and (word[1:].lower() in _KEEP_AFTER_QUOTE
                                                 or word[1].isdigit()
                                                 or word.lower() in _CONTRACTIONS):
            break
        if word[0] == "-" and len(word) > 1 and word[1].isdigit():
            break
        word = word[1:]  # a quote or hyphen token: removed as punctuation
    trailing: list[str] = []
    while word:
        m = re.search(r"(\.\.+|[!?]+|[,;:]|')$", word)
        if m is None:
            if word.endswith("-") and len(word) > 1:
                word = word[:-1]
                continue
            break
        tok = m.group(1)
        stem = word[: m.start()]
        if tok == "'" and (stem.lower().endswith("n") and stem.lower()[:-1].endswith("'")):
            break  # rock 'n'
        if tok.startswith(".."):
            if len(tok) == 2:
                trailing[:0] = [".", "."]
            else:
                trailing.insert(0, "...")
        elif tok[0] in "!?":
            trailing.insert(0, tok)
        elif tok in ",;:" and _NUMBER.match(word):
            break
        else:
            trailing.insert(0, tok)
        word = stem
    if word.endswith(".") and len(word) > 1:
        stem = word[:-1]
        low = stem.lower()
        keep = (
            _ACRONYM.match(stem) is not None
            or (len(stem) == 1 and stem.isalpha())
            or low in _ABBREV_ALWAYS
            or (low in _ABBREV_BEFORE_NUMBER and next_word is not None
                and next_word[:1].isdigit())
        )
        if not keep:
            word = stem
            trailing.insert(0, ".")
    elif word == ".":
        word = ""
    if word:
        low = word.lower()
        if low in _CONTRACTIONS:
            out.extend(_CONTRACTIONS[low])
        else:
            m = _CLITIC.match(low)
            if m is not None:
                out.extend((m.group(1), m.group(2)))
            else:
                out.append(low)
    for t in trailing:
        if t not in PUNCTUATIONS:
            out.append(t)


def tokenize(text: str) -> list[str]:
    """PTB-style tokens of one caption, lower-cased, COCO punctuation removed."""
    if "\n" in text or "\r" in text:
        text = text.replace("\r", " ").replace("\n", " ")
    if not text.isascii() and _UNICODE_RE.search(text):
        text = _UNICODE_RE.sub(lambda m: _UNICODE[m.group(0)], text)
    chunks = text.lower().split()
    out: list[str] = []
    last = len(chunks) - 1
    for idx, chunk in enumerate(chunks):
        if chunk.isalnum():  # fast path: a plain word or number
            pair = _CONTRACTIONS.get(chunk)
            if pair is None:
                out.append(chunk)
            else:
                out.extend(pair)
            continue
        if chunk in PUNCTUATIONS:
            continue
        if ".." in chunk or "'n'" in chunk or chunk == "y'all":
            chunk = _INNER.sub(r" \1 ", chunk).replace("y'all", "y' all")
        pieces = [p for part in chunk.split() for p in _SYMBOLS.split(part) if p]
        following = chunks[idx + 1] if idx < last else None
        for j, piece in enumerate(pieces):
            if piece in _BRACKETS:
                out.append(_BRACKETS[piece])
            elif piece == '"' or piece.startswith("--"):
                continue
            elif _SYMBOLS.fullmatch(piece):
                out.append(piece)
            else:
                _split_word(piece, pieces[j + 1] if j + 1 < len(pieces) else following, out)
    return out


class PTBTokenizer:
    """Tokenise a COCO-style captions dict like pycocoevalcap's ``PTBTokenizer``, without Java.

    ``tokenize({id: [str | {"caption": str}, ...]}) -> {id: [tokenised str, ...]}``.
    """

    def tokenize(self, captions_for_image: Mapping[Hashable, Sequence]) -> dict:
        out: dict = {}
        for key, caps in captions_for_image.items():
            texts = []
            for j, c in enumerate(caps):
                text = c["caption"] if isinstance(c, Mapping) else c
                if not isinstance(text, str):
                    raise CaptionInputError(
                        f"caption {j} of image id {key!r} is a {type(text).__name__}, "
                        "not a string")
                texts.append(" ".join(tokenize(text)))
            out[key] = texts
        return out


def tokenize_captions(captions: Mapping[Hashable, "Sequence[str] | str"]) -> dict:
    """``{id: str | [str, ...]} -> {id: [tokenised str, ...]}`` (space-joined tokens)."""
    out: dict = {}
    for key, caps in captions.items():
        if isinstance(caps, str):
            caps = [caps]
        out[key] = [" ".join(tokenize(c)) if isinstance(c, str) else c for c in caps]
    return out


def tokenize_many(texts: Iterable[str]) -> list[list[str]]:
    """Token lists of several captions."""
    return [tokenize(t) for t in texts]
