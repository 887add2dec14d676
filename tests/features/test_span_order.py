"""The trigram kernel's spans come out in the same order in every process: a fitted kernel's
column index (saved in model files) does not depend on Python's string-hash seed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

SCRIPT = """
from features.text._sequences import item_spans
from features.text._trigram_kernel import TrigramKernel
items = [[["a", "big", "dog", "runs", "on", "the", "wet", "sand", "near", "the", "sea"],
          ["two", "dogs", "play", "with", "a", "red", "ball", "on", "the", "beach"]]] * 2
print(list(item_spans(items[0])))
print(list(TrigramKernel().fit(items).columns_))
"""


def _run(seed: str) -> str:
    env = {"PYTHONHASHSEED": seed, "PATH": ""}
    if "PYTHONPATH" in os.environ:  # a machine where the project is on the path, not installed
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout


@pytest.mark.slow
def test_span_and_column_order_do_not_follow_the_hash_seed():
    outputs = {_run(seed) for seed in ("1", "2", "3", "4")}
    assert len(outputs) == 1
