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
"""

from features.text.bow_kernel import BowKernel
from features.text.compounds import HAND_TABLE, CompoundNormalizer
from features.text.corpus_tokens import PreprocessedCorpus, preprocess_corpus
from features.text.lemmatize import WordNetLemmatizer
from features.text.pipeline import PRESETS, CaptionPreprocessor, default_preset
from features.text.postag import TaggerConfig, load_tagger
from features.text.resources import MissingResourceError
from features.text.spelling import KnownWords, SpellingCorrector
from features.text.stopwords import remove_stop_words, resolve_stop_words
from features.text.tokenize import tokenize
from features.text.idf import Idf
from features.text.tagrank_kernel import TagRankKernel
from features.text.text_items import EmptyCaptionWarning
from features.text.trigram_kernel import TrigramKernel
from features.text.vocabulary import token_counts, vocabulary, vocabulary_stats
from features.text.word_kernel import WordKernel
from features.text.word_kernels import (
    WORD_KERNELS,
    WordKernelBuilder,
    WordKernelConfig,
    build_word_kernel,
)

__all__ = [
    "BowKernel", "EmptyCaptionWarning", "Idf", "TagRankKernel", "TrigramKernel", "WordKernel",
    "WORD_KERNELS", "WordKernelBuilder", "WordKernelConfig", "build_word_kernel",
    "HAND_TABLE", "PRESETS", "CaptionPreprocessor", "CompoundNormalizer", "KnownWords",
    "MissingResourceError", "PreprocessedCorpus", "SpellingCorrector", "TaggerConfig",
    "WordNetLemmatizer", "default_preset", "load_tagger", "preprocess_corpus",
    "remove_stop_words", "resolve_stop_words", "token_counts", "tokenize", "vocabulary",
    "vocabulary_stats",
]
