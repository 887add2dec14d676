"""run_system end to end on a tiny demo corpus: recall far above chance, caching, resume, NN."""

from __future__ import annotations

import numpy as np
import pytest

from features._image_features import ImageFeatureConfig
from kcca._backend import gpu_available
from kcca._cache import Cache
from kcca.data._demo import make_demo_corpus
from kcca._evaluate.rankings_io import read_rankings
from kcca._systems import GridSpec, KernelSpec, SystemSpec, Workspace, run_system
from kcca._systems import grid as grid_mod
from kcca._systems.grid import DevOutcome, choose
from kcca._systems.config import RunConfig

TINY_IMAGES = ImageFeatureConfig(n_images=20, points_per_image=100, max_iter=20,
                                 vocabulary={"color": 16, "texture": 16, "sift": 16})
#: the run configuration of these tests: seed 0, no progress bars, tiny codebooks
TINY = RunConfig.of(seed=0, progress=False, image_config=TINY_IMAGES)
GRID = GridSpec(p=(2, 3), d=(1, 4), kappas=(0.5, 5.0), n=(5, 10, 20, 40, 79))


def kcca_spec(text: str = "bow", **kw) -> SystemSpec:
    return SystemSpec(f"{text}-sys", KernelSpec("pyramid"), KernelSpec(text),
                      preprocessing="demo", grid=GRID, per_criterion=2, **kw)


@pytest.fixture(scope="module")
def corpus():
    return make_demo_corpus(n_train=80, n_dev=30, n_test=30, image_size=48, seed=2)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="module")
def workspace(corpus, cache_dir):
    return Workspace(corpus, Cache(cache_dir), TINY)


@pytest.fixture(scope="module")
def result(corpus, workspace):
    return run_system(corpus, kcca_spec(), workspace=workspace, keep_models=True)


def test_kcca_recall_far_above_chance(result, corpus):
    n = len(corpus.split("test"))
    for task in ("annotation", "search"):
        m = result.table()[task]
        assert m["R@1"] >= 4 * 100 / n        # chance: 3.3%
        assert m["R@10"] >= 1.5 * 100 * 10 / n   # chance: 33%
        assert m["median rank"] <= n / 3        # chance: 15.5
        assert set(m) >= {"R@1", "R@5", "R@10", "median rank", "S@1", "R-precision"}
        assert sorted(result.rankings[task][0].tolist()) == list(range(n))


def test_chosen_p_d_come_from_the_grid_and_are_recorded(result):
    assert result.chosen["p"] in GRID.p and result.chosen["d"] in GRID.d
    assert len(result.dev) == len(GRID.p) * len(GRID.d)
    assert (result.dev[0]["p"], result.dev[0]["d"]) == (result.chosen["p"], result.chosen["d"])
    crits = [o["criterion"] for o in result.dev]
    assert crits == sorted(crits, reverse=True)
    for task in ("annotation", "search"):
        models = result.chosen["selected"][task]
        assert len(models) == 6 and len({tuple(m) for m in models}) == 6  # 3 criteria x 2
    assert set(result.timings) >= {"image kernel", "text kernel", "dev grid", "test rankings"}


def test_rankings_file_reads_back(result, corpus, tmp_path):
    path = result.write_rankings(tmp_path / "r.json", corpus)
    back = read_rankings(path, corpus.pool("test"))
    for task in ("annotation", "search"):
        assert (back.tasks[task] == result.rankings[task]).all()


def test_second_run_resumes_from_the_cache(result, corpus, cache_dir, monkeypatch):
    assert len(list((cache_dir / "system-dev").glob("*.entry"))) >= len(GRID.p) * len(GRID.d)

    def boom(*a, **k):
        raise AssertionError("the KCCA grid was refitted although every stage is cached")

    monkeypatch.setattr(grid_mod.KCCAGrid, "fit", boom)
    fresh = Workspace(corpus, Cache(cache_dir), TINY)
    again = run_system(corpus, kcca_spec(), workspace=fresh)
    for task in ("annotation", "search"):
        assert (again.rankings[task] == result.rankings[task]).all()
    assert again.chosen == result.chosen


def test_same_seed_same_numbers_without_cache(result, corpus):
    ws = Workspace(corpus, Cache(None), TINY)
    again = run_system(corpus, kcca_spec(), workspace=ws)
    assert again.table() == result.table()


def test_nn_systems_beat_chance_and_pick_best_text_kernel_on_dev(corpus, workspace):
    spec = SystemSpec("NN5_best", KernelSpec("pyramid"), KernelSpec("bow"), model="nn",
                      preprocessing="demo",
                      text_kernels=(KernelSpec("nn-f1", {"idf": True}), KernelSpec("trigram")))
    res = run_system(corpus, spec, workspace=workspace)
    assert res.chosen["text_kernel"] in [k.as_dict() for k in spec.text_kernels]
    best = max(res.dev, key=lambda d: d["criterion"])
    assert res.chosen["text_kernel"] == best["text_kernel"]
    n = len(corpus.split("test"))
    assert res.table()["search"]["median rank"] < (n + 1) / 2


def test_choose_breaks_ties_by_median_then_smaller_p_and_d():
    good = np.array([1, 1, 2, 30])
    worse = np.array([1, 1, 3, 30])

    def out(p, d, ranks):
        return DevOutcome(p, d, {}, {}, {"annotation": ranks, "search": ranks}, 10)

    a, b, c = out(3, 1, good), out(2, 8, good), out(2, 1, worse)
    assert a.criterion == b.criterion == c.criterion  # same R@1/5/10
    assert choose([a, c, b]) is b                      # c loses on median rank, b has smaller p
    better = out(3, 15, np.array([1, 1, 1, 30]))
    assert choose([a, b, better]) is better
    with pytest.raises(ValueError):
        choose([])


def test_p_d_search_factorises_each_image_power_and_the_text_kernel_once(result, corpus,
                                                                          monkeypatch):
    import kcca._solver.factors as solver

    calls = []

    def counting(real):
        def factorise(base, name, *args, **kw):
            calls.append(name)
            return real(base, name, *args, **kw)
        return factorise

    for fn in ("_eigen_side", "_cholesky_side"):  # dense blocks take the eigen route
        monkeypatch.setattr(solver, fn, counting(getattr(solver, fn)))
    ws = Workspace(corpus, Cache(None), TINY)
    again = run_system(corpus, kcca_spec(), workspace=ws)
    assert again.table() == result.table() and again.chosen == result.chosen
    # dev search: one factor per p and one text factor for every d (was 2 per (p, d));
    # the test fit reuses them (the workspace keeps three sides: image p=2, p=3, text)
    assert calls.count("Kx") == len(GRID.p) and calls.count("Ky") == 1


@pytest.fixture
def fit_grid_ranks(monkeypatch) -> list:
    """The ``rank`` of every ``fit_grid`` call the runner makes (None: full precision)."""
    import kcca._systems.runner as runner_mod

    ranks: list = []
    real = runner_mod.fit_grid

    def spy(*a, **kw):
        ranks.append(kw.get("rank"))
        return real(*a, **kw)

    monkeypatch.setattr(runner_mod, "fit_grid", spy)
    return ranks


def _with_search_rank(spec: SystemSpec, rank: int) -> SystemSpec:
    import dataclasses

    return dataclasses.replace(spec, grid=dataclasses.replace(spec.grid, search_rank=rank))


def test_rank_capped_p_d_search_refits_only_the_chosen_pair(result, corpus, workspace,
                                                             fit_grid_ranks):
    """grid.search_rank: (p, d) chosen with rank-capped factors, then one full fit whose dev
    outcome (cached under the full-precision stage) selects the 15 models."""
    ranks = fit_grid_ranks
    spec = _with_search_rank(kcca_spec(), 12)
    res = run_system(corpus, spec, workspace=workspace)
    assert ranks[:len(GRID.p) * len(GRID.d)] == [12] * (len(GRID.p) * len(GRID.d))
    assert res.chosen["search_rank"] == 12
    assert (res.chosen["p"], res.chosen["d"]) in [(p, d) for p in GRID.p for d in GRID.d]
    # the chosen pair at full precision: the full run's dev outcome when the choice agrees
    if (res.chosen["p"], res.chosen["d"]) == (result.chosen["p"], result.chosen["d"]):
        assert res.chosen["selected"] == result.chosen["selected"]
        for task in ("annotation", "search"):
            assert (res.rankings[task] == result.rankings[task]).all()
    assert all(r is None for r in ranks[len(GRID.p) * len(GRID.d):])  # full refit(s)


def test_search_rank_zero_overrides_the_file_with_a_full_search(result, corpus, workspace,
                                                                 fit_grid_ranks):
    """A run configuration with search_rank=0 (``kcca reproduce --search-rank 0``) ignores the
    file's rank cap: every (p, d) is fitted at full precision, as without a cap."""
    ranks = fit_grid_ranks
    spec = _with_search_rank(kcca_spec(), 12)
    full = Workspace(corpus, workspace.cache, workspace.config.replace(search_rank=0))
    res = run_system(corpus, spec, workspace=full)
    assert 12 not in ranks and "search_rank" not in res.chosen
    assert res.table() == result.table() and res.chosen == result.chosen


def test_search_rank_in_experiment_files(tmp_path):
    from kcca._systems.spec import ExperimentFileError, load_spec

    f = tmp_path / "s.toml"
    f.write_text('name = "S"\n[image_kernel]\nname = "pyramid"\n[text_kernel]\nname = "bow"\n'
                 '[grid]\nsearch_rank = 800\n')
    assert load_spec(f).grid.search_rank == 800
    assert load_spec(f).grid.as_dict()["search_rank"] == 800
    f.write_text(f.read_text().replace("800", "-3"))
    with pytest.raises(ExperimentFileError, match="search_rank"):
        load_spec(f)


def test_mix_kernel_blocks_are_the_weighted_mean_of_its_parts(workspace):
    mix = workspace.image_blocks(KernelSpec("mix", {"parts": [
        {"name": "pyramid"}, {"name": "histogram", "weight": 3}]}))
    pyr = workspace.image_blocks(KernelSpec("pyramid"))
    histo = workspace.image_blocks(KernelSpec("histogram"))
    for split in ("train", "dev", "test"):
        np.testing.assert_allclose(mix[split], (pyr[split] + 3 * histo[split]) / 4)


def test_system_with_pyramid_and_fisher_mix_runs_end_to_end(corpus, workspace):
    fisher = {"n_gaussians": 4, "pca_dim": 8, "sample_images": 20, "per_image": 50}
    spec = SystemSpec("mix-sys", KernelSpec("mix", {"parts": [
        {"name": "pyramid"}, {"name": "fisher", "params": fisher}]}), KernelSpec("bow"),
        preprocessing="demo", grid=GridSpec(p=(2,), d=(1,), kappas=(0.5, 5.0),
                                            n=(5, 10, 20, 40)), per_criterion=2)
    result = run_system(corpus, spec, workspace=workspace)
    n = len(corpus.split("test"))
    for task in ("annotation", "search"):
        assert result.table()[task]["R@10"] >= 1.5 * 100 * 10 / n   # chance: 33%


def _backend_spies(monkeypatch) -> dict[str, list]:
    """Record the backend each KCCA grid is fitted on and the array-API intersection calls."""
    import features.kernels._intersection as inter

    seen: dict[str, list] = {"grid": [], "intersection": []}
    fit = grid_mod.KCCAGrid.fit

    def spy_fit(self, Kx, Ky):
        seen["grid"].append(self.backend)
        return fit(self, Kx, Ky)

    xp_block = inter.intersection_xp

    def spy_xp(*a, **k):
        seen["intersection"].append(k["xp"].__name__.rsplit(".", 1)[-1])
        return xp_block(*a, **k)

    monkeypatch.setattr(grid_mod.KCCAGrid, "fit", spy_fit)
    monkeypatch.setattr(inter, "intersection_xp", spy_xp)
    return seen


def test_array_api_backend_runs_the_whole_system_with_the_numpy_numbers(result, corpus, workspace,
                                                                      monkeypatch):
    """The configuration's ``backend`` (``kcca reproduce --backend``) reaches the image kernel
    and the solver; with array_api_strict arrays (the cupy code path, no GPU needed) a fresh run
    gives the numpy run's chosen models and rankings."""
    seen = _backend_spies(monkeypatch)
    ws = Workspace(corpus, Cache(None), TINY.replace(backend="array_api_strict"))
    again = run_system(corpus, kcca_spec(), workspace=ws, keep_models=True)
    assert set(seen["grid"]) == {"array_api_strict"} and len(seen["grid"]) >= 4
    assert seen["intersection"] and set(seen["intersection"]) == {"array_api_strict"}
    assert again.chosen == result.chosen
    for task in ("annotation", "search"):
        assert (again.rankings[task] == result.rankings[task]).all()
    _assert_models_rank_as_the_run(again.models, result, workspace)


def _assert_models_rank_as_the_run(models, result, ws) -> None:
    """The kept directions (host arrays) rank the test pool as the run did (Borda of the
    selected models, Sec. 4.1.3), whatever backend fitted them."""
    from kcca._borda import borda_from_scores

    spec = result.spec
    assert models.selected == {t: [tuple(m) for m in ms]
                               for t, ms in result.chosen["selected"].items()}
    assert all(isinstance(w, np.ndarray) for w in [*models.x_weights.values(),
                                                   *models.y_weights.values()])
    image = models.project_x(np.asarray(ws.image_blocks(spec.image_kernel).test))
    text = models.project_y(np.asarray(ws.text_blocks(spec.text_kernel, spec.preprocessing,
                                                      spec.word_kernel).test))
    for task, (queries, candidates) in {"annotation": (image, text),
                                        "search": (text, image)}.items():
        ranking = borda_from_scores(models.scores(task, queries, candidates)).ranking
        np.testing.assert_array_equal(ranking, result.rankings[task])


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs cupy and a CUDA device")
def test_cupy_backend_runs_the_whole_system_with_the_numpy_numbers(result, corpus, workspace,
                                                                 monkeypatch):
    seen = _backend_spies(monkeypatch)
    ws = Workspace(corpus, Cache(None), TINY.replace(backend="cupy"))
    again = run_system(corpus, kcca_spec(), workspace=ws, keep_models=True)
    assert set(seen["grid"]) == {"cupy"} and set(seen["intersection"]) == {"cupy"}
    assert again.chosen == result.chosen
    for task in ("annotation", "search"):
        assert (again.rankings[task] == result.rankings[task]).all()
    _assert_models_rank_as_the_run(again.models, result, workspace)


def test_progress_shows_the_work_inside_each_grid_fit(corpus, capsys):
    """With progress on, each (p, d) fit of the grid shows its own steps on stderr: the Gram
    blocks, the factorisations, the solve of each kappa and the dev ranks (before: only the
    bar over (p, d), which stood at 0/N for the whole of a long first fit)."""
    config = RunConfig.of(seed=0, progress=True, image_config=TINY_IMAGES)
    spec = SystemSpec("bow-progress", KernelSpec("pyramid"), KernelSpec("bow"),
                      preprocessing="demo", per_criterion=2,
                      grid=GridSpec(p=(2,), d=(1,), kappas=(0.5, 5.0), n=(5, 10)))
    run_system(corpus, spec, workspace=Workspace(corpus, Cache(None), config))
    err = capsys.readouterr().err
    for step in ("bow-progress: KCCA grid (p, d)", "pyramid: Gram blocks (train, dev, test)",
                 "bow: Gram blocks (train, dev, test)", "Kx: eigendecomposition (80 x 80)",
                 "KCCA solve (80 training items, kappa)", "dev ranks (annotation)",
                 "dev ranks (search)"):
        assert step in err, step
    quiet = RunConfig.of(seed=0, progress=False, image_config=TINY_IMAGES)
    run_system(corpus, spec, workspace=Workspace(corpus, Cache(None), quiet))
    assert capsys.readouterr().err == ""
