"""TRI with a word kernel (eq. 19-21) by literal double sums over sequence pairs: the slow,
obviously correct Gram matrices the soft trigram engines are compared with, a random PSD word
kernel on a small vocabulary, and a trigram kernel fitted beside its literal Gram matrices."""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np

from features.text._text_items import EmptyCaptionWarning
from features.text._trigram_kernel import TrigramKernel
from features.text._word_kernel import WordKernel

VOCAB = ("dog", "puppy", "run", "sprint", "beach", "sand", "ball")


def literal_sequences(s, max_length=3):
    """m_{s,w} of eq. 12 by brute force over spans and subsequences."""
    out = {}
    n = len(s)
    for k in range(1, max_length + 1):
        seen = set()
        for i in range(n):
            for j in range(i + k - 1, n):
                if k == 1:
                    if i == j:
                        out[(s[i],)] = out.get((s[i],), 0) + 1
                    continue
                for mid in itertools.combinations(range(i + 1, j), k - 2):
                    w = (s[i], *[s[m] for m in mid], s[j])
                    if (i, j, w) not in seen:  # a span counts once per sequence
                        seen.add((i, j, w))
                        out[w] = out.get(w, 0) + 1
    return out


def literal_idf(train, word):
    df = sum(1 for item in train if any(word in c for c in item))
    return max(0.0, math.log(len(train) / (df + 1)))


def literal_soft(s, t, kappa, lam_m=0.5, idf=None):
    """Eq. 20 (eq. 21 with ``idf``): sum over w in s, w' in t of equal length."""
    ms, mt = literal_sequences(s), literal_sequences(t)
    total = 0.0
    for w, a in ms.items():
        for v, b in mt.items():
            if len(w) != len(v):
                continue
            sigma = math.prod(kappa.similarity(x, y) for x, y in zip(w, v))  # eq. 19
            lw = 1.0 if idf is None else math.sqrt(math.prod(map(idf, w)) * math.prod(map(idf, v)))
            total += lw * a * b * lam_m ** (2 * len(w)) * sigma
    return total


def literal_item(a, b, kappa, **kw):
    ab = sum(literal_soft(s, t, kappa, **kw) for s in a for t in b)
    aa = sum(literal_soft(s, t, kappa, **kw) for s in a for t in a)
    bb = sum(literal_soft(s, t, kappa, **kw) for s in b for t in b)
    return 0.0 if aa == 0 or bb == 0 else ab / math.sqrt(aa * bb)


def literal_grams(train, test, kappa, weighting=None):
    """The literal grams of eq. 20 (eq. 21 with ``weighting="sqrt-idf"``, the idf of ``train``):
    train x train with the unit diagonal the kernel gives every item, and test caption x train."""
    idf = None if weighting is None else (lambda w: literal_idf(train, w))
    want = np.array([[literal_item(a, b, kappa, idf=idf) for b in train] for a in train])
    np.fill_diagonal(want, 1.0)
    want_t = np.array([[literal_item([a], b, kappa, idf=idf) for b in train] for a in test])
    return want, want_t


def random_word_kernel(seed, vocab=VOCAB[:-1]):
    """A PSD word kernel: cosine of random non-negative vectors ('ball' stays outside)."""
    rng = np.random.default_rng(seed)
    vectors = rng.random((len(vocab), 4)) ** 3
    return WordKernel.from_vectors("rand", vocab, vectors)


def fit_beside_literal(items, weighting, **params):
    """A trigram kernel on random word kernel 0 fitted to ``items``' training part, with the
    literal eq. 25-26 Gram matrices it must match (training, test)."""
    train, test = items
    kappa = random_word_kernel(0)
    want, want_t = literal_grams(train, test, kappa, weighting)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyCaptionWarning)
        k = TrigramKernel(word_kernel=kappa, weighting=weighting, progress=False, **params)
        return k.fit(train), want, want_t
