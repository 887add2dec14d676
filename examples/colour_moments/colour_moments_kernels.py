"""Two user-defined kernels for kcca: colour moments of images, character n-grams of captions.

This module is a plug-in (docs/plugin-kernels.md): importing it registers the kernels
``colour-moments`` and ``char-ngrams`` with ``@register_kernel``, after which an experiment
file names them like the built-in ones. ``experiment.toml`` beside it does so through
``plugins = ["colour_moments_kernels"]``; the alternative, an installed package with entry
points in the group ``kcca.kernels``, is shown in docs/plugin-kernels.md.

Both follow the kernel contract of ``features.kernels.Kernel``: constructor arguments are the
parameters (stored unchanged, so they key the cache), ``fit(train_items)`` stores the training
items, ``_gram(items_a, items_b)`` returns the block and ``diag(items)`` its diagonal; the class
attribute ``item_type`` tells a system what items to pass.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from features.kernels import Kernel, register_kernel


# ----------------------------------------------------------------------------- image side
def colour_moments(image: np.ndarray, grid: int = 1) -> np.ndarray:
    """Mean, standard deviation and skewness (cube root of the third central moment) of each
    RGB channel in each cell of a ``grid x grid`` partition: ``9 * grid**2`` numbers in [0, 1]
    (skewness in [-1, 1]) for an RGB ``uint8`` image of shape (H, W, 3)."""
    img = np.asarray(image)
    if img.ndim == 2:
        img = np.repeat(img[:, :, None], 3, axis=2)
    if img.ndim != 3 or img.shape[2] < 3:
        raise ValueError(f"expected an RGB image of shape (H, W, 3), got shape {img.shape}")
    img = img[:, :, :3].astype(np.float64) / 255.0
    h, w = img.shape[:2]
    if h < grid or w < grid:
        raise ValueError(f"image of {h} x {w} pixels is too small for a {grid} x {grid} grid")
    out = []
    for r in range(grid):
        for c in range(grid):
            cell = img[r * h // grid:(r + 1) * h // grid, c * w // grid:(c + 1) * w // grid]
            cell = cell.reshape(-1, 3)
            mean = cell.mean(axis=0)
            centred = cell - mean
            out += [mean, np.sqrt((centred ** 2).mean(axis=0)),
                    np.cbrt((centred ** 3).mean(axis=0))]
    return np.concatenate(out)


@register_kernel("colour-moments")
class ColourMomentKernel(Kernel):
    """Gaussian kernel on colour moments: ``k(x, y) = exp(-gamma * |m(x) - m(y)|^2)``.

    Parameters: ``grid`` cells per side (1: whole image; 2: four quadrants); ``gamma`` the
    bandwidth, ``None`` for ``1 / mean squared distance`` between training images (``gamma_``).
    Items are RGB ``uint8`` arrays (``item_type = "image-pixels"``: a system loads them from
    the corpus) or precomputed moment vectors (1-D arrays).
    """

    item_type = "image-pixels"

    def __init__(self, grid: int = 1, gamma: float | None = None):
        self.grid = grid
        self.gamma = gamma

    def moments(self, items: Sequence[Any]) -> np.ndarray:
        """One row of moments per item (images are read one at a time)."""
        rows = [np.asarray(x, dtype=np.float64) if np.ndim(x) == 1
                else colour_moments(x, int(self.grid)) for x in items]
        return np.vstack(rows) if rows else np.zeros((0, 9 * int(self.grid) ** 2))

    def fit(self, train_items: Sequence[Any]) -> "ColourMomentKernel":
        if int(self.grid) < 1:
            raise ValueError(f"colour-moments: grid must be a positive integer, got {self.grid!r}")
        self.train_items_ = train_items
        self.train_moments_ = self.moments(train_items)
        if self.gamma is None:
            d2 = _sq_dists(self.train_moments_, self.train_moments_)
            mean = d2.sum() / max(1, d2.size - len(d2))  # off-diagonal mean
            self.gamma_ = 1.0 / mean if mean > 0 else 1.0
        else:
            self.gamma_ = float(self.gamma)
        return self

    def _features(self, items: Sequence[Any]) -> np.ndarray:
        if getattr(self, "train_items_", None) is items:
            return self.train_moments_  # the training items: moments computed once in fit
        return self.moments(items)

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        self._check_fitted()
        a = self._features(items_a)
        b = a if items_b is items_a else self._features(items_b)
        return np.exp(-self.gamma_ * _sq_dists(a, b))

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        return np.ones(len(items))


def _sq_dists(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    d2 = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return np.maximum(d2, 0.0)


# ------------------------------------------------------------------------------ text side
@register_kernel("char-ngrams")
class CharNgramKernel(Kernel):
    """Cosine of character n-gram counts (n-grams inside words, padded with spaces).

    Items are captions as token lists (what a system passes; ``item_type = "text"``) or
    strings; a training item may be several captions (a list of token lists: the five of one
    image), whose counts are summed. Parameters: ``n`` the n-gram length; ``n_features`` the
    hashing dimension.
    """

    item_type = "text"

    def __init__(self, n: int = 3, n_features: int = 2 ** 18):
        self.n = n
        self.n_features = n_features

    def _vectorizer(self):
        from sklearn.feature_extraction.text import HashingVectorizer

        n = int(self.n)
        if n < 1:
            raise ValueError(f"char-ngrams: n must be a positive integer, got {self.n!r}")
        return HashingVectorizer(analyzer="char_wb", ngram_range=(n, n),
                                 n_features=int(self.n_features), alternate_sign=False,
                                 norm=None, lowercase=True)

    def vectors(self, items: Sequence[Any]):
        """L2-normalised sparse count rows, one per item."""
        from scipy import sparse
        from sklearn.preprocessing import normalize

        texts, owner = [], []
        for i, item in enumerate(items):
            for caption in _captions(item):
                texts.append(caption)
                owner.append(i)
        counts = self._vectorizer().transform(texts)
        pool = sparse.csr_matrix((np.ones(len(owner)), (owner, np.arange(len(owner)))),
                                 shape=(len(items), len(owner)))
        return normalize(pool @ counts)

    def fit(self, train_items: Sequence[Any]) -> "CharNgramKernel":
        self.train_items_ = train_items
        self.train_vectors_ = self.vectors(train_items)
        return self

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        def vecs(items):
            return self.train_vectors_ if getattr(self, "train_items_", None) is items \
                else self.vectors(items)

        a = vecs(items_a)
        b = a if items_b is items_a else vecs(items_b)
        return np.asarray((a @ b.T).todense(), dtype=np.float64)

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        v = self.vectors(items)
        return np.asarray(v.multiply(v).sum(axis=1), dtype=np.float64).ravel()


def _captions(item: Any) -> list[str]:
    """The caption strings of an item: a string, a token list, or a list of token lists."""
    if isinstance(item, str):
        return [item]
    item = list(item)
    if item and all(isinstance(c, (list, tuple)) for c in item):  # several captions
        return [" ".join(map(str, c)) for c in item]
    return [" ".join(map(str, item))]  # one caption's tokens
