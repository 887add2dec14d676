"""Compiled METEOR kernels over slices in threads give the arrays of one whole call."""

import gzip

import numpy as np
import pytest

from kcca.captions._meteor_engine import slices
from kcca.captions._meteor_engine.slices import in_threads


@pytest.mark.parametrize("n", [0, 1, 7, 1000])
def test_slices_in_threads_concatenate_to_the_whole(monkeypatch, n):
    monkeypatch.setattr(slices, "thread_count", lambda n, per_thread: 3)
    seen = []

    def run(lo, hi):
        seen.append((lo, hi))
        return np.arange(lo, hi) ** 2, np.arange(lo, hi).astype(float)

    squares, floats = in_threads(run, n, 1)
    np.testing.assert_array_equal(squares, np.arange(n) ** 2)
    np.testing.assert_array_equal(floats, np.arange(n, dtype=float))
    assert sorted(seen)[0][0] == 0 and sorted(seen)[-1][1] == n and len(seen) == 12


def test_one_thread_below_the_work_a_thread_needs():
    assert slices.thread_count(999, 500) == 1
    calls = []
    in_threads(lambda lo, hi: calls.append((lo, hi)) or (np.zeros(hi - lo),), 999, 500)
    assert calls == [(0, 999)]


def test_the_trie_walk_over_slices_equals_one_walk(tmp_path):
    """Slices cut through n-grams (a slice's last words start n-grams that end in the next
    slice): the occurrences are still those of one walk over all slots."""
    from kcca.captions._meteor_engine.kernel import ngram_occurrences
    from kcca.captions._meteor_engine.paraphrase import ParaphraseIndex, build_index

    entries = [("a dog", "a hound"), ("dog", "hound"), ("a dog", "one dog"),
               ("in the snow", "in snow"), ("dog", "canine"), ("the", "a")]
    path = tmp_path / "para.gz"
    path.write_bytes(gzip.compress("".join(f"0.5\n{a}\n{b}\n" for a, b in entries).encode()))
    idx = ParaphraseIndex(build_index(path))
    words = "a dog in the snow . one dog in snow . a hound in the snow a dog".split()
    ids = np.array([idx.word_id.get(w, -1) for w in words] * 40, np.int64)
    trie = (idx.level_offsets, idx.level_keys, idx.n_words, *idx.first_levels, idx.phrase_row)
    whole = ngram_occurrences(ids, 0, ids.size, *trie)
    assert whole[0].size > 100
    every_7 = [*range(0, ids.size, 7), ids.size]
    for cuts in ([0, 1, ids.size], [0, 5, 6, 300, ids.size], every_7):
        parts = [ngram_occurrences(ids, a, b, *trie) for a, b in zip(cuts[:-1], cuts[1:])]
        for got, want in zip(zip(*parts), whole):
            np.testing.assert_array_equal(np.concatenate(got), want)
