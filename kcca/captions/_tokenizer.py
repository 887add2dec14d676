"""A pure-Python PTB tokeniser whose tokens equal the COCO caption evaluation's.

The COCO evaluation code (Chen et al. 2015, Section 3.1; pycocoevalcap 1.2's
``ptbtokenizer.py``) writes all captions to a file, one per line (a ``\\n`` inside a caption
becomes a space), runs Stanford CoreNLP 3.4.1's tokeniser on it::

    java -cp stanford-corenlp-3.4.1.jar edu.stanford.nlp.process.PTBTokenizer \\
         -preserveLines -lowerCase FILE

splits each output line on single spaces and drops the tokens of its punctuation list::

    '' ' `` ` -LRB- -RRB- -LCB- -RCB- . ? ! , : - -- ... ;

:func:`tokenize` gives the tokens that survive, without Java. It is a longest-match scanner
over the token classes of CoreNLP 3.4.1's ``PTBLexer`` (a JFlex lexer) with that version's
default options, plus shortcuts for plain words. What that means for captions:

* **Longest match, lookahead included.** At each position the longest token wins, the
  earlier rule on ties, and a rule's trailing context counts towards its length: ``dog.,``
  gives ``dog.`` (a word before ``, ; :`` keeps its period), ``etc.c`` gives ``etc. c``.
* **Clitics**: ``'s 're 've 'll 'd 'm n't`` are split off (``can't`` -> ``ca n't``,
  ``3.5won't`` -> ``3.5 wo n't``, ``cat's-eye`` -> ``cat 's eye``); ``cannot gonna gotta
  wanna lemme gimme 'tis 'twas`` are split in two; words with an inner apostrophe follow the
  lexer's lists (``o'clock``, ``rock 'n' roll``, ``y' all``, ``'90s``, ``d'Artagnan``).
* **Periods**: a word keeps a final period when it is an acronym (``u.s.``, one letter) or
  one of the lexer's abbreviations (``mr. dr. st. etc. inc. jan. calif.`` ...; ``no. fig.
  art. pp.`` ... only before a number), or stands before ``, ; :``; otherwise the period is a
  token of its own and is removed. A one-letter acronym before ``The``, ``He``, ``A`` ...
  loses its period (``I. The`` -> ``i the``).
* **Hyphens**: hyphenated words stay whole (``t-shirt``, ``4-year-old``; ``ant 's-eye-view``
  -> ``ant 's eye-view``); other hyphens are tokens: ``-`` and ``--`` are removed,
  ``---`` and ``----`` become ``--`` (removed), longer runs are kept.
* **Numbers**: ``1,000 3.5 2:30 -5 .5`` are one token each, and so are fractions ``1/2``,
  ``3\\/4``, ``1 1/2`` (the space becomes U+00A0), dates ``1/2/2014`` and phone numbers
  ``(555) 123-4567`` (-> ``-lrb-555-rrb-\\u00a0123-4567``); ``¼ ½ ¾ ⅓ ⅔`` become ``1/4 1/2
  3/4 1/3 2/3`` (the other fraction characters stay).
* **Symbols**: ``$ # % & + = * < > ^ | ~ \\ /`` are tokens, except inside ``US$``, ``AT&T``,
  ``c++``, ``c#``, ``a/b`` and a few smileys (``:)`` -> ``:-rrb-``, ``(^_^)``); ``£ ¢ €``
  become ``# cents $``; brackets become ``-lrb- -rrb- -lsb- -rsb- -lcb- -rcb-`` and, being
  lower-cased before the filter, are kept; quotes of every kind (straight, curly, back
  ticks, guillemets) become PTB quote tokens and are removed, except a few the filter misses
  (the pair ``“”`` written together, ``‚ „ ‟``); ``... …`` and ``– —`` are
  removed.
* **Markup**: URLs, e-mail addresses, file names (``photo.jpg``) and simple SGML/HTML tags
  are single tokens; ``&amp; &lt; &gt;`` (any case) and ``&quot; &apos;`` (lower case) are
  decoded, ``&nbsp;`` is a space, ``&eacute;`` and the like are letters.
* **Characters**: letters and digits are those of Unicode 6 as JFlex 1.5.1 compiled them into
  the lexer (:mod:`kcca.captions._ptb_chars`), so ``é ß ñ 中文`` are word characters;
  characters it cannot tokenise are deleted: control characters, letters added to Unicode
  after version 6, emoji and every other character outside the Basic Multilingual Plane.
  Spaces are space, tab, U+00A0, U+2000-U+200A and U+3000; NUL, DEL, U+200B, U+200E, U+200F
  and U+FEFF are ignored; the soft hyphen U+00AD is dropped from words and numbers.

Parity: the tokens equal the Java tokeniser's on every Flickr 8K caption (40,460), every
Flickr-ST text (17,017 tuple spans and generated captions), 12,000 seeded caption-like
stress strings (``tests/support/stress.py``), crafted caption boundaries and every BMP code
point in several contexts; ``tests/kcca/captions/test_cap_tokenizer_java.py`` checks all of
these against the jar (in CI), and ``test_cap_outside_parity.py`` the metrics on captions of
public corpora. "The same tokens" means, precisely:

* :func:`tokenize_batch` (what :func:`~kcca.captions.evaluate_captions` and ``kcca
  score-captions`` use by default) gives each caption the tokens pycocoevalcap gives it in a
  batch: pycocoevalcap tokenises all references as one file, one caption a line, then all
  candidates as another, and the lexer's lookahead crosses line ends. A caption ending in a
  one-letter word and a period (``Wii U.``, ``John W.``) loses the period when the next
  caption starts with ``A``, ``The``, ``He`` ...; one ending in ``no.`` keeps it before a
  digit; the last caption of a batch ends the file (a final ``:)`` gives ``-rrb-``, a final
  ``'90`` gives ``90``).
* :func:`tokenize` gives a caption's tokens on its own: as a line followed by a neutral
  line, whatever its neighbours are (the ``"caption"`` tokeniser context).
* Line breaks other than ``\n`` inside a caption (``\r``, U+2028, U+2029, U+000B, U+000C,
  U+0085) reach Java in pycocoevalcap, split the caption into several output lines and shift
  every later caption of the batch onto the wrong image. :func:`pycocoevalcap_lines` (the
  drop-in :class:`PTBTokenizer`) reproduces that shift; :func:`tokenize_batch` and
  :func:`tokenize` keep each caption's own tokens (the line breaks separate tokens).

Lower-casing is Python's ``str.lower``, Java's ``toLowerCase`` in pycocoevalcap; their Unicode
tables differ only for characters added after Unicode 13, which the lexer deletes except
inside URL, e-mail and SGML tokens.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import NamedTuple

import kcca.captions._ptb_chars as _ptb_chars
from kcca.captions._scorer import CaptionInputError

#: pycocoevalcap 1.2's ``PUNCTUATIONS`` (removed after tokenisation; case-sensitive).
PUNCTUATIONS = frozenset(
    [
        "''",
        "'",
        "``",
        "`",
        "-LRB-",
        "-RRB-",
        "-LCB-",
        "-RCB-",
        ".",
        "?",
        "!",
        ",",
        ":",
        "-",
        "--",
        "...",
        ";",
    ]
)


# --------------------------------------------------------------------------------------------
# Character classes (bodies of regex brackets). The lexer is case-insensitive for literal
# words but not for bracketed character classes: literals are written in (?i:...) groups
# (which, as in JFlex, also let i, s and k match İ ı, ſ and the Kelvin sign), classes outside.


def _class(ranges: str) -> str:
    parts = []
    for item in ranges.split():
        first, _, last = item.partition("-")
        parts.append(f"\\u{first}" + (f"-\\u{last}" if last else ""))
    return "".join(parts)


_L = "A-Za-z" + _class(_ptb_chars.LETTERS)  # [:letter:]
_D = "0-9" + _class(_ptb_chars.DIGITS)  # [:digit:]
_LX = _L + r"\u00ad" + _class(_ptb_chars.MARKS)  # LETTER: letters, marks, soft hyphen
_SYMBOL = (
    r"%&+^|~\\"
    + _class(_ptb_chars.SYMBOLS)  # one-character tokens
    + r"\u2044\u207a\u207b\u208a\u208b"
)
_SPACE = r" \t\u00a0\u2000-\u200a\u3000"
_NL = r"\n\u000b\u000c\u0085\u2028\u2029"  # and \r, \r\n
_QUOTE_CHARS = r"`\u0091-\u0094\u00ab\u00bb\u2018\u2019\u201a-\u201f\u2039\u203a"

_ALPHA = "A-Za-z\u017f\u0130\u0131\u212a"  # first letters of case-insensitive words
_SPLET = r"&[aeiouAEIOU](?i:acute|grave|uml);"  # &eacute; etc. count as letters
_LETTER = f"(?:[{_LX}]|{_SPLET})"
_LD = f"(?:[{_LX}{_D}]|{_SPLET})"  # LETTER or DIGIT
_LDJ = f"[{_L}{_D}]"  # [:letter:] or [:digit:]
_WORD = f"{_LETTER}{_LD}*(?:[.!?]{_LETTER}{_LD}*)*"
_APOS = r"(?:['\u0092\u2019]|(?i:&apos;))"
_APOSX = r"(?:['`\u0091\u0092\u2018\u2019\u201b]|(?i:&apos;))"  # also inside words
_REDAUX = _APOS + r"(?:[msdMSD]|(?i:re|ve|ll))"
_SREDAUX = "[nN]" + _APOSX + "[tT]"
_SPACENL = f"(?:[{_SPACE}{_NL}]|\\r\\n?)"
_INSENTP = r"[,;:\u3001]"
_HYPHEN = r"[-_\u058a\u2010\u2011]"
# simple SGML/HTML tags, comments and processing instructions
_SGML = (
    r"<(?:[!?][A-Za-z\-][^>\r\n]*"
    r"|[A-Za-z][A-Za-z0-9_:.\-]*(?:[ ]+[A-Za-z][A-Za-z0-9_:.\-]*"
    r"(?:[ ]*=[ ]*(?:'[^']*'|\"[^\"]*\"))?)*[ ]*/?"
    r"|/[A-Za-z][A-Za-z0-9_:.\-]*)[ ]*>"
)
# Acronyms: A, U.S, non-U.S, U.S.-U.K (the three alternatives are matched separately so that
# each gets its longest match).
_ACROS = (
    r"[A-Za-z](?:\.[A-Za-z])*",
    r"(?i:canada|sino|korean|eu|japan|non)-(?i:u\.s)",
    r"(?i:u\.s\.-(?:u\.k|u\.s\.s\.r))",
)
_ACRO2 = r"(?:[A-Za-z](?:\.[A-Za-z])+|" + "|".join(_ACROS[1:]) + ")"

# Abbreviations that keep their period. ABBREV1 words are usually followed by lower-case
# words; a few of them count only with a capital first letter (Ark. Del. Ill. Mass. ...,
# since ark. ill. mass. end sentences as words).
_ABBREV1 = (
    "(?:(?i:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
    "|mon|tue|tues|wed|thu|thurs|fri"
    "|ala|ariz|calif|colo|conn|ct|dak|fla|ga|ind|kans?|ky|md|mich|minn|mo|mont"
    "|neb|nev|okla|penn|tenn|va|vt|wisc?|wyo"
    "|inc|cos?|corp|ltd|plc|rt|bancorp|bhd|assn|univ|intl|sys|tel|est|ext|sq"
    "|jr|sr|bros|(?:ed|ph)\\.d|blvd|rd|esq|etc|al|seq|bldg)"
    "|A(?i:z|rk)|D(?i:el)|I(?i:ll)|L(?i:a)|M(?i:ass|iss)|O(?i:re)|P(?i:a)|T(?i:ex)"
    "|W(?i:ash)|(?i:pp?t)[ye](?i:s)?)\\."
)
# ABBREV4 words (titles etc.), usually followed by a capitalised word.
_ABBREV4 = (
    "(?:(?i:mr|mrs|ms|drs?|profs?|sens?|reps?|attys?|lt|col|gen|messrs|govs?|adm|rev"
    "|maj|sgt|cpl|pvt|capt|ste?|ave|pres|lieut|hon|brig|co?mdr|pfc|spc|supts?|det"
    "|mt|ft|adj|adv|asst|assoc|ens|insp|mlle|mme|msgr|sfc"
    "|vs|alex|wm|jos|cie|a\\.k\\.a|cf|treas|ph|invt|elec|natl|dept)"
    "|M(?i:iss)|(?i:m)[ft](?i:g))"
)
# Words after which a one-letter acronym's period ends a sentence.
_SENT_START = (
    "(?:A(?i:bout|ccording|dditionally|fter|n|s|t)?|B(?i:ut)|E(?i:arlier)"
    "|H(?i:e|er|ere|owever)|I(?i:f|n|t)|L(?i:ast)|M(?i:any|ore|r\\.|s\\.)"
    "|N(?i:ow)|O(?i:nce|ne|ther|ur)|S(?i:he|ince|o|ome|uch)"
    "|T(?i:hat|he|heir|hen|here|hese|hey|his)|W(?i:e|hen|hile|hat)|Y(?i:et|ou)"
    f"|{_SGML})"
)
_FILE_EXT = (
    "(?i:bat|bmp|c|class|cgi|cpp|dll|doc|docx|exe|gif|gz|h|htm|html|jar|java|jpeg"
    "|jpg|mov|mp3|pdf|php|pl|png|ppt|ps|py|sql|tar|txt|wav|x|xml|zip)"
)
_THING = f"(?:[dDoOlL]{_APOSX}{_LDJ})?{_LDJ}+(?:{_HYPHEN}(?:[dDoOlL]{_APOSX}{_LDJ})?{_LDJ}+)*"
# (an acronym after a hyphen is tried first: it is the longer match)
_HTHING = r"[A-Za-z0-9][A-Za-z0-9.,\u00ad]*(?:-(?:" + _ACRO2 + r"\.|[A-Za-z0-9\u00ad]+))+"
_THINGA = r"[A-Z]+(?:(?:(?i:&amp;)|[+&])[A-Z]+)+"


# --------------------------------------------------------------------------------------------
# Token normalisations (PTBLexer's default options)

_QUOTES = {
    "\u0091": "`",
    "\u2018": "`",
    "\u201b": "`",
    "\u2039": "`",
    "\u0092": "'",
    "\u2019": "'",
    "\u203a": "'",
    "\u0093": "``",
    "\u201c": "``",
    "\u00ab": "``",
    "\u0094": "''",
    "\u201d": "''",
    "\u00bb": "''",
}
_RIGHT_QUOTES = str.maketrans({**_QUOTES, '"': "''"})
_LEFT_QUOTES = str.maketrans({**_QUOTES, '"': "``", "'": "`"})
_AMP = re.compile(r"(?i:&amp;)")
_FRACTIONS = str.maketrans(
    {"\u00bc": "1/4", "\u00bd": "1/2", "\u00be": "3/4", "\u2153": "1/3", "\u2154": "2/3"}
)
_CURRENCY = str.maketrans(
    {"\u00a2": "cents", "\u00a3": "#", "\u0080": "$", "\u00a4": "$", "\u20a0": "$", "\u20ac": "$"}
)
_PARENS = str.maketrans({"(": "-LRB-", ")": "-RRB-"})


def _quotes(tok: str, left: bool = False) -> str:
    """LaTeX-style quotes: ' " -> ` `` (probably opening) or ' '' ; curly quotes by shape.
    (The entities are replaced in lower case only, as the lexer does.)"""
    if "&" in tok:
        tok = tok.replace("&apos;", "'").replace("&quot;", '"')
    return tok.translate(_LEFT_QUOTES if left else _RIGHT_QUOTES)


def _soft(tok: str) -> str:
    """Remove soft hyphens (U+00AD); a token of soft hyphens only becomes ``-``."""
    if "\u00ad" not in tok:
        return tok
    return tok.replace("\u00ad", "") or "-"


_SKIP = None  # action result: no token
_NEWLINE = "\n"  # action result: a line break (no token is a line break)


def _keep(tok):
    return tok


def _dashes(tok):
    return "--" if 3 <= len(tok) <= 4 else tok


def _fixed(text):
    return lambda tok: text


# --------------------------------------------------------------------------------------------
# The rules, in PTBLexer's order of precedence. Each: a name, a regex (a trailing context,
# which counts towards the match length but is not consumed, follows the named group "t"),
# the characters a match can start with, the normalisation of the token, and, for the few
# rules whose regex alternatives could make Python's first match shorter than the longest
# one, a regex for the stretch of text a match can cover (the longest match is searched
# there). Elsewhere alternatives are ordered, or split into rules of their own, so that the
# first match is the longest.


class _Rule(NamedTuple):
    name: str
    rx: re.Pattern
    first: re.Pattern
    act: Callable
    ctx: bool  # has a trailing context (group "t")
    span: re.Pattern | None  # the stretch to search for the longest match
    push: int  # characters given back after the token (cannot -> can + not)


_RULE_SPECS: list[tuple] = []


def _r(name, pattern, first, act=_keep, *, span=None, push=0):
    _RULE_SPECS.append((name, pattern, first, act, span, push))


_r("c++", r"(?i:c)\+\+", "cC")
_r("c#", r"(?i:[cf])#", "cCfF")
_r("cannot", r"(?i:cannot)", "cC", lambda t: t[:3], push=3)
_r("'twas", r"'(?i:twas)", "'", lambda t: t[:2], push=3)
_r("'tis", r"'(?i:tis)", "'", lambda t: t[:2], push=2)
_r("gonna", r"(?i:gonna|gotta|lemme|gimme|wanna)", "gGlLwW", lambda t: t[:3], push=2)
_r("sgml", _SGML, "<", lambda t: t.replace(" ", "\u00a0"))
_r(
    "mdash",
    r"(?i:&(?:md|mdash|ndash);)|[\u0096\u0097\u2013\u2014\u2015]",
    "&\u0096\u0097\u2013\u2014\u2015",
    _fixed("--"),
)
_r("amp", r"(?i:&amp;)", "&", _fixed("&"))
_r("sgml-punct", r"&(?i:ht|tl|ur|lr|qc|ql|qr|odq|cdq|#[0-9]+);", "&")
_r("word/redaux", f"(?P<t>{_WORD}){_REDAUX}", f"{_LX}&", _soft)
_r("sword/n't", f"(?P<t>[A-Za-z\\u00ad]*[A-MO-Za-mo-z]\\u00ad*){_SREDAUX}", "A-Za-z\u00ad", _soft)
_r("word", _WORD, f"{_LX}&", _soft)
# words with an apostrophe (APOWORD): each alternative on its own, for the longest match
for _alt, _first in [
    (f"{_APOS}[nN]{_APOS}?", "'&\u0092\u2019"),
    (f"[lLdDjJ]{_APOS}", "lLdDjJ"),
    (f"(?i:dunkin|somethin|ol){_APOS}", "dDsSoO\u017f"),
    (f"{_APOS}(?i:em|till?|cause)", "'&\u0092\u2019"),
    (f"[A-HJ-XZn]{_APOSX}[{_L}]{{2,}}", "A-HJ-XZn"),
    (f"{_APOS}[2-9]0(?i:s)", "'&\u0092\u2019"),
    (f"[{_L}]+[aeiouyAEIOUY]{_APOSX}[aeiouA-Z][{_L}]*", _L),
    (r"(?i:cont'd\.?|'twas|nor'easter|c'mon|e'er|s'mores|ev'ry|li'l|nat'l)", "cC'nNeEsSlL\u017f"),
    (f"[oO]{_APOSX}[oO]", "oO"),
]:
    _r("apoword", _alt, _first)
_r("y'", f"(?P<t>(?i:y){_APOS})[{_L}]", "yY")
_r("url", r"(?i:https?)://[^ \t\n\f\r\"<>|(){}]+[^ \t\n\f\r\"<>|.!?(){},\-]", "hH")
_r(
    "likely-url",
    r"(?:(?i:www)\.(?:[^ \t\n\f\r\"<>|.!?(){},]+\.)+[a-zA-Z]{2,4}"
    r"|(?:[^ \t\n\f\r\"`'<>|.!?(){}\x2c-\x5f$]+\.)+(?i:com|net|org|edu))"
    r"(?:/[^ \t\n\f\r\"<>|()]+[^ \t\n\f\r\"<>|.!?(){},\-])?",
    '^ \t\n\f\r"<>|.!?(){},',
    span=r"[^ \t\n\f\r\"<>|()]*",
)
_r(
    "email",
    r"(?:(?i:&lt;)|<)?[a-zA-Z0-9][^ \t\n\f\r\"<>|()\u00a0{}]*@"
    r"(?:[^ \t\n\f\r\"<>|(){}.\u00a0]+\.)*[^ \t\n\f\r\"<>|(){}.\u00a0]+(?:(?i:&gt;)|>)?",
    "a-zA-Z0-9<&",
    span=r"[^ \t\n\f\r\"|(){}\u00a0]*",
)
_r("twitter", f"@[a-zA-Z_][a-zA-Z_0-9]*|#{_LETTER}+", "@#")
_r("redaux/", f"(?P<t>{_REDAUX})[^A-Za-z]", "'&\u0092\u2019", _quotes)
_r("n't/", f"(?P<t>{_SREDAUX})[^A-Za-z]", "nN", _quotes)
_r("date", f"[{_D}]{{1,2}}[-/][{_D}]{{1,2}}[-/][{_D}]{{2,4}}", _D)
_r(
    "number",
    f"[-+]?(?:[{_D}]*(?:[.:,\\u00ad\\u066b\\u066c][{_D}]+)+|[{_D}]+)",
    f"-+.:,\u00ad\u066b\u066c{_D}",
    _soft,
)
_r(
    "sup-sub",
    r"[\u207a\u207b\u208a\u208b]?(?:[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]+"
    r"|[\u2080-\u2089]+)",
    "\u207a\u207b\u208a\u208b\u2070\u00b9\u00b2\u00b3\u2074-\u2089",
)
_r(
    "fraction",
    f"(?:[{_D}]{{1,4}}[- \\u00a0])?[{_D}]{{1,4}}(?:\\\\?/|\\u2044)[{_D}]{{1,4}}",
    _D,
    lambda t: t.replace(" ", "\u00a0"),
)
_r(
    "fraction-char",
    r"[\u00bc-\u00be\u2153-\u215e]",
    "\u00bc-\u00be\u2153-\u215e",
    lambda t: t.translate(_FRACTIONS),
)
_r(
    "treebank",
    r"-(?i:rrb|lrb|rcb|lcb|rsb|lsb)-|(?i:c\.d\.s|pro-|anti-|s(?:&|&amp;)p-500"
    r"|s(?:&|&amp;)ls)|"
    f"(?i:cap){_APOS}(?i:n)|(?i:c){_APOS}(?i:est)",
    "-cCpPaAsS\u017f",
    lambda t: _AMP.sub("&", t),
)
_r(
    "slashed",
    r"[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}(?:\\?/[A-Za-z0-9]+(?:-[A-Za-z]+){0,2}){1,2}",
    "A-Za-z0-9",
)
_r("dollar", r"[A-Z]*\$|#", "A-Z$#")
_r(
    "currency",
    r"[\u00a2-\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6]",
    "\u00a2-\u00a5\u0080\u20a0\u20ac\u060b\u0e3f\u20a4\uffe0\uffe1\uffe5\uffe6",
    lambda t: t.translate(_CURRENCY),
)
for _acro in _ACROS:  # acronym + period before a sentence start: the period is split off
    _r(
        "acronym/",
        f"(?P<t>{_acro}\\.){_SPACENL}+{_SENT_START}{_SPACENL}",
        _ALPHA,
        lambda t: t[0] if len(t) == 2 else t,
        push=1,
    )
_r(
    "abbrev3/",
    f"(?P<t>(?i:ca|figs?|prop|nos?|art|bldg|pp|op)\\.){_SPACENL}?[{_D}]",
    "cCfFpPnNaAbBoO",
)
_r("pty./", f"(?P<t>(?:(?i:pt)[eyEY]|(?i:co))\\.)[{_SPACE}](?i:ltd|lim)", "pPcC")
# ABBREV1: lexed with a context of a sentence end (SGML after a space makes it long), of any
# two characters, or none; the token is the same (a split-off period is removed).
_r("abbrev1", f"(?P<t>{_ABBREV1})(?:{_SPACENL}(?:{_SGML}|{_SPACENL})|[\\s\\S]{{2}})?", _ALPHA)
_r("abbrev2", f"{_ABBREV4}\\.", _ALPHA)
for _acro in _ACROS:
    _r("abbrev2", f"{_acro}\\.", _ALPHA)
_r("abbrev4/", f"(?P<t>{_ABBREV4})[{_SPACE}]", _ALPHA)
for _acro in _ACROS:
    _r("abbrev4/", f"(?P<t>{_acro})[{_SPACE}]", _ALPHA)
for _acro in _ACROS:
    _r("acro/", f"(?P<t>{_acro}){_SPACENL}", _ALPHA)
_r("'90/", f"(?P<t>{_APOS}[0-9][0-9]){_SPACENL}", "'&\u0092\u2019")
_r("filename/", f"(?P<t>{_LD}+(?:\\.{_LD}+)*\\.{_FILE_EXT})(?:{_SPACENL}|[.?!,])", f"{_LX}{_D}&")
_r("word./", f"(?P<t>{_WORD}\\.){_INSENTP}", f"{_LX}&", _soft)
_r(
    "phone",
    r"(?:\([0-9]{2,3}\)[ \u00a0]?|(?:\+\+?)?(?:[0-9]{2,4}[\- \u00a0])?[0-9]{2,4}"
    r"[\- \u00a0])[0-9]{3,4}[\- \u00a0]?[0-9]{3,5}"
    r"|(?:(?:\+\+?)?[0-9]{2,4}\.)?[0-9]{2,4}\.[0-9]{3,4}\.[0-9]{3,5}",
    "(+0-9",
    lambda t: t.replace(" ", "\u00a0").translate(_PARENS),
    span=r"[0-9()+\- \u00a0.]{0,22}",
)  # a phone number has at most 22 characters
_r("quote/", r"(?P<t>\"|(?i:&quot;))[A-Za-z0-9$]", '"&', lambda t: _quotes(t, True))
_r("quote", r"\"|(?i:&quot;)", '"&', _quotes)
_r("delete", r"\x7f", "\x7f", _fixed(_SKIP))
_r("less", r"<|(?i:&lt;)", "<&", _fixed("<"))
_r("greater", r">|(?i:&gt;)", ">&", _fixed(">"))
_r(
    "smiley/",
    r"(?P<t>[<>]?[:;=][\-o*']?[()DPdpO\\{@|\[\]])[^A-Za-z0-9]",
    "<>:;=",
    lambda t: t.translate(_PARENS),
)
for _alt, _first in [
    (r"[\^x=~<>]\.\[\^(?i:x)=~<>\]", "x^=~<>"),
    (r"[\-\^x=~<>']_[\-\^x=~<>']", "-^x=~<>'"),
    (r"\([\-\^x=~<>'][_.]?[\-\^x=~<>']\)", "("),
    (r"\([\^x=~<>']-[\^x=~<>'`]\)", "("),
]:
    _r("asian-smiley", _alt, _first, lambda t: t.translate(_PARENS))
_r("{", r"\{", "{", _fixed("-LCB-"))
_r("}", r"\}", "}", _fixed("-RCB-"))
_r("[", r"\[", r"\[", _fixed("-LSB-"))
_r("]", r"\]", r"\]", _fixed("-RSB-"))
_r("(", r"\(", "(", _fixed("-LRB-"))
_r(")", r"\)", ")", _fixed("-RRB-"))
_r("hyphens", r"-+", "-", _dashes)
_r("ellipsis", r"\.{3,5}|(?:\.[ \u00a0]){2,4}\.|[\u0085\u2026]", ".\u0085\u2026", _fixed("..."))
_r("marks", r"@+|#+|_+", "@#_")
_r("stars", r"\*+|(?:\\\*){1,3}", r"*\\")
_r("insentp", _INSENTP, ",;:\u3001")
_r("?!", r"[?!]+", "?!")
_r(
    "period",
    r"[.\u00a1\u00bf\u037e\u0589\u061f\u06d4\u0700-\u0702\u07fa\u3002]",
    ".\u00a1\u00bf\u037e\u0589\u061f\u06d4\u0700-\u0702\u07fa\u3002",
)
_r("=", "=", "=")
_r("/", "/", "/")
_r("hthing./", f"(?P<t>{_HTHING}\\.){_INSENTP}", "A-Za-z0-9", _soft)
_r("hthing", _HTHING, "A-Za-z0-9", _soft)
_r("thing./", f"(?P<t>{_THING}\\.){_INSENTP}", f"{_L}{_D}")
_r("thing", _THING, f"{_L}{_D}")
_r("thinga./", f"(?P<t>{_THINGA}\\.){_INSENTP}", "A-Z", lambda t: _AMP.sub("&", t))
_r("thinga", _THINGA, "A-Z", lambda t: _AMP.sub("&", t))
_r("left-quote/", r"(?P<t>')[A-Za-z][^ \t\n\r\u00a0]", "'", _fixed("`"))
_r("redaux", _REDAUX, "'&\u0092\u2019", _quotes)
_r("n't", _SREDAUX, "nN", _quotes)
for _alt, _first in [
    (_APOS, "'&\u0092\u2019"),
    ("''", "'"),
    (f"[{_QUOTE_CHARS}]{{1,2}}", _QUOTE_CHARS),
]:
    _r("quotes", _alt, _first, _quotes)
_r("duck-feet", r"<<|>>", "<>")
_r("symbol", f"[{_SYMBOL}]", _SYMBOL)
_r(
    "space",
    f"\\x00|[{_SPACE}]+|[\\u200b\\u200e\\u200f\\ufeff]",
    f"\\x00{_SPACE}\\u200b\\u200e\\u200f\\ufeff",
    _fixed(_SKIP),
)
_r(
    "newline",
    r"\r\n?|[\n\u000b\u000c\u0085\u2028\u2029]",
    "\r\n\u000b\u000c\u0085\u2028\u2029",
    _fixed(_NEWLINE),
)
_r("&nbsp;", r"(?i:&nbsp;)", "&", _fixed(_SKIP))


#: The non-ASCII members of the large character classes, as they stand in the rules' regexes.
_NON_ASCII_MEMBERS = tuple(
    _class(ranges)
    for ranges in (_ptb_chars.LETTERS, _ptb_chars.DIGITS, _ptb_chars.MARKS, _ptb_chars.SYMBOLS)
)


def _for_ascii_text(pattern: str) -> str:
    """``pattern`` without the non-ASCII members of the large classes: on a text of ASCII
    characters only it matches exactly where ``pattern`` does (no class loses an ASCII member
    and every class keeps one), and Python compiles it several times faster (a class of
    thousands of code points is expanded one code point at a time)."""
    for members in _NON_ASCII_MEMBERS:
        pattern = pattern.replace(members, "")
    return pattern


@functools.cache
def _rules(ascii_text: bool = False) -> tuple[_Rule, ...]:
    """The compiled rules (compiled on first use: plain captions never need them); with
    ``ascii_text``, the rules for texts of ASCII characters only (:func:`_for_ascii_text`)."""
    strip = _for_ascii_text if ascii_text else str
    return tuple(
        _Rule(
            name,
            re.compile(strip(pattern)),
            re.compile(f"[{strip(first)}]"),
            act,
            "(?P<t>" in pattern,
            re.compile(span) if span else None,
            push,
        )
        for name, pattern, first, act, span, push in _RULE_SPECS
    )


_BY_CHAR: dict[tuple[str, bool], tuple[_Rule, ...]] = {}


def _candidates(c: str, ascii_text: bool = False) -> tuple[_Rule, ...]:
    """The rules a token starting with ``c`` can match, in order (those of :func:`_rules`
    with the same ``ascii_text``)."""
    rules = _BY_CHAR.get((c, ascii_text))
    if rules is None:
        rules = _BY_CHAR[c, ascii_text] = tuple(r for r in _rules(ascii_text) if r.first.match(c))
    return rules


# Shortcuts for the common case. An ASCII word, or words joined by single hyphens, followed
# by a space, a tab or the end, is a token by itself: no longer match can start there.
# Exceptions: the assimilations split in two, and, before a period, one-letter acronyms and
# the words the abbreviation rules take with their period (matched here regardless of case).
# A period followed by " ." could start an ellipsis ". . ." and is left to the lexer.
_SPLIT_WORDS = frozenset("cannot gonna gotta lemme gimme wanna".split())
_TAKES_PERIOD = re.compile(
    "|".join(
        [_ABBREV1, f"{_ABBREV4}\\.", r"(?:ca|figs?|prop|nos?|art|bldg|pp|op|pt[ey]|co|[a-z])\."]
    ),
    re.IGNORECASE,
)
_PLAIN_WORD = re.compile(r"([A-Za-z]+(?:-[A-Za-z]+)*)(,|\.(?! \.))?(?=[ \t\n])")
_LONE_PUNCT = frozenset(["", ".", ","])


@functools.lru_cache(maxsize=1 << 16)
def _takes_period(word: str) -> bool:
    """Whether the lexer keeps the final period of ``word.`` (an abbreviation or a
    one-letter acronym); cached, as caption vocabularies are small."""
    return _TAKES_PERIOD.fullmatch(word) is not None


def _plain_words(low: str) -> list[str] | None:
    """The tokens of a lower-cased ASCII caption made of plain words, "." and "," only
    (separated by spaces); None for any other caption. (Periods here cannot make an
    ellipsis matter: only words and removed punctuation follow them.)"""
    final_period = low[-1:] == "."
    body = low[:-1] if final_period else low
    # the commonest caption: letters and spaces, maybe a period after its last word
    if body.replace(" ", "").isalpha() or not body.strip(" "):
        words = body.split()
        if _SPLIT_WORDS.isdisjoint(words) and (
            not final_period or body[-1:] != " " and words and not _takes_period(words[-1] + ".")
        ):
            return words
    chunks = low.split(" ")
    out = []
    for chunk in chunks:
        if chunk.isalpha():
            if chunk in _SPLIT_WORDS:
                return None
            out.append(chunk)
        elif chunk in _LONE_PUNCT:
            continue
        else:
            last = chunk[-1]
            word = chunk[:-1] if last == "." or last == "," else chunk
            if word.isalpha():
                if word in _SPLIT_WORDS or last == "." and _TAKES_PERIOD.fullmatch(chunk):
                    return None
            elif not (
                word[:1].isalpha()
                and word[-1:].isalpha()
                and word.replace("-", "").isalpha()
                and "--" not in word
            ):
                return None
            out.append(word)
    return out


def _lex(s: str, n: int) -> list[list[str]]:
    """Kept tokens of ``s[:n]``, one list per output line (a line break other than ``\\n``
    inside a caption starts a new line, as in Java's output); ``s[n:]`` is only seen as
    trailing context."""
    lines: list[list[str]] = []
    out: list[str] = []
    kept_last = False  # whether the line's last token so far is in ``out``
    ascii_text = s.isascii()
    i = 0
    while i < n:
        m = _PLAIN_WORD.match(s, i)
        if m is not None:  # shortcut: a plain (hyphenated) word, maybe with . or ,
            word = m.group(1)
            low = word.lower()
            end = m.end()
            if "-" in word or not (
                low in _SPLIT_WORDS or m.group(2) == "." and _TAKES_PERIOD.fullmatch(m.group(0))
            ):
                out.append(low)
                kept_last = end == m.end(1)
                i = end
                continue
        best = None
        best_total = best_len = 0
        for rule in _candidates(s[i], ascii_text):
            if rule.span is None:
                m = rule.rx.match(s, i)
                if m is None:
                    continue
                end = m.end()
            else:  # search the longest match within the stretch it can cover
                # every span pattern matches the empty string, so never None
                bound = rule.span.match(s, i).end()  # type: ignore[union-attr]
                m = rule.rx.match(s, i, bound)
                if m is None:
                    continue
                end = m.end()
                for j in range(bound, end, -1):
                    longer = rule.rx.fullmatch(s, i, j)
                    if longer is not None:
                        m, end = longer, j
                        break
            if end - i > best_total:
                best, best_total = rule, end - i
                best_len = (m.end("t") if rule.ctx else end) - i
        if best is None:  # untokenizable character: deleted
            i += 1
            continue
        tok = best.act(s[i : i + best_len])
        i += best_len - best.push
        if tok is _SKIP:
            continue
        if tok == _NEWLINE:
            _end_line(out, kept_last)
            lines.append(out)
            out = []
            kept_last = False
            continue
        tok = tok.lower()
        kept_last = tok not in PUNCTUATIONS
        if kept_last:
            out.append(tok)
    _end_line(out, kept_last)
    lines.append(out)
    return lines


def _end_line(out: list[str], kept_last: bool) -> None:
    """pycocoevalcap strips white space (``str.rstrip``) from the end of each output line."""
    if kept_last and out[-1][-1].isspace():
        tok = out.pop().rstrip()
        if tok not in PUNCTUATIONS:
            out.append(tok)


def _lex_lines(text: str, following: Callable[[], str | None]) -> list[list[str]]:
    """Tokens of one caption, a line of the tokeniser's file, one list per output line;
    ``following()`` gives the rest of the file after its line break (None: the caption ends
    the file), asked for only when a plain caption's shortcut does not apply."""
    if text.isascii():
        words = _plain_words(text.lower())
        if words is not None:
            return [words]
    text = text.replace("\n", " ")
    rest = following()
    if rest is None:
        return _lex(text, len(text))
    return _lex(f"{text}\n{rest}", len(text))


def _lex_caption(text: str, following: Callable[[], str | None]) -> list[str]:
    lines = _lex_lines(text, following)
    return lines[0] if len(lines) == 1 else [t for line in lines for t in line]


#: The text after a caption's line that :func:`tokenize` assumes (a line that affects nothing).
NEUTRAL_NEXT_LINE = "x"

#: How much of the following captions :func:`tokenize_batch` shows the lexer: the next two
#: captions with a non-space character, and at most this many characters of blank captions
#: before them (the lexer's lookahead reaches over line breaks and spaces to the next word).
MAX_BLANK_CONTEXT = 4096


def _neutral_next_line() -> str:
    return NEUTRAL_NEXT_LINE


def tokenize(text: str) -> list[str]:
    """PTB tokens of one caption, lower-cased, COCO punctuation removed (see the module doc).

    The caption is tokenised as a line followed by a neutral line: the tokens of a caption on
    its own, whatever captions surround it. :func:`tokenize_batch` gives the tokens
    pycocoevalcap gets for a caption among others.

    Parameters
    ----------
    text : str
        One raw caption.

    Returns
    -------
    list of str
        Its tokens.

    Examples
    --------
    >>> from kcca.captions import tokenize
    >>> tokenize("A dog's ball, and a cat.")
    ['a', 'dog', "'s", 'ball', 'and', 'a', 'cat']
    """
    return _lex_caption(text, _neutral_next_line)


def _following(lines: Sequence[str], i: int) -> str | None:
    """The file after line ``i`` as far as the lexer's lookahead can reach (None: the end)."""
    if i + 1 >= len(lines):
        return None
    parts: list[str] = []
    words = blank = 0
    for j in range(i + 1, len(lines)):  # (not a slice: that would copy the rest of the batch)
        line = lines[j]
        parts.append(line)
        if line.strip():
            words += 1
            if words == 2:
                break
        else:
            blank += len(line) + 1
            if blank > MAX_BLANK_CONTEXT:
                break
    return "\n".join(parts)


def tokenize_batch(texts: Sequence[str]) -> list[list[str]]:
    """PTB tokens of captions tokenised together, as pycocoevalcap tokenises them.

    pycocoevalcap writes a batch of captions (all references, or all candidates) one per
    line to a single file (a ``\n`` inside a caption becomes a space) and tokenises the file.
    The lexer's lookahead crosses line ends, so a caption's last token can depend on the next
    caption: ``"... Wii U."`` loses its period when the next caption starts with ``A`` or
    ``The`` (a one-letter acronym before a sentence start) and keeps it otherwise, and the
    last caption ends the file (a final ``:)`` gives ``-rrb-``). Each caption here is lexed
    with the captions after it as that context. Line breaks other than ``\n`` inside a
    caption (``\r``, U+2028 ...) make extra lines in pycocoevalcap's output and shift every
    later caption onto the wrong image; here they separate tokens within their caption.
    """
    lines = [t.replace("\n", " ") for t in texts]
    return [
        _lex_caption(line, functools.partial(_following, lines, i)) for i, line in enumerate(lines)
    ]


#: Line breaks that pycocoevalcap passes to the Java tokeniser inside a caption (it replaces
#: only ``\n``): each makes an extra output line.
OTHER_LINE_BREAKS = re.compile("[\r\x0b\x0c\x85\u2028\u2029]")


def pycocoevalcap_lines(texts: Sequence[str]) -> list[list[str]]:
    """The tokens pycocoevalcap's ``PTBTokenizer`` gives each of ``texts``, output line ``i``
    to caption ``i``: equal to :func:`tokenize_batch` unless a caption holds a line break
    other than ``\n`` (:data:`OTHER_LINE_BREAKS`); from there on every caption gets a line
    of the captions before it (pycocoevalcap zips the file's output lines with the
    captions), and the last lines are dropped."""
    lines = [t.replace("\n", " ") for t in texts]
    out: list[list[str]] = []
    for i, line in enumerate(lines):
        out += _lex_lines(line, functools.partial(_following, lines, i))
        if len(out) >= len(lines):
            break
    return out[: len(lines)]


def _caption_texts(captions_for_image: Mapping[Hashable, Sequence]) -> list[str]:
    texts = []
    for key, caps in captions_for_image.items():
        for j, c in enumerate(caps):
            text = c["caption"] if isinstance(c, Mapping) else c
            if not isinstance(text, str):
                raise CaptionInputError(
                    f"caption {j} of image id {key!r} is a {type(text).__name__}, not a string"
                )
            texts.append(text)
    return texts


class PTBTokenizer:
    """Tokenise a COCO-style captions dict like pycocoevalcap's ``PTBTokenizer``, without Java.

    ``tokenize({id: [str | {"caption": str}, ...]}) -> {id: [tokenised str, ...]}``: every
    caption of the dict is tokenised as one batch in the dict's order, as pycocoevalcap does
    (:func:`pycocoevalcap_lines`, its line shift after a ``\\r`` included). Also
    :class:`kcca.coco.tokenizer.ptbtokenizer.PTBTokenizer`, under pycocoevalcap's module
    path; see pycocoevalcap's ``tokenizer/ptbtokenizer.py`` for the interface.

    Examples
    --------
    >>> from kcca.captions import PTBTokenizer
    >>> PTBTokenizer().tokenize({1: [{"caption": "A dog's ball, and a cat."}, "Two DOGS!"]})
    {1: ["a dog 's ball and a cat", 'two dogs']}
    """

    def tokenize(self, captions_for_image: Mapping[Hashable, Sequence]) -> dict:
        tokens = iter(pycocoevalcap_lines(_caption_texts(captions_for_image)))
        return {
            key: [" ".join(next(tokens)) for _ in caps] for key, caps in captions_for_image.items()
        }


def tokenize_captions(captions: Mapping[Hashable, Sequence[str] | str]) -> dict:
    """``{id: str | [str, ...]} -> {id: [tokenised str, ...]}`` (space-joined tokens, each
    caption on its own as :func:`tokenize`)."""
    out: dict = {}
    for key, caps in captions.items():
        if isinstance(caps, str):
            caps = [caps]
        out[key] = [" ".join(tokenize(c)) if isinstance(c, str) else c for c in caps]
    return out
