"""Part-of-speech tagging of captions before lemmatisation (Section 3.5.4).

The paper used the OpenNLP tagger on raw (un-lemmatised) captions. No pretrained NLTK tagger
ships with the project's NLTK data, so a tagger is trained here on the tagged corpora that do
(Brown by default), mapped to the universal tag set (NOUN, VERB, ADJ, ADV, ...), with
lower-cased words (captions are lower-cased before tagging):

* ``"perceptron"``: NLTK's averaged perceptron (``PerceptronTagger(load=False).train``),
  ``n_iter`` passes over the sentences shuffled with ``seed``; about 96% accuracy on held-out
  Brown sentences; training on all of Brown takes a minute or two.
* ``"ngram"``: trigram -> bigram -> unigram -> default NOUN backoff chain; trains in seconds,
  about 93% accurate.

Trained taggers are memoised in the process and stored in :class:`kcca._cache.Cache` (stage
``"pos-tagger"``, keyed by :meth:`TaggerConfig.key`), written atomically.
"""

from __future__ import annotations

import logging
import random
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import nltk
import numpy as np

from kcca._cache import Cache
from kcca.errors import SettingError
from kcca.limits import MAX_TAGGER_ITER

log = logging.getLogger(__name__)

TAGGER_KINDS = ("perceptron", "ngram")
STAGE = "pos-tagger"


@dataclass(frozen=True)
class TaggerConfig:
    """How the POS tagger is trained (everything that changes the trained model)."""

    kind: str = "perceptron"
    corpora: tuple[str, ...] = ("brown",)
    n_iter: int = 5
    max_sents: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in TAGGER_KINDS:
            raise SettingError(f"unknown tagger kind {self.kind!r}: use one of {TAGGER_KINDS}")
        if type(self.n_iter) is not int or not 1 <= self.n_iter <= MAX_TAGGER_ITER:
            raise SettingError(f"n_iter must be 1 to {MAX_TAGGER_ITER}, got {self.n_iter!r}")
        if isinstance(self.corpora, str):
            object.__setattr__(self, "corpora", (self.corpora,))
        unknown = [c for c in self.corpora if c not in CORPUS_SENTENCES]
        if unknown or not self.corpora:
            raise SettingError(
                f"unknown tagged corpus {unknown[0] if unknown else None!r}: "
                f"use some of {tuple(CORPUS_SENTENCES)}"
            )
        if self.max_sents is not None and (type(self.max_sents) is not int or self.max_sents < 1):
            raise SettingError(f"max_sents must be None or >= 1, got {self.max_sents!r}")

    def key(self) -> dict[str, Any]:
        """The cache key: the config plus the NLTK version (its tagger code)."""
        from features.text._resources import data_fingerprint

        return {
            **asdict(self),
            "tagset": "universal",
            "lowercase": True,
            "nltk": nltk.__version__,
            "nltk_data": data_fingerprint((*self.corpora, "universal_tagset")),
        }


def training_sentences(config: TaggerConfig) -> list[list[tuple[str, str]]]:
    """Lower-cased, universally tagged sentences of ``config.corpora`` (first ``max_sents``)."""
    from features.text._resources import tagged_sents

    sents: list[list[tuple[str, str]]] = []
    for name in config.corpora:
        limit = None if config.max_sents is None else config.max_sents - len(sents)
        if limit is not None and limit <= 0:
            break
        sents.extend(
            [(w.lower(), t) for w, t in s] for s in tagged_sents(name, "universal", limit=limit)
        )
    if not sents:
        raise ValueError(f"no training sentences for the POS tagger from {config.corpora}")
    return sents


def train_tagger(config: TaggerConfig, progress: bool = False):
    """Train a tagger (an object with ``tag(tokens)``) as ``config`` says; seeded.

    ``progress``: a bar over the perceptron's passes over the sentences (on stderr)."""
    sents = training_sentences(config)
    log.info(
        "training %s POS tagger on %d sentences of %s",
        config.kind,
        len(sents),
        "+".join(config.corpora),
    )
    if config.kind == "ngram":
        from nltk.tag import BigramTagger, DefaultTagger, TrigramTagger, UnigramTagger

        tagger = DefaultTagger("NOUN")
        for cls in (UnigramTagger, BigramTagger, TrigramTagger):
            tagger = cls(sents, backoff=tagger)
        return tagger
    from nltk.tag.perceptron import PerceptronTagger
    from tqdm.auto import tqdm

    tagger = PerceptronTagger(load=False)
    passes = "1 pass" if config.n_iter == 1 else f"{config.n_iter} passes"
    bar = tqdm(
        total=config.n_iter * len(sents),
        unit="sent",
        unit_scale=True,
        desc=f"train POS tagger ({passes})",
        disable=not progress,
    )
    if progress:
        _count_sentences(tagger, bar)
    state = random.getstate()  # NLTK shuffles with the global generator: seed it, then restore
    nltk_log = logging.getLogger("nltk.tag.perceptron")
    level = nltk_log.level
    nltk_log.setLevel(logging.WARNING)  # its "Iter N: accuracy" lines: the bar shows the passes
    try:
        random.seed(config.seed)
        tagger.train(sents, nr_iter=config.n_iter)
    finally:
        nltk_log.setLevel(level)
        random.setstate(state)
        tagger.__dict__.pop("_make_tagdict", None)
        bar.close()
    return tagger


class _CountingList(list):
    """A list that advances a progress bar by one for each item a ``for`` loop takes."""

    def __init__(self, items, bar) -> None:
        super().__init__(items)
        self._bar = bar

    def __iter__(self):
        for item in super().__iter__():
            yield item
            self._bar.update(1)


def _count_sentences(tagger, bar) -> None:
    """Make ``tagger.train`` advance ``bar`` per sentence of each pass. NLTK's
    ``PerceptronTagger.train`` copies the sentences into ``self._sentences`` in
    ``_make_tagdict`` and loops over that list once per pass: the copy becomes a
    :class:`_CountingList`. (Where a version of NLTK does otherwise, the bar stays at 0.)"""
    make_tagdict = tagger._make_tagdict

    def make_tagdict_counting(sentences):
        make_tagdict(sentences)
        if type(getattr(tagger, "_sentences", None)) is list:
            tagger._sentences = _CountingList(tagger._sentences, bar)

    tagger._make_tagdict = make_tagdict_counting  # removed again after training


_MEMO: dict[str, Any] = {}


def tagger_data(tagger) -> dict[str, Any]:
    """A trained tagger as plain data (what the cache stores; :func:`tagger_from_data`
    rebuilds it): the perceptron's weights, tag dictionary and classes, or the context
    tables of the n-gram chain."""
    from nltk.tag.perceptron import PerceptronTagger

    if isinstance(tagger, PerceptronTagger):
        classes = sorted(tagger.classes)
        index = {c: i for i, c in enumerate(classes)}
        features = list(tagger.model.weights)
        rows = [tagger.model.weights[f] for f in features]
        return {
            "kind": "perceptron",
            "classes": classes,
            "tagdict": dict(tagger.tagdict),
            "features": "\n".join(features),
            "counts": np.array([len(r) for r in rows], dtype=np.int32),
            "tags": np.array([index[t] for r in rows for t in r], dtype=np.int16),
            "weights": np.array([w for r in rows for w in r.values()], dtype=np.float64),
        }
    chain = tagger._taggers  # outermost first, the default tagger last
    return {
        "kind": "ngram",
        "default": chain[-1]._tag,
        "tables": [dict(t._context_to_tag) for t in reversed(chain[:-1])],
    }


def tagger_from_data(data: dict[str, Any]):
    """The tagger :func:`tagger_data` describes (no code is read: only tables)."""
    if data["kind"] == "perceptron":
        from nltk.tag.perceptron import PerceptronTagger

        tagger = PerceptronTagger(load=False)
        classes = list(data["classes"])
        tags = [classes[i] for i in data["tags"].tolist()]
        weights = data["weights"].tolist()
        features = data["features"].split("\n") if data["features"] else []
        table: dict[str, dict[str, float]] = {}
        pos = 0
        for f, n in zip(features, data["counts"].tolist()):
            table[f] = dict(zip(tags[pos : pos + n], weights[pos : pos + n]))
            pos += n
        tagger.model.weights = table
        tagger.model.classes = tagger.classes = set(classes)
        tagger.tagdict = dict(data["tagdict"])
        return tagger
    from nltk.tag import BigramTagger, DefaultTagger, TrigramTagger, UnigramTagger

    tagger = DefaultTagger(data["default"])
    for cls, table in zip((UnigramTagger, BigramTagger, TrigramTagger), data["tables"]):
        tagger = cls(model=table, backoff=tagger)
    return tagger


def load_tagger(config: TaggerConfig, cache: Cache | None = None, progress: bool = False):
    """The trained tagger for ``config``: from memory, else from ``cache``, else trained
    (``progress``: say so on stderr, with its expected duration, and show a bar)."""
    from kcca._cache import config_key
    from kcca._progress import building

    key = config.key()
    k = config_key(key)
    tagger = _MEMO.get(k)
    if tagger is None:
        cache = cache if cache is not None else Cache(None)
        if not cache.has(STAGE, key):
            building(
                f"the {config.kind} POS tagger, {describe_training(config)}",
                training_seconds(config),
                cache,
                STAGE,
                enabled=progress,
            )
        data = cache.get_or_compute(
            STAGE, key, lambda: tagger_data(train_tagger(config, progress=progress)), expect=dict
        )
        tagger = tagger_from_data(data)
        _MEMO[k] = tagger
    return tagger


#: sentences of the tagged corpora (the size of a training run); seconds per pass over a
#: thousand sentences of the perceptron and for the n-gram chain, measured on 2 cores
CORPUS_SENTENCES = {"brown": 57_340, "treebank": 3_914, "conll2000": 10_948}
PERCEPTRON_S_PER_1000_SENTENCES = 0.25
NGRAM_S_PER_1000_SENTENCES = 0.05
READ_S_PER_1000_SENTENCES = 0.06


def _n_sentences(config: TaggerConfig) -> int | None:
    if any(c not in CORPUS_SENTENCES for c in config.corpora):
        return config.max_sents
    n = sum(CORPUS_SENTENCES[c] for c in config.corpora)
    return n if config.max_sents is None else min(n, config.max_sents)


def describe_training(config: TaggerConfig) -> str:
    """``"5 passes over the 57,340 sentences of brown"``."""
    n = _n_sentences(config)
    what = f"the {n:,} sentences of " if n is not None else ""
    corpora = "+".join(config.corpora)
    if config.kind == "ngram":
        return f"trained on {what}{corpora}"
    passes = "1 pass" if config.n_iter == 1 else f"{config.n_iter} passes"
    return f"{passes} over {what}{corpora}"


def training_seconds(config: TaggerConfig) -> float | None:
    """The expected seconds to read the corpora and train (None: corpora of unknown size)."""
    n = _n_sentences(config)
    if n is None:
        return None
    per_pass = PERCEPTRON_S_PER_1000_SENTENCES if config.kind == "perceptron" else 0.0
    fixed = NGRAM_S_PER_1000_SENTENCES if config.kind == "ngram" else 0.0
    return n / 1000 * (READ_S_PER_1000_SENTENCES + fixed + per_pass * config.n_iter)


def tag_tokens(tagger, tokens: Sequence[str]) -> list[str]:
    """Universal POS tags of one token list (empty list for no tokens)."""
    if not tokens:
        return []
    return [t for _, t in tagger.tag(list(tokens))]
