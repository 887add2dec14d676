"""scripts/p_search_subset.py: on every training item it is the runner's search; on a subset it
fits only those items (n grid capped) and reads the full search from details.json."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from tests.scripts.load import load_script
from tests.scripts.test_borda_size import _blocks


@pytest.fixture(scope="module")
def script():
    return load_script("p_search_subset")


def test_whole_training_set_gives_the_runners_criteria_and_subsets_use_only_their_items(script):
    from kcca.systems.grid import dev_outcome, fit_grid

    Kx, Ky, Kx_dev, Ky_dev = _blocks()
    image = SimpleNamespace(train=Kx, dev=Kx_dev)
    text = SimpleNamespace(train=Ky, dev=Ky_dev)
    grid = dict(kappas=(0.5, 5.0), n_values=[2, 4, 8, 16, 32])
    every = script.subset_outcomes(image, text, np.arange(80), per_criterion=2, **grid)
    for o in every:
        ref = dev_outcome(fit_grid(Kx, Ky, p=o.p, d=1, **grid), Kx_dev, Ky_dev, p=o.p, d=1,
                          per_criterion=2)
        assert o.criterion == pytest.approx(ref.criterion) and o.selected == ref.selected
    assert [o.p for o in every] == [2.0, 3.0]
    # a subset: only its items enter (n capped below its size); moving the others changes nothing
    sub = np.arange(0, 80, 4)
    a = script.subset_outcomes(image, text, sub, per_criterion=2, **grid)
    scrambled = Kx.copy()
    rest = np.setdiff1d(np.arange(80), sub)
    scrambled[np.ix_(rest, rest)] = 0.5
    b = script.subset_outcomes(SimpleNamespace(train=scrambled, dev=Kx_dev), text, sub,
                               per_criterion=2, **grid)
    assert [o.criterion for o in a] == [o.criterion for o in b]
    assert all(max(n for _, n in o.selected["annotation"]) < 20 for o in a)


def test_full_search_is_read_from_details(script, tmp_path):
    path = tmp_path / "details.json"
    path.write_text(json.dumps([{"system": "X", "dev": [{"p": 2.0, "criterion": 70.5},
                                                        {"p": 3.0, "criterion": 71.0}]},
                                {"system": "NN", "dev": [{"model": "nn"}]}]))
    assert script.full_search(path) == {"X": {2.0: 70.5, 3.0: 71.0}, "NN": {}}
    assert script.full_search(tmp_path / "missing.json") == {}
