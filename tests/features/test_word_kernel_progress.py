"""A cold ``kcca similar-words`` says what it builds and shows progress on stderr; warm, or
with ``--quiet``, it says nothing. The POS taggers (the alignment's and the demo corpus's
preprocessing's) are shrunk to 300 Brown sentences and one pass so the cold run takes seconds;
the demo corpus stands in for Flickr 8K."""

from __future__ import annotations

import functools

import pytest

from kcca._cli import main


SMALL = {"tagger_max_sents": 300, "tagger_iter": 1}


@pytest.fixture
def small_tagger(monkeypatch, nltk_data_dir):
    from features.text import _presets as presets, _word_kernels as word_kernels
    from features.text._postag import _MEMO

    monkeypatch.setattr(word_kernels, "WordKernelConfig",
                        functools.partial(word_kernels.WordKernelConfig, **SMALL))
    monkeypatch.setitem(presets.PRESETS, "flickr8k-full",
                        {**presets.PRESETS["flickr8k-full"], **SMALL})
    _MEMO.clear()  # a tagger trained earlier in this process would not be announced


def _similar_words(capsys, *args: str) -> str:
    assert main([*args, "similar-words", "circle", "--corpus", "demo", "-s", "align"]) == 0
    return capsys.readouterr().err


@pytest.mark.slow
def test_cold_run_says_what_it_builds_and_shows_progress(small_tagger, tmp_path, capsys):
    err = _similar_words(capsys, "--cache-dir", str(tmp_path))
    assert "building the alignment table of demo-" in err
    assert " train, the POS tagger below included (about " in err
    assert f"once; cached in {tmp_path / 'word-similarity'})" in err
    assert "building the perceptron POS tagger, 1 pass over the 300 sentences of brown" in err
    assert f"cached in {tmp_path / 'pos-tagger'})" in err
    assert "train POS tagger (1 pass)" in err and "tag training captions" in err
    assert "building" not in _similar_words(capsys, "--cache-dir", str(tmp_path))  # warm


@pytest.mark.slow
def test_quiet_cold_run_says_nothing(small_tagger, tmp_path, capsys):
    err = _similar_words(capsys, "--cache-dir", str(tmp_path), "--quiet")
    assert "building" not in err and "train POS tagger" not in err and "%|" not in err


def test_building_message_without_a_cache(capsys):
    from kcca._cache import Cache
    from kcca._progress import about, building

    building("the thing", 200, Cache(None), "stage")
    assert capsys.readouterr().err == "building the thing (about 3 minutes, not cached)\n"
    building("the thing", 1, Cache(None), "stage", enabled=False)
    assert capsys.readouterr().err == ""
    assert (about(41), about(3), about(125)) == ("about 40 seconds", "about 5 seconds",
                                                 "about 2 minutes")
