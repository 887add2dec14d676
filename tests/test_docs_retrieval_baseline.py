"""docs/retrieval-baseline.md stays true: its experiment file is a valid system of vectors
kernels, its Python example compiles, and the commands it names exist with those options."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

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
