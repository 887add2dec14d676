"""scripts/synthetic_karpathy.py: a Karpathy-format corpus with planted vectors whose printed
commands run as printed and give recall far above chance under both protocols."""

from __future__ import annotations

import re

import numpy as np
import pytest

from kcca._cli import main
from kcca._cli.lines import WIDTH, joined_command
from kcca.data._json_splits import load_json_splits
from features._vectors_file import read_item_vectors
from tests.support.script_loader import load_script


@pytest.mark.data_variables
def test_the_printed_commands_run_and_recall_is_far_above_chance(tmp_path, capsys, monkeypatch):
    mod = load_script("synthetic_karpathy")
    monkeypatch.setitem(mod.LAYOUTS, "flickr30k", (20, 30))  # dev, test
    out = tmp_path / "synthetic"
    assert mod.main(["--out", str(out), "--layout", "flickr30k", "--train", "100"]) == 0
    text = capsys.readouterr().out
    assert all(len(line) <= WIDTH or " " not in line.strip(" \\") for line in
               text.splitlines()), text  # a path longer than the width alone on its line
    commands = re.findall(r"^  (kcca (?:.*\\\n)*.*)$", text, flags=re.M)
    assert len(commands) == 2
    corpus = load_json_splits(out / "dataset_synthetic.json")
    assert [len(corpus.split(s)) for s in ("train", "dev", "test")] == [100, 20, 30]
    images = read_item_vectors(out / "experiments" / "images.npz")
    captions = read_item_vectors(out / "experiments" / "captions.npz")
    assert images.vectors.shape == (150, 64) and captions.vectors.shape == (750, 48)
    assert captions.ids[:2] == ("synthetic2014/img000000.jpg#0", "synthetic2014/img000000.jpg#1")
    monkeypatch.setenv("KCCA_CACHE_DIR", str(tmp_path / "cache"))
    for command in commands:
        assert main(["--quiet", *joined_command(command)[1:]]) == 0
    captured = capsys.readouterr()
    table = captured.out
    # every line of the two commands fits 100 columns (the reproduce result line had 201)
    assert all(len(line) <= WIDTH for line in (table + captured.err).splitlines()
               if "\r" not in line), captured.err
    rows = [line.split() for line in table.splitlines() if line.startswith("VEC ")]
    i2t = [float(v) for v in rows[0][-5:]]
    t2i = [float(v) for v in rows[1][-5:]]
    rsum = float(rows[2][-1])
    # chance on 30 images / 150 captions: R@10 about 33% (i2t) and 33% (t2i)
    assert i2t[2] > 80 and t2i[2] > 80, table
    assert np.isclose(rsum, sum(i2t[:3]) + sum(t2i[:3]))
    assert (out / "run" / "all-captions.md").is_file()
    assert "\n| VEC | " in (out / "run" / "table11.md").read_text()
