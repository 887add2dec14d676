"""The README's Python example (the block after ``<!-- example: kcca-estimator -->``) runs and
prints what its comments say; the README's demo duration is the one the demo documents."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_estimator_example_runs(capsys):
    text = README.read_text(encoding="utf-8")
    found = re.search(r"<!-- example: kcca-estimator -->\n```python\n(.*?)```", text, re.S)
    assert found, "README.md lost its KCCA estimator example"
    code = found.group(1)
    exec(compile(code, "README.md example", "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out
    for line in code.splitlines():  # each print's "# value" comment is what it prints
        said = re.match(r'print\("([^"]+)".*#\s*(.+)$', line.strip())
        if said:
            assert f"{said.group(1)} {said.group(2).strip()}" in out, (line, out)


def test_readme_demo_duration_is_the_documented_one():
    import kcca._cli.demo_cmd as demo

    readme = re.search(r"kcca demo +# about (\d+) s on 2 cores", README.read_text("utf-8"))
    doc = re.search(r"cold run takes about (\d+) s on two cores", demo.__doc__ or "")
    assert readme and doc and readme.group(1) == doc.group(1)


#: the benchmark run whose figures the README and ``kcca demo``'s docstring quote
RECORDED = README.parent / "benchmarks" / "recorded" / "commands.json"


def test_the_demo_figures_are_those_of_the_recorded_benchmark_run():
    """The README's demo time and its table of wall time, CPU time, peak memory and load are
    the recorded run's (``benchmarks/bench_commands.py``), and the demo's docstring quotes the
    same first run, so no figure is written without a measurement behind it."""
    import json

    import kcca._cli.demo_cmd as demo

    run = json.loads(RECORDED.read_text(encoding="utf-8"))
    readme = README.read_text("utf-8")
    assert "2 cores" in run["machine"] and "2-core, 24 GB" in readme
    for case in ("demo-first", "demo-cold", "demo-warm"):
        r = run["cases"][case]
        assert r["exit_status"] == 0
        row = (f"| {r['wall_s']:.0f} s wall | {r['cpu_s']:.0f} CPU-seconds | "
               f"{r['peak_rss_gb']:.2f} GB | {r['load_before']:.1f}-{r['load_after']:.1f} |")
        assert row in readme, (case, row)
    first = run["cases"]["demo-first"]
    said = int(re.search(r"kcca demo +# about (\d+) s on 2 cores", readme).group(1))
    assert said == 5 * round(first["wall_s"] / 5), (said, first["wall_s"])
    assert (f"{first['wall_s']:.0f} s wall, {first['cpu_s']:.0f} CPU-seconds, "
            f"{first['peak_rss_gb']:.2f} GB peak memory") in " ".join(demo.__doc__.split())
