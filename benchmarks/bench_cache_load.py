"""Loading a warm cache: data-only entries against the joblib pickles they replaced.

Every entry of a cache folder (by default a fresh ``kcca demo`` cache; ``--cache-dir`` for a
real one, e.g. after a BoW5 run) is read back as a data-only entry and, from a joblib copy of
the same value written beside it for the comparison, as the pickle the cache used to hold. The
target: the data-only load takes at most 1.5x the pickle's, per stage and in total.

    python benchmarks/bench_cache_load.py [--cache-dir DIR] [--out FILE]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import joblib

from kcca._cache_entry import ENTRY_SUFFIX, check_entry, read_entry

TARGET_RATIO = 1.5


def _best(load, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        load()
        best = min(best, time.perf_counter() - t)
    return best


def bench(root: Path, repeats: int) -> dict:
    stages: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, path in enumerate(sorted(root.rglob(f"*{ENTRY_SUFFIX}"))):
            head = check_entry(path)
            args = dict(stage=head["stage"], key=head["key"], item=head.get("item"))
            value = read_entry(path, **args)
            pickle = Path(tmp) / f"{i}.joblib"
            joblib.dump(value, pickle)  # both files are then read from the page cache:
            read_entry(path, **args)  # the comparison is of the formats, not the disk
            row = stages.setdefault(
                head["stage"], {"entries": 0, "bytes": 0, "entry_s": 0.0, "joblib_s": 0.0}
            )
            row["entries"] += 1
            row["bytes"] += path.stat().st_size
            row["entry_s"] += _best(lambda: read_entry(path, **args), repeats)
            row["joblib_s"] += _best(lambda: joblib.load(pickle), repeats)
            pickle.unlink()
    for row in stages.values():
        row["ratio"] = row["entry_s"] / max(row["joblib_s"], 1e-9)
    total_entry = sum(r["entry_s"] for r in stages.values())
    total_joblib = sum(r["joblib_s"] for r in stages.values())
    return {
        "stages": stages,
        "entry_s": total_entry,
        "joblib_s": total_joblib,
        "ratio": total_entry / max(total_joblib, 1e-9),
        "target_ratio": TARGET_RATIO,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache-dir", type=Path, help="a warm cache (default: a demo run's)")
    parser.add_argument("--repeats", type=int, default=3, help="best of this many loads")
    parser.add_argument("--out", type=Path, help="write the result as JSON here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.cache_dir
        if root is None:
            root = Path(tmp) / "cache"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "kcca",
                    "demo",
                    "--quiet",
                    "--cache-dir",
                    str(root),
                    "--out",
                    str(Path(tmp) / "out"),
                ],
                check=True,
            )
        result = bench(root, args.repeats)
    print(f"{'stage':<22}{'entries':>8}{'MB':>9}{'entry s':>10}{'joblib s':>10}{'ratio':>7}")
    for stage, r in sorted(result["stages"].items()):
        print(
            f"{stage:<22}{r['entries']:>8}{r['bytes'] / 1e6:>9.1f}{r['entry_s']:>10.3f}"
            f"{r['joblib_s']:>10.3f}{r['ratio']:>7.2f}"
        )
    print(
        f"{'total':<22}{'':>8}{'':>9}{result['entry_s']:>10.3f}{result['joblib_s']:>10.3f}"
        f"{result['ratio']:>7.2f}  (target: at most {TARGET_RATIO})"
    )
    if args.out:
        from _results import write_result

        write_result(args.out, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
