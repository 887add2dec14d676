"""A model file's object tree (``model.json``) is the same in every process: no dict in it is
ordered by Python's string-hash seed (PYTHONHASHSEED)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

WRITE = """
import sys, zipfile
from kcca._model import file_format
path = file_format.write(sys.argv[1], {{}}, {obj})
print(zipfile.ZipFile(path).read("model.json").decode())
"""

TRIGRAM = """
from features.text._trigram_kernel import TrigramKernel
items = [[["a", "big", "dog", "runs", "on", "the", "wet", "sand", "near", "the", "sea"],
          ["two", "dogs", "play", "with", "a", "red", "ball", "on", "the", "beach"]],
         [["a", "girl", "in", "a", "pink", "dress", "climbs", "the", "stairs"]]]
""" + WRITE.format(obj="TrigramKernel().fit(items)")

SPELLING = """
from features.text._spelling import SpellingCorrector
counts = {"mountains": 6, "fountains": 6, "boat": 6, "dog": 6, "beach": 6, "moutains": 1}
tokens = [["the", w] for w, n in counts.items() for _ in range(n)]
""" + WRITE.format(obj="SpellingCorrector().fit(tokens)")


def _run(script: str, seed: str, path: str) -> str:
    env = {"PYTHONHASHSEED": seed, "PATH": ""}
    for name in ("PYTHONPATH", "NLTK_DATA"):  # the project and its data where not installed
        if name in os.environ:
            env[name] = os.environ[name]
    done = subprocess.run([sys.executable, "-c", script, path], capture_output=True, text=True,
                          env=env, check=True)
    return done.stdout


def _same_in_every_process(script: str, folder) -> None:
    outputs = {_run(script, seed, str(folder / f"m{seed}.npz")) for seed in ("1", "2", "3", "4")}
    assert len(outputs) == 1


@pytest.mark.slow
@pytest.mark.data_variables
def test_fitted_text_kernel_idf_table_does_not_follow_the_hash_seed(tmp_path):
    _same_in_every_process(TRIGRAM, tmp_path)


@pytest.mark.slow
@pytest.mark.usefixtures("nltk_data_dir")
def test_fitted_spelling_corrector_does_not_follow_the_hash_seed(tmp_path):
    _same_in_every_process(SPELLING, tmp_path)
