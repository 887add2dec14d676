"""Named configurations of the caption preprocessing (:class:`features.text._pipeline.
CaptionPreprocessor`), and the one each corpus is reproduced with.

Plain data, importable without the pipeline's dependencies (``kcca preprocess --help`` lists
the names).
"""

from __future__ import annotations

from typing import Any

from features.text._stopwords import NLTK_ENGLISH

#: Named configurations. ``flickr8k-lemma`` is the Flickr 8K reproduction default.
PRESETS: dict[str, dict[str, Any]] = {
    "flickr8k-lemma": dict(
        source="lemmas",
        tokenizer="whitespace",
        spelling=False,
        compounds=False,
        stop_words=NLTK_ENGLISH,
        lemmatize=False,
        tagger=None,
    ),
    "flickr8k-full": dict(
        source="captions",
        tokenizer="treebank",
        spelling=True,
        compounds=True,
        stop_words=NLTK_ENGLISH,
        lemmatize=True,
        tagger="perceptron",
    ),
    "bleu-rouge": dict(
        source="captions",
        tokenizer="treebank",
        spelling=False,
        compounds=False,
        stop_words=None,
        lemmatize=False,
        tagger=None,
        split_hyphens=True,
    ),
}
DEFAULT_PRESETS = {"flickr8k": "flickr8k-lemma"}


def default_preset(corpus_name: str) -> str:
    """The preset a corpus is reproduced with (``flickr8k-lemma`` for Flickr 8K).

    Variants of a corpus named ``<name>-<suffix>`` (other splits, ``kcca reproduce
    --splits``; a subset of the training images) keep their corpus's preset.
    """
    for name, preset in DEFAULT_PRESETS.items():
        if corpus_name == name or corpus_name.startswith(name + "-"):
            return preset
    return "flickr8k-full"
