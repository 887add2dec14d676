"""Benchmark the three dense descriptor extractors (Sec. 3.3) on real Flickr 8K images.

Times colour (CIELAB), texture (MR8) and dense SIFT per image, and OpenCV's SIFT ``compute``
on the same grid points as the reference; also reports how closely the two SIFT paths agree
(mean per-descriptor Pearson correlation). Single process; BLAS, FFT and OpenCV are limited
to ``--threads`` threads (default 1) so the numbers are per core.

    python benchmarks/bench_descriptors.py --n 200 [--data-dir DIR] [--threads 1]

Writes ``benchmarks/results/descriptors.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path
from typing import Callable

import cv2
import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from features._color import color_descriptors
from features._sift import config as sift_config
from features._sift import opencv_sift_descriptors, sift_descriptors
from features._texture import texture_descriptors
from kcca.data._errors import DataError
from kcca.data._images import read_image
from kcca.data._paths import resolve_data_dir

from _results import write_result

N_IMAGES_FLICKR8K = 8091
RESULTS = Path(__file__).resolve().parent / "results" / "descriptors.json"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200, help="number of images (first N by name)")
    p.add_argument("--data-dir", default=None,
                   help="folder holding flickr8k/images (default $KCCA_DATA_DIR)")
    p.add_argument("--threads", type=int, default=1, help="BLAS/OpenCV threads (default 1)")
    p.add_argument("--out", type=Path, default=RESULTS, help=f"JSON output (default {RESULTS})")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return p.parse_args(argv)


def _images(data_dir: str | None, n: int) -> tuple[list[str], list[np.ndarray]]:
    try:
        folder = resolve_data_dir(data_dir) / "flickr8k" / "images"
    except DataError as exc:
        sys.exit(str(exc))
    paths = sorted(folder.glob("*.jpg"))[:n]
    if not paths:
        sys.exit(f"no .jpg images under {folder}")
    return [p.name for p in paths], [read_image(p) for p in paths]


def _time(fn: Callable[[np.ndarray], object], images: list[np.ndarray], label: str,
          quiet: bool) -> float:
    fn(images[0])  # warm caches (filter spectra, weight matrices)
    total = 0.0
    for img in tqdm(images, desc=label, disable=quiet, leave=False):
        t0 = time.perf_counter()
        fn(img)
        total += time.perf_counter() - t0
    return total / len(images)


def _sift_agreement(images: list[np.ndarray]) -> dict[str, float]:
    corrs = []
    for img in images:
        a = sift_descriptors(img).values
        b = opencv_sift_descriptors(img).values
        keep = (np.linalg.norm(a, axis=1) > 0) & (np.linalg.norm(b, axis=1) > 0)
        ca = a[keep] - a[keep].mean(axis=1, keepdims=True)
        cb = b[keep] - b[keep].mean(axis=1, keepdims=True)
        corrs.append((ca * cb).sum(1) / np.sqrt((ca**2).sum(1) * (cb**2).sum(1)))
    c = np.concatenate(corrs)
    return {"mean": float(c.mean()), "min": float(c.min()), "p01": float(np.percentile(c, 1)),
            "descriptors": int(c.size)}


def main(argv: list[str] | None = None) -> dict:
    args = _parse(argv)
    names, images = _images(args.data_dir, args.n)
    cv2.setNumThreads(args.threads)
    extractors = {
        "color": color_descriptors,
        "texture": texture_descriptors,
        "sift_dense": sift_descriptors,
        "sift_opencv": opencv_sift_descriptors,
    }
    ms: dict[str, float] = {}
    with threadpool_limits(limits=args.threads):
        for label, fn in extractors.items():
            ms[label] = 1000 * _time(fn, images, label, args.quiet)
        agreement = _sift_agreement(images[: min(len(images), 20)])
    ours = ms["color"] + ms["texture"] + ms["sift_dense"]
    report = {
        "n_images": len(images),
        "image_shapes": sorted({str(img.shape) for img in images}),
        "threads": args.threads,
        "ms_per_image": ms,
        "images_per_s": {k: 1000 / v for k, v in ms.items()},
        "sift_dense_speedup_vs_opencv": ms["sift_opencv"] / ms["sift_dense"],
        "sift_config": sift_config(),
        "sift_agreement_pearson_first20": agreement,
        "all_three_ms_per_image": ours,
        "flickr8k_minutes_on_2_cores": ours * N_IMAGES_FLICKR8K / 2 / 1000 / 60,
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count(), "opencv": cv2.__version__,
                    "numpy": np.__version__, "note": "shared machine; timings are indicative"},
        "first_image": names[0],
    }
    print(f"{len(images)} images, {args.threads} thread(s)")
    print(f"{'extractor':<12} {'ms/image':>10} {'images/s':>10} {'vs OpenCV':>10}")
    for label, value in ms.items():
        ratio = ms["sift_opencv"] / value if label.startswith("sift") else float("nan")
        ratio_text = f"{ratio:>9.2f}x" if label.startswith("sift") else f"{'':>10}"
        print(f"{label:<12} {value:>10.2f} {1000 / value:>10.1f} {ratio_text}")
    minutes = report["flickr8k_minutes_on_2_cores"]
    print(f"all three (ours): {ours:.1f} ms/image -> {minutes:.1f} min for "
          f"{N_IMAGES_FLICKR8K} images on 2 cores")
    print(f"dense vs OpenCV SIFT, mean per-descriptor Pearson r = {agreement['mean']:.4f} "
          f"(min {agreement['min']:.4f}, {agreement['descriptors']} descriptors)")
    write_result(args.out, report, indent=2)
    return report


if __name__ == "__main__":
    main()
