"""``kcca features``: extract and cache the image features of a data set (Section 3.3).

Fits the colour / texture / SIFT codebooks on a seeded sample of training images, then
computes every requested image's spatial-pyramid histograms, cached one file per image
under ``<cache>/image-features/<key>/`` (an interrupted run resumes). With ``--gram`` it also
computes the pyramid intersection Gram matrix of the split (eq. 8 averaged over the three
feature types, before the power ``p``) on ``--backend`` and caches it. With ``--export FILE``
it writes one vector per image of an image kernel (``--export-kernel``: the pyramid
histograms, or Fisher vectors) in the format of the ``vectors`` kernel
(:mod:`kcca._systems.image_vectors`).
"""

from __future__ import annotations

import argparse
import json
import time

from kcca._cli.common import (
    add_backend_argument,
    add_scheduler_argument,
    backend_from_args,
    cache_from_args,
    check_count,
    data_dir_from_args,
    subparser,
)

HELP = "extract and cache image features (codebooks, spatial pyramid histograms)"


def add_parser(sub) -> argparse.ArgumentParser:
    p = subparser(sub, "features", HELP, run)
    p.add_argument(
        "--corpus",
        choices=("flickr8k", "demo"),
        default="flickr8k",
        help="data set (default flickr8k, read from --data-dir)",
    )
    p.add_argument(
        "--split",
        choices=("train", "dev", "test", "all"),
        default="all",
        help="images to extract (default all splits)",
    )
    p.add_argument(
        "--skip-bad-images",
        action="store_true",
        help="leave unreadable images out and list them (default: stop with an error)",
    )
    add_scheduler_argument(p, "run on that cluster")
    add_backend_argument(p, "--gram (numpy: numba on the CPU)")
    p.add_argument(
        "--gram",
        action="store_true",
        help="also compute and cache the split's pyramid intersection Gram matrix",
    )
    p.add_argument("--levels", type=int, default=2, help="pyramid levels L (default 2)")
    p.add_argument(
        "--codebook-images",
        type=int,
        default=200,
        help="training images sampled for the codebooks (default 200)",
    )
    p.add_argument(
        "--points-per-image",
        type=int,
        default=1000,
        help="descriptor rows sampled per codebook image (default 1000)",
    )
    p.add_argument("--chunk-size", type=int, default=16, help="images per parallel task")
    p.add_argument(
        "--export",
        metavar="FILE",
        help="write each extracted image's vector under --export-kernel to FILE.npz (ids and "
        "vectors) or FILE.npy (with FILE.ids.txt), for the vectors kernel",
    )
    p.add_argument(
        "--export-kernel",
        choices=("pyramid", "histogram", "fisher"),
        default="pyramid",
        help="the image kernel whose vectors --export writes (default pyramid: the weighted "
        "pyramid histograms; fisher: Fisher vectors, fitted on the training images)",
    )
    p.add_argument(
        "--export-params",
        metavar="TABLE",
        default="{}",
        help="that kernel's parameters as an experiment file's inline table, e.g. "
        "'{bin_sizes = [4, 6, 8, 10]}' (default: the kernel's defaults)",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    return p


def load_corpus(args: argparse.Namespace):
    """The corpus named by ``--corpus``."""
    if args.corpus == "demo":
        from kcca.data._demo import make_demo_corpus

        return make_demo_corpus(seed=args.seed)
    from kcca.data._flickr8k import load_flickr8k

    return load_flickr8k(data_dir_from_args(args), judgments=False, lemmas=False)


def run(args: argparse.Namespace) -> int:
    from features._image_features import ImageFeatureConfig, ImageFeaturePipeline

    from kcca._cli.environment_faults import check_outputs
    from kcca.errors import DataError

    start = time.perf_counter()
    check_count(
        "--chunk-size",
        args.chunk_size,
        "give --chunk-size 16 (the default) or another number of images per task",
    )
    check_count(
        "--codebook-images",
        args.codebook_images,
        "give --codebook-images 200 (the default) or another number of training images",
    )
    check_count(
        "--points-per-image",
        args.points_per_image,
        "give --points-per-image 1000 (the default) or another number of descriptor rows",
    )
    if args.levels < 0:
        raise DataError(
            f"--levels must be 0 or more, got {args.levels}",
            fix="give --levels 2 (the default: the paper's 1x1, 2x2 and 4x4 grids) or 0, 1, ...",
        )
    if args.backend != "auto" and not args.gram:
        raise DataError(
            f"--backend {args.backend} is the array backend of --gram, which is not asked for "
            "(the features are extracted on the CPU)",
            fix="add --gram, or drop --backend",
        )
    backend = backend_from_args(args) if args.gram else None  # checked before any extraction
    export_params = _export_params(args)
    check_outputs(args, *_export_outputs(args))
    if args.scheduler:
        from kcca._workers import check_scheduler

        check_scheduler(args.scheduler)
    corpus = load_corpus(args)
    if args.split == "all":
        ids = [i for s in ("train", "dev", "test") for i in corpus.split(s)]
    else:
        ids = list(corpus.split(args.split))
    config = ImageFeatureConfig(
        levels=args.levels,
        n_images=args.codebook_images,
        points_per_image=args.points_per_image,
        seed=args.seed,
    )
    cache = cache_from_args(args)
    pipe = ImageFeaturePipeline(
        corpus,
        config=config,
        cache=cache,
        n_jobs=args.jobs,
        chunk_size=args.chunk_size,
        skip_bad_images=args.skip_bad_images,
        scheduler=args.scheduler,
        progress=not args.quiet,
    )
    result = pipe.extract(ids)
    summary = {
        "corpus": corpus.name,
        "split": args.split,
        "requested": len(ids),
        **result.summary(),
    }
    if args.gram:
        assert backend is not None  # resolved above when --gram
        summary["gram"] = _gram(args, pipe, result, list(result.features), cache, backend)
    if args.export:
        summary["export"] = _export(args, corpus, result, export_params)
    summary["total_seconds"] = round(time.perf_counter() - start, 3)
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        _print(summary)
    return 0


def _export_params(args: argparse.Namespace) -> dict:
    """``--export-params`` read as a TOML inline table, checked against the kernel."""
    from kcca.data._text_files import tomllib

    from kcca.errors import DataError
    from kcca._systems.image_vectors import build_exportable_kernel

    if not args.export and args.export_params != "{}":
        raise DataError(
            "--export-params is given without --export",
            fix="add --export FILE.npz, or drop --export-params",
        )
    try:
        params = tomllib.loads(f"params = {args.export_params}")["params"]
    except tomllib.TOMLDecodeError as exc:
        params = exc
    if not isinstance(params, dict):
        raise DataError(
            f"--export-params {args.export_params!r} is not a TOML inline table ({params})",
            fix="give the parameters as in an experiment file, e.g. "
            "--export-params '{bin_sizes = [4, 6, 8, 10], descriptor = \"color\"}'",
        )
    if args.export:
        build_exportable_kernel(args.export_kernel, params)
    return params


def _export_outputs(args: argparse.Namespace) -> list[tuple[str, str, bool]]:
    """The files --export writes (checked: extension, writable), for ``check_outputs``."""
    if not args.export:
        return []
    from features._vectors_writer import written_files

    return [("--export", str(path), False) for path in written_files(args.export)]


def _export(args: argparse.Namespace, corpus, result, params: dict) -> dict:
    """Write the extracted images' vectors under ``--export-kernel`` to ``--export``."""
    from features._vectors_writer import write_item_vectors
    from kcca._systems.image_vectors import image_kernel_vectors

    t = time.perf_counter()
    exported = image_kernel_vectors(
        corpus,
        args.export_kernel,
        params,
        list(result.features),
        features=result,
        n_jobs=args.jobs,
        progress=not args.quiet,
    )
    files = write_item_vectors(args.export, exported.ids, exported.vectors)
    return {
        "kernel": exported.kernel,
        "params": exported.params,
        "images": len(exported.ids),
        "dim": int(exported.vectors.shape[1]),
        "files": [str(f) for f in files],
        "function": exported.function,
        "seconds": round(time.perf_counter() - t, 3),
    }


def _gram(args, pipe, result, ids, cache, backend: str) -> dict:
    """Pyramid intersection Gram (p = 1) of the extracted images, cached."""
    import hashlib

    from numpy import ndarray

    from features.kernels._image import PyramidKernel

    kern = PyramidKernel(
        p=1,
        levels=args.levels,
        feature_types=tuple(pipe.feature_types),
        backend=backend,
        n_jobs=args.jobs,
        progress=not args.quiet,
    )
    cfg = {
        "features": pipe.feature_key(),
        "kernel": kern.name,
        "params": kern.params,
        "ids": hashlib.sha256("\n".join(ids).encode()).hexdigest(),
    }
    t = time.perf_counter()
    items = result.items(ids)
    gram = cache.get_or_compute(
        "image-gram", cfg, lambda: kern.fit(items).gram(items), expect=ndarray
    )
    out = {
        "shape": list(gram.shape),
        "seconds": round(time.perf_counter() - t, 3),
        "backend": backend,
    }
    if cache.enabled:
        out["path"] = str(cache.path("image-gram", cfg))
    return out


def _print(s: dict) -> None:
    print(
        f"image features of {s['corpus']} ({s['split']}): {s['images']} of {s['requested']} "
        f"images ({s['computed']} computed, {s['cached']} from the cache) in {s['seconds']} s"
    )
    skipped = {**s["codebook_sample_skipped"], **s["skipped"]}
    if skipped:
        print(f"skipped {len(skipped)} bad image(s):")
        for image_id, reason in skipped.items():
            print(f"  {image_id}: {reason}")
    else:
        print("skipped: none")
    print(f"cache folder: {s['cache_dir'] or '(cache disabled: --no-cache)'}")
    if "gram" in s:
        g = s["gram"]
        print(
            f"pyramid Gram {g['shape'][0]} x {g['shape'][1]} on {g['backend']} in "
            f"{g['seconds']} s" + (f": {g['path']}" if "path" in g else "")
        )
    if "export" in s:
        e = s["export"]
        print(
            f"exported {e['images']} {e['kernel']} vectors of {e['dim']} dimensions in "
            f"{e['seconds']} s: {', '.join(e['files'])}"
        )
        path, function = json.dumps(e["files"][0]), json.dumps(e["function"])
        print(
            f'the {e["kernel"]} kernel\'s numbers: [image_kernel] name = "vectors", '
            f"params = {{path = {path}, function = {function}}} (with the path from the "
            "experiment file's folder, inside the experiments folder)"
        )
    print(f"total time: {s['total_seconds']} s")
