"""One entry point for every named word kernel of Section 3.5 (eq. 17-18, 22-27).

Names (:data:`WORD_KERNELS`):

* ``"lin"``: cosine of Lin vectors over WordNet (eq. 22-23);
* ``"dist-ic"``, ``"dist-ext"``: cosine of PPMI vectors (eq. 24) on the training captions and on
  the general-English corpus D_ext (the paper's D_BNC), entries below 0.01 zeroed (Sec. 3.5.1);
* ``"dist-avg"``: the mean of the two thresholded distributional kernels (eq. 26);
* ``"align"``: cosine of alignment vectors (eq. 25), entries below 0.05 zeroed (Sec. 3.5.1);
* ``"dist-ic+align"``, ``"dist-ext+align"``, ``"dist-avg+align"``: the element-wise maximum of
  the thresholded distributional and alignment kernels (eq. 27).

Thresholds are applied to each kernel before it is combined. ``threshold=False`` gives the
raw cosine kernels (those are PSD; thresholded and combined ones need not be, footnote 4).

Every statistic uses the TRAINING split only. Caption tokens come from the corpus's reproduction
preprocessing (``features.text._corpus_tokens.preprocess_corpus``: for Flickr 8K the released
lemma file, lower-cased, punctuation and NLTK stop words removed: 1,928 words seen >= 5 times).
Alignment tags the RAW training captions (Section 3.5.4) with the POS tagger of
``features.text._postag``
and maps tagged tokens to lemmas with WordNet, choosing between analyses by their frequency in
the training tokens. The fitted similarities (stage ``"word-similarity"``) and their raw cosine
kernels (stage ``"word-kernel"``) are cached, keyed by the configuration and a fingerprint of the
training captions.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Hashable

from sklearn.base import BaseEstimator

from kcca._cache import Cache
from kcca._names import WORD_KERNELS
from kcca._progress import building
from features._params import shared_params
from features.text._english_corpus import EXT_CORPORA
from features.text._similarity_alignment import AlignmentSimilarity
from features.text._word_kernel import WordKernel, average, maximum
from kcca.errors import SettingError

BASE_SIMILARITIES = ("lin", "dist-ic", "dist-ext", "align")
STAGE = "word-similarity"
KERNEL_STAGE = "word-kernel"
VERSION = 2

#: similarity -> (what its fitted table is, seconds to fit it: fixed, per training caption),
#: measured on 2 cores (Flickr 8K: 30,000 captions); the POS tagger and D_ext they may need
#: first are added when not cached (:meth:`WordKernelBuilder.build_seconds`)
BUILDS = {
    "lin": ("the Lin similarity table (WordNet)", 3.0, 0.00004),
    "dist-ic": ("the distributional similarity table", 0.5, 0.00004),
    "dist-ext": ("the distributional similarity table over D_ext", 3.0, 0.0),
    "align": ("the alignment table", 3.0, 0.0005),
}


@dataclass(frozen=True)
class WordKernelConfig:
    """Everything that changes a word kernel (the cache key).

    Attributes:
        min_count: caption vocabulary threshold (Section 3.5.3: 5), rows/columns of D_ic, rows
            of D_ext.
        ext_min_count: D_ext columns and the D_ext row filter (Section 3.5.3: 5).
        ext_corpora: the NLTK corpora making up D_ext.
        self_pmi: keep a word's PPMI with itself in its eq. 24 vector (off: matches Figure 3).
        lin_min_count: Lin vocabulary threshold (training words seen this often).
        lin_total: denominator of Lin's P(s): "tokens" (all training tokens) or "mapped".
        noun_min_count, noun_min_fraction, verb_min_count, verb_min_fraction: Section 3.5.4.
        model1_iterations, model2_iterations: IBM Model 1 / 2 EM iterations.
        tagger, tagger_corpora, tagger_iter, tagger_max_sents, seed: the POS tagger
            (``features.text._postag.TaggerConfig``; the default, a perceptron on all of Brown,
            is the one the ``flickr8k-full`` preprocessing preset uses, so they share a cache).
        dist_threshold, align_threshold: Section 3.5.1's floors (entries strictly below are zeroed).
    """

    min_count: int = 5
    ext_min_count: int = 5
    ext_corpora: tuple[str, ...] = EXT_CORPORA
    self_pmi: bool = False
    lin_min_count: int = 5
    lin_total: str = "tokens"
    noun_min_count: int = AlignmentSimilarity.noun_min_count
    noun_min_fraction: float = AlignmentSimilarity.noun_min_fraction
    verb_min_count: int = AlignmentSimilarity.verb_min_count
    verb_min_fraction: float = AlignmentSimilarity.verb_min_fraction
    model1_iterations: int = AlignmentSimilarity.model1_iterations
    model2_iterations: int = AlignmentSimilarity.model2_iterations
    tagger: str = "perceptron"
    tagger_corpora: tuple[str, ...] = ("brown",)
    tagger_iter: int = 5
    tagger_max_sents: int | None = None
    seed: int = 0
    dist_threshold: float = 0.01
    align_threshold: float = 0.05

    def nltk_data(self, similarity: str) -> dict[str, str]:
        """Content digests of the NLTK packages behind ``similarity`` (the training captions'
        tagging and lemmatisation read WordNet, the stop words and the tagger's corpora)."""
        from features.text._resources import data_fingerprint

        names = {"wordnet", "stopwords", *self.tagger_corpora, "universal_tagset"}
        if similarity == "dist-ext":
            names |= set(self.ext_corpora)
        return data_fingerprint(names)

    def key(self, similarity: str) -> dict[str, Any]:
        """The part of the config that ``similarity`` depends on."""
        c = asdict(self)
        common = {
            "version": VERSION,
            "similarity": similarity,
            "min_count": self.min_count,
            "nltk_data": self.nltk_data(similarity),
        }
        if similarity == "lin":
            return {**common, "lin_min_count": self.lin_min_count, "lin_total": self.lin_total}
        if similarity == "dist-ic":
            return {**common, "self_pmi": self.self_pmi}
        if similarity == "dist-ext":
            return {
                **common,
                "self_pmi": self.self_pmi,
                "ext_min_count": self.ext_min_count,
                "ext_corpora": list(self.ext_corpora),
            }
        if similarity == "align":
            keys = (
                "noun_min_count",
                "noun_min_fraction",
                "verb_min_count",
                "verb_min_fraction",
                "model1_iterations",
                "model2_iterations",
                "tagger",
                "tagger_corpora",
                "tagger_iter",
                "tagger_max_sents",
                "seed",
            )
            return {**common, **{k: c[k] for k in keys}}
        raise SettingError(f"unknown similarity {similarity!r}: use one of {BASE_SIMILARITIES}")


def _fingerprint(corpus, split: str) -> str:
    h = hashlib.sha256(corpus.name.encode())
    for image_id in corpus.split(split):
        h.update(b"\x00" + image_id.encode())
        for text in corpus.captions[image_id]:
            h.update(b"\x01" + text.encode())
        for text in (corpus.lemmas or {}).get(image_id, ()):
            h.update(b"\x02" + text.encode())
    return h.hexdigest()


@dataclass
class WordKernelBuilder:
    """Builds and caches the similarities and word kernels of one corpus.

    >>> b = WordKernelBuilder(load_flickr8k(data_dir), cache=Cache(root))  # doctest: +SKIP
    >>> b.kernel("dist-ic+align").nearest("rider")                          # doctest: +SKIP
    """

    corpus: Any
    config: WordKernelConfig = field(default_factory=WordKernelConfig)
    cache: Cache | None = None
    progress: bool = True
    split: str = "train"

    def __post_init__(self) -> None:
        if self.cache is None:
            self.cache = Cache(None)
        self._tokens: list[tuple[str, ...]] | None = None
        self._memo: dict[Hashable, Any] = {}  # similarities by name, kernels by (name, flag)
        self._fp: str | None = None

    # ------------------------------------------------------------------ inputs
    def training_tokens(self) -> list[tuple[str, ...]]:
        """Preprocessed token lists of the training captions (reproduction preset)."""
        if self._tokens is None:
            from features.text._corpus_tokens import preprocess_corpus

            pre = preprocess_corpus(self.corpus, cache=self.cache, progress=self.progress)
            self._tokens = pre.split_tokens(self.corpus, self.split)
        return self._tokens

    def _training_counts(self) -> Counter[str]:
        """How often each word occurs in the training tokens: the reference by which the
        lemmatisers of the raw training captions and of D_ext choose between analyses."""
        return Counter(w for s in self.training_tokens() for w in s)

    def vocabulary(self) -> list[str]:
        """Training words seen at least ``config.min_count`` times (1,928 for Flickr 8K)."""
        from features.text._similarity_distributional import frequent_words

        return frequent_words(self.training_tokens(), self.config.min_count)

    def tagger_config(self):
        """The :class:`features.text._postag.TaggerConfig` of the alignment's POS tagger."""
        from features.text._postag import TaggerConfig

        cfg = self.config
        return TaggerConfig(
            kind=cfg.tagger,
            corpora=tuple(cfg.tagger_corpora),
            n_iter=cfg.tagger_iter,
            max_sents=cfg.tagger_max_sents,
            seed=cfg.seed,
        )

    def tagged_training_groups(self) -> list[list[list[tuple[str, str]]]]:
        """Per training image, its RAW captions as (lemma, universal tag) lists (Sec. 3.5.4)."""
        from tqdm.auto import tqdm

        from features.text._english_corpus import Lemmatizer
        from features.text._postag import load_tagger
        from features.text._resources import stop_words
        from features.text._similarity_alignment import tag_caption

        tagger = load_tagger(self.tagger_config(), cache=self.cache, progress=self.progress)
        lemmatize = Lemmatizer(reference=self._training_counts())
        sw = stop_words("english")
        ids = self.corpus.split(self.split)
        return [
            [tag_caption(text, tagger, lemmatize, sw) for text in self.corpus.captions[i]]
            for i in tqdm(ids, desc="tag training captions", disable=not self.progress)
        ]

    # ------------------------------------------------------------ similarities
    def _cache_key(self, name: str) -> dict[str, Any]:
        """The cache key of base similarity ``name``'s table and of its raw kernel: its part of
        the config, the corpus, the split and a fingerprint of the split's captions."""
        if self._fp is None:
            self._fp = _fingerprint(self.corpus, self.split)
        return {
            **self.config.key(name),
            "corpus": self.corpus.name,
            "split": self.split,
            "texts": self._fp,
        }

    def similarity(self, name: str):
        """The fitted similarity estimator ``name`` (one of :data:`BASE_SIMILARITIES`), cached."""
        if name in self._memo:
            return self._memo[name]
        key = self._cache_key(name)
        assert self.cache is not None  # set by __post_init__
        if self.progress and name in BUILDS and not self.cache.has(STAGE, key):
            first = self.first_builds(name)
            building(
                f"{BUILDS[name][0]} of {self.corpus.name} {self.split}"
                + (f", {first} included" if first else ""),
                self.build_seconds(name),
                self.cache,
                STAGE,
            )
        est = self.cache.get_or_compute(STAGE, key, lambda: self._fit(name), expect=BaseEstimator)
        self._memo[name] = est
        return est

    def first_builds(self, name: str) -> str:
        """``"the POS tagger below"`` when :meth:`build_seconds` counts its training in (align,
        tagger not cached yet), else ``""``."""
        assert self.cache is not None  # set by __post_init__
        if name != "align":
            return ""
        from features.text._postag import STAGE as TAGGER_STAGE

        cached = self.cache.has(TAGGER_STAGE, self.tagger_config().key())
        return "" if cached else "the POS tagger below"

    def build_seconds(self, name: str) -> float:
        """Expected seconds to fit similarity ``name`` (:data:`BUILDS`), with the POS tagger
        (align) or D_ext (dist-ext) when they are not cached yet."""
        _, fixed, per_caption = BUILDS[name]
        n = sum(len(self.corpus.captions[i]) for i in self.corpus.split(self.split))
        seconds = fixed + per_caption * n
        assert self.cache is not None  # set by __post_init__
        if name == "align":
            from features.text._postag import STAGE as TAGGER_STAGE, training_seconds

            config = self.tagger_config()
            if not self.cache.has(TAGGER_STAGE, config.key()):
                seconds += training_seconds(config) or 0.0
        if name == "dist-ext":
            from features.text._english_corpus import (
                BUILD_SECONDS,
                STAGE as EXT_STAGE,
                english_corpus_config,
            )

            corpora = tuple(self.config.ext_corpora)
            reference = self._training_counts()
            if not self.cache.has(
                EXT_STAGE, english_corpus_config(corpora, reference=dict(reference))
            ):
                seconds += BUILD_SECONDS * len(corpora) / len(EXT_CORPORA)
        return seconds

    def _fit(self, name: str):
        cfg = self.config
        if name == "lin":
            from features.text._similarity_lin import LinSimilarity

            return LinSimilarity(min_count=cfg.lin_min_count, total=cfg.lin_total, name="lin").fit(
                self.training_tokens()
            )
        if name == "dist-ic":
            from features.text._similarity_distributional import DistributionalSimilarity

            return DistributionalSimilarity(
                min_count=cfg.min_count, self_pmi=cfg.self_pmi, name="dist-ic"
            ).fit(self.training_tokens())
        if name == "dist-ext":
            from features.text._english_corpus import load_english_corpus
            from features.text._similarity_distributional import DistributionalSimilarity

            reference = self._training_counts()
            ext = load_english_corpus(
                self.cache,
                tuple(cfg.ext_corpora),
                reference=dict(reference),
                progress=self.progress,
            )
            return DistributionalSimilarity(
                min_count=cfg.ext_min_count,
                rows=self.vocabulary(),
                row_min_count=cfg.ext_min_count,
                self_pmi=cfg.self_pmi,
                name="dist-ext",
            ).fit(ext)
        if name == "align":
            return AlignmentSimilarity(**shared_params(AlignmentSimilarity, cfg), name="align").fit(
                self.tagged_training_groups()
            )
        raise SettingError(f"unknown similarity {name!r}: use one of {BASE_SIMILARITIES}")

    # ----------------------------------------------------------------- kernels
    def raw_kernel(self, name: str) -> WordKernel:
        """The unthresholded cosine kernel of base similarity ``name`` (eq. 17-18), cached."""
        memo_key = ("raw", name)
        if memo_key not in self._memo:
            assert self.cache is not None  # set by __post_init__
            self._memo[memo_key] = self.cache.get_or_compute(
                KERNEL_STAGE,
                self._cache_key(name),
                lambda: self.similarity(name).word_kernel(),
                expect=WordKernel,
            )
        return self._memo[memo_key]

    def kernel(self, name: str, threshold: bool = True) -> WordKernel:
        """Word kernel ``name`` (one of :data:`WORD_KERNELS`); see the module docs."""
        if name not in WORD_KERNELS:
            raise SettingError(f"unknown word kernel {name!r}: use one of {WORD_KERNELS}")
        memo_key = (name, threshold)
        if memo_key not in self._memo:
            self._memo[memo_key] = self._kernel(name, threshold)
        return self._memo[memo_key]

    def _kernel(self, name: str, threshold: bool) -> WordKernel:
        if "+" in name:
            dist, _ = name.split("+")
            return maximum(
                [self.kernel(dist, threshold), self.kernel("align", threshold)], name=name
            )
        if name == "dist-avg":
            return average(
                [self.kernel("dist-ic", threshold), self.kernel("dist-ext", threshold)], name=name
            )
        k = self.raw_kernel(name)
        if threshold:
            floor = {
                "dist-ic": self.config.dist_threshold,
                "dist-ext": self.config.dist_threshold,
                "align": self.config.align_threshold,
            }.get(name)
            if floor:
                k = k.thresholded(floor)
        return WordKernel(name, k.vocabulary, k.matrix)


def build_word_kernel(
    name: str,
    corpus,
    config: WordKernelConfig | None = None,
    cache: Cache | None = None,
    threshold: bool = True,
    progress: bool = True,
) -> WordKernel:
    """Word kernel ``name`` of :data:`WORD_KERNELS` for ``corpus``, fitted on its training split."""
    builder = WordKernelBuilder(corpus, config or WordKernelConfig(), cache, progress)
    return builder.kernel(name, threshold=threshold)
