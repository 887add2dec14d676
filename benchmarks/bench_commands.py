"""Benchmark: wall time, CPU time and peak memory of whole ``kcca`` commands, as a user runs them.

Each command runs as a fresh subprocess (``python -m kcca ...`` with this interpreter and this
checkout first on ``PYTHONPATH``), in a temporary folder of its own; its wall time, CPU seconds
(user + system, its descendants included) and peak resident memory (the largest of the process
and its descendants, ``wait4``) are recorded, with the machine's load average before and after.
The peer, run just before each command, is a fixed single-threaded Python loop: a loaded
machine slows both, so the ratio of a command's wall time to the peer's says more than the
seconds alone.

Cases (``--cases``):

- ``demo-first``: ``kcca demo`` with an empty cache folder, the first run of the checkout (the
  numba kernels, cached beside the modules' bytecode, are compiled unless an earlier run left
  them: the result records how many numba cache files were present);
- ``demo-cold``: ``kcca demo`` again with another empty cache folder (numba's cache warm);
- ``demo-warm``: ``kcca demo`` on the cache ``demo-cold`` filled;
- ``reproduce-bow5``: ``kcca reproduce --systems BoW5 --tables 3`` on the real Flickr 8K data
  (``--data-dir`` or ``$KCCA_DATA_DIR``) into ``--cache-dir`` (default a new empty folder, a
  cold run: image features of all 8,091 images included). Not in the default cases: it takes
  long and several GB (take the machine's big-memory lock where one is shared);
  ``--reproduce-args`` adds flags (``'--p 2 --d 1 -j 2'``: one (p, d) pair, two workers).

Run: ``python benchmarks/bench_commands.py [--cases demo-first,demo-cold,demo-warm]``. Prints a
table and writes ``benchmarks/results/commands.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _results import write_result

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PEER = [sys.executable, "-c", "sum(i * i for i in range(20_000_000))"]
DEFAULT_CASES = ("demo-first", "demo-cold", "demo-warm")
ALL_CASES = (*DEFAULT_CASES, "reproduce-bow5")


def machine() -> str:
    """The machine as :func:`kcca._provenance.machine` names it, and its memory."""
    sys.path.insert(0, str(ROOT))
    from kcca._provenance import machine as named

    pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    return f"{named()}, {pages / 2**30:.0f} GiB memory"


def numba_cache_files() -> int:
    """How many numba cache files (``*.nbi``) the checkout's packages hold."""
    return sum(1 for top in ("kcca", "features") for _ in (ROOT / top).rglob("*.nbi"))


def measure(argv: list[str], cwd: Path) -> dict:
    """Run ``argv`` in ``cwd``; its wall seconds, CPU seconds, peak RSS (GB) and exit status,
    with the load average (1 minute) before and after. Output goes to ``cwd/output.txt``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    load_before = os.getloadavg()[0]
    with open(cwd / "output.txt", "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {
        "wall_s": round(wall, 2),
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_gb": round(usage.ru_maxrss * 1024 / 1e9, 3),  # ru_maxrss is in KiB on Linux
        "exit_status": proc.returncode,
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
    }


def case_argv(case: str, work: Path, args: argparse.Namespace) -> list[str]:
    """The command line of ``case``; caches and outputs live under ``work``."""
    kcca = [sys.executable, "-m", "kcca"]
    if case.startswith("demo-"):
        cache = work / ("cache-first" if case == "demo-first" else "cache")
        return [*kcca, "demo", "--quiet", "--cache-dir", str(cache), "--out", str(work / case)]
    data = ["--data-dir", args.data_dir] if args.data_dir else []
    cache = args.cache_dir or str(work / "cache-bow5")
    return [*kcca, "reproduce", *data, "--systems", "BoW5", "--tables", "3", "--quiet",
            "--cache-dir", cache, "--out", str(work / case), *args.reproduce_args.split()]


def run_case(case: str, work: Path, args: argparse.Namespace) -> dict:
    """The peer's and ``case``'s measurements, and their wall-time ratio."""
    folder = work / f"{case}-run"
    folder.mkdir()
    peer = measure(PEER, folder)
    argv = case_argv(case, work, args)
    numba_files = numba_cache_files()
    result = measure(argv, folder)
    if result["exit_status"] != 0:
        print((folder / "output.txt").read_text(errors="replace")[-4000:], file=sys.stderr)
    return {"argv": ["kcca", *argv[3:]], "numba_cache_files_before": numba_files, **result,
            "peer": peer, "over_peer": round(result["wall_s"] / peer["wall_s"], 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", default=",".join(DEFAULT_CASES),
                    help=f"comma-separated, of {', '.join(ALL_CASES)} (default: the demo's)")
    ap.add_argument("--data-dir", default=os.environ.get("KCCA_DATA_DIR"),
                    help="the real data for reproduce-bow5 (default $KCCA_DATA_DIR)")
    ap.add_argument("--cache-dir", help="cache of reproduce-bow5 (default: a new empty one)")
    ap.add_argument("--reproduce-args", default="",
                    help="more flags for reproduce-bow5, e.g. '--p 2 --d 1 -j 2'")
    ap.add_argument("--out", default=str(HERE / "results" / "commands.json"))
    args = ap.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = sorted(set(cases) - set(ALL_CASES))
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}: use {', '.join(ALL_CASES)}")

    results = {}
    with tempfile.TemporaryDirectory(prefix="kcca-bench-commands-") as tmp:
        for case in cases:
            results[case] = run_case(case, Path(tmp), args)
            r = results[case]
            print(f"{case:<16} wall {r['wall_s']:7.1f} s  cpu {r['cpu_s']:7.1f} s  "
                  f"peak {r['peak_rss_gb']:6.2f} GB  load {r['load_before']:.1f}-"
                  f"{r['load_after']:.1f}  peer {r['peer']['wall_s']:.2f} s "
                  f"({r['over_peer']}x)  exit {r['exit_status']}")
    write_result(args.out, {
        "benchmark": "commands", "machine": machine(), "cores": os.cpu_count(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "peer": PEER[1:], "cases": results,
    })
    return 0 if all(r["exit_status"] == 0 for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
