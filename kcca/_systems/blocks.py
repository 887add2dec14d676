"""Kernel blocks of a corpus (Section 4.1.2-4.1.3): train x train, dev x train, test x train.

A :class:`Workspace` holds what several systems of one run share: the corpus, the cache, the
image features (Section 3.3, :mod:`features._image_features`), the preprocessed captions
(Section 4.1.1, :mod:`features.text._corpus_tokens`) and word kernels (Section 3.5). Every
kernel block is cached on disk under a key of everything that fixes its numbers, and kept in
memory for the run, so the 30 systems of Table 11 compute each image block once.

Items: a training item is one image (image kernels) or the five captions of a training image (text
kernels, one multi-caption item, docs/design.md#kernel-contract); the dev and test pools are caption
#2 of each image (``Corpus.pool``). Image kernels are computed with ``p = 1``: the power p of eq. 6
is applied by the solver (``KCCAGrid(power_x=p)``) so that one block serves every p.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from features.kernels._base import numeric_params, with_execution
from kcca._cache import Cache, config_key
from kcca._fingerprints import file_digest, files_digest
from kcca.data._corpus import SPLITS, Corpus, caption_id
from kcca.errors import DataError, SettingError
from kcca.limits import DENSE_TRAIN_LIMIT
from kcca._solver.factors import KernelSide
from kcca._systems.config import RunConfig
from kcca._systems.spec import KernelSpec

log = logging.getLogger(__name__)

IMAGE_STAGE = "system-image-gram"
#: cache stage of the KCCA factors of shared kernels (:func:`factor_store`)
FACTOR_STAGE = "kernel-factor"
TEXT_STAGE = "system-text-gram"
VERSION = 1


@dataclass(frozen=True)
class Blocks:
    """Kernel blocks against the training items: ``train`` (n, n), ``dev`` and ``test``.

    ``train`` is a dense array, or for a kernel of ids over more than
    :data:`DENSE_TRAIN_LIMIT` training items its columns on demand
    (:class:`kcca._lowrank.KernelColumns`: the solver factorises it by pivoted incomplete
    Cholesky without forming the n x n matrix), and ``dev`` / ``test`` its rows on demand
    (:class:`kcca._lowrank.KernelRows`, projected block by block)."""

    train: Any
    dev: Any
    test: Any
    key: dict
    #: the files behind the blocks (for the cache entries' input records)
    inputs: tuple[str, ...] = ()
    #: whether the kernel is positive semi-definite in theory (``Kernel.positive_semidefinite``)
    psd: bool = True

    def __getitem__(self, split: str) -> np.ndarray:
        return {"train": self.train, "dev": self.dev, "test": self.test}[split]

    @property
    def n_train(self) -> int:
        """The number of training items (the columns of every block)."""
        return int(self.dev.shape[1])


@dataclass(frozen=True)
class CaptionRows:
    """A text-kernel block too large to hold (:meth:`Workspace.all_caption_rows`): ``rows``
    computes it row block by row block against the training items
    (:class:`kcca._lowrank.KernelRows`); ``key`` and ``inputs`` are the cache key and the files
    behind it."""

    key: dict
    inputs: tuple[str, ...]
    rows: Any  # kcca._lowrank.KernelRows


def all_caption_ids(corpus: Corpus, split: str, captions_per_image: int) -> list[str]:
    """The ids of the first ``captions_per_image`` captions of each image of ``split``, image
    by image (the all-captions protocol's pool); an image with fewer is a :class:`DataError`."""
    out: list[str] = []
    for image_id in corpus.split(split):
        n = len(corpus.captions[image_id])
        if n < captions_per_image:
            raise DataError(
                f"{split} image {image_id!r} of corpus {corpus.name!r} has {n} captions, fewer "
                f"than the {captions_per_image} of the all-captions protocol",
                fix="give every test image at least five captions, or rank with --protocol paper",
            )
        out += [caption_id(image_id, i) for i in range(captions_per_image)]
    return out


def corpus_fingerprint(corpus: Corpus, sources: Sequence[str] = ("captions",)) -> str:
    """Hash of what a text stage reads: the corpus name, its splits, the ``sources``
    (``"captions"``, ``"lemmas"``) of every split image, and the content of the files they
    were read from (:func:`text_inputs`)."""
    h = hashlib.sha256(corpus.name.encode())
    for split in SPLITS:
        h.update(f"\x00{split}".encode())
        for image_id in corpus.split(split):
            h.update(b"\x01" + image_id.encode())
            for source in sources:
                texts = getattr(corpus, source) or {}
                h.update(f"\x04{source}".encode())
                for text in texts.get(image_id, ()):
                    h.update(b"\x02" + text.encode())
    h.update(f"\x03{corpus.pool_caption_index}".encode())
    files = text_inputs(corpus, sources)
    if files:
        h.update(files_digest(files).encode())
    return h.hexdigest()[:20]


def text_inputs(corpus: Corpus, sources: Sequence[str] = ("captions",)) -> dict[str, str]:
    """Role -> file of the corpus files a text stage reads: the sources and the split files."""
    files = corpus.source_files or {}
    roles = [*sources, *(f"split:{s}" for s in SPLITS)]
    return {r: files[r] for r in roles if r in files}


def image_fingerprint(corpus: Corpus, with_pixels: bool = True) -> str:
    """Hash of what an image stage reads: the corpus name, its splits and the content of each
    split image's file (a corpus whose images are made in memory, the demo's, is identified by
    its name, which names every generator parameter). ``with_pixels=False`` leaves the image
    files out, for kernels that read the image ids only (``item_type = "ids"``, the
    ``vectors`` kernel, whose files are in the key themselves): at COCO's size, reading every
    image for a key that does not depend on them would take longer than the run."""
    h = hashlib.sha256(corpus.name.encode())
    paths = (corpus.image_paths or {}) if with_pixels else {}
    if not with_pixels:
        h.update(b"\x05ids only")
    for split in SPLITS:
        h.update(f"\x00{split}".encode())
        for image_id in corpus.split(split):
            path = paths.get(image_id)
            h.update(f"\x01{image_id}\x02{file_digest(path) if path else ''}".encode())
    files = {r: f for r, f in (corpus.source_files or {}).items() if r.startswith("split:")}
    if files:
        h.update(files_digest(files).encode())
    return h.hexdigest()[:20]


def image_inputs(corpus: Corpus) -> list[str]:
    """The files an image stage reads: every split image's file and the split files."""
    paths = corpus.image_paths or {}
    files = [paths[i] for s in SPLITS for i in corpus.split(s) if i in paths]
    return files + split_files(corpus)


def split_files(corpus: Corpus) -> list[str]:
    """The files the corpus's splits were read from."""
    return [f for r, f in (corpus.source_files or {}).items() if r.startswith("split:")]


@dataclass
class Workspace:
    """Shared state of one run over one corpus (see the module docstring).

    ``config``: the run's :class:`~kcca._systems.config.RunConfig`. Cache keys take its
    settings (seed, image features) and the data's fingerprints; its execution part (threads,
    array backend, progress bars, a Dask scheduler for the image features) reaches the kernels
    through their declared ``execution_params`` only, so it never changes a key.
    """

    corpus: Corpus
    cache: Cache = field(default_factory=lambda: Cache(None))
    config: RunConfig = field(default_factory=RunConfig)

    # the run's settings by name, as the stages read them
    @property
    def seed(self) -> int:
        return self.config.settings.seed

    @property
    def backend(self) -> str:
        return self.config.execution.backend

    @property
    def n_jobs(self) -> int | None:
        return self.config.execution.jobs

    @property
    def progress(self) -> bool:
        return self.config.execution.progress

    def __post_init__(self) -> None:
        from kcca._solver import FactorCache

        self._memo: dict[Any, Any] = {}
        # KCCA factors shared by every system of the run: the image kernel's factor per p is
        # computed once for all systems with that image kernel (LRU: image p=2, p=3, a text)
        self.factor_cache = FactorCache(max_sides=3, max_pairs=1)
        self._pipeline = None
        self._features = None

    # ------------------------------------------------------------------ fingerprints
    @property
    def image_fingerprint(self) -> str:
        """:func:`image_fingerprint` of the corpus (its images are read once per run)."""
        if "image-fingerprint" not in self._memo:
            self._memo["image-fingerprint"] = image_fingerprint(self.corpus)
        return self._memo["image-fingerprint"]

    @property
    def image_ids_fingerprint(self) -> str:
        """:func:`image_fingerprint` without the image files (kernels that read ids only)."""
        if "image-ids-fingerprint" not in self._memo:
            self._memo["image-ids-fingerprint"] = image_fingerprint(self.corpus, False)
        return self._memo["image-ids-fingerprint"]

    def text_fingerprint(self, sources: Sequence[str]) -> str:
        """:func:`corpus_fingerprint` of the corpus texts ``sources``."""
        memo = ("text-fingerprint", tuple(sources))
        if memo not in self._memo:
            self._memo[memo] = corpus_fingerprint(self.corpus, tuple(sources))
        return self._memo[memo]

    def text_sources(self, preset: str, word_kernel: str | None) -> tuple[str, ...]:
        """The corpus texts a text kernel reads: its preprocessing's source, and both caption
        forms when a word kernel (trained on the training captions and lemmas) is used."""
        sources = {self.preprocessor(preset).source}
        if word_kernel is not None:
            sources |= {"captions", "lemmas"}
        return tuple(sorted(sources))

    def _gram_bar(self, kernel: str, splits: Sequence[str]) -> Iterable[str]:
        """``splits`` under a bar of a kernel's Gram blocks (on stderr with the run's progress
        on, cleared when done): a block of thousands of items takes a while to compute."""
        from tqdm.auto import tqdm

        return tqdm(
            splits,
            desc=f"{kernel}: Gram blocks ({', '.join(splits)})",
            unit="block",
            leave=False,
            disable=not self.progress,
        )

    # ------------------------------------------------------------------ image side
    def image_pipeline(self):
        if self._pipeline is None:
            from features._image_features import ImageFeaturePipeline

            self._pipeline = ImageFeaturePipeline(
                self.corpus,
                self.config.settings.image_features(),
                cache=self.cache,
                n_jobs=self.n_jobs,
                scheduler=self.config.execution.scheduler,
                progress=self.progress,
            )
        return self._pipeline

    def image_features(self):
        """Features of every train/dev/test image (cached per image by the pipeline)."""
        if self._features is None:
            ids = [i for s in SPLITS for i in self.corpus.split(s)]
            self._features = self.image_pipeline().extract(ids)
        return self._features

    def image_blocks(self, spec: KernelSpec) -> Blocks:
        """Blocks of an image kernel (``p = 1``; the solver applies p).

        A kernel with ``item_type = "image-pixels"`` (a plug-in, ``features.kernels._base``)
        gets lazily loaded RGB arrays instead of image features; one with ``"ids"`` (the
        ``vectors`` kernel) the image ids.
        """
        kernel = spec.build()
        if "p" in kernel.get_params(deep=False):
            kernel.set_params(p=1)
        item_type = getattr(kernel, "item_type", None)
        if item_type == "image-mixture":
            return self._mixture_blocks(spec, kernel)
        pixels = item_type == "image-pixels"
        ids = item_type == "ids"
        features = "pixels" if pixels else "ids" if ids else self.image_pipeline().feature_key()
        key = self._image_key(spec, kernel, ids_only=ids, features=features)

        if ids and len(self.corpus.split("train")) > DENSE_TRAIN_LIMIT:
            items = {s: list(self.corpus.split(s)) for s in SPLITS}
            return self._column_blocks(key, kernel, items, kernel_files(kernel))

        def compute() -> dict[str, np.ndarray]:
            if ids:
                items: dict[str, Any] = {s: list(self.corpus.split(s)) for s in SPLITS}
            elif pixels:
                items = {s: ImagePixels(self.corpus, self.corpus.split(s)) for s in SPLITS}
            else:
                feats = self.image_features()
                items = {s: feats.items(self.corpus.split(s)) for s in SPLITS}
            settings = self.config.execution.kernel_settings()
            if not pixels:  # per-block bars only where images are read and encoded
                del settings["progress"]
            k = with_execution(kernel, **settings)
            k.fit(items["train"])
            return {s: k.gram(items[s]) for s in self._gram_bar(spec.name, SPLITS)}

        return self._shared_image_blocks(
            key, compute, psd=getattr(kernel, "positive_semidefinite", True), kernel=kernel
        )

    def _mixture_blocks(self, spec: KernelSpec, kernel: Any) -> Blocks:
        """Blocks of a ``mix`` kernel: each part's blocks (built and cached as that kernel's
        own), averaged with the part weights (:mod:`features.kernels._mixture`)."""
        from features.kernels._mixture import check_parts

        parts = [
            self.image_blocks(KernelSpec(q["name"], q["params"], spec.folder))
            for q in check_parts(kernel.parts)
        ]
        # the parts' keys cover their images
        key = self._image_key(spec, kernel, ids_only=True, parts=[config_key(b.key) for b in parts])
        if any(not isinstance(b.train, np.ndarray) for b in parts):
            return _mixed_column_blocks(kernel, parts, key)
        return self._shared_image_blocks(
            key,
            lambda: {s: kernel.combine([b[s] for b in parts]) for s in SPLITS},
            psd=getattr(kernel, "positive_semidefinite", True) and all(b.psd for b in parts),
            inputs=sorted({i for b in parts for i in b.inputs}),
        )

    def _image_key(
        self, spec: KernelSpec, kernel: Any, ids_only: bool = False, **inputs: Any
    ) -> dict[str, Any]:
        """The cache key of an image kernel's blocks: its name and numeric parameters on this
        corpus's images (``ids_only``: their ids, for a kernel that never reads an image),
        then what it is computed from (``inputs``) and the content of the files the kernel
        reads (:func:`kernel_files_key`)."""
        return {
            "version": VERSION,
            "corpus": self.image_ids_fingerprint if ids_only else self.image_fingerprint,
            "kernel": spec.name,
            "params": numeric_params(kernel),
            **inputs,
            **kernel_files_key(kernel),
        }

    def _shared_image_blocks(
        self,
        key: dict[str, Any],
        compute: Callable[[], dict[str, np.ndarray]],
        psd: bool,
        kernel: Any = None,
        inputs: Sequence[str] | None = None,
    ) -> Blocks:
        """The image blocks of ``key`` (computed by ``compute`` or loaded), marked not PSD
        unless ``psd``. The systems of a run share the image kernel: its KCCA factors go to the
        disk cache too, so worker processes and later runs load them instead of factorising
        again. The entries' input files: ``inputs``, else the corpus's images (none for a
        kernel of ids) and the files ``kernel`` reads."""
        if inputs is None:
            ids = getattr(kernel, "item_type", None) == "ids"
            images = split_files(self.corpus) if ids else image_inputs(self.corpus)
            inputs = images + list(kernel_files(kernel).values())
        blocks = self._blocks(IMAGE_STAGE, key, compute, inputs)
        if not psd:
            blocks = dataclasses.replace(blocks, psd=False)
        self.factor_cache.persist(
            blocks.train,
            factor_store(self.cache, {"stage": IMAGE_STAGE, "key": config_key(key)}, blocks.inputs),
        )
        return blocks

    def image_factor(self, spec: KernelSpec, p: float) -> None:
        """Compute (or load) the KCCA factor of ``spec``'s training block raised to the image
        power ``p`` now (:meth:`kcca._solver.FactorCache.prefactor`), before systems share it;
        with the run's solver precision, as the systems' fits will ask for it."""
        self.factor_cache.prefactor(
            self.image_blocks(spec).train,
            view="Kx",
            power=p,
            precision=self.config.settings.precision,
            backend=self.backend,
        )

    def nn_text_blocks(
        self, spec: Any, candidate: KernelSpec, splits: tuple[str, ...] = ("dev", "test")
    ) -> Blocks:
        """Blocks of one of an NN system's candidate text kernels (a candidate may name its
        own word kernel in its params; else the system's is used)."""
        params = dict(candidate.params)
        word_kernel = params.pop("word_kernel", None)
        return self.text_blocks(
            KernelSpec(candidate.name, params),
            spec.preprocessing,
            word_kernel or spec.word_kernel,
            splits=splits,
        )

    # ------------------------------------------------------------------- text side
    def preprocessor(self, preset: str):
        from features.text._pipeline import CaptionPreprocessor, default_preset

        name = default_preset(self.corpus.name) if preset == "auto" else preset
        return (
            CaptionPreprocessor.from_preset(name, seed=self.seed)
            if name in _presets()
            else _custom_preset(name, self.seed)
        )

    def tokens(self, preset: str):
        """The corpus preprocessed with ``preset`` (cached by ``preprocess_corpus``)."""
        memo = ("tokens", preset)
        if memo not in self._memo:
            from features.text._corpus_tokens import preprocess_corpus

            self._memo[memo] = preprocess_corpus(
                self.corpus, self.preprocessor(preset), cache=self.cache, progress=self.progress
            )
        return self._memo[memo]

    def text_items(self, preset: str) -> dict[str, list]:
        """Training items (5 captions per image) and the dev/test pools (caption #2)."""
        pre = self.tokens(preset)
        out: dict[str, list] = {
            "train": [list(map(list, pre.tokens[i])) for i in self.corpus.split("train")]
        }
        for split in ("dev", "test"):
            out[split] = [list(pre.caption_tokens(cid)) for _, cid, _ in self.corpus.pool(split)]
        return out

    def caption_id_items(self) -> dict[str, list]:
        """:meth:`text_items` as caption ids (``IMAGE#N``), for kernels of ``item_type =
        "ids"``: a training item is the tuple of its image's caption ids."""
        corpus = self.corpus
        out: dict[str, list] = {
            "train": [
                tuple(caption_id(i, n) for n in range(len(corpus.captions[i])))
                for i in corpus.split("train")
            ]
        }
        for split in ("dev", "test"):
            out[split] = [cid for _, cid, _ in corpus.pool(split)]
        return out

    def word_kernel(self, name: str):
        memo = ("word-kernel", name)
        if memo not in self._memo:
            from features.text._word_kernels import WordKernelConfig, build_word_kernel

            self._memo[memo] = build_word_kernel(
                name,
                self.corpus,
                WordKernelConfig(seed=self.seed),
                cache=self.cache,
                progress=self.progress,
            )
        return self._memo[memo]

    def text_kernel(self, spec: KernelSpec, word_kernel: str | None = None):
        """An unfitted text kernel: spec params, the run's seed (unless the spec sets
        ``random_state``), the word kernel if any, and the run's execution settings."""
        supplied = {} if word_kernel is None else {"word_kernel": self.word_kernel(word_kernel)}
        kernel = spec.build(**supplied)
        if "random_state" in kernel.get_params(deep=False) and "random_state" not in spec.params:
            kernel.set_params(random_state=self.seed)
        return with_execution(kernel, **self.config.execution.kernel_settings())

    def text_blocks(
        self,
        spec: KernelSpec,
        preset: str,
        word_kernel: str | None = None,
        splits: tuple[str, ...] = SPLITS,
    ) -> Blocks:
        """Blocks of a text kernel; ``splits`` may leave out ``train`` (NN needs none)."""
        kernel = self.text_kernel(spec, word_kernel)
        base, inputs = self._text_key(spec, preset, word_kernel, kernel)
        ids = getattr(kernel, "item_type", None) == "ids"
        if ids and "train" in splits and len(self.corpus.split("train")) > DENSE_TRAIN_LIMIT:
            blocks = self._column_blocks(base, kernel, self.caption_id_items(), ())
            return dataclasses.replace(blocks, inputs=tuple(inputs))
        fitted: dict[str, Any] = {}

        def fitted_kernel():
            if "k" not in fitted:
                items = self.caption_id_items() if ids else self.text_items(preset)
                fitted["items"] = items
                fitted["k"] = kernel.fit(items["train"])
            return fitted["k"], fitted["items"]

        out = {}
        for split in self._gram_bar(spec.name, splits):

            def compute(split=split) -> np.ndarray:
                k, items = fitted_kernel()
                if split == "train":
                    return k.gram_train() if hasattr(k, "gram_train") else k.gram(items["train"])
                return k.gram(items[split])

            out[split] = self._block(TEXT_STAGE, {**base, "block": split}, compute, inputs)
        empty = np.zeros((0, 0))
        return Blocks(
            out.get("train", empty),
            out["dev"],
            out["test"],
            base,
            tuple(inputs),
            psd=bool(getattr(kernel, "positive_semidefinite", True)),
        )

    def _column_blocks(self, key: dict, kernel: Any, items: dict[str, Any], files: Any) -> Blocks:
        """Blocks of a kernel of ids over a large training set (:data:`DENSE_TRAIN_LIMIT`):
        the training kernel as columns on demand, the dev and test blocks as rows on demand
        (:class:`kcca._lowrank.KernelRows`, projected block by block); none is held whole or
        cached (the factors and the results are)."""
        from kcca._lowrank import KernelColumns, KernelRows

        settings = self.config.execution.kernel_settings()
        del settings["progress"]
        fitted = with_execution(kernel, **settings).fit(items["train"])
        n_train = len(items["train"])

        def rows_of(split: str) -> KernelRows:
            pool = items[split]
            return KernelRows(lambda index: fitted.gram(pool[index]), (len(pool), n_train))

        inputs = list(files.values()) if isinstance(files, dict) else list(files)
        train = KernelColumns(fitted, items["train"], argument=f"{key.get('kernel')} (train)")
        return Blocks(
            train,
            rows_of("dev"),
            rows_of("test"),
            {**key, "train block": "columns"},
            tuple(inputs),
            psd=bool(getattr(kernel, "positive_semidefinite", True)),
        )

    def _text_key(
        self, spec: KernelSpec, preset: str, word_kernel: str | None, kernel: Any
    ) -> tuple[dict[str, Any], list[str]]:
        """The cache key every block of a text kernel starts from, and the files behind it. A
        kernel of caption ids (``item_type = "ids"``: the ``vectors`` kernel) reads no
        tokens, so its key holds no preprocessing (and needs no NLTK data)."""
        ids = getattr(kernel, "item_type", None) == "ids"
        sources = ("captions",) if ids else self.text_sources(preset, word_kernel)
        base = {
            "version": VERSION,
            "corpus": self.text_fingerprint(sources),
            "kernel": spec.name,
            "params": numeric_params(kernel),
            "preprocess": None if ids else self.preprocessor(preset).config(),
            "word_kernel": None
            if word_kernel is None
            else {"name": word_kernel, "config": _wk_config(self.seed)},
            **kernel_files_key(kernel),
        }
        inputs = list(text_inputs(self.corpus, sources).values())
        inputs += kernel_files(kernel).values()
        return base, inputs

    def all_caption_rows(
        self,
        spec: KernelSpec,
        preset: str,
        word_kernel: str | None = None,
        *,
        split: str = "test",
        captions_per_image: int = 5,
    ) -> "CaptionRows":
        """The text kernel between the first ``captions_per_image`` captions of every image
        of ``split`` (image by image) and the training items, computed in row blocks on
        demand (the all-captions protocol, :mod:`kcca._systems.all_captions`): at COCO's size
        the whole block would not fit in memory."""
        kernel = self.text_kernel(spec, word_kernel)
        base, inputs = self._text_key(spec, preset, word_kernel, kernel)
        ids = getattr(kernel, "item_type", None) == "ids"
        captions = all_caption_ids(self.corpus, split, captions_per_image)
        fitted: dict[str, Any] = {}

        def rows(index: slice) -> np.ndarray:
            if "k" not in fitted:
                train = (self.caption_id_items() if ids else self.text_items(preset))["train"]
                fitted["k"] = kernel.fit(train)
                fitted["items"] = captions if ids else self._caption_tokens(preset, captions)
            return np.asarray(fitted["k"].gram(fitted["items"][index]))

        from kcca._lowrank import KernelRows

        key = {**base, "block": f"{split} all captions", "captions_per_image": captions_per_image}
        shape = (len(captions), len(self.corpus.split("train")))
        return CaptionRows(key, tuple(inputs), KernelRows(rows, shape))

    def _caption_tokens(self, preset: str, caption_ids: Sequence[str]) -> list[list]:
        pre = self.tokens(preset)
        return [list(pre.caption_tokens(cid)) for cid in caption_ids]

    def release_text_blocks(self) -> None:
        """Forget the text blocks held in memory (they stay in the disk cache): a run over
        many systems then holds one system's text kernel at a time."""
        for memo in [m for m in self._memo if isinstance(m, tuple) and m[0] == TEXT_STAGE]:
            del self._memo[memo]
        self.factor_cache.clear_view("Ky")

    # ------------------------------------------------------------------- caching
    def _block(self, stage: str, key: dict, compute, inputs: Sequence[str] = ()) -> np.ndarray:
        memo = (stage, config_key(key))
        if memo not in self._memo:
            self._memo[memo] = np.asarray(
                self.cache.get_or_compute(stage, key, compute, inputs, expect=np.ndarray)
            )
        return self._memo[memo]

    def _blocks(self, stage: str, key: dict, compute, inputs: Sequence[str] = ()) -> Blocks:
        memo = (stage, config_key(key))
        if memo not in self._memo:
            value = self.cache.get_or_compute(stage, key, compute, inputs, expect=dict)
            self._memo[memo] = Blocks(
                value["train"], value["dev"], value["test"], key, tuple(inputs)
            )
        return self._memo[memo]


def _mixed_column_blocks(kernel: Any, parts: list[Blocks], key: dict) -> Blocks:
    """A ``mix`` whose parts include training kernels as columns: its training kernel as
    columns too (each column the mix of the parts' columns), its dev and test blocks as rows
    on demand (each row block the mix of the parts')."""
    from kcca._lowrank import CallableColumns, KernelRows, as_column_source

    sources = [as_column_source(b.train, "mix part") for b in parts]
    train = CallableColumns(
        lambda index: kernel.combine([c.columns(index) for c in sources]),
        kernel.combine([np.asarray(c.diag(), dtype=float) for c in sources]),
        argument="mix (train)",
    )

    def rows_of(split: str) -> KernelRows:
        blocks = [b[split] for b in parts]

        def rows(index: slice) -> np.ndarray:
            return kernel.combine(
                [b.rows(index) if isinstance(b, KernelRows) else b[index] for b in blocks]
            )

        return KernelRows(rows, blocks[0].shape)

    return Blocks(
        train,
        rows_of("dev"),
        rows_of("test"),
        {**key, "train block": "columns"},
        tuple(i for b in parts for i in b.inputs),
        psd=getattr(kernel, "positive_semidefinite", True) and all(b.psd for b in parts),
    )


def kernel_files(kernel: Any) -> dict[str, str]:
    """The files ``kernel`` reads besides its items, by role (``Kernel.input_files``)."""
    files = getattr(kernel, "input_files", None)
    return dict(files()) if callable(files) else {}


def kernel_files_key(kernel: Any) -> dict[str, str]:
    """``{"files": digest}`` of the content of :func:`kernel_files` for a cache key; empty
    for a kernel that reads no file (its key stays as it was)."""
    files = kernel_files(kernel)
    return {"files": files_digest(files)} if files else {}


def factor_store(cache: Cache, kernel: Any, inputs: Sequence[str] = ()) -> Any:
    """Where :meth:`kcca._solver.FactorCache.persist` keeps the factors of one kernel: entries of
    stage :data:`FACTOR_STAGE` in ``cache`` keyed by the factor's settings and ``kernel``, a
    JSON-like config identifying the kernel's values (its blocks' cache key), with the files
    behind it as inputs; None when the cache is disabled."""
    if not cache.enabled:
        return None

    def store(config: dict, compute: Any) -> Any:
        return cache.get_or_compute(
            FACTOR_STAGE, {**config, "kernel": kernel}, compute, inputs, expect=KernelSide
        )

    return store


def workspace_for(
    corpus: Corpus,
    workspace: Workspace | None = None,
    config: RunConfig | None = None,
    cache: Cache | None = None,
) -> Workspace:
    """The workspace a one-system call runs in: ``workspace`` when given (it must be
    ``corpus``'s), else a new one from ``config`` (default settings) and ``cache`` (none)."""
    if workspace is None:
        return Workspace(corpus, cache or Cache(None), config or RunConfig())
    if config is not None or cache is not None:
        raise ValueError("give a workspace or a config and cache, not both")
    if workspace.corpus is not corpus:
        raise ValueError("the workspace was made for another corpus object")
    return workspace


class ImagePixels(Sequence):
    """The RGB ``uint8`` images of ``ids``, read from the corpus when indexed (not kept)."""

    def __init__(self, corpus: Corpus, ids: Sequence[str]):
        self.corpus = corpus
        self.ids = list(ids)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return ImagePixels(self.corpus, self.ids[i])
        return self.corpus.load_image(self.ids[i])


def _presets() -> dict:
    from features.text._pipeline import PRESETS

    return PRESETS


#: presets defined here for corpora without NLTK data (the demo): no tagger, no WordNet
LOCAL_PRESETS: dict[str, dict[str, Any]] = {
    "demo": dict(
        source="captions",
        tokenizer="whitespace",
        spelling=False,
        compounds=False,
        stop_words=(
            "a",
            "an",
            "the",
            "of",
            "to",
            "and",
            "with",
            "that",
            "this",
            "than",
            "we",
            "you",
            "is",
            "are",
            "there",
            "its",
            "it",
            "in",
            "on",
            "at",
            "by",
            "its",
            "some",
        ),
        lemmatize=False,
        tagger=None,
    ),
}


def _custom_preset(name: str, seed: int):
    from features.text._pipeline import CaptionPreprocessor

    if name not in LOCAL_PRESETS:
        raise SettingError(
            f"unknown preprocessing preset {name!r}: use one of "
            f"{sorted(_presets()) + sorted(LOCAL_PRESETS)}"
        )
    return CaptionPreprocessor(**LOCAL_PRESETS[name], seed=seed)


def _wk_config(seed: int) -> dict:
    """The word kernels' settings (the paper's, with the run's seed), for cache keys."""
    from dataclasses import asdict

    from features.text._word_kernels import WordKernelConfig

    return asdict(WordKernelConfig(seed=seed))
