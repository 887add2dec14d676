"""The POS tagger's training says nothing of NLTK's own (``Iter N:`` lines), and the time a
cold ``kcca similar-words --similarity align`` announces is what it takes (2 cores)."""

from __future__ import annotations

import dataclasses
import logging

import pytest


def test_training_the_perceptron_tagger_logs_no_nltk_lines(nltk_data_dir, caplog):
    from features.text._postag import TaggerConfig, train_tagger

    caplog.set_level(logging.INFO)
    train_tagger(dataclasses.replace(TaggerConfig(kind="perceptron"), max_sents=50, n_iter=2))
    assert not [r for r in caplog.records if r.name.startswith("nltk")], caplog.text
    assert logging.getLogger("nltk.tag.perceptron").level == logging.NOTSET  # restored


@pytest.mark.data_variables
def test_cold_align_estimate_is_the_measured_time(tmp_path):
    """Measured on 2 cores, Flickr 8K, empty cache: the tagger 70-82 s, the alignment table
    18-20 s, 100-115 s in all (the estimate said 60 s, and 50 s for the tagger)."""
    from features.text._postag import TaggerConfig, training_seconds
    from features.text._word_kernels import WordKernelBuilder, WordKernelConfig
    from kcca._cache import Cache
    from kcca.data._corpus import Corpus
    from kcca._progress import about

    assert 65 <= training_seconds(TaggerConfig(kind="perceptron")) <= 90
    ids = [f"{i}.jpg" for i in range(8000)]
    corpus = Corpus("flickr8k-like", {i: ("a dog runs .",) * 5 for i in ids},
                    {"train": tuple(ids[:6000]), "dev": tuple(ids[6000:7000]),
                     "test": tuple(ids[7000:])})
    builder = WordKernelBuilder(corpus, WordKernelConfig(), Cache(tmp_path))
    seconds = builder.build_seconds("align")
    assert 90 <= seconds <= 130 and about(seconds) == "about 2 minutes"
    assert builder.first_builds("align") == "the POS tagger below"


@pytest.fixture
def small_tagger(monkeypatch, nltk_data_dir):
    import functools

    from features.text import _presets as presets, _word_kernels as word_kernels
    from features.text._postag import _MEMO

    small = {"tagger_max_sents": 300, "tagger_iter": 1}
    monkeypatch.setattr(word_kernels, "WordKernelConfig",
                        functools.partial(word_kernels.WordKernelConfig, **small))
    monkeypatch.setitem(presets.PRESETS, "flickr8k-full",
                        {**presets.PRESETS["flickr8k-full"], **small})
    _MEMO.clear()


def test_lin_kernel_values_beside_figure3_say_they_differ_in_kind(small_tagger, tmp_path,
                                                                   capsys):
    from kcca._cli import main

    assert main(["--cache-dir", str(tmp_path), "similar-words", "rider", "--corpus", "demo",
                 "-s", "lin", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "ours: word-kernel values; Figure 3: eq. 22 similarities (different quantities" in out
    assert "`kcca similar-words rider --similarity lin --values similarity`" in out
    assert all(len(line) <= 100 for line in out.splitlines())
