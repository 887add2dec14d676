"""scripts/codebook_seed.py: seed 0 from 200 images is the default workspace's codebook (its
cached features are reused); other seeds or sample sizes are other features."""

from __future__ import annotations

from kcca.cache import Cache
from kcca.data.demo import make_demo_corpus
from kcca.systems.blocks import Workspace
from tests.scripts.load import load_script


def test_seed_zero_is_the_default_codebook_and_others_differ(tmp_path):
    script = load_script("codebook_seed")
    corpus = make_demo_corpus(n_train=12, n_dev=4, n_test=4, image_size=32, seed=2,
                              judgments=False)
    cache = Cache(tmp_path)
    key = lambda ws: ws.image_pipeline().feature_key()  # noqa: E731
    default = key(Workspace(corpus, cache))
    assert key(script.codebook_workspace(corpus, cache, 0)) == default
    others = {key(script.codebook_workspace(corpus, cache, 1)),
              key(script.codebook_workspace(corpus, cache, 0, n_images=6))}
    assert default not in others and len(others) == 2


def test_mean_blocks_averages_train_and_dev_and_refuses_mismatched_shapes():
    import numpy as np
    import pytest
    from types import SimpleNamespace as B

    script = load_script("codebook_seed")
    a = B(train=np.ones((3, 3)), dev=np.zeros((2, 3)))
    b = B(train=3 * np.ones((3, 3)), dev=np.ones((2, 3)))
    train, dev = script.mean_blocks([a, b])
    assert np.all(train == 2.0) and np.all(dev == 0.5)
    with pytest.raises(ValueError, match="different shapes"):
        script.mean_blocks([a, B(train=np.ones((4, 4)), dev=np.ones((2, 4)))])
    with pytest.raises(ValueError, match="no image blocks"):
        script.mean_blocks([])
