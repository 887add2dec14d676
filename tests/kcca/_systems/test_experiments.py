"""experiments/hodosh2013: one file per Table 11 system, in the paper's order, valid names."""

from __future__ import annotations

from pathlib import Path

import pytest

from kcca._paper.numbers import SECTION4_NAMES, SYSTEMS, TABLE11
from kcca._systems import check_names, load_specs

FOLDER = Path(__file__).resolve().parents[3] / "experiments" / "hodosh2013"


@pytest.fixture(scope="module")
def specs():
    return load_specs(FOLDER)


def test_one_file_per_system_in_table_11_order(specs):
    assert [s.name for s in specs] == list(SYSTEMS)
    assert len(specs) == 30 and all(s.name in TABLE11 for s in specs)
    assert [s.model for s in specs[:4]] == ["nn"] * 4
    assert all(s.model == "kcca" for s in specs[4:])


def test_every_file_names_registered_kernels_and_known_word_kernels(specs):
    for s in specs:
        assert check_names(s) == [], (s.name, check_names(s))


def test_short_names_are_the_table_3_systems(specs):
    short = {s.short_name: s.name for s in specs if s.short_name}
    assert short == SECTION4_NAMES


def test_kernel_pairs_follow_the_names(specs):
    by = {s.name: s for s in specs}
    histo = {n for n, s in by.items() if s.image_kernel.name == "histogram"}
    assert histo == {"BoW5^HISTO", "TRI5^HISTO", "TRI5^sqrtidf,HISTO_A,D(BNC+ic)"}
    assert by["BoW1"].text_kernel.params == {"single_caption": True}
    assert by["TRI1"].text_kernel.name == "trigram"
    assert by["TAGRANK"].text_kernel.name == "tagrank"
    assert by["BoW5^idf"].text_kernel.params == {"weighting": "idf"}
    assert by["TRI5^sqrtidf_A,D(BNC+ic)"].word_kernel == "dist-avg+align"
    assert by["TRI5_D(BNC)"].word_kernel == "dist-ext" and by["TRI5_D(ic)"].word_kernel == "dist-ic"
    assert by["TRI5_Lin"].word_kernel == "lin" and by["TRI5_A"].word_kernel == "align"
    assert by["NN5_F1^idf"].text_kernel.params == {"idf": True}
    assert len(by["NN5_TRI(best)"].text_kernels) == 4
    for s in specs[4:]:
        assert s.grid.p == (2, 3) and s.grid.kappas == (0.1, 0.5, 1.0, 5.0)
        # p chosen on dev at full precision, d = 1 (the files' comment says why and how to
        # search the paper's d in [1, 15])
        assert len(s.grid.n_values()) == 46 and s.grid.d == (1.0,)
        assert s.grid.search_rank is None
        assert ("sqrtidf" in s.name) == (s.text_kernel.params.get("weighting") == "sqrt-idf")


def test_beyond_the_paper_files_load_and_name_registered_kernels():
    beyond = load_specs(FOLDER.parent / "beyond")
    assert [s.short_name for s in beyond] == ["TRI5SEM+FV", "BoW5+FV", "TRI5SEM+FV+CFV",
                                              "BoW5+FV+CFV"]
    paper = {s.short_name: s for s in load_specs(FOLDER) if s.short_name}
    by_name = {s.short_name: s for s in beyond}
    # +FV systems share one image kernel (chosen on TRI5SEM's dev criterion); +FV+CFV adds
    # the colour Fisher vectors as a third, equally weighted part
    assert by_name["TRI5SEM+FV"].image_kernel == by_name["BoW5+FV"].image_kernel
    assert by_name["TRI5SEM+FV+CFV"].image_kernel == by_name["BoW5+FV+CFV"].image_kernel
    fv_parts = by_name["TRI5SEM+FV"].image_kernel.params["parts"]
    cfv_parts = by_name["TRI5SEM+FV+CFV"].image_kernel.params["parts"]
    assert list(cfv_parts[:2]) == list(fv_parts)
    assert cfv_parts[2]["params"]["descriptor"] == "color"
    assert {p["weight"] for p in cfv_parts} == {1}
    for s in beyond:
        assert check_names(s) == [], (s.name, check_names(s))
        # the paper system's text side and grid: only the image kernel differs
        base = paper[s.short_name.split("+")[0]]
        assert (s.text_kernel, s.word_kernel) == (base.text_kernel, base.word_kernel)
        assert s.image_kernel.name == "mix" and s.grid == base.grid
