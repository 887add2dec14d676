"""Part-of-speech tagging of captions before lemmatisation (Section 3.5.4, L298).

The paper used the OpenNLP tagger on raw (un-lemmatised) captions. No pretrained NLTK tagger
ships with the project's NLTK data, so a tagger is trained here on the tagged corpora that do
(Brown by default), mapped to the universal tag set (NOUN, VERB, ADJ, ADV, ...), with
lower-cased words (captions are lower-cased before tagging):

* ``"perceptron"``: NLTK's averaged perceptron (``PerceptronTagger(load=False).train``),
  ``n_iter`` passes over the sentences shuffled with ``seed``; about 96% accuracy on held-out
  Brown sentences; training on all of Brown takes a minute or two.
* ``"ngram"``: trigram -> bigram -> unigram -> default NOUN backoff chain; trains in seconds,
  about 93% accurate.

Trained taggers are memoised in the process and stored in :class:`kcca.cache.Cache` (stage
``"pos-tagger"``, keyed by :meth:`TaggerConfig.key`), written atomically.
"""

from __future__ import annotations

import logging
import random
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import nltk

from kcca.cache import Cache

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
            raise ValueError(f"unknown tagger kind {self.kind!r}: use one of {TAGGER_KINDS}")
        if self.n_iter < 1:
            raise ValueError(f"n_iter must be >= 1, got {self.n_iter}")
        if isinstance(self.corpora, str):
            object.__setattr__(self, "corpora", (self.corpora,))

    def key(self) -> dict[str, Any]:
        """The cache key: the config plus the NLTK version (its tagger code)."""
        from features.text.resources import data_fingerprint

        return {**asdict(self), "tagset": "universal", "lowercase": True,
                "nltk": nltk.__version__,
                "nltk_data": data_fingerprint((*self.corpora, "universal_tagset"))}


def training_sentences(config: TaggerConfig) -> list[list[tuple[str, str]]]:
    """Lower-cased, universally tagged sentences of ``config.corpora`` (first ``max_sents``)."""
    from features.text.resources import tagged_sents

    sents: list[list[tuple[str, str]]] = []
    for name in config.corpora:
        limit = None if config.max_sents is None else config.max_sents - len(sents)
        if limit is not None and limit <= 0:
            break
        sents.extend([(w.lower(), t) for w, t in s]
                     for s in tagged_sents(name, "universal", limit=limit))
    if not sents:
        raise ValueError(f"no training sentences for the POS tagger from {config.corpora}")
    return sents


def train_tagger(config: TaggerConfig, progress: bool = False):
    """Train a tagger (an object with ``tag(tokens)``) as ``config`` says; seeded."""
    sents = training_sentences(config)
    log.info("training %s POS tagger on %d sentences of %s", config.kind, len(sents),
             "+".join(config.corpora))
    if config.kind == "ngram":
        from nltk.tag import BigramTagger, DefaultTagger, TrigramTagger, UnigramTagger

        tagger = DefaultTagger("NOUN")
        for cls in (UnigramTagger, BigramTagger, TrigramTagger):
            tagger = cls(sents, backoff=tagger)
        return tagger
    from nltk.tag.perceptron import PerceptronTagger

    tagger = PerceptronTagger(load=False)
    state = random.getstate()  # NLTK shuffles with the global generator: seed it, then restore
    try:
        random.seed(config.seed)
        tagger.train(sents, nr_iter=config.n_iter)
    finally:
        random.setstate(state)
    return tagger


_MEMO: dict[str, Any] = {}


def load_tagger(config: TaggerConfig, cache: Cache | None = None, progress: bool = False):
    """The trained tagger for ``config``: from memory, else from ``cache``, else trained."""
    from kcca.cache import config_key

    k = config_key(config.key())
    tagger = _MEMO.get(k)
    if tagger is None:
        cache = cache if cache is not None else Cache(None)
        tagger = cache.get_or_compute(STAGE, config.key(),
                                      lambda: train_tagger(config, progress=progress))
        _MEMO[k] = tagger
    return tagger


def tag_tokens(tagger, tokens: Sequence[str]) -> list[str]:
    """Universal POS tags of one token list (empty list for no tokens)."""
    if not tokens:
        return []
    return [t for _, t in tagger.tag(list(tokens))]
