"""The per-corpus image-feature pipeline: descriptors -> visual words -> pyramid histograms.

For a :class:`~kcca.data._corpus.Corpus` and a list of image ids (Section 3.3):

1. fit one :class:`~features._codebook.Codebook` per feature type (colour 128, texture 256,
   SIFT 256 words) on a seeded sample of TRAINING images (the paper used PASCAL 2008;
   see :mod:`features._codebook`), cached under ``<cache>/codebook/`` keyed by the feature
   config, the sample config and the chosen training ids;
2. for every image: extract descriptors, quantise them, and build the spatial-pyramid
   histograms of :mod:`features._pyramid` (an :class:`ImageFeatures` record);
   each record is written atomically to ``<cache>/image-features/<key>/<image id>.<digest>.entry``
   (``key`` hashes the feature, codebook and pyramid config), so a second run loads it and
   an interrupted run resumes where it stopped.

Work runs over chunks of images with joblib (``n_jobs``), or on a Dask cluster when a
scheduler address is given (joblib's ``dask`` backend). Workers return records and the
calling process writes the cache, so remote workers need no shared disk.

Bad images (missing, empty, truncated, undecodable, or with no descriptors) raise
:class:`~kcca.data._errors.ImageReadError` / :class:`~kcca.data._errors.DataError` naming
the file; with ``skip_bad_images=True`` they are left out and listed in
:attr:`ExtractionResult.skipped` (image id -> reason), never silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import numbers
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import joblib
import numpy as np
from joblib import delayed
from tqdm.auto import tqdm

from features._codebook import Codebook
from features._params import shared_params
from features._pyramid import pyramid_histogram
from kcca._cache import Cache, atomic_write, config_key
from kcca._cache_entry import make_private_folder
from kcca.data._corpus import Corpus
from kcca.data._errors import DataError, ImageReadError
from kcca._fingerprints import file_digest
from kcca._progress import notice
from kcca._workers import check_scheduler, worker_parallel

if TYPE_CHECKING:  # the registry imports every extractor (OpenCV): only when used
    from features._feature_types import FeatureType

log = logging.getLogger(__name__)

#: Bump when the records this module produces change (part of every cache key).
VERSION = 2
FEATURE_STAGE = "image-features"
CODEBOOK_STAGE = "codebook"
#: the integer fields of :class:`ImageFeatureConfig` and their smallest values
IMAGE_CONFIG_BOUNDS = {
    "levels": 0,
    "points_per_image": 1,
    "n_images": 1,
    "seed": 0,
    "n_init": 1,
    "max_iter": 1,
}


@dataclass(frozen=True)
class ImageFeatures:
    """The image-kernel representation of one image: a pyramid per feature type.

    Attributes:
        image_id: the corpus id of the image.
        pyramids: feature type -> ``(n_cells, V)`` float32 histograms, rows = whole image,
            then level 1 cells, then level 2 cells (:mod:`features._pyramid`), each divided by
            the image's sample count (so row 0 sums to 1 and is the eq. 5 histogram).
        n_samples: feature type -> descriptors the image had.
        height, width: image size in pixels.
        levels: finest pyramid level ``L``.
    """

    image_id: str
    pyramids: Mapping[str, np.ndarray]
    n_samples: Mapping[str, int]
    height: int
    width: int
    levels: int

    def histogram(self, feature: str) -> np.ndarray:
        """The whole-image histogram ``H(v)`` of eq. 5 for one feature type."""
        return self.pyramids[feature][0]


@dataclass(frozen=True)
class ImageFeatureConfig:
    """Everything that determines the numbers of an :class:`ImageFeatures` record.

    ``vocabulary`` overrides the paper's codebook sizes per feature type (e.g. tiny
    codebooks in tests); ``codebook_split`` names the split the codebook sample comes from.
    A value out of range (``n_images = -5``) is a ``ValueError`` naming the field.
    """

    levels: int = 2
    points_per_image: int = Codebook.points_per_image
    n_images: int = Codebook.n_images
    seed: int = Codebook.seed
    n_init: int = Codebook.n_init
    max_iter: int = Codebook.max_iter
    algorithm: str = Codebook.algorithm
    vocabulary: Mapping[str, int] | None = None
    codebook_split: str = "train"

    def __post_init__(self) -> None:
        for name, low in IMAGE_CONFIG_BOUNDS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if self.algorithm not in ("kmeans", "minibatch"):
            raise ValueError(f"algorithm must be 'kmeans' or 'minibatch', got {self.algorithm!r}")
        if self.vocabulary is not None:
            if not isinstance(self.vocabulary, Mapping):
                raise ValueError(
                    "vocabulary must map feature types to codebook sizes, e.g. "
                    f'{{"color": 32}}, got {self.vocabulary!r}'
                )
            for ft, size in self.vocabulary.items():
                if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
                    raise ValueError(
                        f"vocabulary[{ft!r}] must be an integer >= 1 (visual words), got {size!r}"
                    )
        if not isinstance(self.codebook_split, str) or not self.codebook_split:
            raise ValueError(f"codebook_split must name a split, got {self.codebook_split!r}")

    def vocabulary_size(self, ft: FeatureType) -> int:
        if self.vocabulary is not None and ft.name in self.vocabulary:
            return int(self.vocabulary[ft.name])
        return int(ft.vocabulary_size)

    def codebook(self, ft: FeatureType) -> Codebook:
        return Codebook(self.vocabulary_size(ft), **shared_params(Codebook, self))


@dataclass
class ExtractionResult:
    """What :meth:`ImageFeaturePipeline.extract` produced.

    ``features`` (image id -> record) holds every requested image except the ``skipped``
    ones (image id -> reason, only with ``skip_bad_images``); ``n_cached`` records came from
    the cache and ``n_computed`` were computed in this run.
    """

    features: dict[str, ImageFeatures]
    skipped: dict[str, str]
    codebooks: dict[str, Codebook]
    n_cached: int = 0
    n_computed: int = 0
    seconds: float = 0.0
    cache_dir: Path | None = None
    codebook_skipped: dict[str, str] = field(default_factory=dict)

    def items(self, image_ids: Sequence[str]) -> list[ImageFeatures]:
        """Records of ``image_ids`` in that order (kernel items); a skipped id is an error."""
        out = []
        for i in image_ids:
            if i not in self.features:
                reason = self.skipped.get(i, "it was not among the extracted images")
                raise DataError(f"no image features for {i!r}: {reason}")
            out.append(self.features[i])
        return out

    def summary(self) -> dict[str, Any]:
        return {
            "images": len(self.features),
            "cached": self.n_cached,
            "computed": self.n_computed,
            "skipped": dict(self.skipped),
            "codebook_sample_skipped": dict(self.codebook_skipped),
            "seconds": round(self.seconds, 3),
            "cache_dir": None if self.cache_dir is None else str(self.cache_dir),
        }


# ------------------------------------------------------------------------- worker side
def feature_config(ft: FeatureType) -> dict[str, Any]:
    """The extractor's own config (``module.config()``, kind + version + params) if it has one."""
    module = sys.modules.get(getattr(ft.extract, "__module__", ""), None)
    fn = getattr(module, "config", None)
    cfg: dict[str, Any] = {
        "name": ft.name,
        "extract": f"{ft.extract.__module__}.{ft.extract.__qualname__}",
    }
    if callable(fn):
        try:
            cfg["config"] = fn()
        except TypeError:
            pass
    return cfg


def _describe(images: Any, image_id: str, types: Mapping[str, FeatureType]):
    """Read one image and extract every feature type: ``(image, {type: Descriptors})``."""
    image = images(image_id)
    out = {}
    for name, ft in types.items():
        d = ft.extract(image)
        if d.values.shape[0] == 0:
            raise DataError(
                f"image {image_id!r} ({image.shape[0]}x{image.shape[1]} pixels) yields no "
                f"{name} descriptors (too small for the descriptor's patch?): use a larger "
                "image or pass --skip-bad-images to leave it out"
            )
        out[name] = d
    return image, out


def _error(image_id: str, exc: Exception) -> tuple:
    if isinstance(exc, ImageReadError):
        return ("error", image_id, "read", exc.path, exc.reason)
    return ("error", image_id, "data", str(exc), "")


def _raise(err: tuple) -> None:
    _, image_id, kind, a, b = err
    if kind == "read":
        raise ImageReadError(a, b)
    raise DataError(a)


def _sample_chunk(images, chunk: list[tuple[int, str]], types, codebooks) -> list[tuple]:
    """Worker: seeded codebook sample rows of each (index, image id) of a chunk."""
    out = []
    for index, image_id in chunk:
        try:
            _, descs = _describe(images, image_id, types)
        except DataError as exc:
            out.append(_error(image_id, exc))
            continue
        rows = {name: codebooks[name].sample(d.values, index) for name, d in descs.items()}
        out.append(("ok", image_id, index, rows))
    return out


def _fit_codebook(codebook: Codebook, parts: list[np.ndarray]) -> Codebook:
    """Worker: k-means of one feature type's sample."""
    return codebook.fit(parts)


def chunk_features(images, ids: list[str], types, codebooks, levels: int) -> list[tuple]:
    """Worker: :class:`ImageFeatures` of each image of a chunk (or an error tuple)."""
    out = []
    for image_id in ids:
        try:
            image, descs = _describe(images, image_id, types)
        except DataError as exc:
            out.append(_error(image_id, exc))
            continue
        pyramids, counts = {}, {}
        for name, d in descs.items():
            cb = codebooks[name]
            words = cb.predict(d.values)
            pyramids[name] = pyramid_histogram(
                words, d.rows, d.cols, d.height, d.width, cb.n_words, levels
            )
            counts[name] = int(d.values.shape[0])
        out.append(
            (
                "ok",
                image_id,
                ImageFeatures(
                    image_id, pyramids, counts, int(image.shape[0]), int(image.shape[1]), levels
                ),
            )
        )
    return out


# -------------------------------------------------------------------------- parallelism
@contextlib.contextmanager
def parallel_context(scheduler: str | None) -> Iterator[None]:
    """joblib's default backend, or its ``dask`` backend on the cluster at ``scheduler``."""
    if not scheduler:
        yield
        return
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - dask is an optional extra
        raise RuntimeError(
            "a Dask scheduler address was given but dask.distributed is not installed: "
            "pip install '.[dask]'"
        ) from None
    check_scheduler(scheduler)  # form, listener and greeting, in seconds
    client = Client(scheduler)
    try:
        with joblib.parallel_config(backend="dask"):
            yield
    finally:
        client.close()


def _chunks(seq: Sequence[Any], size: int) -> list[list[Any]]:
    return [list(seq[i : i + size]) for i in range(0, len(seq), size)]


def _run(
    fn, chunks: list, args: tuple, n_jobs: int, distributed: bool, bar: tqdm
) -> Iterator[list]:
    """Run ``fn(args[0], chunk, *args[1:])`` over chunks, yielding results as they finish."""
    if n_jobs == 1 and not distributed:
        for c in chunks:
            res = fn(args[0], c, *args[1:])
            bar.update(len(c))
            yield res
        return
    par = worker_parallel(
        n_jobs=n_jobs if not (distributed and n_jobs == 1) else -1, return_as="generator_unordered"
    )
    for i, res in par(delayed(_tagged)(fn, i, args[0], c, *args[1:]) for i, c in enumerate(chunks)):
        bar.update(len(chunks[i]))
        yield res


def _tagged(fn, i, images, chunk, *rest):
    return i, fn(images, chunk, *rest)


# ---------------------------------------------------------------------------- pipeline
class ImageFeaturePipeline:
    """Codebooks and per-image pyramid histograms of a corpus, cached and resumable.

    Parameters:
        corpus: the data set (its ``images`` source must be picklable for ``n_jobs != 1``).
        config: :class:`ImageFeatureConfig` (levels, codebook sample, seed, vocabulary).
        feature_types: name -> :class:`~features._feature_types.FeatureType`; default the
            paper's three (:func:`features._feature_types.feature_types`).
        cache: a :class:`~kcca._cache.Cache` (``Cache(None)`` or ``None``: nothing stored).
        n_jobs: joblib workers; chunk_size: images per task.
        skip_bad_images: leave unreadable images out and list them instead of raising.
        scheduler: Dask scheduler address (``tcp://host:port``): run on that cluster.
        progress: show tqdm progress bars.
    """

    def __init__(
        self,
        corpus: Corpus,
        config: ImageFeatureConfig | None = None,
        feature_types: Mapping[str, FeatureType] | None = None,
        cache: Cache | None = None,
        n_jobs: int = 1,
        chunk_size: int = 16,
        skip_bad_images: bool = False,
        scheduler: str | None = None,
        progress: bool = True,
    ):
        self.corpus = corpus
        self.config = config or ImageFeatureConfig()
        if feature_types is None:
            from features._feature_types import feature_types as default_types

            feature_types = default_types()
        if not feature_types:
            raise ValueError("no feature types given")
        self.feature_types = dict(feature_types)
        self.cache = cache if cache is not None else Cache(None)
        self.n_jobs = n_jobs
        if int(chunk_size) < 1:
            raise ValueError(f"chunk_size must be 1 or more, got {chunk_size!r}")
        self.chunk_size = int(chunk_size)
        self.skip_bad_images = skip_bad_images
        self.scheduler = scheduler
        self.progress = progress
        if corpus.images is None:
            raise DataError(
                f"corpus {corpus.name!r} was loaded without images: cannot extract "
                "image features (load it with images=True)"
            )
        self.codebooks_: dict[str, Codebook] | None = None
        self.codebook_skipped_: dict[str, str] = {}
        self._digests: dict[str, str] = {}

    # ------------------------------------------------------------------- inputs
    def image_digest(self, image_id: str) -> str:
        """Content digest of an image's file ("" for an image made in memory; the reason for
        a file that cannot be read, which then fails with its named error when decoded)."""
        if image_id not in self._digests:
            path = (self.corpus.image_paths or {}).get(image_id)
            try:
                self._digests[image_id] = file_digest(path) if path else ""
            except OSError as exc:
                self._digests[image_id] = f"unreadable: {exc.strerror or exc}"
        return self._digests[image_id]

    def _image_files(self, ids: Sequence[str]) -> list[str]:
        paths = self.corpus.image_paths or {}
        return [paths[i] for i in ids if i in paths and os.path.isfile(paths[i])]

    # --------------------------------------------------------------------- keys
    def _codebook_config(self, ft: FeatureType, chosen: list[str]) -> dict[str, Any]:
        cb = self.config.codebook(ft)
        return {
            "version": VERSION,
            "corpus": self.corpus.name,
            "feature": feature_config(ft),
            "codebook": cb.get_params(),
            "split": self.config.codebook_split,
            "train_ids": hashlib.sha256("\n".join(chosen).encode()).hexdigest(),
            "images": hashlib.sha256(
                "\n".join(self.image_digest(i) for i in chosen).encode()
            ).hexdigest(),
        }

    def feature_key(self) -> str:
        """Hash of everything that fixes a record: features, codebooks (incl. sample), levels."""
        chosen = self._chosen_ids()
        return config_key(
            {
                "version": VERSION,
                "corpus": self.corpus.name,
                "levels": self.config.levels,
                "codebooks": {
                    n: self._codebook_config(ft, chosen)
                    for n, ft in sorted(self.feature_types.items())
                },
            }
        )

    def feature_dir(self) -> Path | None:
        """Folder of the per-image records (``None`` when the cache is disabled)."""
        if not self.cache.enabled:
            return None
        return self.cache.folder(FEATURE_STAGE, self.feature_key())

    def _chosen_ids(self) -> list[str]:
        train = list(self.corpus.split(self.config.codebook_split))
        any_cb = self.config.codebook(next(iter(self.feature_types.values())))
        return any_cb.choose_images(train)

    # ---------------------------------------------------------------- codebooks
    def fit_codebooks(self) -> dict[str, Codebook]:
        """One codebook per feature type from the seeded training sample (cached)."""
        if self.codebooks_ is not None:
            return self.codebooks_
        chosen = self._chosen_ids()
        configs = {n: self._codebook_config(ft, chosen) for n, ft in self.feature_types.items()}
        books: dict[str, Codebook] = {}
        for n, cfg in configs.items():
            found, book = self.cache.load_if_usable(CODEBOOK_STAGE, cfg, Codebook)
            if found:
                books[n] = book
        missing = [n for n in self.feature_types if n not in books]
        if missing:
            types = {n: self.feature_types[n] for n in missing}
            unfitted = {n: self.config.codebook(self.feature_types[n]) for n in missing}
            samples: dict[str, dict[int, np.ndarray]] = {n: {} for n in missing}
            chunks = _chunks(list(enumerate(chosen)), self.chunk_size)
            bar = tqdm(
                total=len(chosen), desc="codebook sample", unit="img", disable=not self.progress
            )
            try:
                with parallel_context(self.scheduler):
                    for res in _run(
                        _sample_chunk,
                        chunks,
                        (self.corpus.images, types, unfitted),
                        self.n_jobs,
                        bool(self.scheduler),
                        bar,
                    ):
                        for item in res:
                            if item[0] == "error":
                                self._bad(item, self.codebook_skipped_)
                                continue
                            _, image_id, index, rows = item
                            for n in missing:
                                samples[n][index] = rows[n]
            finally:
                bar.close()
            jobs = []
            for n in missing:
                parts = [samples[n][i] for i in sorted(samples[n])]
                if not parts:
                    raise DataError(f"no readable training images to fit the {n} codebook")
                notice(
                    f"fitting the {n} codebook ({unfitted[n].n_words} words) on "
                    f"{sum(len(p) for p in parts)} rows of {len(parts)} images",
                    enabled=self.progress,
                )
                jobs.append((n, unfitted[n], parts))
            # largest k-means first; in parallel (one BLAS/OpenMP thread per worker)
            jobs.sort(key=lambda j: -j[1].n_words * sum(p.size for p in j[2]))
            if self.n_jobs == 1 and not self.scheduler:
                fitted = [cb.fit(parts) for _, cb, parts in jobs]
            else:
                with parallel_context(self.scheduler):
                    fitted = worker_parallel(n_jobs=self.n_jobs if self.n_jobs != 1 else -1)(
                        delayed(_fit_codebook)(cb, parts) for _, cb, parts in jobs
                    )
            for (n, _, _), cb in zip(jobs, fitted):
                cb.config_ = configs[n]
                self.cache.save(CODEBOOK_STAGE, configs[n], cb, self._image_files(chosen))
                books[n] = cb
        self.codebooks_ = {n: books[n] for n in self.feature_types}
        return self.codebooks_

    def _bad(self, err: tuple, skipped: dict[str, str]) -> None:
        if not self.skip_bad_images:
            _raise(err)
        _, image_id, kind, a, b = err
        reason = f"cannot read image {a}: {b}" if kind == "read" else a
        skipped[image_id] = reason
        log.warning("skipped image %s: %s", image_id, reason)

    # ------------------------------------------------------------------ records
    def _record_name(self, image_id: str) -> str:
        """``<id>.<digest of the image file>``: an edited image is described again, and a
        restored one finds its old record."""
        digest = self.image_digest(image_id)
        tag = hashlib.sha256(digest.encode()).hexdigest()[:16] if digest else "memory"
        return f"{safe_name(image_id)}.{tag}"

    def _load_cached(self, folder: Path | None, image_id: str) -> ImageFeatures | None:
        if folder is None:
            return None
        rec = self.cache.load_record(FEATURE_STAGE, folder.name, self._record_name(image_id))
        if not isinstance(rec, ImageFeatures) or rec.image_id != image_id:
            return None
        return rec

    def _save_record(self, folder: Path, image_id: str, rec: ImageFeatures) -> None:
        """Store ``rec`` with its image file's digest as its input record."""
        paths = self.corpus.image_paths or {}
        inputs = (
            {os.path.abspath(paths[image_id]): self.image_digest(image_id)}
            if image_id in paths
            else {}
        )
        self.cache.save_record(FEATURE_STAGE, folder.name, self._record_name(image_id), rec, inputs)

    def extract(self, image_ids: Sequence[str] | None = None) -> ExtractionResult:
        """Features of ``image_ids`` (default: every image of every split), cached."""
        start = time.perf_counter()
        if image_ids is None:
            image_ids = [
                i
                for s in ("train", "dev", "test")
                if s in self.corpus.splits
                for i in self.corpus.split(s)
            ]
        ids = list(dict.fromkeys(image_ids))  # keep order, drop repeats
        books = self.fit_codebooks()
        folder = self.feature_dir()
        if folder is not None:
            self._describe_folder(folder)
        features: dict[str, ImageFeatures] = {}
        todo = []
        for i in ids:
            rec = self._load_cached(folder, i)
            if rec is not None:
                features[i] = rec
            else:
                todo.append(i)
        n_cached = len(features)
        skipped: dict[str, str] = {}
        bar = tqdm(
            total=len(ids),
            initial=n_cached,
            desc="image features",
            unit="img",
            disable=not self.progress,
        )
        try:
            with parallel_context(self.scheduler):
                for res in _run(
                    chunk_features,
                    _chunks(todo, self.chunk_size),
                    (self.corpus.images, self.feature_types, books, self.config.levels),
                    self.n_jobs,
                    bool(self.scheduler),
                    bar,
                ):
                    for item in res:
                        if item[0] == "error":
                            self._bad(item, skipped)
                            continue
                        _, image_id, rec = item
                        features[image_id] = rec
                        if folder is not None:
                            self._save_record(folder, image_id, rec)
        finally:
            bar.close()
        ordered = {i: features[i] for i in ids if i in features}
        if folder is not None:  # the per-image records are cached here, not by Cache.save
            self.cache.record(FEATURE_STAGE, computed=len(ordered) - n_cached, loaded=n_cached)
        return ExtractionResult(
            features=ordered,
            skipped={i: skipped[i] for i in ids if i in skipped},
            codebooks=dict(books),
            n_cached=n_cached,
            n_computed=len(ordered) - n_cached,
            seconds=time.perf_counter() - start,
            cache_dir=folder,
            codebook_skipped=dict(self.codebook_skipped_),
        )

    def _describe_folder(self, folder: Path) -> None:
        """Create the feature folder and, once, its ``config.json`` (the pyramid levels and
        each codebook's settings), for a person reading the cache."""
        make_private_folder(folder)
        cfg_file = folder / "config.json"
        if not cfg_file.exists():
            import json

            chosen = self._chosen_ids()
            text = json.dumps(
                {
                    "levels": self.config.levels,
                    "codebooks": {
                        n: self._codebook_config(ft, chosen) for n, ft in self.feature_types.items()
                    },
                },
                indent=1,
                sort_keys=True,
                default=str,
            )
            atomic_write(cfg_file, lambda tmp: Path(tmp).write_text(text))


def safe_name(image_id: str) -> str:
    """A file name for an image id: the id itself when plain, else a hash of it."""
    if re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,150}", image_id):
        return image_id
    return "id-" + hashlib.sha256(image_id.encode()).hexdigest()[:24]
