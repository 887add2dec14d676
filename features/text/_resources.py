"""NLTK data lookup for caption preprocessing: WordNet, stop words, word list, tagged corpora.

Everything is read through ``nltk.data.path`` (which ``$NLTK_DATA`` feeds); nothing is ever
downloaded at run time. A missing package raises :class:`MissingResourceError` saying how to
install it. Loaded resources are memoised per search path, so pointing ``NLTK_DATA`` elsewhere
(tests do) looks them up afresh.
"""

from __future__ import annotations

import functools
import itertools
import os
import warnings
from typing import Iterable

import nltk

from kcca.data._errors import DataError

NLTK_DATA_ENV = "NLTK_DATA"
KCCA_DATA_ENV = "KCCA_DATA_DIR"

#: resource name -> (path inside an NLTK data folder, what it is used for)
RESOURCES: dict[str, tuple[str, str]] = {
    "wordnet": ("corpora/wordnet", "WordNet 3.0 (known words for spelling, lemmatisation)"),
    "stopwords": ("corpora/stopwords", "NLTK's English stop-word list (179 words)"),
    "words": ("corpora/words", "the Unix word list (known words for spelling)"),
    "brown": ("corpora/brown", "the Brown corpus (training data for the POS tagger)"),
    "treebank": ("corpora/treebank", "the Penn Treebank sample (POS tagger training data)"),
    "conll2000": ("corpora/conll2000", "the CoNLL-2000 corpus (POS tagger training data)"),
    "universal_tagset": (
        "taggers/universal_tagset",
        "the mapping to the universal POS tag set (POS tagger training data)",
    ),
}


class MissingResourceError(DataError):
    """An NLTK data package needed for preprocessing is not on ``nltk.data.path``."""


def search_path() -> tuple[str, ...]:
    """The folders searched for NLTK data.

    ``$NLTK_DATA`` entries first, then ``nltk.data.path``, then ``$KCCA_DATA_DIR/nltk_data``
    (the project's data folder, see data/README.md) as a last resort.
    """
    env = os.environ.get(NLTK_DATA_ENV, "")
    for entry in reversed([p for p in env.split(os.pathsep) if p]):
        if entry not in nltk.data.path:
            nltk.data.path.insert(0, entry)
    data_dir = os.environ.get(KCCA_DATA_ENV)
    if data_dir:
        fallback = os.path.join(data_dir, "nltk_data")
        if os.path.isdir(fallback) and fallback not in nltk.data.path:
            nltk.data.path.append(fallback)
    return tuple(nltk.data.path)


def resolved_search_path(data_dir: str | os.PathLike | None = None) -> tuple[str, ...]:
    """The NLTK data folders (or zips) this process searches that exist, in order, with
    ``data_dir/nltk_data`` last when that folder exists (the fallback :func:`search_path` takes
    from ``$KCCA_DATA_DIR``, here for a data folder given by flag): what a task run in another
    process, a Dask worker, should search to find what this process finds."""
    found = [p for p in search_path() if os.path.exists(p)]
    if data_dir is not None:
        fallback = os.path.join(os.fspath(data_dir), "nltk_data")
        if os.path.isdir(fallback) and fallback not in found:
            found.append(fallback)
    return tuple(found)


def use_search_path(entries: Iterable[str]) -> None:
    """Search ``entries`` first in this process from now on: they go to the front of
    ``nltk.data.path`` and of ``$NLTK_DATA`` (which :func:`search_path` and child processes
    read). Nothing is removed, so other tasks of the same process still find what they found."""
    entries = [e for e in dict.fromkeys(entries) if e]
    if not entries:
        return
    env = [e for e in os.environ.get(NLTK_DATA_ENV, "").split(os.pathsep) if e]
    os.environ[NLTK_DATA_ENV] = os.pathsep.join(entries + [e for e in env if e not in entries])
    nltk.data.path[:] = entries + [e for e in nltk.data.path if e not in entries]


def require(name: str):
    """Locate resource ``name`` (a key of :data:`RESOURCES`): its NLTK path pointer.

    Raises :class:`MissingResourceError`, saying how to install it, when it is absent.
    """
    if name not in RESOURCES:
        raise KeyError(f"unknown NLTK resource {name!r}; known: {sorted(RESOURCES)}")
    path, what = RESOURCES[name]
    searched = search_path()
    base = path.rsplit("/", 1)[-1]
    # an unpacked folder, or the zip NLTK's downloader leaves (as LazyCorpusLoader looks)
    for candidate in (path, f"{path}.zip/{base}/"):
        try:
            return nltk.data.find(candidate)
        except LookupError:
            pass
    hint = ""
    if name == "wordnet":
        hint = (
            "; on Debian/Ubuntu `apt-get install wordnet-base wordnet-sense-index` installs "
            "the same WordNet 3.0 files (see data/README.md for laying them out for NLTK)"
        )
    raise MissingResourceError(
        f"NLTK resource {name!r} ({what}) not found: looked for {path}[.zip] in "
        f"{list(searched)}. Set ${NLTK_DATA_ENV} to a folder holding it (the project's data "
        f"folder has one, see data/README.md){hint}, or where the network allows run "
        f"`python -m nltk.downloader {name}` once (this toolkit never downloads by itself)."
    )


@functools.lru_cache(maxsize=8)
def _stop_words(path: tuple[str, ...], language: str) -> frozenset[str]:
    root = require("stopwords")
    from nltk.corpus.reader import WordListCorpusReader

    reader = WordListCorpusReader(root, r"(?!README|\.).*")
    if language not in reader.fileids():
        raise MissingResourceError(
            f"NLTK's stop-word package at {root} has no list for {language!r}; "
            f"available: {reader.fileids()}"
        )
    return frozenset(w.strip().lower() for w in reader.words(language) if w.strip())


def stop_words(language: str = "english") -> frozenset[str]:
    """NLTK's stop-word list for ``language`` (English: 179 words), lower-cased."""
    return _stop_words(search_path(), language)


@functools.lru_cache(maxsize=4)
def _word_list(path: tuple[str, ...]) -> frozenset[str]:
    root = require("words")
    from nltk.corpus.reader import WordListCorpusReader

    reader = WordListCorpusReader(root, ["en"])
    return frozenset(w.strip().lower() for w in reader.words("en") if w.strip())


def word_list() -> frozenset[str]:
    """The Unix word list of ``corpora/words`` (the dictionary Linux ``spell`` uses),
    lower-cased."""
    return _word_list(search_path())


@functools.lru_cache(maxsize=4)
def _wordnet(path: tuple[str, ...]):
    root = require("wordnet")
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    with warnings.catch_warnings():  # "multilingual functions are not available": not used
        warnings.simplefilter("ignore", UserWarning)
        return WordNetCorpusReader(root, None)


def wordnet():
    """A WordNet corpus reader (NLTK's ``WordNetCorpusReader``) found on the NLTK search path."""
    return _wordnet(search_path())


@functools.lru_cache(maxsize=4)
def _wordnet_lemma_names(path: tuple[str, ...]) -> frozenset[str]:
    wn = _wordnet(path)
    return frozenset(n.lower() for n in wn.all_lemma_names() if "_" not in n)


def wordnet_lemma_names() -> frozenset[str]:
    """All single-word WordNet lemma names (multi-word ``a_b`` names left out), lower-cased."""
    return _wordnet_lemma_names(search_path())


def tagged_sents(
    corpus: str, tagset: str = "universal", limit: int | None = None
) -> list[list[tuple[str, str]]]:
    """Tagged sentences of an NLTK tagged corpus (``brown``, ``treebank``, ``conll2000``).

    ``limit`` reads only the first ``limit`` sentences (lazily).
    """
    if corpus not in ("brown", "treebank", "conll2000"):
        raise ValueError(f"unsupported tagged corpus {corpus!r}: use brown, treebank or conll2000")
    require(corpus)
    if tagset == "universal":
        require("universal_tagset")
    reader = getattr(__import__("nltk.corpus", fromlist=[corpus]), corpus)
    return [list(s) for s in itertools.islice(reader.tagged_sents(tagset=tagset), limit)]


def _pointer_file(pointer) -> str:
    """The file or folder behind an NLTK path pointer (a zip's file for a zip member)."""
    zipfile = getattr(pointer, "zipfile", None)
    return zipfile.filename if zipfile is not None else str(pointer.path)


def corpus_root(name: str):
    """The NLTK path pointer of corpus ``name`` (folder or zip); a clear error when absent."""
    import nltk

    searched = search_path()
    for candidate in (f"corpora/{name}", f"corpora/{name}.zip/{name}/"):
        try:
            return nltk.data.find(candidate)
        except LookupError:
            pass
    raise MissingResourceError(
        f"NLTK corpus {name!r} (part of the general-English corpus D_ext) not found: looked "
        f"for corpora/{name}[.zip] in {list(searched)}. Set $NLTK_DATA to a folder holding it "
        f"(see data/README.md, 'A general English corpus'), or where the network allows run "
        f"`python -m nltk.downloader {name}` once (this toolkit never downloads by itself)."
    )


def data_fingerprint(names: Iterable[str]) -> dict[str, str]:
    """Content digest of each named NLTK package (a key of :data:`RESOURCES` or a corpus of
    the general-English corpus), ``"absent"`` for one not installed: part of the cache key of
    every stage that reads them, so a changed NLTK data folder recomputes those stages."""
    from kcca._fingerprints import tree_digest

    out = {}
    for name in sorted(set(names)):
        try:
            if name in RESOURCES:
                pointer = require(name)
            else:
                pointer = corpus_root(name)
        except MissingResourceError:
            out[name] = "absent"
            continue
        out[name] = tree_digest(_pointer_file(pointer))
    return out
