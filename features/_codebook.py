"""Visual-word codebooks: k-means centres of a seeded sample of descriptor rows (Section 3.3.1).

The paper clusters "1,000 points of 200 images from the PASCAL 2008 data set" into 128 colour,
256 texture and 256 SIFT words (Section 3.3.1; read as 1,000 points from each of 200 images).
We have no PASCAL images, so the codebooks come from a seeded sample of OUR TRAINING SPLIT
instead (docs/paper-notes.md#descriptors-and-codebooks): :meth:`Codebook.choose_images` picks
``n_images`` training images and :meth:`Codebook.sample` draws ``points_per_image`` rows of
each; k-means then runs with a fixed ``random_state`` and an explicit ``n_init``, so the same
config gives the same words.
K-means runs on ONE BLAS/OpenMP thread: with several, the reduction order (and, over the
iterations, the centres) depends on the thread count, so cached codebooks would depend on
the machine. The pipeline fits the three feature types' codebooks in parallel instead.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Sequence

import numba
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.cluster import KMeans, MiniBatchKMeans
from threadpoolctl import threadpool_limits


@dataclass(eq=False, repr=False)
class Codebook(BaseEstimator):
    """A k-means vocabulary of ``n_words`` visual words.

    Parameters:
        n_words: vocabulary size (128 colour / 256 texture / 256 SIFT in the paper).
        points_per_image: rows sampled from each image (all rows if an image has fewer).
        n_images: how many training images :meth:`choose_images` picks (all if fewer).
        seed: seeds the image choice, the row sample and k-means.
        n_init: k-means restarts (explicit, scikit-learn's default changed across versions).
        max_iter: k-means iterations.
        algorithm: ``"kmeans"`` (Lloyd, sklearn ``KMeans``) or ``"minibatch"``.

    Learned attributes: ``cluster_centers_`` (n_words, d) float32, ``n_features_in_``,
    ``n_samples_fit_`` (rows clustered), ``inertia_``.
    """

    n_words: int
    points_per_image: int = 1000
    n_images: int = 200
    seed: int = 0
    n_init: int = 1
    max_iter: int = 100
    algorithm: str = "kmeans"

    # ------------------------------------------------------------------ sampling
    def choose_images(self, image_ids: Sequence[str]) -> list[str]:
        """A seeded choice of ``n_images`` of ``image_ids`` (all of them if fewer), in input order.

        Depends only on the seed and the id list (not on the process or worker count).
        """
        ids = list(image_ids)
        if len(set(ids)) != len(ids):
            raise ValueError("image ids for the codebook sample contain duplicates")
        if len(ids) <= self.n_images:
            return ids
        rng = np.random.default_rng([self.seed, 0x636F6465])
        keep = np.sort(rng.choice(len(ids), size=self.n_images, replace=False))
        return [ids[i] for i in keep]

    def sample(self, values: np.ndarray, index: int) -> np.ndarray:
        """``points_per_image`` seeded rows of one image's descriptors (all if fewer).

        ``index`` is the image's position in the chosen list, so the draw for an image does
        not depend on which worker computes it. Applying it twice is the identity.
        """
        values = _as_2d(values, "descriptor values")
        n = values.shape[0]
        if n <= self.points_per_image:
            return values
        rng = np.random.default_rng([self.seed, 0x73616D70, int(index)])
        keep = np.sort(rng.choice(n, size=self.points_per_image, replace=False))
        return values[keep]

    # ----------------------------------------------------------------- fitting
    def fit(self, descriptors: Sequence[np.ndarray], y: Any = None) -> "Codebook":
        """Cluster the sampled rows of each image's descriptor array (one array per image)."""
        if isinstance(descriptors, np.ndarray) and descriptors.ndim == 2:
            descriptors = [descriptors]
        parts = [self.sample(v, i) for i, v in enumerate(descriptors)]
        if not parts:
            raise ValueError("no images given to fit the codebook")
        dims = {p.shape[1] for p in parts}
        if len(dims) != 1:
            raise ValueError(f"descriptor arrays have different widths {sorted(dims)}")
        X = np.concatenate(parts, axis=0).astype(np.float32, copy=False)
        if not np.isfinite(X).all():
            raise ValueError("descriptor sample contains non-finite values: check the extractor")
        if X.shape[0] < self.n_words:
            raise ValueError(
                f"a codebook of {self.n_words} words needs at least {self.n_words} sample rows, "
                f"got {X.shape[0]}: sample more images or points per image, or use fewer words"
            )
        n_distinct = _count_distinct_rows(X)
        if n_distinct < self.n_words:
            warnings.warn(
                f"only {n_distinct} distinct descriptor rows for a {self.n_words}-word codebook: "
                f"{self.n_words - n_distinct} words will duplicate others (flat images?)",
                stacklevel=2,
            )
        settings = dict(
            n_clusters=self.n_words,
            n_init=self.n_init,
            max_iter=self.max_iter,
            random_state=self.seed,
        )
        if self.algorithm == "kmeans":
            km = KMeans(**settings)
        elif self.algorithm == "minibatch":
            km = MiniBatchKMeans(**settings, batch_size=4096)
        else:
            raise ValueError(f"unknown k-means algorithm {self.algorithm!r}: use kmeans, minibatch")
        with warnings.catch_warnings(), threadpool_limits(limits=1):
            if n_distinct < self.n_words:  # already reported above
                warnings.simplefilter("ignore", category=UserWarning)
            km.fit(X)
        self.cluster_centers_ = km.cluster_centers_.astype(np.float32)
        self.n_features_in_ = X.shape[1]
        self.n_samples_fit_ = X.shape[0]
        self.inertia_ = float(km.inertia_)
        return self

    def predict(self, values: np.ndarray) -> np.ndarray:
        """Word id (index of the nearest centre, Euclidean) of each row, as int32."""
        if not hasattr(self, "cluster_centers_"):
            raise RuntimeError("the codebook is not fitted: call fit(descriptors) first")
        values = _as_2d(values, "descriptor values")
        if values.shape[1] != self.n_features_in_:
            raise ValueError(
                f"descriptors have {values.shape[1]} columns but the codebook was fitted on "
                f"{self.n_features_in_}: use the codebook of the same feature type"
            )
        if values.shape[0] == 0:
            return np.zeros(0, dtype=np.int32)
        return nearest_centre(values, self.cluster_centers_)


def nearest_centre(values: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Index of the nearest centre (Euclidean) of each row; ties go to the lowest index.

    Up to 16 dims (colour 3-d, texture 8-d): squared distances ``sum_d (x_d - c_d)^2``
    accumulated in float64 directly in a numba loop (a BLAS product with so small an inner
    dimension is slower). Above: ``||c||^2 - 2 x.c`` (``||x||^2`` is the same for every
    centre) in float64 with BLAS, a chunk of rows at a time.
    """
    x = np.ascontiguousarray(values, dtype=np.float32)
    c = np.ascontiguousarray(centres, dtype=np.float64)
    if x.shape[1] != c.shape[1]:
        raise ValueError(f"rows have {x.shape[1]} dims, centres {c.shape[1]}")
    if x.shape[1] > 16:  # SIFT: a BLAS product pays off
        return _nearest_blas(x, c)
    out = np.empty(x.shape[0], dtype=np.int32)
    _nearest(x, np.ascontiguousarray(c.T), out)
    return out


@numba.njit(nogil=True, cache=True)
def _nearest(x: np.ndarray, ct: np.ndarray, out: np.ndarray) -> None:
    """``ct`` is the (d, k) transpose of the centres: the inner loop runs over centres."""
    n, d = x.shape
    k = ct.shape[1]
    dist = np.empty(k, dtype=np.float64)
    for i in range(n):
        dist[:] = 0.0
        for t in range(d):
            xt = np.float64(x[i, t])
            for j in range(k):
                diff = xt - ct[t, j]
                dist[j] += diff * diff
        best = dist[0]
        arg = 0
        for j in range(1, k):
            if dist[j] < best:
                best = dist[j]
                arg = j
        out[i] = arg


def _nearest_blas(x: np.ndarray, c: np.ndarray, chunk: int = 4096) -> np.ndarray:
    """argmin ``||c||^2 - 2 x.c`` in float64 (``||x||^2`` is constant per row), chunked."""
    cc = np.einsum("ij,ij->i", c, c)
    out = np.empty(x.shape[0], dtype=np.int32)
    for s in range(0, x.shape[0], chunk):
        d = cc[None, :] - 2.0 * (x[s : s + chunk].astype(np.float64) @ c.T)
        out[s : s + chunk] = np.argmin(d, axis=1)
    return out


def _count_distinct_rows(X: np.ndarray) -> int:
    rows = np.ascontiguousarray(X).view(np.dtype((np.void, X.dtype.itemsize * X.shape[1])))
    return int(np.unique(rows.ravel()).shape[0])


def _as_2d(values: Any, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.ndim != 2:
        raise ValueError(f"{what} must be a 2-D (rows, dims) array, got shape {arr.shape}")
    return arr
