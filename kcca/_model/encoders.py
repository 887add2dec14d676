"""The two sides of a saved model: new images and new sentences to new-by-train kernel rows.

A query is scored exactly as a test item is in :func:`kcca._systems.run_system`: its kernel
row against the TRAINING items (Section 4.1.2: the five captions of a training image are one
text item; one image is one image item), projected by the KCCA directions (eq. 3-4).

* :class:`ImageEncoder`: the image feature pipeline's fitted state (Section 3.3: descriptor
  configs, the colour / texture / SIFT codebooks, pyramid levels, the training image size) and
  the fitted image kernel, which holds the training images' weighted pyramid histograms.
  New images are resized to the training image size (the Flickr 8K images used here are
  224 x 224), described, quantised with the saved codebooks, binned into pyramids
  (:func:`features._image_features` code, so the records equal the pipeline's), and compared
  with the training histograms.
* :class:`TextEncoder`: the caption preprocessor fitted on the training captions
  (Section 4.1.1) and the fitted text kernel (IDF, vocabulary, word kernel, training items).
  When the training captions came from the released lemma file (preset ``flickr8k-lemma``), a
  free sentence has no lemma line: it is lemmatised with WordNet under an n-gram POS tag,
  then the preset's stop words go, which approximates the lemma file's tokens (``be``,
  ``run``, ``child``).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from kcca.data._errors import DataError

#: cache stage of the pyramid records of image files described for queries (``--images``)
QUERY_IMAGE_STAGE = "query-image-features"
#: image file suffixes read from a folder (``kcca query --images DIR``)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class QueryError(DataError):
    """A query the model cannot score (empty, no known word, unreadable image)."""

    fix = (
        "change the query: a sentence with words of the training captions, readable image "
        "files (see the message)"
    )


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


# ------------------------------------------------------------------------ images
class ResizedImages:
    """Picklable image source: ``source(image_id)`` resized to ``size`` = (height, width).

    ``source`` is any image source (an :class:`kcca.data._images.ImageFiles`, a corpus's
    ``images``, or a mapping id -> RGB array); ``size=None`` keeps the images as they are.
    """

    def __init__(self, source: Any, size: tuple[int, int] | None):
        self.source = source
        self.size = None if size is None else (int(size[0]), int(size[1]))

    def __call__(self, image_id: str) -> np.ndarray:
        if isinstance(self.source, Mapping):
            image = np.asarray(self.source[image_id])
        else:
            image = self.source(image_id)
        return resize_to(image, self.size)


def resize_to(image: np.ndarray, size: tuple[int, int] | None) -> np.ndarray:
    """``image`` as RGB uint8 resized to ``size`` (height, width); area interpolation."""
    import cv2

    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise QueryError(f"expected an RGB uint8 image (H, W, 3), got {image.dtype} {image.shape}")
    if size is None or tuple(image.shape[:2]) == tuple(size):
        return np.ascontiguousarray(image)
    return cv2.resize(image, (size[1], size[0]), interpolation=cv2.INTER_AREA)


@dataclass
class ImageEncoder:
    """New images -> (n_new, n_train) image-kernel rows (``p = 1``; the projection applies p).

    Attributes: ``feature_configs`` (feature type -> its extractor config at fit time, checked
    against the installed code), ``codebooks`` (fitted :class:`features._codebook.Codebook`),
    ``levels`` (pyramid ``L``), ``image_size`` (training images' (height, width), None when
    they differ), ``config`` (the :class:`~features._image_features.ImageFeatureConfig` as a
    dict), ``kernel`` (the fitted image kernel; its ``train_matrix_`` holds the training
    pyramids), ``train_ids`` (training image ids, kernel column order).
    """

    feature_configs: dict[str, dict]
    codebooks: dict[str, Any]
    levels: int
    image_size: tuple[int, int] | None
    config: dict
    kernel: Any
    train_ids: tuple[str, ...]

    def feature_types(self) -> dict[str, Any]:
        """The installed extractors of the saved feature types; an error if their config changed."""
        from features._feature_types import feature_types
        from features._image_features import feature_config

        installed = feature_types()
        out = {}
        for name, saved in self.feature_configs.items():
            if name not in installed:
                raise DataError(
                    f"this model uses image feature type {name!r}, which this kcca "
                    "does not provide: refit the model (kcca fit-model)"
                )
            if _jsonable(feature_config(installed[name])) != _jsonable(saved):
                raise DataError(
                    f"the {name} descriptor changed since this model was fitted "
                    "(its config differs): refit the model (kcca fit-model)"
                )
            out[name] = installed[name]
        return out

    def features(
        self,
        source: Any,
        ids: Sequence[str],
        *,
        n_jobs: int = 1,
        skip_bad: bool = False,
        progress: bool = False,
    ) -> tuple[list[Any], dict[str, str]]:
        """Pyramid records of ``ids`` read from ``source`` (resized to the training size).

        Returns ``(records, skipped)``; a bad image raises naming the file unless ``skip_bad``
        (then it is listed in ``skipped``, id -> reason).
        """
        from joblib import delayed
        from tqdm.auto import tqdm

        from kcca._workers import worker_parallel

        from features._image_features import chunk_features

        types = self.feature_types()
        images = ResizedImages(source, self.image_size)
        ids = list(ids)
        chunks = [ids[i : i + 16] for i in range(0, len(ids), 16)]
        if n_jobs == 1 or len(chunks) <= 1:
            results = [
                chunk_features(images, c, types, self.codebooks, self.levels)
                for c in tqdm(chunks, desc="image features", unit="chunk", disable=not progress)
            ]
        else:
            results = worker_parallel(n_jobs=n_jobs)(
                delayed(chunk_features)(images, c, types, self.codebooks, self.levels)
                for c in chunks
            )
        records, skipped = [], {}
        for res in results:
            for item in res:
                if item[0] == "ok":
                    records.append(item[2])
                    continue
                _, image_id, kind, a, b = item
                reason = f"cannot read image {a}: {b}" if kind == "read" else str(a)
                if not skip_bad:
                    raise QueryError(f"image {image_id!r}: {reason}")
                skipped[image_id] = reason
        return records, skipped

    def fingerprint(self) -> str:
        """A hash of everything that fixes an image's pyramid record (feature configs,
        codebook centres, levels, image size): the cache key of records of new images."""
        import hashlib

        h = hashlib.sha256(
            json.dumps(
                [_jsonable(self.feature_configs), self.levels, self.image_size], sort_keys=True
            ).encode()
        )
        for name in sorted(self.codebooks):
            h.update(name.encode())
            h.update(np.ascontiguousarray(self.codebooks[name].cluster_centers_).tobytes())
        return h.hexdigest()[:20]

    def cached_features(
        self,
        paths: Mapping[str, str],
        cache: Any,
        *,
        n_jobs: int = 1,
        skip_bad: bool = False,
        progress: bool = False,
    ) -> tuple[list[Any], dict[str, str]]:
        """:meth:`features` of image files (id -> path), each record kept in ``cache`` (an
        enabled :class:`kcca._cache.Cache`, stage :data:`QUERY_IMAGE_STAGE`) under the encoder's
        fingerprint and the file's path, size and modification time: a second query on the
        same folder reads them back, a changed file is described again. Bad images are not
        cached (tried again next time)."""
        from features._image_features import ImageFeatures
        from kcca.data._images import ImageFiles

        key = self.fingerprint()
        configs = {}
        for image_id, path in paths.items():
            f = Path(path).resolve()
            st = f.stat()
            configs[image_id] = {
                "encoder": key,
                "file": str(f),
                "size": st.st_size,
                "mtime_ns": st.st_mtime_ns,
            }
        found = {}
        for i, c in configs.items():
            usable, record = cache.load_if_usable(QUERY_IMAGE_STAGE, c, ImageFeatures)
            if usable:
                found[i] = record
        todo = [i for i in paths if i not in found]
        new, skipped = self.features(
            ImageFiles({i: paths[i] for i in todo}),
            todo,
            n_jobs=n_jobs,
            skip_bad=skip_bad,
            progress=progress,
        )
        for record in new:
            found[record.image_id] = record
            cache.save(QUERY_IMAGE_STAGE, configs[record.image_id], record)
        return [found[i] for i in paths if i in found], skipped

    def block(self, records: Sequence[Any], n_jobs: int = 1) -> np.ndarray:
        """The (n_new, n_train) kernel block of pyramid records against the training images."""
        if not records:
            return np.zeros((0, len(self.train_ids)))
        kernel = self.kernel
        if "n_jobs" in kernel.get_params(deep=False):
            kernel.set_params(n_jobs=n_jobs)
        return np.asarray(kernel.gram(list(records)), dtype=np.float64)

    def encode(
        self, images: Mapping[str, np.ndarray] | Sequence[np.ndarray], n_jobs: int = 1
    ) -> np.ndarray:
        """Kernel rows of RGB arrays (a list, or a mapping id -> array)."""
        source = (
            dict(images)
            if isinstance(images, Mapping)
            else {f"image-{i}": im for i, im in enumerate(images)}
        )
        records, _ = self.features(source, list(source), n_jobs=n_jobs)
        return self.block(records, n_jobs=n_jobs)


def slim_image_kernel(kernel: Any, train_ids: Sequence[str]) -> Any:
    """Drop the per-image records a fitted intersection kernel keeps beside its matrix.

    Histogram and pyramid kernels (:mod:`features.kernels._image`) compare new items with
    ``train_matrix_`` only; ``train_items_`` (the records, as large again) is replaced by the
    training ids, which keeps its length (the kernel's column count). Other kernels are
    returned unchanged.
    """
    if hasattr(kernel, "train_matrix_"):
        kernel.train_items_ = tuple(train_ids)
    return kernel


def folder_images(folder: str | Path) -> dict[str, str]:
    """Image files of a folder (not recursive), id = file name, sorted: id -> path."""
    root = Path(folder)
    if not root.is_dir():
        raise QueryError(f"image folder {root} does not exist or is not a folder")
    files = sorted(p for p in root.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES)
    if not files:
        raise QueryError(f"no image files ({', '.join(IMAGE_SUFFIXES)}) in {root}")
    return {p.name: str(p) for p in files}


# ------------------------------------------------------------------------- text
@dataclass
class TextEncoder:
    """New sentences -> token lists -> (n_new, n_train) text-kernel rows.

    Attributes: ``preset`` (the system's preprocessing preset), ``preprocessor`` (a
    :class:`~features.text._pipeline.CaptionPreprocessor` fitted on the training captions, used
    on new sentences), ``training_source`` (``captions`` or ``lemmas``: what the training
    items were made from), ``kernel`` (the fitted text kernel, training items included),
    ``vocabulary`` (every token of the training items), ``note`` (how sentences are read).
    """

    preset: str
    preprocessor: Any
    training_source: str
    kernel: Any
    vocabulary: frozenset[str]
    note: str = ""
    n_train: int = 0
    extra: dict = field(default_factory=dict)

    def tokens(self, sentence: str) -> list[str]:
        """The tokens of one sentence after the training captions' preprocessing."""
        if not isinstance(sentence, str):
            raise QueryError(f"a query must be a string, got {type(sentence).__name__}")
        if not sentence.strip():
            raise QueryError('the query is empty: give a sentence, e.g. "a dog runs on the beach"')
        return list(self.preprocessor.process_tokens(self._tokenize(sentence)))

    def warm_up(self) -> None:
        """Load what preprocessing reads lazily (WordNet, the tagger) before timing queries."""
        self.preprocessor.process_tokens(self._tokenize("dogs are running"))

    def _tokenize(self, sentence: str) -> list[str]:
        from features.text._tokenize import tokenize

        p = self.preprocessor
        return tokenize(
            sentence, method=p.tokenizer, lowercase=p.lowercase, drop_punctuation=p.drop_punctuation
        )

    def check_query(self, sentence: str) -> tuple[list[str], list[str]]:
        """``(tokens, unknown tokens)`` of a query; :class:`QueryError` when nothing is left
        to score: no token after preprocessing, or no token seen in training."""
        tokens = self.tokens(sentence)
        if not tokens:
            raise QueryError(
                f"the query {sentence!r} has no words left after preprocessing (stop words "
                f"and punctuation are removed; preset {self.preset!r}): use content words, "
                'e.g. "a dog runs on the beach"'
            )
        unknown = [t for t in tokens if t not in self.vocabulary]
        if len(unknown) == len(tokens):
            raise QueryError(
                f"none of the words of {sentence!r} ({', '.join(tokens)}) occurs in the "
                f"model's {self.n_train} training items ({len(self.vocabulary)} word types): "
                "the model cannot place it; use words of the training captions"
            )
        return tokens, unknown

    def block(self, token_lists: Sequence[Sequence[str]]) -> np.ndarray:
        """The (n, n_train) text-kernel block of one-caption items (token lists)."""
        import warnings

        from features.text._text_items import EmptyCaptionWarning

        if not token_lists:
            return np.zeros((0, self.n_train))
        kernel = self.kernel
        if "progress" in kernel.get_params(deep=False):
            kernel.set_params(progress=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", EmptyCaptionWarning)
            return np.asarray(kernel.gram([list(t) for t in token_lists]), dtype=np.float64)


def query_preprocessor(preprocessor: Any, seed: int = 0) -> tuple[Any, str]:
    """The preprocessor for free sentences, given the (unfitted) training preprocessor.

    A ``source="captions"`` preprocessor reads sentences as it read the training captions. A
    ``source="lemmas"`` one (the released lemma file, no lemmatiser of its own) gets a
    WordNet lemmatiser with an n-gram POS tagger (Section 4.1.1's lemmatisation, trained on
    Brown), otherwise the same switches. Returns ``(preprocessor, note)``.
    """
    params = preprocessor.get_params()
    if params["source"] == "captions":
        return preprocessor, f"as the training captions (tokenizer {params['tokenizer']})"
    from features.text._pipeline import CaptionPreprocessor

    q = dict(
        params, source="captions", tokenizer="treebank", lemmatize=True, tagger="ngram", seed=seed
    )
    return (
        CaptionPreprocessor(**q),
        "training captions are the released lemma file; queries are lemmatised with "
        "WordNet under an n-gram POS tag (Brown)",
    )


def spec_dict(obj: Any) -> dict:
    """A dataclass as a plain dict (for configs stored in the model)."""
    # configs are dataclass instances, never dataclass classes
    return (
        dataclasses.asdict(obj)  # type: ignore[arg-type]
        if dataclasses.is_dataclass(obj)
        else dict(obj)
    )
