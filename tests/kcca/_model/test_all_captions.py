"""A fitted system under the all-captions protocol (kcca._model.all_captions): its ranks are
the system's own Borda positions, the paper's search ranks reappear for caption #2, folds are
pools of their own."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from kcca._cache import Cache
from kcca.errors import DataError
from kcca._evaluate.original import original_ranks
from kcca._evaluate.retrieval_protocol import direction_metrics
from kcca._model import fit_system
from kcca._model.all_captions import fitted_system_ranks, fitted_system_retrieval
from kcca._model.build import demo_spec_and_corpus
from kcca._systems import Workspace, run_system
from kcca._systems.config import RunConfig


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A small demo system (120 / 40 / 40 images, five captions each), run and fitted."""
    cache = Cache(tmp_path_factory.mktemp("cache"))
    spec, corpus, image_config = demo_spec_and_corpus(
        n_train=120, n_dev=40, n_test=40, n_count=10, p=[2], d=[1, 3]
    )
    ws = Workspace(corpus, cache, RunConfig.of(progress=False, image_config=image_config))
    result = run_system(corpus, spec, workspace=ws, keep_models=True)
    return fit_system(corpus, spec, workspace=ws, result=result), result, corpus


def _all_caption_pool(model, corpus):
    texts = [t for i in model.image_pool.ids for t in corpus.captions[i][:5]]
    return model.caption_pool_from_texts(texts)


def _first_gold_positions(rankings: np.ndarray, gold: list[np.ndarray]) -> np.ndarray:
    """1-based position of the first gold candidate in each ranking row (a plain loop)."""
    return np.array(
        [min(int(np.flatnonzero(row == c)[0]) for c in own) + 1 for row, own in zip(rankings, gold)]
    )


@pytest.mark.slow
def test_caption_number_2_keeps_the_papers_search_ranks(small):
    """Search ranks all test images for every caption, so caption #2's rank is the one of
    run_system's test rankings (the paper's pool, Section 4.1.1)."""
    model, result, corpus = small
    assert corpus.pool_caption_index == 2
    ((_, search),) = fitted_system_ranks(model)
    np.testing.assert_array_equal(search[2::5], original_ranks(result.rankings["search"]))


def test_ranks_are_the_systems_borda_positions(small):
    """Annotation and search ranks from model.rank_pool (the saved system's own ranking)."""
    model, _, corpus = small
    pool = _all_caption_pool(model, corpus)
    images = model.image_pool.projections
    n = len(model.image_pool)
    ((annotation, search),) = fitted_system_ranks(model)
    own = [np.arange(5 * i, 5 * i + 5) for i in range(n)]
    np.testing.assert_array_equal(
        annotation,
        _first_gold_positions(model.rank_pool("annotation", images, pool.projections), own),
    )
    np.testing.assert_array_equal(
        search,
        _first_gold_positions(
            model.rank_pool("search", pool.projections, images), [[c // 5] for c in range(5 * n)]
        ),
    )
    r = fitted_system_retrieval(model)
    assert r.annotation == direction_metrics(annotation)
    assert r.search == direction_metrics(search)
    assert r.protocol == "all-captions 40 images"
    assert (r.n_images, r.n_captions) == (40, 200)


def test_each_fold_is_ranked_as_a_pool_of_its_own(small):
    """With 4 folds, fold 1's ranks are those of rank_pool on images 10..19 and their 50
    captions alone (Borda points depend on the pool)."""
    model, _, corpus = small
    pool = _all_caption_pool(model, corpus)
    folds = fitted_system_ranks(model, n_folds=4)
    assert len(folds) == 4
    x = {k: v[10:20] for k, v in model.image_pool.projections.items()}
    y = {k: v[50:100] for k, v in pool.projections.items()}
    own = [np.arange(5 * i, 5 * i + 5) for i in range(10)]
    np.testing.assert_array_equal(
        folds[1][0], _first_gold_positions(model.rank_pool("annotation", x, y), own)
    )
    np.testing.assert_array_equal(
        folds[1][1],
        _first_gold_positions(model.rank_pool("search", y, x), [[c // 5] for c in range(50)]),
    )
    r = fitted_system_retrieval(model, n_folds=4)
    assert r.n_folds == 4 and r.protocol == "all-captions 10 images (mean of 4 folds)"
    assert r.search.r1 == pytest.approx(np.mean([direction_metrics(s).r1 for _, s in folds]))


def test_errors(small):
    model, _, _ = small
    with pytest.raises(DataError, match="do not divide into 3"):
        fitted_system_retrieval(model, n_folds=3)
    with pytest.raises(DataError, match="fewer than the 6 of the protocol"):
        fitted_system_retrieval(model, captions_per_image=6)
    bare = dataclasses.replace(
        model, image_pool=dataclasses.replace(model.image_pool, captions=None)
    )
    with pytest.raises(DataError, match="keeps no captions"):
        fitted_system_retrieval(bare)
