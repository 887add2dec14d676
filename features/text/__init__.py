"""Caption preprocessing of Section 4.1.1 (Hodosh et al. 2013), one step per module.

``tokenize`` (step 1), ``compounds`` (t-shirt / t shirt / tee-shirt -> t-shirt), ``spelling``
(unknown words only, against WordNet + the Unix word list), ``stopwords`` (NLTK's 179),
``postag`` + ``lemmatize`` (WordNet morphology under a POS tag from the raw caption),
``pipeline`` (:class:`CaptionPreprocessor`, every step a switch, named presets),
``corpus_tokens`` (a whole corpus, cached), ``vocabulary``, ``resources`` (NLTK data lookup).
Text kernels (Sec. 3.4-3.5): ``bow_kernel``, ``tagrank_kernel``, ``trigram_kernel`` (exact and
with a word kernel, ``soft_trigram``), ``word_kernel`` and the similarity sources.

The Flickr 8K reproduction default is ``CaptionPreprocessor.paper_flickr8k()`` (preset
``flickr8k-lemma``): the released lemma file, lower-cased, punctuation dropped, NLTK's English
stop words removed, which leaves the paper's 1,928 training words seen at least 5 times.

The package's names are imported on first use, so ``import features.text.presets`` (``kcca
preprocess --help``) loads neither NLTK nor scikit-learn.
"""

from __future__ import annotations

import importlib

# light, and named like their modules (imported here, the names stay the functions)
from features.text.tokenize import tokenize
from features.text.vocabulary import token_counts, vocabulary, vocabulary_stats

#: public name -> the module defining it; imported on first use (``features.text.X``), so that
#: importing one light submodule (``features.text.presets``) does not load NLTK or scikit-learn
_EXPORTS = {
    "BowKernel": "bow_kernel",
    "HAND_TABLE": "compounds",
    "CompoundNormalizer": "compounds",
    "PreprocessedCorpus": "corpus_tokens",
    "preprocess_corpus": "corpus_tokens",
    "WordNetLemmatizer": "lemmatize",
    "PRESETS": "presets",
    "default_preset": "presets",
    "CaptionPreprocessor": "pipeline",
    "TaggerConfig": "postag",
    "load_tagger": "postag",
    "MissingResourceError": "resources",
    "KnownWords": "spelling",
    "SpellingCorrector": "spelling",
    "remove_stop_words": "stopwords",
    "resolve_stop_words": "stopwords",
    "Idf": "idf",
    "TagRankKernel": "tagrank_kernel",
    "EmptyCaptionWarning": "text_items",
    "TrigramKernel": "trigram_kernel",
    "WordKernel": "word_kernel",
    "WORD_KERNELS": "word_kernels",
    "WordKernelBuilder": "word_kernels",
    "WordKernelConfig": "word_kernels",
    "build_word_kernel": "word_kernels",
}

__all__ = [
    "BowKernel",
    "EmptyCaptionWarning",
    "Idf",
    "TagRankKernel",
    "TrigramKernel",
    "WordKernel",
    "WORD_KERNELS",
    "WordKernelBuilder",
    "WordKernelConfig",
    "build_word_kernel",
    "HAND_TABLE",
    "PRESETS",
    "CaptionPreprocessor",
    "CompoundNormalizer",
    "KnownWords",
    "MissingResourceError",
    "PreprocessedCorpus",
    "SpellingCorrector",
    "TaggerConfig",
    "WordNetLemmatizer",
    "default_preset",
    "load_tagger",
    "preprocess_corpus",
    "remove_stop_words",
    "resolve_stop_words",
    "token_counts",
    "tokenize",
    "vocabulary",
    "vocabulary_stats",
]


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'features.text' has no attribute {name!r}")
    return getattr(importlib.import_module(f"features.text.{module}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
