"""A caption line of tens of thousands of words costs time linear in its length.

``caption_spans`` (the trigram kernel's span counts, eq. 12-15) summed every span ``(i, j)``
one by one: quadratic in the line's length (a 20,000-word line took minutes). Each check
runs in a child process with a time limit far above what the linear count needs, and the
counts and their order are compared with an independent computation (prefix counts).

METEOR's alignment takes memory and time quadratic in a caption's words (as the jar's does):
a caption over ``$KCCA_MAX_METEOR_CHARACTERS`` is refused before anything is aligned, naming
the item.
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
from features.text._sequences import caption_spans
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


@pytest.mark.data_variables
@pytest.mark.parametrize("words, distinct", [(50_000, 1), (50_000, 7), (20_000, 12)])
def test_a_very_long_caption_is_counted_in_linear_time(words, distinct):
    rng = np.random.default_rng(words + distinct)
    vocab = ["a", "dog", "runs", "on", "the", "grass", ".", "two", "kids", "play", "in", "snow"]
    tokens = [vocab[k] for k in rng.integers(0, distinct, words)]
    assert _spans_in_child(tokens) == _reference(tokens)


@pytest.mark.data_variables
def test_one_word_repeated_has_the_closed_form_counts():
    n = 50_000
    assert _spans_in_child(["dog"] * n) == [
        (("dog",), float(n)),
        (("dog", "dog"), float(n * (n - 1) // 2)),  # every pair i < j
        (("dog", "dog", "dog"), float((n - 1) * (n - 2) // 2)),  # every span with j >= i + 2
    ]


# ---------------------------------------------------------------- METEOR

#: a candidate of 120,000 characters: 1.66 GB and more under METEOR's alignment before
LONG_CANDIDATE = "a dog " * 20_000

METEOR_SCRIPT = """
import resource, sys
limit = 1 << 30
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from kcca._cli import main
sys.exit(main(sys.argv[1:]))
"""


def _needs_meteor():
    from kcca.captions import meteor_available

    ok, why = meteor_available()
    if not ok:
        pytest.skip(why)


@pytest.mark.data_variables
def test_score_captions_refuses_a_caption_over_the_meteor_limit(tmp_path):
    """Under a 1 GiB address-space limit, `kcca score-captions` names the image id, the limit
    and its variable, before aligning anything (before: about 0.76 GB and 9 s at 60,000
    characters, 2.2 GB and out of memory in the jar's 2 GB heap at 98,000)."""
    _needs_meteor()
    refs = tmp_path / "refs.json"
    refs.write_text(json.dumps({
        "images": [{"id": 1}, {"id": 2}],
        "annotations": [{"image_id": 1, "id": 1, "caption": "a dog runs on the grass"},
                        {"image_id": 2, "id": 2, "caption": "a man plays with a ball"}],
    }))
    cands = tmp_path / "cands.json"
    cands.write_text(json.dumps([{"image_id": 1, "caption": "a dog runs"},
                                 {"image_id": 2, "caption": LONG_CANDIDATE}]))
    try:
        done = subprocess.run(
            [sys.executable, "-c", METEOR_SCRIPT, "score-captions", "-r", str(refs),
             "-c", str(cands), "--metrics", "meteor"],
            capture_output=True, text=True, cwd=ROOT, timeout=TIME_LIMIT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"METEOR of a {len(LONG_CANDIDATE):,}-character caption ran {TIME_LIMIT} s")
    assert done.returncode == 2, done.stderr[-2000:]
    assert "error: METEOR: the candidate of image id 2 has 119,999 characters, over the limit " \
        "of 10,000 ($KCCA_MAX_METEOR_CHARACTERS)" in done.stderr, done.stderr[-2000:]
    assert "fix: shorten that caption, or score without METEOR (kcca score-captions " \
        "--no-meteor)" in done.stderr
    assert "export KCCA_MAX_METEOR_CHARACTERS=119999" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_meteor_limit_names_the_reference_and_can_be_set(monkeypatch):
    from kcca.captions import Meteor
    from kcca.captions._meteor import CaptionTooLongError

    _needs_meteor()
    monkeypatch.setenv("KCCA_MAX_METEOR_CHARACTERS", "20")
    refs = {7: ["a dog runs", "a brown dog runs on the green grass"]}
    with pytest.raises(CaptionTooLongError) as info:
        Meteor().compute_score(refs, {7: ["a dog"]})
    assert str(info.value).startswith(
        "METEOR: reference 1 of item 1 has 35 characters, over the limit of 20")
    monkeypatch.setenv("KCCA_MAX_METEOR_CHARACTERS", "35")
    score, per_item = Meteor().compute_score(refs, {7: ["a dog"]})
    assert per_item.shape == (1,) and 0 < score < 1
