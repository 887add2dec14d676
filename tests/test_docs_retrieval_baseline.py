"""docs/retrieval-baseline.md stays true: its experiment file is a valid system of vectors
kernels, its Python example compiles, and the commands it names exist with those options."""

from __future__ import annotations

import re
import shlex
import textwrap
from pathlib import Path

import pytest

from kcca._cli import build_parser
from kcca._systems import check_names, load_spec

DOC = Path(__file__).resolve().parents[1] / "docs" / "retrieval-baseline.md"


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", DOC.read_text("utf-8"), re.S)


def test_the_experiment_file_is_a_vectors_system(tmp_path):
    (toml,) = _blocks("toml")
    path = tmp_path / "CLIP.toml"
    path.write_text(toml, encoding="utf-8")
    spec = load_spec(path)
    assert check_names(spec) == []
    assert spec.image_kernel.name == spec.text_kernel.name == "vectors"


def test_the_python_example_compiles():
    (code,) = _blocks("python")
    compile(code, "docs/retrieval-baseline.md", "exec")


def test_every_kcca_command_parses():
    text = DOC.read_text("utf-8").replace("\\\n", " ")
    commands = [line.strip() for line in text.splitlines() if line.startswith("    kcca ")]
    assert len(commands) >= 5
    parser = build_parser()
    for command in commands:
        parser.parse_args(shlex.split(command)[1:])  # exits (SystemExit) on an unknown option


def _section(number: int) -> str:
    """The text of section ``number`` (``## N. ...``), continuation lines joined."""
    text = DOC.read_text("utf-8").replace("\\\n", " ")
    return re.search(rf"^## {number}\. .*?(?=^## )", text, re.S | re.M).group(0)


@pytest.mark.data_variables
def test_the_model_commands_run_as_printed(tmp_path, monkeypatch, capsys):
    """Section 6 on a small corpus of scripts/synthetic_karpathy.py (as "Try it without data"
    makes it): fit-model, annotate and query with vectors run as printed from the folder the
    script wrote into, and so does the Python example."""
    from kcca._cli import main
    from tests.support.script_loader import load_script

    mod = load_script("synthetic_karpathy")
    monkeypatch.setitem(mod.LAYOUTS, "coco", (20, 30))  # dev, test
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KCCA_CACHE_DIR", str(tmp_path / "cache"))
    assert mod.main(["--out", "synthetic", "--layout", "coco", "--train", "100"]) == 0
    section = _section(6)
    commands = [line.strip() for line in section.splitlines() if line.startswith("    kcca ")]
    assert [shlex.split(c)[1] for c in commands] == ["fit-model", "annotate", "query"]
    capsys.readouterr()
    for command in commands:
        assert main(["--quiet", *shlex.split(command)[1:]]) == 0, command
    out = capsys.readouterr().out
    assert all(f"new-image-{n}" in out and f"new-caption-{n}" in out for n in (1, 2, 3)), out
    python = section.split("In Python:\n", 1)[1].split("\n\n", 2)[0]
    exec(compile(textwrap.dedent(python), "docs/retrieval-baseline.md", "exec"), {})
    assert "new-image-3 [" in capsys.readouterr().out
