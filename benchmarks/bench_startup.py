"""Benchmark: how fast ``kcca --version`` and ``kcca --help`` answer (command start-up).

Each command runs ``--runs`` times as a fresh subprocess (``python -m kcca ...`` with this
interpreter, so the result does not depend on which ``kcca`` script is on the PATH); the median
wall time is reported. The peer is ``python -c pass``, the interpreter's own start-up, which
no command can beat: the ratio to it is what the command's imports cost. Target: both under
0.5 s (they build the parser from every subcommand, which imports no NumPy, SciPy,
scikit-learn, OpenCV or NLTK; tests/kcca/_cli/test_startup.py checks that).

Run: ``python benchmarks/bench_startup.py [--runs 20]``. Prints a table and writes
``benchmarks/results/startup.json``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _results import write_result

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TARGET_S = 0.5

COMMANDS = {
    "python -c pass (peer)": [sys.executable, "-c", "pass"],
    "kcca --version": [sys.executable, "-m", "kcca", "--version"],
    "kcca --help": [sys.executable, "-m", "kcca", "--help"],
}


def _machine() -> str:
    return (f"{platform.node()} {platform.machine()}, {os.cpu_count()} cores, "
            f"Python {platform.python_version()}")


def time_command(argv: list[str], runs: int) -> list[float]:
    """Wall seconds of ``runs`` fresh runs of ``argv`` (after one untimed warm-up run, which
    fills the OS file cache and writes the bytecode)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        str(ROOT), os.environ.get("PYTHONPATH")]))}
    subprocess.run(argv, check=True, capture_output=True, cwd=ROOT, env=env)
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True, cwd=ROOT, env=env)
        out.append(time.perf_counter() - t)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="timed runs per command (default 20)")
    ap.add_argument("--out", default=str(HERE / "results" / "startup.json"))
    args = ap.parse_args(argv)

    results = {}
    for name, cmd in COMMANDS.items():
        s = sorted(time_command(cmd, args.runs))
        results[name] = {"argv": cmd[1:], "n": len(s), "median_s": statistics.median(s),
                         "min_s": s[0], "max_s": s[-1]}
    peer = results["python -c pass (peer)"]["median_s"]
    print(f"{'command':<24} {'runs':>5} {'median ms':>10} {'min ms':>8} {'max ms':>8} "
          f"{'x peer':>7}")
    print("-" * 67)
    for name, r in results.items():
        r["over_peer"] = r["median_s"] / peer
        print(f"{name:<24} {r['n']:>5} {r['median_s'] * 1e3:>10.1f} {r['min_s'] * 1e3:>8.1f} "
              f"{r['max_s'] * 1e3:>8.1f} {r['over_peer']:>6.1f}x")
    met = all(r["median_s"] < TARGET_S for n, r in results.items() if n.startswith("kcca"))
    print(f"\ntarget < {TARGET_S} s for kcca --version and --help: {'met' if met else 'NOT met'}")
    result = {"benchmark": "startup", "machine": _machine(),
              "date": time.strftime("%Y-%m-%dT%H:%M:%S"), "runs": args.runs,
              "commands": results, "target_s": TARGET_S, "target_met": met}
    out = Path(args.out)
    write_result(out, result, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
