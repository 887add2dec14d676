"""scripts/hubness_reduction.py: the CSLS scores against a hand-worked example."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.scripts.load import ROOT, load_script


@pytest.fixture(scope="module")
def script():
    return load_script("hubness_reduction")


def test_hub_penalty_is_the_mean_of_the_k_nearest_bank_cosines(script):
    bank = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])      # unit: e1, e2, (1,1)/sqrt2
    cands = np.array([[2.0, 0.0], [0.0, -1.0]])
    r = 1 / np.sqrt(2)
    # candidate e1: cosines 1, 0, r -> two nearest 1 and r; candidate -e2: 0, -1, -r -> 0 and -r
    np.testing.assert_allclose(script.hub_penalty(cands, bank, 2), [(1 + r) / 2, -r / 2])
    np.testing.assert_allclose(script.hub_penalty(cands, bank, 1), [1.0, 0.0])


def test_csls_demotes_the_hub_and_k0_is_the_plain_cosine(script):
    queries = np.array([[1.0, 0.2], [0.9, -0.1]])
    hub, other = [1.0, 0.0], [0.8, 0.6]
    cands = np.array([hub, other])
    bank = np.array([[1.0, 0.05], [1.0, -0.05], [0.0, 1.0]])
    plain = script.csls_scores(queries, cands, bank, 0, 0.5)
    unit = lambda z: z / np.linalg.norm(z, axis=1, keepdims=True)  # noqa: E731
    np.testing.assert_allclose(plain, unit(queries) @ unit(cands).T)
    assert (plain.argmax(axis=1) == 0).all()                    # the hub wins both queries
    adjusted = script.csls_scores(queries, cands, bank, 2, 1.0)
    np.testing.assert_allclose(adjusted,
                               plain - script.hub_penalty(cands, bank, 2)[None, :])
    assert adjusted[0].argmax() == 1                            # ... not after CSLS


def test_k_beyond_the_bank_is_refused(script):
    with pytest.raises(ValueError, match="bank's size"):
        script.hub_penalty(np.eye(2), np.eye(2), 3)
    with pytest.raises(SystemExit):
        script.main(["--ks", "-1"])


def test_dev_scripts_take_the_experiments_folder():
    import argparse

    from kcca.systems import load_specs, select_specs
    from kcca.systems.dev_check import EXPERIMENTS, add_system_arguments

    parser = argparse.ArgumentParser()
    add_system_arguments(parser)
    assert parser.parse_args([]).experiments == str(EXPERIMENTS)
    args = parser.parse_args(["--system", "TRI5SEM+FV", "--experiments",
                              str(ROOT / "experiments" / "beyond")])
    (spec,) = select_specs(load_specs(Path(args.experiments)), [args.system])
    assert spec.image_kernel.name == "mix"
