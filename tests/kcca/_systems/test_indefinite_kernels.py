"""Kernels that are not positive semi-definite in theory (the soft trigram kernel through a
thresholded or max-combined word kernel, Section 4.1.2) are fitted on their positive part;
a kernel that claims to be PSD and is not is still refused."""

from __future__ import annotations

import numpy as np
import pytest

from features.text._trigram_kernel import TrigramKernel
from features.text._word_kernel import WordKernel
from kcca.errors import KernelError
from kcca._solver import FactorCache, KCCAGrid
from kcca._systems.blocks import Blocks
from kcca._systems.grid import indefinite_rule
from kcca._systems.config import RunConfig


def chain_word_kernel(vocabulary) -> WordKernel:
    """Word triples a ~ b ~ c with a and c unrelated (0.9, 0.9, 0): an indefinite similarity,
    as thresholding or taking the maximum of two similarities makes one."""
    vocabulary = tuple(sorted(vocabulary))
    m = np.eye(len(vocabulary))
    for i in range(0, len(vocabulary) - 2, 3):
        m[i, i + 1] = m[i + 1, i] = m[i + 1, i + 2] = m[i + 2, i + 1] = 0.9
    return WordKernel("chain", vocabulary, m)


def thresholded_word_kernel(vocabulary, seed: int = 0) -> WordKernel:
    """Random similarities in [0, 1] with the entries below 0.6 zeroed (as eq. 26-27's
    thresholds do): far from positive semi-definite."""
    vocabulary = tuple(sorted(vocabulary))
    m = np.random.default_rng(seed).random((len(vocabulary),) * 2)
    m = (m + m.T) / 2
    m[m < 0.6] = 0.0
    np.fill_diagonal(m, 1.0)
    return WordKernel("thresholded", vocabulary, m)


def indefinite_pair(n: int = 60, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A PSD image-like kernel and a text-like kernel with a negative part well beyond
    round-off (as TRI5SEM's training kernel on Flickr 8K: -6.8e-5 x trace)."""
    rng = np.random.default_rng(seed)
    a = rng.random((n, 8))
    Kx = a @ a.T
    b, c = rng.normal(size=(n, 6)), rng.normal(size=(n, 2))
    Ky = b @ b.T - 0.05 * (c @ c.T)
    return Kx, Ky


def test_trigram_kernel_says_whether_it_is_psd():
    assert TrigramKernel().positive_semidefinite
    soft = TrigramKernel(word_kernel=chain_word_kernel(["a", "b", "c"]))
    assert not soft.positive_semidefinite
    assert indefinite_rule(Blocks(*([np.eye(2)] * 3), {})) == "raise"
    assert indefinite_rule(Blocks(*([np.eye(2)] * 3), {}),
                           Blocks(*([np.eye(2)] * 3), {}, psd=False)) == "psd-part"


def test_an_indefinite_kernel_is_refused_unless_declared():
    Kx, Ky = indefinite_pair()
    with pytest.raises(KernelError, match="Ky is not positive semi-definite"):
        KCCAGrid(kappas=[0.5], n_components=[2, 4]).fit(Kx, Ky)
    grid = KCCAGrid(kappas=[0.5], n_components=[2, 4], indefinite="psd-part").fit(Kx, Ky)
    corr = np.asarray(grid.correlations_)
    assert np.isfinite(corr).all() and (corr >= 0).all() and (corr <= 1 + 1e-9).all()
    with pytest.raises(ValueError, match="indefinite must be one of"):
        KCCAGrid(indefinite="clip").fit(Kx, Ky)


@pytest.mark.parametrize("factorisation", ["eigen", "cholesky"])
def test_a_shared_factor_is_checked_at_each_use(factorisation):
    """A factor made for a fit that allows an indefinite kernel is not served silently to a
    fit that does not (and the other way round, the factor is reused)."""
    Kx, Ky = indefinite_pair()
    cache = FactorCache()
    kw = dict(kappas=[0.5], n_components=[2], factor_cache=cache, factorisation=factorisation)
    first = KCCAGrid(indefinite="psd-part", **kw).fit(Kx, Ky)
    misses = cache.misses
    with pytest.raises(KernelError, match="Ky"):
        KCCAGrid(**kw).fit(Kx, Ky)
    again = KCCAGrid(indefinite="psd-part", **kw).fit(Kx, Ky)
    assert cache.misses == misses  # both later fits found the factors
    assert np.array_equal(np.asarray(first.correlations_), np.asarray(again.correlations_))


def test_a_soft_trigram_system_with_an_indefinite_word_kernel_runs(monkeypatch, tmp_path):
    """The paper's TRI5SEM-like systems: a soft trigram text kernel through a thresholded,
    max-combined word kernel is indefinite; the system runs on its positive part."""
    from kcca._cache import Cache
    from kcca.data._demo import make_demo_corpus
    from kcca._systems import run_system
    from kcca._systems.blocks import Workspace
    from kcca._systems.spec import GridSpec, KernelSpec, SystemSpec

    corpus = make_demo_corpus(n_train=60, n_dev=20, n_test=20, image_size=48, seed=1)
    words = {w for i in corpus.split("train") for c in corpus.captions[i]
             for w in c.lower().split()}
    monkeypatch.setattr(Workspace, "word_kernel",
                        lambda self, name: thresholded_word_kernel(words))
    spec = SystemSpec("TRI5-chain", KernelSpec("pyramid"), KernelSpec("trigram"),
                      preprocessing="demo", word_kernel="align",
                      grid=GridSpec(p=(2.0,), d=(1.0,), kappas=(1.0,), n=(2, 4, 8)))
    from features._image_features import ImageFeatureConfig

    images = ImageFeatureConfig(n_images=20, points_per_image=100, max_iter=10,
                                vocabulary={"color": 8, "texture": 8, "sift": 8})
    ws = Workspace(corpus, Cache(tmp_path / "cache"),
                   RunConfig.of(progress=False, image_config=images))
    text = ws.text_blocks(spec.text_kernel, spec.preprocessing, spec.word_kernel)
    assert not text.psd
    with pytest.raises(KernelError, match="Ky is not positive semi-definite"):
        KCCAGrid(kappas=[1.0], n_components=[2]).fit(ws.image_blocks(spec.image_kernel).train,
                                                      text.train)
    result = run_system(corpus, spec, workspace=ws)
    for task, r in result.rankings.items():
        assert r.shape == (20, 20)
        assert sorted(r[0].tolist()) == list(range(20)), task
