"""Benchmark: the model file of a ``vectors`` system at COCO's training size (kcca._model).

Two modes. By default (**shapes**), no system is run: the vectors of a synthetic corpus in
COCO's layout (``scripts/synthetic_karpathy.py``'s planted vectors: 113,287 training, 5,000
test images, five captions each, 64- and 48-dimensional) are written as the ``vectors``
kernel's files, both kernels of its ``VEC`` system (linear image vectors, cosine caption
vectors) are fitted on the training items by the library's code, and the KCCA directions are
seeded random numbers of the shapes the VEC grid gives at most (2 kappas, n up to 64; 15
models per task): a model file's size and load time depend on those shapes only. The test
pool (5,000 images and a caption of each) is projected by the library's code. Peak memory
stays under 2 GB. With ``--run``: (``scripts/synthetic_karpathy.py``: 113,287 training
images, 5,000 dev and 5,000 test images, five captions each, image vectors of 64 and caption
vectors of 48 dimensions with a planted shared structure) and its ``VEC`` system (a linear
image kernel and a cosine caption kernel, the paper's grid of 15 models per task chosen on
dev) are run and fitted by the library's own path (:func:`kcca._systems.run_system` with
``keep_models``, :func:`kcca._model.fit_system`, as ``kcca fit-model`` does), then:

* **ours**: the model file as ``kcca fit-model`` writes it: both sides folded (primal
  directions ``X^T W``, dimension x n per kappa, :mod:`kcca._model.vectors`);
* **kept** (the peer): the same run's model keeping every training vector and the dual
  directions (training items x n per kappa), what a kernel whose rows need the training
  vectors (RBF, polynomial, intersection) must keep;

each saved, its size taken, and loaded ``--loads`` times (median load time); then the test
split's vectors, given as new vectors files, are ranked by each: with ``--run`` their rankings
are checked equal to the run's (every query, every candidate), in the shapes mode ours and
kept are checked equal to each other. Every figure is of one process; the machine's load
average is recorded beside them. ``--run`` at COCO's size takes more than 4 GB: on a shared
machine run it under ``flock /work/notes/bigmem.lock``.

Run: ``python benchmarks/bench_vectors_model.py [--train 113287] [--run [--layout coco]]``;
prints a table and writes ``benchmarks/results/vectors_model.json``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from _results import write_result  # noqa: E402

#: test images of each layout (scripts/synthetic_karpathy.py's LAYOUTS)
LAYOUT_TEST = {"coco": 5000, "flickr30k": 1000}


def peak_rss_gb() -> float:
    """The process's peak resident set so far (VmHWM), in GB (0 where /proc is absent)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024 / 1e9
    except OSError:
        pass
    return 0.0


def kept_model(model: Any, result: Any, corpus: Any, ws: Any) -> Any:
    """``model`` keeping the training vectors and the run's dual directions (the peer)."""
    from kcca._model.vectors import vectors_encoder

    sides = {}
    for side, spec, items in (
        ("image", model.spec.image_kernel, list(corpus.split("train"))),
        ("text", model.spec.text_kernel, ws.caption_id_items()["train"]),
    ):
        kernel = spec.build().fit(items)
        sides[side] = vectors_encoder(side, kernel, fold=False)
    return dataclasses.replace(
        model, image=sides["image"], text=sides["text"], projections=result.models
    )


def test_files(folder: Path, corpus: Any, out: Path) -> tuple[Path, Path]:
    """The test split's image vectors and its pool captions' vectors, as new files."""
    paths = []
    for name, ids in (
        ("images", list(corpus.split("test"))),
        ("captions", [cid for _, cid, _ in corpus.pool("test")]),
    ):
        with np.load(folder / "experiments" / f"{name}.npz") as f:
            index = {str(i): r for r, i in enumerate(f["ids"])}
            vectors = np.asarray(f["vectors"][[index[i] for i in ids]])
        path = out / f"test-{name}.npz"
        np.savez(path, ids=np.array(ids), vectors=vectors)
        paths.append(path)
    return paths[0], paths[1]


def measure(model: Any, path: Path, loads: int, images: Path, captions: Path) -> tuple[dict, dict]:
    """Save, size, load (median of ``loads``) and the rankings of the test vectors."""
    from kcca._model import load_model, save_model

    t = time.perf_counter()
    save_model(model, path)
    saved = time.perf_counter() - t
    times = []
    for _ in range(loads):
        t = time.perf_counter()
        loaded = load_model(path)
        times.append(time.perf_counter() - t)
    t = time.perf_counter()
    _, zx = loaded.project_vectors("image", images)
    annotation = ranked_in_blocks(loaded, "annotation", zx, loaded.caption_pool.projections)
    _, zy = loaded.project_vectors("text", captions)
    search = ranked_in_blocks(loaded, "search", zy, loaded.image_pool.projections)
    ranked = time.perf_counter() - t
    return {
        "bytes": path.stat().st_size,
        "save_s": round(saved, 2),
        "load_s_median": round(statistics.median(times), 3),
        "load_s": [round(x, 3) for x in times],
        "rank_test_s": round(ranked, 2),
        "queries": int(zx[next(iter(zx))].shape[0] + zy[next(iter(zy))].shape[0]),
    }, {"annotation": annotation, "search": search}


def ranked_in_blocks(model: Any, task: str, queries: dict, candidates: dict) -> np.ndarray:
    """``model.rank_pool`` of the queries 256 at a time (each model's scores of a block only)."""
    n = len(next(iter(queries.values())))
    return np.concatenate(
        [
            model.rank_pool(task, {k: q[i : i + 256] for k, q in queries.items()}, candidates)
            for i in range(0, n, 256)
        ]
    )


def equal(a: dict, b: dict) -> bool:
    """Whether two tables of rankings (task -> array) are equal, every task."""
    return all(np.array_equal(a[task], b[task]) for task in ("annotation", "search"))


def shapes(args: argparse.Namespace) -> dict:
    """The shapes mode (module docstring): fitted encoders, random directions of the grid's
    largest shapes, the test pool projected; ours against kept."""
    from scripts.synthetic_karpathy import EXPERIMENT, planted_vectors

    n_test = LAYOUT_TEST[args.layout]
    n = args.train + n_test
    rng = np.random.default_rng(args.seed)
    image_vectors, caption_vectors = planted_vectors(n, rng, (64, 48, 16), 1.0)
    ids = [f"synthetic2014/img{i:06d}.jpg" for i in range(n)]
    caption_ids = [f"{i}#{k}" for i in ids for k in range(5)]
    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        folder = Path(tmp)
        np.savez(folder / "images.npz", ids=np.array(ids), vectors=image_vectors)
        np.savez(folder / "captions.npz", ids=np.array(caption_ids), vectors=caption_vectors)
        del image_vectors, caption_vectors
        (folder / "VEC.toml").write_text(
            EXPERIMENT.format(images="images.npz", captions="captions.npz"), encoding="utf-8"
        )
        t = time.perf_counter()
        ours_model, kept_model_ = shaped_models(folder, ids, args)
        built = time.perf_counter() - t
        test = ids[args.train :]
        images, captions = folder / "test-images.npz", folder / "test-captions.npz"
        with np.load(folder / "images.npz") as f:
            np.savez(images, ids=np.array(test), vectors=f["vectors"][args.train :])
        with np.load(folder / "captions.npz") as f:
            rows = np.arange(args.train, n) * 5 + 2
            np.savez(captions, ids=np.array([f"{i}#2" for i in test]), vectors=f["vectors"][rows])
        ours, a = measure(ours_model, folder / "ours.kcca.npz", args.loads, images, captions)
        kept, b = measure(kept_model_, folder / "kept.kcca.npz", args.loads, images, captions)
        ours["equal_to_kept"] = kept["equal_to_ours"] = equal(a, b)
    return {
        "mode": "shapes",
        "layout": args.layout,
        "n_train": args.train,
        "n_test": n_test,
        "build_s": round(built, 1),
        "ours": ours,
        "kept": kept,
        "size_ratio_kept_over_ours": round(kept["bytes"] / ours["bytes"], 1),
        "load_ratio_kept_over_ours": round(kept["load_s_median"] / ours["load_s_median"], 1),
        "peak_rss_gb": round(peak_rss_gb(), 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def shaped_models(folder: Path, ids: list[str], args: argparse.Namespace) -> tuple[Any, Any]:
    """The folded model and the one keeping the training vectors, of one set of random
    directions (the grid's largest shapes) and the encoders fitted on the training items."""
    from kcca._model import CaptionPool, FittedSystem, ImagePool
    from kcca._model.vectors import fold, vectors_encoder
    from kcca._systems import load_spec
    from kcca._systems.fitted import Projections

    spec = load_spec(folder / "VEC.toml")
    train, test = ids[: args.train], ids[args.train :]
    kernels = {
        "image": spec.image_kernel.build().fit(train),
        "text": spec.text_kernel.build().fit([tuple(f"{i}#{k}" for k in range(5)) for i in train]),
    }
    rng = np.random.default_rng(args.seed + 1)
    kappas = spec.grid.kappas
    width = max(spec.grid.n_values(args.train))
    models = [
        (float(k), int(m)) for m in sorted(spec.grid.n_values(args.train))[::-1] for k in kappas
    ]
    weights = {s: {float(k): rng.normal(size=(args.train, width)) for k in kappas} for s in "xy"}
    offsets = {s: {float(k): rng.normal(size=width) for k in kappas} for s in "xy"}
    selected = {"annotation": models[:15], "search": models[:15]}
    dual = Projections(
        1.0, 1.0, selected, weights["x"], offsets["x"], weights["y"], offsets["y"], width
    )
    kept = {side: vectors_encoder(side, kernels[side], fold=False) for side in kernels}
    folded = fold(
        fold(dual, "image", kernels["image"].train_vectors_), "text", kernels["text"].train_vectors_
    )
    ours = {side: vectors_encoder(side, kernels[side], fold=True) for side in kernels}
    captions = [f"{i}#2" for i in test]
    info = {"n_train": args.train, "note": "random directions of the grid's largest shapes"}
    chosen = {"p": 1.0, "d": 1.0, "criterion": 0.0, "selected": selected}
    empty = {float(k): np.zeros((0, width)) for k in kappas}

    def model(encoders: dict, projections: Projections) -> Any:
        return FittedSystem(
            spec,
            "synthetic",
            chosen,
            encoders["image"],
            encoders["text"],
            projections,
            ImagePool([], empty, "synthetic test"),
            CaptionPool([], [], empty, "synthetic test (caption #2)", []),
            dict(info),
        )

    ours_model, kept_model_ = model(ours, folded), model(kept, dual)
    _, zx = kept_model_.project_vectors("image", kernels["image"].vectors_, test)
    _, zy = kept_model_.project_vectors("text", kernels["text"].vectors_, captions)
    for m in (ours_model, kept_model_):
        m.image_pool = ImagePool(list(test), zx, "synthetic test")
        m.caption_pool = CaptionPool(
            captions, ["-"] * len(captions), zy, "synthetic test (caption #2)", list(test)
        )
    return ours_model, kept_model_


def run(args: argparse.Namespace) -> dict:
    from kcca._cache import Cache
    from kcca.data._json_splits import load_json_splits
    from kcca._model import fit_system
    from kcca._systems import load_spec, run_system
    from kcca._systems.blocks import Workspace
    from kcca._systems.config import RunConfig
    from scripts.synthetic_karpathy import write_example

    with tempfile.TemporaryDirectory(dir=args.tmp) as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        write_example(folder, args.layout, args.train, args.seed, 1.0)
        corpus = load_json_splits(folder / "dataset_synthetic.json", None, require_splits=True)
        spec = load_spec(folder / "experiments" / "VEC.toml")
        written = time.perf_counter() - t
        ws = Workspace(corpus, Cache(folder / "cache"), RunConfig.of(progress=False))
        t = time.perf_counter()
        result = run_system(corpus, spec, workspace=ws, keep_models=True)
        ran = time.perf_counter() - t
        t = time.perf_counter()
        model = fit_system(corpus, spec, workspace=ws, result=result)
        fitted = time.perf_counter() - t
        images, captions = test_files(folder, corpus, folder)
        ours, ranked = measure(model, folder / "ours.kcca.npz", args.loads, images, captions)
        ours["equal_to_run"] = equal(ranked, result.rankings)
        peer = kept_model(model, result, corpus, ws)
        kept, ranked = measure(peer, folder / "kept.kcca.npz", args.loads, images, captions)
        kept["equal_to_run"] = equal(ranked, result.rankings)
    return {
        "mode": "run",
        "layout": args.layout,
        "n_train": args.train,
        "n_test": len(corpus.split("test")),
        "selected": {k: len(v) for k, v in result.models.selected.items()},
        "chosen": {k: v for k, v in result.chosen.items() if k != "selected"},
        "corpus_s": round(written, 1),
        "run_system_s": round(ran, 1),
        "fit_system_s": round(fitted, 1),
        "ours": ours,
        "kept": kept,
        "size_ratio_kept_over_ours": round(kept["bytes"] / ours["bytes"], 1),
        "load_ratio_kept_over_ours": round(kept["load_s_median"] / ours["load_s_median"], 1),
        "peak_rss_gb": round(peak_rss_gb(), 2),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--train", type=int, default=113_287, help="training images (COCO's)")
    p.add_argument("--layout", choices=sorted(LAYOUT_TEST), default="coco")
    p.add_argument(
        "--run",
        action="store_true",
        help="run and fit the system (run_system, fit_system) instead of random directions "
        "(over 4 GB at COCO's size)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--loads", type=int, default=5, help="loads timed per model file")
    p.add_argument("--tmp", default=None, help="folder for the corpus, cache and model files")
    p.add_argument("--out", default=str(HERE / "results" / "vectors_model.json"))
    args = p.parse_args(argv)
    res = run(args) if args.run else shapes(args)
    print(f"load average before/after: {res['load_average']}; peak RSS {res['peak_rss_gb']} GB")
    print(f"{res['mode']}: {res['n_train']:,} training images, {res['n_test']:,} test images")
    print(f"{'model file':<28} {'MB':>9} {'load s':>8} {'rank test s':>12} {'equal':>6}")
    for name, r in (("ours (folded)", res["ours"]), ("kept (training vectors)", res["kept"])):
        same = r.get("equal_to_run", r.get("equal_to_kept", r.get("equal_to_ours")))
        print(
            f"{name:<28} {r['bytes'] / 1e6:>9.1f} {r['load_s_median']:>8.3f} "
            f"{r['rank_test_s']:>12.2f} {str(same):>6}"
        )
    print(
        f"kept / ours: size {res['size_ratio_kept_over_ours']}x, "
        f"load {res['load_ratio_kept_over_ours']}x"
    )
    write_result(args.out, res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
