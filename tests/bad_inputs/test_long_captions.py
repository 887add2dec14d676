"""A caption line of tens of thousands of words costs time linear in its length.

``caption_spans`` (the trigram kernel's span counts, eq. 12-15) summed every span ``(i, j)``
one by one: quadratic in the line's length (a 20,000-word line took minutes). Each check
runs in a child process with a time limit far above what the linear count needs, and the
counts and their order are compared with an independent computation (prefix counts).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]

#: seconds a child process may take; the linear count needs about 1 s for 50,000 words
TIME_LIMIT = 120

SCRIPT = """
import json, sys
from features.text.sequences import caption_spans
tokens = json.loads(sys.stdin.read())
out = caption_spans(tokens)
print(json.dumps([[list(k), v] for k, v in out.items()]))
"""


def _spans_in_child(tokens: list[str]) -> list[tuple[tuple[str, ...], float]]:
    try:
        done = subprocess.run([sys.executable, "-c", SCRIPT], input=json.dumps(tokens),
                              capture_output=True, text=True, cwd=ROOT, timeout=TIME_LIMIT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"caption_spans of {len(tokens)} words took more than {TIME_LIMIT} s")
    assert done.returncode == 0, done.stderr[-2000:]
    return [(tuple(k), v) for k, v in json.loads(done.stdout)]


def _reference(tokens: list[str]) -> list[tuple[tuple[str, ...], float]]:
    """The span counts from prefix counts, in the order the span loop first meets them:
    unigrams by first position; pairs (a, b) by (first a, first b after it); triples
    (a, b, c) by (first a, first c after the first b after it, that b)."""
    vocab = list(dict.fromkeys(tokens))
    v = len(vocab)
    index = {w: k for k, w in enumerate(vocab)}
    ids = np.array([index[t] for t in tokens])
    n = len(ids)
    onehot = np.zeros((n, v), np.int64)
    onehot[np.arange(n), ids] = 1
    before = np.vstack([np.zeros((1, v), np.int64), np.cumsum(onehot, axis=0)])  # #a in [0, p)
    positions = [np.flatnonzero(ids == k) for k in range(v)]
    first = [int(p[0]) for p in positions]

    def after(word: int, p: int) -> int | None:
        k = np.searchsorted(positions[word], p, side="right")
        return int(positions[word][k]) if k < len(positions[word]) else None

    out: list[tuple[tuple[str, ...], float]] = [((w,), float(len(positions[k])))
                                                for k, w in enumerate(vocab)]
    pairs = onehot.T @ before[:n]  # pairs[b, a] = sum over j with t_j = b of #a in [0, j)
    keyed = []
    for a in range(v):
        for b in range(v):
            if pairs[b, a]:
                keyed.append(((first[a], after(b, first[a])), (vocab[a], vocab[b]),
                              float(pairs[b, a])))
    out += [(key, val) for _, key, val in sorted(keyed)]
    keyed = []
    for b in range(v):  # last position of b before each j (0 when none: before[0] is zero)
        last = np.zeros(n, np.int64)
        seen = np.where(ids == b, np.arange(n), -1)
        last[1:] = np.maximum.accumulate(seen)[:-1]
        valid = np.zeros(n, bool)
        valid[1:] = np.maximum.accumulate(seen)[:-1] >= 0
        counts = onehot.T @ (before[np.where(valid, last, 0)] * valid[:, None])  # [c, a]
        for c, a in zip(*np.nonzero(counts)):
            nb = after(b, first[a])
            keyed.append(((first[a], after(c, nb), nb), (vocab[a], vocab[b], vocab[c]),
                          float(counts[c, a])))
    out += [(key, val) for _, key, val in sorted(keyed)]
    return out


@pytest.mark.parametrize("words, distinct", [(50_000, 1), (50_000, 7), (20_000, 12)])
def test_a_very_long_caption_is_counted_in_linear_time(words, distinct):
    rng = np.random.default_rng(words + distinct)
    vocab = ["a", "dog", "runs", "on", "the", "grass", ".", "two", "kids", "play", "in", "snow"]
    tokens = [vocab[k] for k in rng.integers(0, distinct, words)]
    assert _spans_in_child(tokens) == _reference(tokens)


def test_one_word_repeated_has_the_closed_form_counts():
    n = 50_000
    assert _spans_in_child(["dog"] * n) == [
        (("dog",), float(n)),
        (("dog", "dog"), float(n * (n - 1) // 2)),  # every pair i < j
        (("dog", "dog", "dog"), float((n - 1) * (n - 2) // 2)),  # every span with j >= i + 2
    ]
