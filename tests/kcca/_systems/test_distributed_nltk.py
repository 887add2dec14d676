"""Dask workers started without ``$NLTK_DATA`` search the NLTK data folders the client resolved.

The client is given a data folder holding ``nltk_data`` (a stop-word list here); the workers'
environment names neither ``$NLTK_DATA`` nor ``$KCCA_DATA_DIR``. A system whose preprocessing
removes NLTK's stop words runs on them and ranks as it does in the client's process.
"""

from __future__ import annotations

import importlib.util
import json
import os

import nltk
import numpy as np
import pytest

from features._image_features import ImageFeatureConfig
from kcca._systems.config import RunConfig
from kcca._systems.distributed import run_system_task, run_systems_on_cluster
from kcca._systems.spec import SystemSpec
from tests.support.flickr_like import IMAGES, write_flickr_like
from tests.support.optional_tools import skip_unless

STOP_WORDS = "a\nan\nthe\nis\nare\nin\non\nof\nwith\nand\n"


def _nn_system() -> SystemSpec:
    return SystemSpec.from_dict({
        "name": "NN5_F1^idf", "short_name": "NN", "model": "nn",
        "preprocessing": "flickr8k-lemma",  # NLTK's English stop words removed
        "image_kernel": {"name": "pyramid"},
        "text_kernel": {"name": "nn-f1", "params": {"idf": True}},
    })


@pytest.mark.slow
@pytest.mark.data_variables
def test_workers_without_nltk_data_use_the_clients_nltk_path(tmp_path, monkeypatch):
    skip_unless(importlib.util.find_spec("distributed") is not None,
                "dask.distributed absent (extra 'dask')")
    from distributed import LocalCluster

    data = tmp_path / "data"
    write_flickr_like(data)
    stop_dir = data / "nltk_data" / "corpora" / "stopwords"
    stop_dir.mkdir(parents=True)
    (stop_dir / "english").write_text(STOP_WORDS)
    cfg = RunConfig.of(data_dir=str(data),
                       image_config=ImageFeatureConfig(seed=0, **json.loads(IMAGES))).for_worker()
    cache_dir = str(tmp_path / "cache")
    spec = _nn_system()

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, protocol="tcp",
                      host="127.0.0.1", dashboard_address=None,
                      env={"NLTK_DATA": "", "KCCA_DATA_DIR": ""}) as cluster:
        results, errors = run_systems_on_cluster(cluster.scheduler_address, [spec], cfg,
                                                 cache_dir)
    assert errors == {}
    assert set(results) == {spec.name}

    # the same system in this process, on the path the client sent (restored afterwards)
    from features.text._resources import resolved_search_path

    monkeypatch.setattr(nltk.data, "path", list(nltk.data.path))
    monkeypatch.setenv("NLTK_DATA", os.environ.get("NLTK_DATA", ""))
    sent = resolved_search_path(cfg.execution.data_dir)
    assert sent[-1] == str(data / "nltk_data")
    local = run_system_task(spec, cfg.replace(nltk_path=sent), cache_dir)
    for task, ranks in local["rankings"].items():
        np.testing.assert_array_equal(results[spec.name]["rankings"][task], ranks)
