"""``kcca demo --protocol all-captions``: each system's all-captions ranks beside its rankings
file, the literature's table printed (at most 100 columns), and the printed next step runs."""

from __future__ import annotations

import re
import shlex

from kcca._cli import main
from kcca._evaluate.protocol_ranks import read_protocol_ranks
from tests.support.line_width import long_lines


def _demo(tmp_path, *extra: str) -> list[str]:
    """A small ``kcca demo`` into ``tmp_path / "out"``."""
    sizes = ["--n-train", "60", "--n-dev", "20", "--n-test", "20", "--n-count", "4"]
    grid = ["--p", "2", "--d", "1", "--kappas", "1"]
    out = ["--out", str(tmp_path / "out")]
    return ["--cache-dir", str(tmp_path / "cache"), "demo", *out, *sizes, *grid, *extra]


def test_demo_under_the_all_captions_protocol(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(_demo(tmp_path, "--protocol", "all-captions")) == 0
    text = capsys.readouterr().out
    assert "All-captions retrieval protocol" in text
    assert "all-captions 20 images" in text
    # at most 100 columns, but a path alone on its line (a temporary folder's may be longer)
    assert not long_lines(text), long_lines(text)
    for system in ("TRI5", "BoW5"):
        ranks = read_protocol_ranks(out / f"rankings_{system}.all-captions.json")
        assert ranks.system == system and len(ranks.images) == 20
    commands = re.findall(r"next: `(kcca [^`]+)`", text)
    assert any("--protocol all-captions" in c for c in commands), text
    for command in commands:
        assert main(shlex.split(command.replace("\\\n", " "))[1:]) == 0, command
    assert "all-captions 20 images" in capsys.readouterr().out


def test_a_later_demo_under_the_papers_protocol_removes_the_ranks(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(_demo(tmp_path, "--protocol", "all-captions")) == 0
    assert (out / "rankings_TRI5.all-captions.json").is_file()
    assert main(_demo(tmp_path)) == 0
    assert not (out / "rankings_TRI5.all-captions.json").exists()
    assert not (out / "rankings_BoW5.all-captions.json").exists()
