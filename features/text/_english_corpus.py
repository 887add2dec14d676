"""D_ext: the general-English corpus standing in for the BNC of Section 3.5.3.

The paper computed one distributional similarity on the British National Corpus (licensed, not
redistributable). The stand-in, called D_ext everywhere in this toolkit, is every plain-text
corpus in ``nltk_data`` together (about 5.3M words): the tagged corpora ``brown``, ``treebank``,
``conll2000``, ``masc_tagged`` and the untagged ``abc``, ``movie_reviews``, ``state_union``,
``webtext``. One sentence is one context of eq. 24.

It goes through the same steps as the captions (Section 3.5.1): lower-casing, dropping tokens
without a letter or digit, lemmatisation, and NLTK's English stop list (a token is dropped when its
surface form or its lemma is a stop word). Lemmas come from WordNet's morphology (``morphy``; the
shortest analysis, as NLTK's ``WordNetLemmatizer``) with a part of speech: the corpus's own tag
where the corpus is tagged, otherwise the word form's most frequent tag in the tagged corpora (a
unigram tag dictionary), otherwise noun. Untagged text is split into sentences at line breaks and
after ``.``, ``!`` or ``?`` followed by a capital, and into words at non-alphanumeric characters
(apostrophes split: ``don't`` -> ``don t``, both stop words).

The result is a :class:`TokenizedCorpus` (compact integer arrays); :func:`load_english_corpus`
caches it through :class:`kcca._cache.Cache`.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from features.text._resources import MissingResourceError, corpus_root, search_path, wordnet
from kcca.errors import SettingError

TAGGED_CORPORA = ("brown", "treebank", "conll2000", "masc_tagged")
PLAIN_CORPORA = ("abc", "movie_reviews", "state_union", "webtext")
EXT_CORPORA = TAGGED_CORPORA + PLAIN_CORPORA

#: universal tag -> WordNet part of speech
UNIVERSAL_TO_WORDNET = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}

_WORD = re.compile(r"[^\W_]+(?:-[^\W_]+)*")
_SENTENCE_BREAK = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z])")
_ALNUM = re.compile(r"[^\W_]")

ENGLISH_CORPUS_VERSION = 1


@dataclass(frozen=True)
class TokenizedCorpus:
    """Sentences of word types stored as CSR-like integer arrays.

    Attributes:
        types: the distinct tokens.
        indptr: sentence ``k`` is ``ids[indptr[k]:indptr[k + 1]]``.
        ids: token ids into ``types`` (int32).
    """

    types: tuple[str, ...]
    indptr: np.ndarray
    ids: np.ndarray

    @classmethod
    def from_sentences(cls, sentences: Iterable[Sequence[str]]) -> "TokenizedCorpus":
        index: dict[str, int] = {}
        ids: list[int] = []
        indptr = [0]
        for sent in sentences:
            for tok in sent:
                i = index.get(tok)
                if i is None:
                    i = index[tok] = len(index)
                ids.append(i)
            indptr.append(len(ids))
        return cls(
            tuple(index), np.asarray(indptr, dtype=np.int64), np.asarray(ids, dtype=np.int32)
        )

    def __len__(self) -> int:
        return len(self.indptr) - 1

    @property
    def n_tokens(self) -> int:
        return int(self.indptr[-1])

    def counts(self) -> dict[str, int]:
        """Token -> number of occurrences."""
        c = np.bincount(self.ids, minlength=len(self.types))
        return {t: int(n) for t, n in zip(self.types, c)}

    def sentences(self) -> Iterator[list[str]]:
        for a, b in zip(self.indptr[:-1], self.indptr[1:]):
            yield [self.types[i] for i in self.ids[a:b]]


def _universal(source: str) -> Callable[[str], str]:
    from nltk.tag.mapping import map_tag

    memo: dict[str, str] = {}

    def f(tag: str) -> str:
        u = memo.get(tag)
        if u is None:
            u = memo[tag] = map_tag(source, "universal", tag)
        return u

    return f


def tagged_sentences(name: str) -> Iterator[list[tuple[str, str]]]:
    """Sentences of a tagged corpus as (word, universal tag); treebank traces are dropped."""
    from nltk.corpus.reader import (
        BracketParseCorpusReader,
        CategorizedTaggedCorpusReader,
        ConllChunkCorpusReader,
    )

    root = corpus_root(name)
    if name == "brown":
        reader = CategorizedTaggedCorpusReader(
            root, r"c[a-z]\d\d", cat_file="cats.txt", tagset="brown", encoding="ascii"
        )
        source = "en-brown"
    elif name == "treebank":
        reader = BracketParseCorpusReader(
            root.join("combined/"), r"wsj_.*\.mrg", tagset="wsj", encoding="ascii"
        )
        source = "en-ptb"
    elif name == "conll2000":
        reader = ConllChunkCorpusReader(
            root, ["train.txt", "test.txt"], ("NP", "VP", "PP"), tagset="wsj", encoding="ascii"
        )
        source = "en-ptb"
    elif name == "masc_tagged":
        reader = CategorizedTaggedCorpusReader(
            root,
            r"(spoken|written)/.*\.txt",
            cat_file="categories.txt",
            tagset="wsj",
            encoding="utf-8",
            sep="_",
        )
        source = "en-ptb"
    else:
        raise SettingError(f"{name!r} is not a tagged corpus; tagged: {TAGGED_CORPORA}")
    _require_universal_tagset()
    to_universal = _universal(source)
    for fileid in reader.fileids():
        for sent in reader.tagged_sents(fileid):
            out = [(w, to_universal(t)) for w, t in sent if t != "-NONE-" and t is not None]
            if out:
                yield out


def _require_universal_tagset() -> None:
    import nltk

    for candidate in ("taggers/universal_tagset", "taggers/universal_tagset.zip/universal_tagset/"):
        try:
            nltk.data.find(candidate)
            return
        except LookupError:
            pass
    raise MissingResourceError(
        "NLTK resource 'universal_tagset' (mapping of corpus tags to the universal tag set) not "
        f"found in {list(search_path())}: set $NLTK_DATA (see data/README.md) or run "
        "`python -m nltk.downloader universal_tagset` where the network allows."
    )


_PLAIN = {
    "abc": (r"(?!\.).*\.txt", [("science", "latin_1"), ("rural", "utf8")]),
    "movie_reviews": (r"(?!\.).*\.txt", "ascii"),
    "state_union": (r"(?!\.).*\.txt", "ISO-8859-2"),
    "webtext": (r"(?!README|\.).*\.txt", "ISO-8859-2"),
}


def split_sentences(text: str) -> list[str]:
    """Line breaks, then ``.``/``!``/``?`` before a capital, end a sentence."""
    out: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            out.extend(s for s in _SENTENCE_BREAK.split(line) if s.strip())
    return out


def words(text: str) -> list[str]:
    """Alphanumeric words (hyphens inside a word kept, apostrophes split)."""
    return _WORD.findall(text)


def plain_sentences(name: str) -> Iterator[list[str]]:
    """Sentences (lists of words) of an untagged corpus, read from its raw text."""
    from nltk.corpus.reader import PlaintextCorpusReader

    if name not in _PLAIN:
        raise SettingError(f"{name!r} is not a plain corpus; plain: {PLAIN_CORPORA}")
    pattern, encoding = _PLAIN[name]
    reader = PlaintextCorpusReader(corpus_root(name), pattern, encoding=encoding)
    for fileid in reader.fileids():
        for sent in split_sentences(reader.raw(fileid)):
            ws = words(sent)
            if ws:
                yield ws


class Lemmatizer:
    """WordNet ``morphy`` lemmas for a form and a universal tag, memoised.

    Among the analyses morphy gives under the tag's part of speech, the one seen most often in
    ``reference`` (token counts of the reference corpus: the preprocessed training captions, so
    lemmas agree with the caption vocabulary) wins; without counts, morphy's first analysis
    (``riding`` -> ``ride``, not the shortest ``rid``). ``tag_dictionary`` maps a lower-cased
    form to its most frequent universal tag, used when no tag is given; forms outside it are
    treated as nouns. Closed-class tags and forms WordNet does not know stay as they are.
    """

    def __init__(
        self, tag_dictionary: dict[str, str] | None = None, reference: dict[str, int] | None = None
    ):
        self.tag_dictionary = tag_dictionary or {}
        self.reference = reference or {}
        self._wn = wordnet()
        self._memo: dict[tuple[str, str], str] = {}

    def __call__(self, form: str, tag: str | None = None) -> str:
        if tag is None:
            tag = self.tag_dictionary.get(form, "NOUN")
        pos = UNIVERSAL_TO_WORDNET.get(tag)
        if pos is None:
            return form
        key = (form, pos)
        lemma = self._memo.get(key)
        if lemma is None:
            analyses = self._wn._morphy(form, pos)
            if analyses:
                ref = self.reference
                lemma = max(enumerate(analyses), key=lambda ia: (ref.get(ia[1], 0), -ia[0]))[1]
            else:
                lemma = form
            self._memo[key] = lemma
        return lemma


def tag_dictionary(tagged: Iterable[Sequence[tuple[str, str]]]) -> dict[str, str]:
    """Lower-cased form -> its most frequent universal tag (ties: alphabetical tag)."""
    counts: dict[str, Counter] = defaultdict(Counter)
    for sent in tagged:
        for w, t in sent:
            counts[w.lower()][t] += 1
    return {w: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for w, c in counts.items()}


def normalise(
    tokens: Iterable[tuple[str, str | None]], lemmatize: Lemmatizer, stop_words: frozenset[str]
) -> list[str]:
    """Lower-case, drop tokens without a letter/digit, lemmatise, drop stop words (both forms)."""
    out: list[str] = []
    for w, t in tokens:
        w = w.lower()
        if w in stop_words or not _ALNUM.search(w):
            continue
        lemma = lemmatize(w, t)
        if lemma not in stop_words:
            out.append(lemma)
    return out


def build_english_corpus(
    corpora: Sequence[str] = EXT_CORPORA,
    *,
    stop_words: frozenset[str] | None = None,
    reference: dict[str, int] | None = None,
    progress: bool = True,
) -> TokenizedCorpus:
    """Read, lemmatise and stop-filter the D_ext corpora into one :class:`TokenizedCorpus`.

    ``reference``: token counts that choose between WordNet analyses (see :class:`Lemmatizer`).
    """
    from tqdm.auto import tqdm

    unknown = [c for c in corpora if c not in EXT_CORPORA]
    if unknown:
        raise SettingError(f"unknown D_ext corpora {unknown}; known: {EXT_CORPORA}")
    if stop_words is None:
        from features.text._resources import stop_words as nltk_stop_words

        stop_words = nltk_stop_words("english")
    tagged = {
        c: list(tagged_sentences(c))
        for c in tqdm(TAGGED_CORPORA, desc="D_ext tagged corpora", disable=not progress)
    }
    lemmatize = Lemmatizer(tag_dictionary(s for c in TAGGED_CORPORA for s in tagged[c]), reference)
    out: list[list[str]] = []
    for name in tqdm(corpora, desc="D_ext lemmatise", disable=not progress):
        if name in tagged:
            sents: Iterable = tagged[name]
        else:
            sents = ([(w, None) for w in s] for s in plain_sentences(name))
        for s in sents:
            toks = normalise(s, lemmatize, stop_words)
            if toks:
                out.append(toks)
    return TokenizedCorpus.from_sentences(out)


def _source_signature(corpora: Sequence[str]) -> dict[str, str]:
    """Content digests of the corpus files, so a changed installation invalidates the cache."""
    from features.text._resources import data_fingerprint

    for name in corpora:
        corpus_root(name)  # a missing corpus is named here, before any work
    return data_fingerprint(corpora)


#: seconds to build D_ext from all of :data:`EXT_CORPORA` (5.3M words), measured on 2 cores
BUILD_SECONDS = 15.0
STAGE = "english-corpus"


def english_corpus_config(
    corpora: Sequence[str] = EXT_CORPORA, *, reference: dict[str, int] | None = None
) -> dict:
    """The cache key of :func:`load_english_corpus`."""
    import hashlib

    ref = hashlib.sha256(repr(sorted((reference or {}).items())).encode()).hexdigest()
    return {
        "version": ENGLISH_CORPUS_VERSION,
        "corpora": list(corpora),
        "stop_words": "nltk-english",
        "lemmatizer": "morphy/tagdict/reference",
        "reference": ref,
        "sources": _source_signature(corpora),
    }


def load_english_corpus(
    cache=None,
    corpora: Sequence[str] = EXT_CORPORA,
    *,
    reference: dict[str, int] | None = None,
    progress: bool = True,
) -> TokenizedCorpus:
    """:func:`build_english_corpus` with the NLTK stop list, cached in ``cache`` (a Cache);
    ``progress``: say on stderr that it is built (once), and show bars."""
    from kcca._cache import Cache
    from kcca._progress import building

    cache = cache if cache is not None else Cache(None)
    config = english_corpus_config(corpora, reference=reference)
    if not cache.has(STAGE, config):
        building(
            f"the general-English corpus D_ext from {len(corpora)} NLTK corpora",
            BUILD_SECONDS * len(corpora) / len(EXT_CORPORA),
            cache,
            STAGE,
            enabled=progress,
        )
    return cache.get_or_compute(
        STAGE,
        config,
        lambda: build_english_corpus(corpora, reference=reference, progress=progress),
        expect=TokenizedCorpus,
    )
