"""The caption preprocessing pipeline of Section 4.1.1, every step a switch.

"All captions are preprocessed by spellchecking with Linux *spell*, normalizing compound words
(e.g., *t-shirt*, *t shirt*, and *tee-shirt* -> *t-shirt*), stop word removal, and
lemmatization" (Section 4.1.1). :class:`CaptionPreprocessor` runs, in this order:

1. tokenisation, lower-casing, dropping tokens without a letter or digit (``tokenize``);
2. compound normalisation (``compounds``), learned from the training captions; it runs before
   spelling so that variants such as "tshirt" are merged rather than "corrected" to "shirt";
3. spelling correction of unknown tokens (``spelling``), candidates from the training captions;
4. POS tagging of the raw (un-lemmatised) tokens, stop words still in (Section 3.5.4);
5. lemmatisation with WordNet under the tag (``lemmatize``);
6. stop-word removal (``stop_words``): a token goes if its lemma or its surface form is a stop
   word;
7. optionally breaking hyphenated tokens (``split_hyphens``: the BLEU/ROUGE pipeline of
   Section 4.2.2).

``fit`` learns corpus statistics from TRAINING captions only (Section 3.5.1); ``transform`` maps
captions to token lists. ``get_params()`` records every switch and is the cache key. Named presets
(:data:`PRESETS`) fix common configurations; :meth:`CaptionPreprocessor.paper_flickr8k` is the
Flickr 8K reproduction default: the released lemma file, lower-cased, punctuation dropped, NLTK's
179 English stop words removed, which gives exactly the paper's 1,928-word vocabulary
(Section 3.5.3; docs/paper-notes.md#text-preprocessing).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from sklearn.base import BaseEstimator
from tqdm.auto import tqdm

from kcca._cache import Cache
from kcca.data._errors import DataError
from features.text._compounds import HAND_TABLE, CompoundNormalizer
from features.text._lemmatize import WordNetLemmatizer
from features.text._postag import TaggerConfig, load_tagger, tag_tokens
from features.text._presets import DEFAULT_PRESETS, PRESETS, default_preset  # noqa: F401
from features.text._spelling import SpellingCorrector
from features.text._stopwords import NLTK_ENGLISH, remove_stop_words, resolve_stop_words
from features.text._tokenize import TOKENIZERS, break_hyphens, has_alnum, tokenize
from kcca.errors import SettingError

log = logging.getLogger(__name__)

SOURCES = ("captions", "lemmas")
#: bumped whenever a change of code changes the output for the same parameters
PIPELINE_VERSION = 1


def _item_name(i: int, ids: Sequence[str] | None) -> str:
    return f"caption {ids[i]!r}" if ids is not None else f"caption at position {i}"


def check_captions(captions: Sequence[str], ids: Sequence[str] | None = None) -> None:
    """Raise a clear error for a non-list, a non-string or an empty caption."""
    if isinstance(captions, str):
        raise TypeError("expected a list of caption strings, got one string: wrap it in a list")
    if ids is not None and len(ids) != len(captions):
        raise ValueError(f"got {len(ids)} ids for {len(captions)} captions")
    for i, text in enumerate(captions):
        if not isinstance(text, str):
            raise TypeError(
                f"{_item_name(i, ids)} is a {type(text).__name__}, not a string: "
                "pass caption texts (str)"
            )
        if not text.strip():
            raise DataError(f"{_item_name(i, ids)} is empty: fix or remove it in the source")


@dataclass(eq=False, repr=False)
class CaptionPreprocessor(BaseEstimator):
    """Section 4.1.1's caption preprocessing, each step switchable (see the module docs).

    Args:
        source: which text of a corpus to read, ``"captions"`` (raw) or ``"lemmas"`` (the
            released lemma file); used by :func:`features.text._corpus_tokens.preprocess_corpus`
            and recorded in the config.
        tokenizer: ``"treebank"`` or ``"whitespace"``.
        lowercase, drop_punctuation: step 1 switches.
        compounds: normalise compound words (step 2); ``compound_options`` go to
            :class:`~features.text._compounds.CompoundNormalizer`.
        spelling: correct unknown words (step 3); ``spelling_options`` go to
            :class:`~features.text._spelling.SpellingCorrector`.
        stop_words: ``"nltk-english"``, ``None`` (keep all) or a tuple of words.
        lemmatize: lemmatise with WordNet (step 5).
        tagger: POS tagger for the lemmatiser, ``"perceptron"``, ``"ngram"`` or ``None`` (no
            tagging: try noun, verb, adjective, adverb in turn).
        tagger_corpora, tagger_iter, tagger_max_sents: how the tagger is trained.
        split_hyphens: break hyphenated tokens at the end (BLEU/ROUGE pipeline).
        seed: seed of every random choice (the tagger's training order).

    Attributes (after ``fit``):
        compounds_, speller_, tagger_, lemmatizer_: the fitted steps (``None`` when off).
        corrections_: ``(token, correction, count)`` spelling changes on the training captions.
        merges_: ``(variant, canonical, count)`` compound merges seen in training.
        stop_words_: the stop-word set used.
        n_fit_captions_: number of training captions seen.
    """

    source: str = "captions"
    tokenizer: str = "treebank"
    lowercase: bool = True
    drop_punctuation: bool = True
    compounds: bool = True
    compound_options: Mapping[str, Any] | None = None
    spelling: bool = True
    spelling_options: Mapping[str, Any] | None = None
    stop_words: str | tuple[str, ...] | None = NLTK_ENGLISH
    lemmatize: bool = True
    tagger: str | None = "perceptron"
    tagger_corpora: tuple[str, ...] = ("brown",)
    tagger_iter: int = 5
    tagger_max_sents: int | None = None
    split_hyphens: bool = False
    seed: int = 0

    # -------------------------------------------------------------- presets
    @classmethod
    def from_preset(cls, name: str, **overrides: Any) -> "CaptionPreprocessor":
        """A preprocessor configured by a named preset of :data:`PRESETS`, with overrides."""
        if name not in PRESETS:
            raise SettingError(
                f"unknown preprocessing preset {name!r}: use one of {sorted(PRESETS)}"
            )
        return cls(**{**PRESETS[name], **overrides})

    @classmethod
    def paper_flickr8k(cls) -> "CaptionPreprocessor":
        """The Flickr 8K reproduction preset ``flickr8k-lemma`` (1,928 words, Section 3.5.3)."""
        return cls.from_preset("flickr8k-lemma")

    # ------------------------------------------------------------------ fit
    def _validate_params(self) -> None:
        if self.source not in SOURCES:
            raise SettingError(f"source must be one of {SOURCES}, got {self.source!r}")
        if self.tokenizer not in TOKENIZERS:
            raise SettingError(f"tokenizer must be one of {TOKENIZERS}, got {self.tokenizer!r}")
        if self.tagger is not None:
            TaggerConfig(kind=self.tagger)  # validates the kind

    def config(self) -> dict[str, Any]:
        """The full config for cache keys: ``get_params()`` plus every step's resolved defaults.

        ``spelling_options=None`` means "the corrector's defaults"; resolving them here keeps a
        cached result from outliving a change of those defaults.
        """
        cfg: dict[str, Any] = {"version": PIPELINE_VERSION, "params": self.get_params()}
        if self.compounds:
            comp = CompoundNormalizer(**dict(self.compound_options or {})).get_params()
            table = HAND_TABLE if comp["hand_table"] is None else comp["hand_table"]
            comp["hand_table"] = sorted((" ".join(k), v) for k, v in table.items())
            if comp["stop_words"] is not None:
                comp["stop_words"] = sorted(comp["stop_words"])
            cfg["compounds"] = comp
        if self.spelling:
            opts = dict(self.spelling_options or {})
            opts["protected"] = tuple(sorted(opts.get("protected", ())))
            cfg["spelling"] = SpellingCorrector(**opts).get_params()
        if self.lemmatize:
            cfg["lemmatizer"] = WordNetLemmatizer().get_params()
            if self.tagger is not None:
                cfg["tagger"] = self.tagger_config().key()
        resources = self.nltk_resources()
        if resources:
            from features.text._resources import data_fingerprint

            cfg["nltk_data"] = data_fingerprint(resources)
        return cfg

    def nltk_resources(self) -> tuple[str, ...]:
        """The NLTK data packages the configured steps read (their content is in the key)."""
        names = set()
        if self.stop_words == NLTK_ENGLISH or self.compounds:
            names.add("stopwords")
        if self.spelling:
            names |= {"wordnet", "words"}
        if self.lemmatize:
            names.add("wordnet")
            if self.tagger is not None:
                names |= {*self.tagger_corpora, "universal_tagset"}
        return tuple(sorted(names))

    def tagger_config(self) -> TaggerConfig:
        """The config of the POS tagger this preprocessor trains (or loads from the cache)."""
        return TaggerConfig(
            kind=self.tagger or "perceptron",
            corpora=tuple(self.tagger_corpora),
            n_iter=self.tagger_iter,
            max_sents=self.tagger_max_sents,
            seed=self.seed,
        )

    def _tokenize_all(self, captions: Sequence[str], progress: bool, what: str) -> list[list[str]]:
        return [
            tokenize(
                c,
                method=self.tokenizer,
                lowercase=self.lowercase,
                drop_punctuation=self.drop_punctuation,
            )
            for c in tqdm(captions, desc=f"tokenise {what}", disable=not progress, leave=False)
        ]

    def fit(
        self,
        captions: Sequence[str],
        ids: Sequence[str] | None = None,
        *,
        cache: Cache | None = None,
        progress: bool = False,
    ) -> "CaptionPreprocessor":
        """Learn compound merges and spelling candidates from TRAINING captions; load the tagger.

        Args:
            captions: the training caption texts.
            ids: optional names of the captions (caption ids), used in error messages.
            cache: where the trained POS tagger is stored / looked up.
            progress: show progress bars.
        """
        self._validate_params()
        check_captions(captions, ids)
        tokens = self._tokenize_all(captions, progress, "training captions")
        self.compounds_ = None
        if self.compounds:
            self.compounds_ = CompoundNormalizer(**dict(self.compound_options or {})).fit(tokens)
            tokens = self.compounds_.transform(tokens)
        self.speller_ = None
        if self.spelling:
            opts = dict(self.spelling_options or {})
            protected = set(opts.pop("protected", ()))
            if self.compounds_ is not None:
                protected |= self.compounds_.canonical_forms_
            self.speller_ = SpellingCorrector(protected=tuple(sorted(protected)), **opts)
            self.speller_.fit(tokens)
        self.tagger_ = None
        self.lemmatizer_ = None
        if self.lemmatize:
            if self.tagger is not None:
                self.tagger_ = load_tagger(self.tagger_config(), cache=cache, progress=progress)
            self.lemmatizer_ = WordNetLemmatizer()
        self.stop_words_ = resolve_stop_words(self.stop_words)
        self.corrections_ = list(self.speller_.corrections_) if self.speller_ else []
        self.merges_ = list(self.compounds_.merges_) if self.compounds_ else []
        self.n_fit_captions_ = len(captions)
        return self

    # ------------------------------------------------------------ transform
    def process_tokens(self, tokens: Sequence[str]) -> list[str]:
        """Steps 2-7 on one tokenised caption."""
        tokens = list(tokens)
        if self.compounds_ is not None:
            tokens = self.compounds_.transform_one(tokens)
        if self.speller_ is not None:
            tokens = [self.speller_.correct(t) for t in tokens]
        surface = tokens
        if self.lemmatizer_ is not None:
            tags = tag_tokens(self.tagger_, tokens) if self.tagger_ is not None else None
            tokens = self.lemmatizer_.lemmatize(tokens, tags)
        if self.stop_words_:
            tokens = remove_stop_words(tokens, self.stop_words_, surface=surface)
        if self.split_hyphens:
            tokens = break_hyphens(tokens)
            if self.drop_punctuation:
                tokens = [t for t in tokens if has_alnum(t)]
        return tokens

    def transform(
        self, captions: Sequence[str], ids: Sequence[str] | None = None, *, progress: bool = False
    ) -> list[list[str]]:
        """Preprocess captions: one token list per caption (possibly empty, e.g. all stop words)."""
        if not hasattr(self, "stop_words_"):
            raise RuntimeError("CaptionPreprocessor is not fitted: call fit(training captions)")
        check_captions(captions, ids)
        tokens = self._tokenize_all(captions, False, "captions")
        out = [
            self.process_tokens(t)
            for t in tqdm(tokens, desc="preprocess captions", disable=not progress, leave=False)
        ]
        empty = [i for i, t in enumerate(out) if not t]
        if empty:
            log.warning(
                "%d caption(s) have no token left after preprocessing, e.g. %s",
                len(empty),
                _item_name(empty[0], ids),
            )
        return out

    def fit_transform(
        self,
        captions: Sequence[str],
        ids: Sequence[str] | None = None,
        *,
        cache: Cache | None = None,
        progress: bool = False,
    ) -> list[list[str]]:
        """``fit`` then ``transform`` on the same (training) captions."""
        return self.fit(captions, ids, cache=cache, progress=progress).transform(
            captions, ids, progress=progress
        )
