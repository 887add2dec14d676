"""Fisher vectors of dense RootSIFT: an image representation beyond the paper's visual words.

Not in Hodosh et al. (2013), whose SIFT feature is a 256-word histogram (Section 3.3). The
improved Fisher vector (Perronnin, Sanchez & Mensink, 2010) describes an image by the gradient
of a diagonal Gaussian mixture's log-likelihood with respect to its means and variances:

    u_k = 1 / (N sqrt(w_k))  sum_i g_ik (x_i - mu_k) / sigma_k
    v_k = 1 / (N sqrt(2 w_k)) sum_i g_ik [((x_i - mu_k) / sigma_k)^2 - 1]

(``g_ik`` the posterior of Gaussian k for descriptor i), followed by the signed square root and
L2 normalisation. Descriptors are dense SIFT (:mod:`features._sift`) mapped to RootSIFT
(square root of the L1-normalised descriptor, Arandjelovic & Zisserman, 2012) and reduced by
PCA before the mixture. Spatial layout: the whole image and three horizontal strips
(Chatfield et al., 2011), each normalised, concatenated and scaled to unit norm, so that the
linear kernel of two images lies in [-1, 1] with ``k(x, x) = 1``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.decomposition import PCA
from sklearn.mixture import GaussianMixture

from features._descriptors import Descriptors


def root_sift(values: np.ndarray) -> np.ndarray:
    """RootSIFT: the square root of each L1-normalised row (all-zero rows stay zero)."""
    v = np.abs(np.asarray(values, dtype=np.float32))
    return np.sqrt(v / np.maximum(v.sum(axis=1, keepdims=True), np.float32(1e-12)))


def strip_masks(rows: np.ndarray, height: int, strips: int) -> list[np.ndarray]:
    """The whole image, then ``strips`` horizontal strips of equal height (by row position)."""
    rows = np.asarray(rows, dtype=np.float64)
    band = np.clip((rows * strips / float(height)).astype(np.int64), 0, strips - 1)
    return [np.ones(rows.shape[0], dtype=bool)] + [band == s for s in range(strips)]


@dataclass(eq=False, repr=False)
class FisherVectorEncoder(BaseEstimator):
    """PCA + diagonal GMM fitted on a descriptor sample; :meth:`encode` gives improved FVs.

    Args:
        n_gaussians: mixture components K (the FV of one region has ``2 K pca_dim`` entries).
        pca_dim: dimensions kept by the PCA of the (RootSIFT) descriptors.
        strips: horizontal strips besides the whole image (0: whole image only).
        seed: seed of the PCA solver and the mixture's initialisation.
        root: map descriptor rows to RootSIFT before the PCA (:func:`root_sift`; True for
            SIFT, False for descriptors such as local colour statistics).
    """

    n_gaussians: int = 64
    pca_dim: int = 64
    strips: int = 3
    seed: int = 0
    root: bool = True

    def prepare(self, values: np.ndarray) -> np.ndarray:
        """Descriptor rows as the PCA sees them: RootSIFT when ``root``, else float32."""
        return root_sift(values) if self.root else np.asarray(values, dtype=np.float32)

    def fit(self, sample: np.ndarray) -> "FisherVectorEncoder":
        """Fit the PCA and the mixture on ``sample`` (n, d) rows already :meth:`prepare`-d."""
        X = np.asarray(sample, dtype=np.float64)
        need = max(int(self.n_gaussians) * 10, int(self.pca_dim) + 1)
        if X.ndim != 2 or X.shape[0] < need:
            raise ValueError(
                f"a Fisher-vector codebook needs a 2-d sample of at least {need} "
                f"descriptors, got shape {X.shape}: sample more images"
            )
        if not np.isfinite(X).all():
            raise ValueError("the descriptor sample has non-finite values")
        self.pca_ = PCA(int(self.pca_dim), random_state=self.seed).fit(X)
        Z = self.pca_.transform(X)
        self.gmm_ = GaussianMixture(
            int(self.n_gaussians),
            covariance_type="diag",
            random_state=self.seed,
            max_iter=100,
            reg_covar=1e-6,
        ).fit(Z)
        self.mean_ = self.pca_.mean_.astype(np.float32)
        self.components_ = self.pca_.components_.astype(np.float32)
        self.means_ = self.gmm_.means_
        self.precisions_sqrt_ = 1.0 / np.sqrt(self.gmm_.covariances_)
        self.weights_ = self.gmm_.weights_
        return self

    @property
    def region_dim(self) -> int:
        return 2 * int(self.n_gaussians) * int(self.pca_dim)

    @property
    def dim(self) -> int:
        return self.region_dim * (1 + int(self.strips))

    def project(self, values: np.ndarray) -> np.ndarray:
        """PCA coordinates of :meth:`prepare`-d rows."""
        return (np.asarray(values, dtype=np.float32) - self.mean_) @ self.components_.T

    def fisher_vector(self, Z: np.ndarray) -> np.ndarray:
        """The normalised improved FV of PCA-projected descriptors ``Z`` (module docstring)."""
        n = Z.shape[0]
        if n == 0:
            return np.zeros(self.region_dim, dtype=np.float32)
        Z = np.asarray(Z, dtype=np.float64)
        mu, ps, w = self.means_, self.precisions_sqrt_, self.weights_
        prec = ps**2
        # log N(z | mu_k, sigma_k) + log w_k, expanded so that it is two matrix products
        log_p = (
            -0.5 * ((Z**2) @ prec.T - 2.0 * Z @ (mu * prec).T + (mu**2 * prec).sum(1))
            + np.log(ps).sum(1)
            + np.log(w)
        )
        log_p -= log_p.max(axis=1, keepdims=True)
        g = np.exp(log_p)
        g /= g.sum(axis=1, keepdims=True)
        gs = g.sum(axis=0)[:, None]  # (K, 1)
        gz = g.T @ Z  # (K, D): sum_i g_ik z_i
        gz2 = g.T @ (Z**2)  # (K, D): sum_i g_ik z_i^2
        u = (gz - gs * mu) * ps / (n * np.sqrt(w)[:, None])
        second = (gz2 - 2.0 * mu * gz + gs * mu**2) * prec - gs
        v = second / (n * np.sqrt(2.0 * w)[:, None])
        f = np.concatenate([u.ravel(), v.ravel()])
        f = np.sign(f) * np.sqrt(np.abs(f))
        norm = np.linalg.norm(f)
        return (f / norm if norm > 0 else f).astype(np.float32)

    def encode(self, descriptors: Descriptors) -> np.ndarray:
        """The image's FV: whole image and ``strips`` strips, concatenated with unit norm."""
        if not hasattr(self, "gmm_"):
            raise RuntimeError("FisherVectorEncoder is not fitted: call fit(sample) first")
        Z = self.project(self.prepare(descriptors.values))
        masks = strip_masks(descriptors.rows, descriptors.height, int(self.strips))
        parts = [self.fisher_vector(Z[m]) for m in masks]
        return np.concatenate(parts) / np.float32(np.sqrt(len(parts)))
