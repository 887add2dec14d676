"""Preprocess a whole :class:`~kcca.data.Corpus`: fit on training captions, cache the result.

The preprocessor is fitted on the captions of the training split only (Section 3.5.1) and then
applied to every caption of the corpus. The result (token lists per caption plus the logs of
spelling corrections and compound merges) is stored in :class:`kcca._cache.Cache` under stage
``"text-preprocess"``, keyed by the corpus name, a fingerprint of its texts, the fit split and
``CaptionPreprocessor.config()`` (its parameters with every step's defaults resolved).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Mapping

from kcca._cache import Cache
from kcca.data._corpus import Corpus, caption_id
from kcca.data._errors import DataError
from features.text._pipeline import CaptionPreprocessor
from features.text._vocabulary import vocabulary
from kcca.errors import SettingError

STAGE = "text-preprocess"


@dataclass
class PreprocessedCorpus:
    """Token lists of every caption of a corpus, and how they were made.

    Attributes:
        corpus: the corpus name.
        params: ``CaptionPreprocessor.get_params()`` of the run.
        fit_split: the split whose captions the preprocessor was fitted on.
        tokens: image id -> one token tuple per caption (caption-number order).
        corrections, merges: the fitted preprocessor's logs.
        unknown: ``(token, count)`` unknown training words the speller saw (empty if off).
    """

    corpus: str
    params: dict
    fit_split: str
    tokens: Mapping[str, tuple[tuple[str, ...], ...]]
    corrections: list = field(default_factory=list)
    merges: list = field(default_factory=list)
    unknown: list = field(default_factory=list)

    def split_tokens(self, corpus: Corpus, split: str) -> list[tuple[str, ...]]:
        """Token lists of every caption of every image of ``split`` (image order, then #N)."""
        return [toks for image_id in corpus.split(split) for toks in self.tokens[image_id]]

    def caption_tokens(self, cid: str) -> tuple[str, ...]:
        """Token list of caption id ``IMAGE#N``."""
        image_id, _, n = cid.rpartition("#")
        try:
            return self.tokens[image_id][int(n)]
        except (KeyError, ValueError, IndexError):
            raise DataError(f"no preprocessed caption {cid!r} in corpus {self.corpus!r}") from None

    def vocabulary(self, corpus: Corpus, split: str = "train", min_count: int = 5) -> list[str]:
        """Words seen at least ``min_count`` times in ``split`` (1,928 for the paper preset)."""
        return vocabulary(self.split_tokens(corpus, split), min_count)


def source_texts(corpus: Corpus, source: str) -> Mapping[str, tuple[str, ...]]:
    """The caption texts a preprocessor reads: raw captions or the released lemma file."""
    if source == "captions":
        return corpus.captions
    if source == "lemmas":
        if corpus.lemmas is None:
            raise DataError(
                f"corpus {corpus.name!r} has no lemmatised captions: load it with "
                "lemmas, or use a preset with source='captions'"
            )
        return corpus.lemmas
    raise SettingError(f"unknown caption source {source!r}: use 'captions' or 'lemmas'")


def fingerprint(texts: Mapping[str, tuple[str, ...]]) -> str:
    """A SHA-256 of every (image id, caption texts) pair, in sorted order."""
    h = hashlib.sha256()
    for image_id in sorted(texts):
        h.update(image_id.encode())
        for t in texts[image_id]:
            h.update(b"\x00" + t.encode())
        h.update(b"\x01")
    return h.hexdigest()


def preprocess_corpus(
    corpus: Corpus,
    preprocessor: CaptionPreprocessor | None = None,
    *,
    fit_split: str = "train",
    cache: Cache | None = None,
    progress: bool = False,
) -> PreprocessedCorpus:
    """Fit ``preprocessor`` on ``fit_split``'s captions and preprocess every caption.

    ``preprocessor`` defaults to the corpus's reproduction preset (``flickr8k-lemma`` for
    Flickr 8K). The result is cached when ``cache`` is enabled.
    """
    from features.text._pipeline import default_preset

    if preprocessor is None:
        preprocessor = CaptionPreprocessor.from_preset(default_preset(corpus.name))
    texts = source_texts(corpus, preprocessor.source)
    cache = cache if cache is not None else Cache(None)
    key = {
        "corpus": corpus.name,
        "texts": fingerprint(texts),
        "fit_split": fit_split,
        "preprocessor": preprocessor.config(),
    }

    def compute() -> PreprocessedCorpus:
        train_ids = corpus.split(fit_split)
        fit_texts = [t for i in train_ids for t in texts[i]]
        fit_ids = [caption_id(i, n) for i in train_ids for n in range(len(texts[i]))]
        preprocessor.fit(fit_texts, fit_ids, cache=cache, progress=progress)
        image_ids = sorted(texts)
        all_texts = [t for i in image_ids for t in texts[i]]
        all_ids = [caption_id(i, n) for i in image_ids for n in range(len(texts[i]))]
        flat = preprocessor.transform(all_texts, all_ids, progress=progress)
        tokens, k = {}, 0
        for i in image_ids:
            n = len(texts[i])
            tokens[i] = tuple(tuple(t) for t in flat[k : k + n])
            k += n
        speller = getattr(preprocessor, "speller_", None)
        return PreprocessedCorpus(
            corpus=corpus.name,
            params=preprocessor.get_params(),
            fit_split=fit_split,
            tokens=tokens,
            corrections=list(preprocessor.corrections_),
            merges=list(preprocessor.merges_),
            unknown=list(speller.unknown_) if speller is not None else [],
        )

    return cache.get_or_compute(STAGE, key, compute, expect=PreprocessedCorpus)
