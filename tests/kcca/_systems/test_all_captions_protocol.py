"""A run under the all-captions protocol (RunSettings.protocol, kcca._systems.all_captions): the
paper's rankings are unchanged, the protocol's ranks are the system's own positions (the same
as a saved model's, caption #2's search rank the paper's), folds are pools of their own, NN
figures equal SCAN's evaluation code, and the ranks are cached."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kcca._cache import Cache
from kcca.errors import DataError
from kcca._evaluate import protocol_ranks as PR
from kcca._evaluate.original import original_ranks
from kcca._model import fit_system
from kcca._model.all_captions import fitted_system_ranks
from kcca._model.build import demo_spec_and_corpus
from kcca.nn import nn_annotation_scores, nn_search_scores
from kcca._systems import Workspace, run_system
from kcca._systems import all_captions as AC
from kcca._systems.config import RunConfig
from kcca._systems.spec import SystemSpec
from tests.support.retrieval_oracles import scan_evalrank


def _workspace(corpus, cache, image_config, protocol="all-captions"):
    config = RunConfig.of(progress=False, image_config=image_config, protocol=protocol)
    return Workspace(corpus, cache, config)


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small demo system (120 / 40 / 40 images, five captions each) run under both
    protocols on one cache, and the model fitted from the all-captions run."""
    cache = Cache(tmp_path_factory.mktemp("cache"))
    spec, corpus, image_config = demo_spec_and_corpus(
        n_train=120, n_dev=40, n_test=40, n_count=10, p=[2], d=[1, 3]
    )
    paper = run_system(corpus, spec, workspace=_workspace(corpus, cache, image_config, "paper"))
    ws = _workspace(corpus, cache, image_config)
    result = run_system(corpus, spec, workspace=ws, keep_models=True)
    model = fit_system(corpus, spec, workspace=ws, result=result)
    return {
        "spec": spec,
        "corpus": corpus,
        "image_config": image_config,
        "cache": cache,
        "paper": paper,
        "result": result,
        "model": model,
    }


@pytest.mark.slow
def test_the_papers_rankings_do_not_change(small):
    paper, result = small["paper"], small["result"]
    assert paper.protocol_ranks is None
    for task in paper.rankings:
        np.testing.assert_array_equal(paper.rankings[task], result.rankings[task])
    assert paper.table() == result.table()


def test_ranks_equal_the_saved_models_and_the_papers_search_ranks(small):
    """The run's ranks are those of the fitted model (kcca._model.all_captions: projections of
    the captions as query sentences); search ranks every test image for every caption, so
    caption #2's rank is the paper pool's (Section 4.1.1)."""
    result, model = small["result"], small["model"]
    assert set(result.protocol_ranks) == {1}
    ((annotation, search),) = result.protocol_ranks[1]
    ((m_annotation, m_search),) = fitted_system_ranks(model)
    np.testing.assert_array_equal(annotation, m_annotation)
    np.testing.assert_array_equal(search, m_search)
    np.testing.assert_array_equal(search[2::5], original_ranks(result.rankings["search"]))
    assert annotation.shape == (40,) and search.shape == (200,)
    assert "all-captions ranks" in result.timings


def test_each_fold_is_a_pool_of_its_own(small, monkeypatch):
    """With folds of 10 images the run ranks the whole pool and four folds, each as the saved
    model ranks that fold alone (Borda points depend on the pool)."""
    monkeypatch.setattr(PR, "FOLD_SIZE", 10)
    ws = _workspace(small["corpus"], small["cache"], small["image_config"])
    result = run_system(small["corpus"], small["spec"], workspace=ws)
    assert sorted(result.protocol_ranks) == [1, 4]
    np.testing.assert_array_equal(
        result.protocol_ranks[1][0][0], small["result"].protocol_ranks[1][0][0]
    )
    for (a, s), (ma, ms) in zip(
        result.protocol_ranks[4], fitted_system_ranks(small["model"], n_folds=4)
    ):
        np.testing.assert_array_equal(a, ma)
        np.testing.assert_array_equal(s, ms)
    ranks = PR.protocol_ranks_of(result.spec.name, small["corpus"], result.protocol_ranks)
    names = [r.protocol for r in ranks.results()]
    assert names == ["all-captions 40 images", "all-captions 10 images (mean of 4 folds)"]


def test_warm_cache_gives_the_ranks_without_ranking(small, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the cached all-captions ranks were computed again")

    monkeypatch.setattr(AC, "borda_protocol_ranks", refuse)
    monkeypatch.setattr("kcca._systems.runner.borda_protocol_ranks", refuse)
    ws = _workspace(small["corpus"], small["cache"], small["image_config"])
    again = run_system(small["corpus"], small["spec"], workspace=ws)
    for (a, s), (a2, s2) in zip(again.protocol_ranks[1], small["result"].protocol_ranks[1]):
        np.testing.assert_array_equal(a, a2)
        np.testing.assert_array_equal(s, s2)


def test_nn_figures_equal_scans_evaluation_code(small):
    """NN (eq. 2) scores do not depend on the pool: the run's figures equal SCAN's
    ``evalrank`` (tests.support.retrieval_oracles) on eq. 2's scores, computed here
    with a loop from the kernel blocks, for the whole pool and for five folds."""
    corpus, spec = small["corpus"], small["spec"]
    nn = dataclasses.replace(spec, name="NN5_demo", model="nn")
    ws = _workspace(corpus, small["cache"], small["image_config"])
    res = run_system(corpus, SystemSpec.from_dict(nn.as_dict()), workspace=ws)
    image = ws.image_blocks(nn.image_kernel).test
    rows = ws.all_caption_rows(nn.text_kernel, nn.preprocessing, nn.word_kernel)
    text = np.asarray(rows.rows)
    annotation = np.array([[text[c, np.argmax(row)] for c in range(200)] for row in image])
    search = np.array([[image[i, np.argmax(t)] for i in range(40)] for t in text])
    np.testing.assert_array_equal(annotation, nn_annotation_scores(image, text))
    np.testing.assert_array_equal(search, nn_search_scores(image, text))
    folds = AC.score_protocol_ranks(annotation, search, captions_per_image=5, n_folds=5)
    for n_folds, oracle_folds in ((1, False), (5, True)):
        ours = PR.metrics_over_folds(
            AC.score_protocol_ranks(annotation, search, captions_per_image=5, n_folds=n_folds),
            n_images=40,
            n_captions=200,
        )
        # SCAN takes one (N, 5N) matrix for both directions: pass each direction its own
        i2t = scan_evalrank(annotation, oracle_folds)["i2t"]
        t2i = scan_evalrank(search.T, oracle_folds)["t2i"]
        assert (ours.annotation.r1, ours.annotation.r5, ours.annotation.r10) == pytest.approx(
            i2t[:3]
        )
        assert (ours.search.r1, ours.search.r5, ours.search.r10) == pytest.approx(t2i[:3])
        assert (ours.annotation.median_rank, ours.annotation.mean_rank) == pytest.approx(i2t[3:])
        assert (ours.search.median_rank, ours.search.mean_rank) == pytest.approx(t2i[3:])
    ((a, s),) = res.protocol_ranks[1]
    whole = AC.score_protocol_ranks(annotation, search, captions_per_image=5)
    np.testing.assert_array_equal(a, whole[0][0])
    np.testing.assert_array_equal(s, whole[0][1])
    assert len(folds) == 5


def test_a_test_image_with_fewer_than_five_captions_is_named(small):
    corpus = small["corpus"]
    short = corpus.split("test")[3]
    captions = dict(corpus.captions)
    captions[short] = captions[short][:4]
    thin = dataclasses.replace(corpus, captions=captions)
    ws = _workspace(thin, Cache(None), small["image_config"])
    spec = small["spec"]
    with pytest.raises(DataError, match=f"{short}.*4 captions, fewer than the 5"):
        ws.all_caption_rows(spec.text_kernel, spec.preprocessing, spec.word_kernel)

    def no_work(*args, **kwargs):
        raise AssertionError("the run started before naming the image")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Workspace, "image_blocks", no_work)
        with pytest.raises(DataError, match=f"{short}.*4 captions, fewer than the 5"):
            run_system(thin, spec, workspace=ws)


def test_a_runs_two_files_agree_for_kcca_and_nn(small, tmp_path):
    """The rankings file and the all-captions ranks file a run writes pass the check that
    evaluate and report make of them (kcca._evaluate.protocol_agreement): a KCCA system
    (Borda: caption #2's rank is the paper's) and NN (eq. 2: within its ties)."""
    from kcca._evaluate.protocol_agreement import check_agreement
    from kcca._evaluate.rankings_io import write_rankings
    from kcca._systems.run import write_all_captions

    corpus, spec = small["corpus"], small["spec"]
    nn = dataclasses.replace(spec, name="NN5_demo", model="nn")
    ws = _workspace(corpus, small["cache"], small["image_config"])
    nn_result = run_system(corpus, SystemSpec.from_dict(nn.as_dict()), workspace=ws)
    for name, result in ((spec.name, small["result"]), ("NN5_demo", nn_result)):
        rankings = write_rankings(
            tmp_path / f"{name}.json", corpus.pool("test"), result.rankings, system=name,
            corpus=corpus.name, gold_ties=result.gold_ties,
        )
        write_all_captions(rankings, name, corpus, result.protocol_ranks)
        path = PR.protocol_ranks_path(rankings)
        check_agreement(PR.read_protocol_ranks(path), path, rankings)
