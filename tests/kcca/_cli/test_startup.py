"""``kcca --help`` and ``kcca --version`` stay fast: building the parser imports no heavy
library (the command modules import theirs inside ``run``). Timings: benchmarks/bench_startup.py."""

import json
import subprocess
import sys

import pytest

HEAVY = ("numpy", "scipy", "sklearn", "cv2", "nltk", "joblib", "numba", "matplotlib", "tqdm",
         "pandas", "cupy", "dask")

PROBE = """
import json, sys
import kcca._cli
kcca._cli.build_parser()
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))
"""


@pytest.mark.data_variables
def test_building_the_parser_imports_no_heavy_library():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True).stdout
    loaded = set(json.loads(out.splitlines()[-1]))
    assert "kcca" in loaded
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


@pytest.mark.data_variables
def test_version_answers_without_heavy_imports():
    probe = ("import sys, kcca._cli\n"
             "try:\n    kcca._cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
             f"print(sorted(set({HEAVY!r}) & {{m.split('.')[0] for m in sys.modules}}))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          check=True)
    assert done.stdout.startswith("kcca ")
    assert done.stdout.splitlines()[-1] == "[]"
