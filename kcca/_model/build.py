"""Fit a :class:`~kcca._model.saved.FittedSystem` from a system spec and a corpus.

:func:`fit_system` takes what :func:`kcca._systems.run_system` fitted (``keep_models=True``;
every stage cached: kernel blocks, each (p, d)'s dev grid, the test rankings): p and d frozen
on dev and, per task, the directions of the 15 dev-selected (kappa, n) models (Section 4.1.3)
from the very grid that ranked the test pool (:class:`kcca._systems.fitted.Projections`). It
adds the image and text kernels' state fitted on the training items (what a new query is
compared with) and the test pools' projections; nothing is solved a second time. A side whose
kernel is ``vectors`` keeps a :class:`~kcca._model.vectors.VectorsEncoder` (its linear or
cosine directions folded into the vectors' space, else its training vectors).

:func:`demo_model` does this on the embedded demo corpus with the settings of ``kcca demo``
(its defaults, small codebooks, the TRI5 system) and caches the model file
(:mod:`kcca._model.file_format`) in the cache folder, so ``--model demo`` works out of the box.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any


from kcca._cache import Cache, config_key
from kcca.data._corpus import Corpus
from kcca.data._errors import DataError
from kcca._model.encoders import (
    ImageEncoder,
    TextEncoder,
    query_preprocessor,
    slim_image_kernel,
    spec_dict,
)
from kcca._model.vectors import VectorsEncoder, can_fold, fold, vectors_encoder
from kcca._model.saved import (
    FORMAT_VERSION,
    CaptionPool,
    FittedSystem,
    ImagePool,
    ModelFormatError,
    load_model,
    save_model,
)
from kcca._systems.fitted import Projections
from kcca._systems.spec import SystemSpec

log = logging.getLogger(__name__)

MODEL_STAGE = "fitted-model"
#: the file name ending of model files (a zip that ``np.load`` opens)
MODEL_SUFFIX = ".kcca.npz"
DEMO_SYSTEM = "TRI5"


def fit_system(
    corpus: Corpus,
    spec: SystemSpec,
    *,
    workspace: Any = None,
    config: Any = None,
    cache: Cache | None = None,
    result: Any = None,
) -> FittedSystem:
    """Fit ``spec`` (a KCCA system) on ``corpus`` and return the fitted system.

    ``workspace`` (a :class:`kcca._systems.Workspace`) shares cached features and kernel blocks
    and carries the run's configuration; without one, a workspace is made from ``config`` (a
    :class:`kcca._systems.config.RunConfig`, default settings) and ``cache``; ``result`` a
    :class:`kcca._systems.SystemResult` of this spec already run in that workspace.
    """
    from kcca._systems.blocks import workspace_for
    from kcca._systems.runner import run_system

    if spec.model != "kcca":
        raise DataError(
            f"system {spec.label!r} is a nearest-neighbour system (model = "
            f"{spec.model!r}): only KCCA systems can be saved as models"
        )
    ws = workspace_for(corpus, workspace, config, cache)
    timings: dict[str, float] = {}
    t = time.perf_counter()
    if result is None or result.models is None:
        result = run_system(corpus, spec, workspace=ws, keep_models=True)
    timings["run_system (dev choice, cached stages)"] = time.perf_counter() - t
    chosen = result.chosen
    projections = result.models
    image_pool, caption_pool = _test_pools(ws, spec, projections)
    t = time.perf_counter()
    image_encoder, projections = _image_side(ws, spec, projections)
    timings["image kernel state"] = time.perf_counter() - t
    t = time.perf_counter()
    text_encoder, projections = _text_side(ws, spec, projections)
    timings["text kernel state"] = time.perf_counter() - t
    if isinstance(text_encoder, TextEncoder):
        test_tokens = ws.text_items(spec.preprocessing)["test"]
        caption_pool.tokens = [list(t) for t in test_tokens]
    info = {
        "timings": {k: round(v, 2) for k, v in timings.items()},
        "test_metrics": result.table(),
        "n_train": len(corpus.split("train")),
        "n_directions": projections.n_directions,
        "query_preprocessing": text_encoder.note
        if isinstance(text_encoder, TextEncoder)
        else "captions are given as vectors",
    }
    return FittedSystem(
        spec,
        corpus.name,
        dict(chosen),
        image_encoder,
        text_encoder,
        projections,
        image_pool,
        caption_pool,
        info,
    )


def _test_pools(
    ws: Any, spec: SystemSpec, projections: Projections
) -> tuple[ImagePool, CaptionPool]:
    """The test pool's images and captions (caption #k of each image), projected by the
    run's directions from the run's kernel blocks (row blocks for a large training set)."""
    corpus = ws.corpus
    image = ws.image_blocks(spec.image_kernel)
    text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
    test_ids = list(corpus.split("test"))
    image_pool = ImagePool(
        test_ids,
        projections.project_blocks(projections.project_x, image.test),
        f"{corpus.name} test",
        _pool_source(corpus, test_ids),
        [tuple(corpus.captions[i]) for i in test_ids],
    )
    pool = corpus.pool("test")
    caption_pool = CaptionPool(
        [cid for _, cid, _ in pool],
        [text for _, _, text in pool],
        projections.project_blocks(projections.project_y, text.test),
        f"{corpus.name} test (caption #{corpus.pool_caption_index})",
        [i for i, _, _ in pool],
        None,
    )
    return image_pool, caption_pool


def _vectors_side(
    side: str, kernel: Any, items: Any, projections: Projections
) -> tuple[VectorsEncoder, Projections]:
    """A ``vectors`` side's encoder, fitted on the training ``items``, and ``projections``
    with its directions folded where the function allows (:mod:`kcca._model.vectors`)."""
    if "progress" in kernel.get_params(deep=False):
        kernel.set_params(progress=False)
    kernel.fit(items)
    folds = can_fold(kernel.function, side, projections.p)
    if folds:
        projections = fold(projections, side, kernel.train_vectors_)
    return vectors_encoder(side, kernel, folds), projections


def _image_side(
    ws: Any, spec: SystemSpec, projections: Projections
) -> tuple[ImageEncoder | VectorsEncoder, Projections]:
    """The image side's encoder (and the projections, folded for a ``vectors`` kernel of a
    dot product)."""
    from features.kernels._vectors import VectorsKernel

    kernel = spec.image_kernel.build()
    if isinstance(kernel, VectorsKernel):
        train = list(ws.corpus.split("train"))
        return _vectors_side("image", kernel, train, projections)
    return _image_encoder(ws, spec), projections


def _text_side(
    ws: Any, spec: SystemSpec, projections: Projections
) -> tuple[TextEncoder | VectorsEncoder, Projections]:
    """The text side's encoder (and the projections, folded for a ``vectors`` kernel of a
    dot product)."""
    from features.kernels._vectors import VectorsKernel

    kernel = ws.text_kernel(spec.text_kernel, spec.word_kernel)
    if isinstance(kernel, VectorsKernel):
        train = ws.caption_id_items()["train"]
        return _vectors_side("text", kernel, train, projections)
    return _text_encoder(ws, spec, seed=ws.seed), projections


def _image_encoder(ws: Any, spec: SystemSpec) -> ImageEncoder:
    """The image side's fitted state: codebooks, descriptor configs, the fitted image kernel."""
    from features._image_features import feature_config

    probe = spec.image_kernel.build()
    item_type = getattr(probe, "item_type", None)
    if item_type in ("image-pixels", "image-mixture", "ids"):
        what = {
            "image-pixels": "reads pixels",
            "image-mixture": "mixes other kernels",
            "ids": "reads image ids",
        }[item_type]
        raise DataError(
            f"system {spec.label!r}: image kernel {spec.image_kernel.name!r} {what}; "
            "saved models support feature-based image kernels and the vectors kernel only",
            fix="fit a system whose image kernel is pyramid, histogram or vectors, or "
            "evaluate this one with kcca reproduce --experiments",
        )
    power = {"p": 1} if "p" in probe.get_params(deep=False) else {}
    pipeline = ws.image_pipeline()
    codebooks = pipeline.fit_codebooks()
    train_ids = tuple(ws.corpus.split("train"))
    records = ws.image_features().items(train_ids)
    kernel = spec.image_kernel.build(**power)
    if "progress" in kernel.get_params(deep=False):
        kernel.set_params(progress=False)
    kernel.fit(records)
    sizes = {(int(r.height), int(r.width)) for r in records}
    return ImageEncoder(
        feature_configs={n: feature_config(ft) for n, ft in pipeline.feature_types.items()},
        codebooks=dict(codebooks),
        levels=int(pipeline.config.levels),
        image_size=sizes.pop() if len(sizes) == 1 else None,
        config=spec_dict(pipeline.config),
        kernel=slim_image_kernel(kernel, train_ids),
        train_ids=train_ids,
    )


def _text_encoder(ws: Any, spec: SystemSpec, seed: int) -> TextEncoder:
    """The text side's fitted state: query preprocessor, fitted text kernel, vocabulary."""
    from kcca.data._corpus import caption_id

    preset = spec.preprocessing
    training = ws.preprocessor(preset)
    pre, note = query_preprocessor(training, seed=seed)
    corpus = ws.corpus
    train_ids = corpus.split("train")
    texts = [t for i in train_ids for t in corpus.captions[i]]
    ids = [caption_id(i, n) for i in train_ids for n in range(len(corpus.captions[i]))]
    pre.fit(texts, ids, cache=ws.cache)
    items = ws.text_items(preset)["train"]
    kernel = ws.text_kernel(spec.text_kernel, spec.word_kernel)
    kernel.fit(items)
    if "progress" in kernel.get_params(deep=False):
        kernel.set_params(progress=False)
    vocab = frozenset(w for item in items for cap in item for w in cap)
    return TextEncoder(
        preset, pre, training.get_params()["source"], kernel, vocab, note, n_train=len(items)
    )


def _pool_source(corpus: Corpus, ids: list[str]) -> Any:
    """A reader of the pool's images (for thumbnails) that a model file can hold, or None:
    the pool's image files, or the demo corpus's scene renderer; other sources give none."""
    from kcca.data._demo import DemoImages
    from kcca.data._images import ImageFiles

    images = corpus.images
    if type(images) is ImageFiles:
        return ImageFiles({i: images.paths[i] for i in ids if i in images.paths})
    if type(images) is DemoImages:
        return images
    return None


# ------------------------------------------------------------------------- demo
def demo_spec_and_corpus(**overrides: Any) -> tuple[SystemSpec, Corpus, Any]:
    """``(spec, corpus, image_config)`` of the demo model: ``kcca demo``'s TRI5 system.
    ``overrides``: ``system`` (a demo system's name), ``folder`` (another folder of demo
    experiment files, as ``kcca demo --experiments``), :class:`kcca._demo.DemoSettings` fields,
    and the grid's ``p``, ``d``, ``kappas`` and ``n_count`` (:func:`kcca._demo.demo_systems`)."""
    from kcca.data._demo import make_demo_corpus
    from kcca._demo import DemoSettings, demo_experiments_dir, demo_image_config, demo_systems

    system = overrides.pop("system", None) or DEMO_SYSTEM
    folder = overrides.pop("folder", None)
    grid = {k: overrides.pop(k) for k in ("p", "d", "kappas", "n_count") if k in overrides}
    args = DemoSettings(**overrides)
    image_config = demo_image_config(args.seed, folder)
    corpus = make_demo_corpus(
        n_train=args.n_train,
        n_dev=args.n_dev,
        n_test=args.n_test,
        image_size=args.image_size,
        seed=image_config.seed,
    )
    specs = {s.name: s for s in demo_systems(args.n_train, folder=folder, **grid)}
    if system not in specs:
        raise DataError(
            f"unknown demo system {system!r}; the demo has {sorted(specs)}",
            fix=f"give --demo-system one of {', '.join(specs)} (the systems of "
            f"{folder or demo_experiments_dir()})",
        )
    return specs[system], corpus, image_config


def demo_model(
    cache: Cache | None = None,
    *,
    n_jobs: int = 1,
    progress: bool = False,
    refit: bool = False,
    **overrides: Any,
) -> FittedSystem:
    """The demo model (``kcca demo``'s settings; ``overrides`` such as ``seed``, ``n_test``),
    fitted once and stored in ``cache`` as a model file (stage ``fitted-model``;
    ``info["file"]`` names the file); a cached file that cannot be read is refitted."""
    from kcca import __version__

    cache = cache or Cache(None)
    spec, corpus, image_config = demo_spec_and_corpus(**dict(overrides))
    key = {
        "format_version": FORMAT_VERSION,
        "kcca": __version__,
        "corpus": corpus.name,
        "spec": spec.as_dict(),
        "image_config": spec_dict(image_config),
    }
    path = None
    if cache.enabled:
        assert cache.root is not None  # enabled means a root
        path = Path(cache.root) / MODEL_STAGE / f"demo-{config_key(key)}{MODEL_SUFFIX}"
        if path.is_file() and not refit:
            try:
                model = load_model(path, cache=cache)
                model.info["file"] = str(path)
                return model
            except ModelFormatError as exc:
                log.warning("refitting the demo model: %s", exc)
    from kcca._systems.config import RunConfig

    config = RunConfig.of(
        seed=image_config.seed, image_config=image_config, jobs=n_jobs, progress=progress
    )
    model = fit_system(corpus, spec, config=config, cache=cache)
    if path is not None:
        save_model(model, path)
        model.info["file"] = str(path)  # where it lies (``info`` as saved has no path)
        log.info("saved the demo model to %s", path)
    return model


def resolve_model(
    name: str,
    *,
    cache: Cache | None = None,
    n_jobs: int = 1,
    seed: int | None = None,
    progress: bool = False,
) -> FittedSystem:
    """``"demo"``: :func:`demo_model` (fitted and cached on first use; ``seed`` None: the demo's
    ``run.toml`` seed); else a model file (``cache`` keeps state rebuilt on load, e.g. a POS
    tagger)."""
    if name == "demo":
        return demo_model(cache, n_jobs=n_jobs, progress=progress, seed=seed)
    return load_model(name, cache=cache)
