"""Meteor 1.5's English resources, read without Java from an installed pycocoevalcap.

``meteor-1.5.jar`` is a zip file; besides the classes it holds ``function/english.words``
(the function words that ``delta`` down-weights), ``nonbreaking/english.prefixes`` (for the
normaliser) and ``synonym/english.{synsets,exceptions}`` (WordNet 3.0). The paraphrase table
``data/paraphrase-en.gz`` lies beside the jar; its index is built once
(:func:`kcca.captions._meteor_engine.paraphrase.build_index`, about 10 s and 1.4 GB of memory)
and cached in the project cache (:func:`kcca._cache.default_cache_dir`, stage
``meteor-paraphrase``) under the table's SHA-256, with the stems of its words
(``meteor-stems``); the synonym files are cached as sorted arrays under the jar's SHA-256
(``meteor-synonyms``); the matcher features of the words scored so far are kept under both
digests (``meteor-words``, :class:`.arrays.WordFeatures`). All four are ``.npz`` entries (no
pickle, no joblib import). So that a later process need not hash the files again, each
digest is also remembered in that folder under the file's path, size, modification time and
inode (``file-digests.tsv``), as ``git`` does for its index.
"""

from __future__ import annotations

import os
import threading
import zipfile
from functools import cached_property
from pathlib import Path

import numpy as np

from kcca.captions._meteor_engine.normalize import NBP_ANY, NBP_NUMERIC_ONLY, java_tokens
from kcca.captions._meteor_engine.paraphrase import INDEX_VERSION, ParaphraseIndex, build_index
from kcca.captions._meteor_engine.synonyms import (
    SYNONYM_INDEX_VERSION,
    SynonymDictionary,
    build_synonym_index,
    java_lines,
)
from kcca._progress import building

STAGE = "meteor-paraphrase"
#: what :func:`kcca._progress.building` says while the paraphrase index is built
INDEX_WHAT = "the METEOR paraphrase index from paraphrase-en.gz"
#: the stems of the paraphrase table's words, cached beside its index (stemming them on every
#: run costs about as much as the rest of scoring a thousand items)
STEMS_STAGE = "meteor-stems"
#: the jar's WordNet synonym files as sorted arrays (parsing them costs a tenth of a second)
SYNONYMS_STAGE = "meteor-synonyms"
#: the matcher features of the words scored so far (:class:`.arrays.WordFeatures`)
WORDS_STAGE = "meteor-words"
#: bump when the stored word features change (part of their cache key)
WORD_FEATURES_VERSION = 1
_LOCK = threading.Lock()
_LOADED: dict[tuple, "MeteorResources"] = {}


def paraphrase_table_path(jar: str | os.PathLike) -> Path:
    """Where Meteor looks for the English paraphrase table: ``data/paraphrase-en.gz`` in the
    jar's folder (``Constants.getDefaultParaFileURL``)."""
    return Path(jar).resolve().parent / "data" / "paraphrase-en.gz"


def _digest(path: Path, cache_root: Path | None) -> str:
    """SHA-256 of ``path``, remembered across processes under its stat record (in
    ``<cache>/meteor-paraphrase/file-digests.tsv``, which ``kcca cache prune`` leaves
    alone)."""
    from kcca._fingerprints import file_digest

    real = os.path.realpath(path)
    st = os.stat(real)
    stamp = f"{real}|{st.st_size}|{st.st_mtime_ns}|{st.st_ino}"
    memo_file = cache_root / STAGE / "file-digests.tsv" if cache_root else None
    memo: dict[str, str] = {}
    if memo_file is not None and memo_file.is_file():
        try:
            memo = dict(
                line.rsplit("\t", 1)
                for line in memo_file.read_text(encoding="utf-8").splitlines()
                if "\t" in line
            )
        except OSError:
            memo = {}
        if stamp in memo:
            return memo[stamp]
    digest = file_digest(real)
    if memo_file is not None:
        from kcca._cache import write_text_atomic

        memo[stamp] = digest
        try:
            write_text_atomic(memo_file, "".join(f"{k}\t{v}\n" for k, v in memo.items()))
        except OSError:
            pass
    return digest


class MeteorResources:
    """The jar's word lists and synonyms and the paraphrase index, loaded lazily.

    Args:
        jar: ``meteor-1.5.jar`` (its resources are read from the zip).
        paraphrase_table: the gzip table (default: ``data/paraphrase-en.gz`` beside the jar).
        cache_root: cache folder for the paraphrase index (default
            :func:`kcca._cache.default_cache_dir`; ``None`` from the environment = no cache,
            the index is then built in memory on each load).
        progress: say on stderr when the paraphrase index and its words' stems are built
            (:func:`kcca._progress.building`).
    """

    def __init__(
        self,
        jar: str | os.PathLike,
        paraphrase_table: str | os.PathLike | None = None,
        cache_root: str | os.PathLike | None = "default",
        progress: bool = False,
    ):
        from kcca._cache import default_cache_dir

        self.jar = Path(jar)
        self.paraphrase_table = (
            Path(paraphrase_table) if paraphrase_table else paraphrase_table_path(self.jar)
        )
        root = default_cache_dir() if cache_root == "default" else cache_root
        self.cache_root = Path(root) if root is not None else None
        #: "loaded", "built" or "built, not cached" once the index is there
        self.index_source = ""
        self.progress = progress

    @classmethod
    def shared(
        cls,
        jar: str | os.PathLike,
        paraphrase_table: str | os.PathLike | None = None,
        cache_root: str | os.PathLike | None = "default",
        progress: bool = False,
    ) -> "MeteorResources":
        """One instance per (jar, table, cache, progress) and process, so that resources load
        once."""
        if cache_root == "default":
            from kcca._cache import default_cache_dir

            cache_root = default_cache_dir()
        key = (str(Path(jar).resolve()), str(paraphrase_table), str(cache_root), progress)
        with _LOCK:
            got = _LOADED.get(key)
            if got is None:
                got = _LOADED[key] = cls(jar, paraphrase_table, cache_root, progress)
            return got

    def _read(self, name: str, encoding: str = "utf-8") -> str:
        with zipfile.ZipFile(self.jar) as z:
            return z.read(name).decode(encoding)

    @cached_property
    def function_words(self) -> frozenset[str]:
        """``function/english.words``: one word a line (Aligner reads whole lines)."""
        return frozenset(java_lines(self._read("function/english.words")))

    @cached_property
    def nonbreaking_prefixes(self) -> dict[str, int]:
        """``nonbreaking/english.prefixes``: prefix -> NBP_ANY or NBP_NUMERIC_ONLY."""
        out: dict[str, int] = {}
        for line in java_lines(self._read("nonbreaking/english.prefixes")):
            tokens = java_tokens(line)
            if not tokens or tokens[0].startswith("#"):
                continue
            numeric = len(tokens) > 1 and tokens[1] == "#NUMERIC_ONLY#"
            out[tokens[0]] = NBP_NUMERIC_ONLY if numeric else NBP_ANY
        return out

    @cached_property
    def synonyms(self) -> SynonymDictionary:
        """The synonym files as sorted arrays: from the cache (stage ``meteor-synonyms``,
        under the jar's SHA-256), else parsed from the jar (and stored when caching)."""
        from kcca._cache import Cache

        def compute() -> dict:
            # the jar reads english.synsets with the platform charset; the file is ASCII
            with zipfile.ZipFile(self.jar) as z:
                synsets = z.read("synonym/english.synsets").decode("utf-8")
                exceptions = z.read("synonym/english.exceptions").decode("utf-8")
            return build_synonym_index(synsets, exceptions)

        cache = Cache(self.cache_root)
        if not cache.enabled:
            return SynonymDictionary(compute())
        config = {
            "jar_sha256": _digest(self.jar, self.cache_root),
            "index_version": SYNONYM_INDEX_VERSION,
        }
        try:
            index = cache.get_or_compute_arrays(SYNONYMS_STAGE, config, compute, inputs=[self.jar])
        except OSError:  # an unwritable cache folder: parse on every run
            index = compute()
        return SynonymDictionary(index)

    @cached_property
    def paraphrases(self) -> ParaphraseIndex:
        """The paraphrase index: from the cache, else built (and stored when caching)."""
        from kcca._cache import Cache

        cache = Cache(self.cache_root)
        if not cache.enabled:
            self.index_source = "built, not cached"
            building(INDEX_WHAT, None, cache, STAGE, self.progress)
            return ParaphraseIndex(build_index(self.paraphrase_table))
        config = {
            "paraphrase_sha256": _digest(self.paraphrase_table, self.cache_root),
            "index_version": INDEX_VERSION,
        }
        built: list[dict] = []

        def compute():
            building(INDEX_WHAT, None, cache, STAGE, self.progress)
            built.append(build_index(self.paraphrase_table))
            return built[0]

        try:
            arrays = cache.get_or_compute_arrays(
                STAGE, config, compute, inputs=[self.paraphrase_table]
            )
        except OSError as exc:  # an unwritable cache folder: go on without it
            import warnings

            warnings.warn(
                f"METEOR paraphrase index not cached ({exc}); it is rebuilt on every run",
                stacklevel=2,
            )
            self.index_source = "built, not cached"
            return ParaphraseIndex(built[0] if built else build_index(self.paraphrase_table))
        self.index_source = "built" if built else "loaded"
        return ParaphraseIndex(arrays)

    @cached_property
    def vocabulary_stems(self) -> dict[str, str]:
        """The Snowball stem of every word of the paraphrase table (cached with the index,
        under the stemmer's version); words outside it are stemmed when scored."""
        from importlib.metadata import version

        from kcca._cache import Cache
        from kcca.captions._meteor_engine.stemmer import stem

        vocab = self.paraphrases.vocab

        def compute() -> dict:  # one string, in vocabulary order: quick to load
            building(
                "the stems of the METEOR paraphrase words", None, cache, STEMS_STAGE, self.progress
            )
            return {"stems": "\n".join(stem(w) for w in vocab)}

        cache = Cache(self.cache_root)
        config = {
            "paraphrase_sha256": _digest(self.paraphrase_table, self.cache_root),
            "index_version": INDEX_VERSION,
            "words": len(vocab),
            "stemmer": f"snowballstemmer {version('snowballstemmer')} english",
        }
        try:
            stems = cache.get_or_compute_arrays(
                STEMS_STAGE, config, compute, inputs=[self.paraphrase_table]
            )["stems"]
        except OSError:  # an unwritable cache folder: stem on every run
            stems = compute()["stems"]
        return dict(zip(vocab, stems.split("\n")))

    def _word_features_config(self) -> dict:
        from importlib.metadata import version

        return {
            "jar_sha256": _digest(self.jar, self.cache_root),
            "paraphrase_sha256": _digest(self.paraphrase_table, self.cache_root),
            "index_version": INDEX_VERSION,
            "synonym_index_version": SYNONYM_INDEX_VERSION,
            "stemmer": f"snowballstemmer {version('snowballstemmer')} english",
            "features_version": WORD_FEATURES_VERSION,
        }

    def load_word_features(self) -> dict | None:
        """The word features that earlier runs stored (:meth:`save_word_features`), or
        None (none stored, or no cache)."""
        from kcca._cache import Cache

        cache = Cache(self.cache_root)
        if not cache.enabled:
            return None
        try:
            found, value = cache.load_if_usable(WORDS_STAGE, self._word_features_config())
        except OSError:
            return None
        if not found or not isinstance(value, dict):
            return None
        return {k: (a.item() if a.ndim == 0 else a) for k, a in value.items()}

    def save_word_features(self, arrays: dict) -> None:
        """Store the word features of :class:`.arrays.WordFeatures` (replacing the stored
        ones; nothing when caching is off or the folder is not writable)."""
        from kcca._cache import Cache

        cache = Cache(self.cache_root)
        if not cache.enabled:
            return
        try:
            config = self._word_features_config()
            cache.save(WORDS_STAGE, config, {k: np.asarray(v) for k, v in arrays.items()})
        except OSError:
            pass
