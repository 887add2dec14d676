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

The public names are the text kernels (docs/design.md#public-api), imported on first use, so
that importing a light submodule (``kcca preprocess --help`` reads the presets) loads neither
NLTK nor scikit-learn.
"""

from kcca._lazy import lazy_exports

__all__ = ["BowKernel", "F1Similarity", "TagRankKernel", "TrigramKernel", "WordKernel"]

#: the public names that load on first use: name -> the module defining it
_LAZY = {
    "BowKernel": "features.text._bow_kernel",
    "F1Similarity": "features.text._f1_similarity",
    "TagRankKernel": "features.text._tagrank_kernel",
    "TrigramKernel": "features.text._trigram_kernel",
    "WordKernel": "features.text._word_kernel",
}
__getattr__, __dir__ = lazy_exports("features.text", _LAZY, globals())
