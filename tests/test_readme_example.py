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
