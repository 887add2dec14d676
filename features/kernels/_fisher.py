"""``fisher``: the linear kernel of Fisher vectors of dense local descriptors (beyond the paper).

An image kernel on RGB pixels (``item_type = "image-pixels"``): :meth:`FisherKernel.fit`
samples descriptors from a seeded subset of the training images, fits the PCA and the
Gaussian mixture of :class:`features._fisher.FisherVectorEncoder`, and encodes every training
image; ``gram`` encodes the other images and returns dot products (``k(x, x) = 1``). The
descriptors are dense RootSIFT (``descriptor = "sift"``) or the local colour statistics of
:mod:`features._color_patches` (``"color"``), on the same grid and scales. Systems
fit it with ``p = 1`` and the solver applies the grid's p, as for the paper's kernels. Mixed
with the paper's pyramid kernel by ``mix`` (:mod:`features.kernels._mixture`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np
from joblib import delayed
from tqdm.auto import tqdm

from features._color_patches import color_patch_descriptors
from features._descriptors import Descriptors
from features._fisher import FisherVectorEncoder
from features.kernels._base import Kernel, entrywise_power, register_kernel
from features._sift import sift_descriptors
from kcca._workers import worker_parallel
from kcca.errors import SettingError

#: descriptor name -> (dense extractor(image, step, bin_size), RootSIFT mapping before the PCA)
DESCRIPTORS: dict[str, tuple[Callable[..., Descriptors], bool]] = {
    "sift": (sift_descriptors, True),
    "color": (color_patch_descriptors, False),
    "color-lab": (partial(color_patch_descriptors, color_space="lab"), False),
}


def _descriptors(
    image: np.ndarray, step: int, bin_sizes: Sequence[int], descriptor: str = "sift"
) -> Descriptors:
    """Dense descriptors at every bin size, pooled (multi-scale, as vl_phow)."""
    extract = DESCRIPTORS[descriptor][0]
    parts = []
    for b in bin_sizes:
        d = extract(image, step=step, bin_size=int(b))
        if d.values.shape[0] == 0:
            raise SettingError(
                f"an image of {image.shape[0]}x{image.shape[1]} pixels has no "
                f"dense {descriptor} descriptors at bin size {b}: use larger "
                "images or smaller bin_sizes"
            )
        parts.append(d)
    if len(parts) == 1:
        return parts[0]
    return Descriptors(
        np.concatenate([d.values for d in parts]),
        np.concatenate([d.rows for d in parts]),
        np.concatenate([d.cols for d in parts]),
        parts[0].height,
        parts[0].width,
    )


def _sample_rows(
    items: Sequence[Any],
    positions: Sequence[int],
    per_image: int,
    seed: int,
    step: int,
    bin_sizes: Sequence[int],
    descriptor: str,
    encoder: FisherVectorEncoder,
) -> list[np.ndarray]:
    out = []
    for pos in positions:
        values = encoder.prepare(_descriptors(items[pos], step, bin_sizes, descriptor).values)
        rng = np.random.default_rng([seed, int(pos)])
        take = rng.choice(values.shape[0], size=min(per_image, values.shape[0]), replace=False)
        out.append(values[np.sort(take)])
    return out


def _encode_chunk(
    items: Sequence[Any],
    encoder: FisherVectorEncoder,
    step: int,
    bin_sizes: Sequence[int],
    descriptor: str,
) -> np.ndarray:
    return np.stack(
        [
            encoder.encode(_descriptors(items[i], step, bin_sizes, descriptor))
            for i in range(len(items))
        ]
    )


@register_kernel("fisher")
@dataclass(eq=False, repr=False)
class FisherKernel(Kernel):
    """Linear kernel of improved Fisher vectors (``features._fisher``), optionally ``^p``.

    Items are RGB ``uint8`` arrays ``(H, W, 3)``, one per image (``item_type =
    "image-pixels"``).

    Parameters
    ----------
    n_gaussians, pca_dim, strips : int, default=64, 64, 3
        The encoder's (:class:`~features._fisher.FisherVectorEncoder`).
    sample_images : int, default=600
        Training images the PCA and mixture are fitted on (seeded choice).
    per_image : int, default=200
        Descriptors sampled from each of them.
    step : int, default=4
        Dense SIFT grid spacing in pixels (:mod:`features._sift`).
    bin_sizes : sequence of int, default=(4,)
        Descriptor bin (cell) sizes in pixels; descriptors of every size are pooled
        (multi-scale); the paper's SIFT words use one size, 4.
    p : float, default=1.0
        Entry-wise power of the block (systems use 1 and let the solver apply p).
    seed : int, default=0
        Seed of the sample, the PCA and the mixture.
    n_jobs : int, default=1
        Joblib workers for encoding.
    progress : bool, default=False
        A tqdm bar over the images encoded.
    descriptor : {"sift", "color", "color-lab"}, default="sift"
        ``"sift"`` (dense RootSIFT), ``"color"`` (mean and standard deviation of R, G, B in
        4 x 4 cells, :mod:`features._color_patches`) or ``"color-lab"`` (the same statistics
        of CIELAB).

    Attributes
    ----------
    encoder_ : FisherVectorEncoder
        The PCA and Gaussian mixture fitted on the training sample.
    train_items_ : sequence of ndarray
        The training images.
    train_vectors_ : ndarray of shape (n_train, dim)
        Their Fisher vectors (unit norm).

    Examples
    --------
    >>> import numpy as np
    >>> from features.kernels._fisher import FisherKernel
    >>> rng = np.random.default_rng(0)
    >>> images = [rng.integers(0, 256, size=(48, 48, 3), dtype=np.uint8) for _ in range(4)]
    >>> kernel = FisherKernel(n_gaussians=2, pca_dim=4, strips=1, sample_images=4,
    ...                       per_image=20, step=6).fit(images)
    >>> kernel.gram(images[:2]).shape, kernel.diag(images[:2]).round(6)  # unit norm
    ((2, 4), array([1., 1.]))
    """

    item_type = "image-pixels"
    execution_params = ("n_jobs", "progress")

    n_gaussians: int = 64
    pca_dim: int = 64
    strips: int = 3
    sample_images: int = 600
    per_image: int = 200
    step: int = 4
    bin_sizes: Sequence[int] = (4,)
    p: float = 1.0
    seed: int = 0
    n_jobs: int = 1
    progress: bool = False
    descriptor: str = "sift"

    def _descriptor(self) -> str:
        if self.descriptor not in DESCRIPTORS:
            raise SettingError(
                f"fisher kernel: descriptor must be one of {sorted(DESCRIPTORS)}, "
                f"got {self.descriptor!r}"
            )
        return str(self.descriptor)

    def _bin_sizes(self) -> tuple[int, ...]:
        sizes = tuple(np.atleast_1d(np.asarray(self.bin_sizes)).tolist())
        if not sizes or any(int(b) != b or b < 1 for b in sizes):
            raise SettingError(
                f"fisher kernel: bin_sizes must be positive integers, got {self.bin_sizes!r}"
            )
        return tuple(int(b) for b in sizes)

    def _chunks(self, items: Sequence[Any]) -> list[Sequence[Any]]:
        n = len(items)
        size = max(1, min(256, -(-n // max(1, 4 * int(self.n_jobs)))))
        return [items[lo : lo + size] for lo in range(0, n, size)]

    def encode(self, items: Sequence[Any]) -> np.ndarray:
        """Fisher vectors (n, dim) of ``items`` (RGB arrays), float32."""
        self._check_fitted()
        if len(items) == 0:
            return np.zeros((0, self.encoder_.dim), dtype=np.float32)
        chunks = self._chunks(items)
        parts = worker_parallel(n_jobs=int(self.n_jobs), return_as="generator")(
            delayed(_encode_chunk)(
                c, self.encoder_, int(self.step), self._bin_sizes(), self._descriptor()
            )
            for c in chunks
        )
        out = []
        with tqdm(
            total=len(items), desc="fisher vectors", unit="image", disable=not self.progress
        ) as bar:
            for part in parts:
                out.append(part)
                bar.update(len(part))
        return np.concatenate(out)

    def fit(self, train_items: Sequence[Any]) -> "FisherKernel":
        """Fit the encoder on a seeded sample of ``train_items`` and encode all of them."""
        n = len(train_items)
        if n == 0:
            raise ValueError("the fisher kernel needs training images, got none")
        descriptor = self._descriptor()
        encoder = FisherVectorEncoder(
            self.n_gaussians, self.pca_dim, self.strips, self.seed, root=DESCRIPTORS[descriptor][1]
        )
        rng = np.random.default_rng(int(self.seed))
        chosen = np.sort(rng.choice(n, size=min(int(self.sample_images), n), replace=False))
        groups = np.array_split(chosen, max(1, min(len(chosen), 4 * int(self.n_jobs))))
        parts = worker_parallel(n_jobs=int(self.n_jobs))(
            delayed(_sample_rows)(
                train_items,
                g.tolist(),
                int(self.per_image),
                int(self.seed),
                int(self.step),
                self._bin_sizes(),
                descriptor,
                encoder,
            )
            for g in groups
        )
        sample = np.concatenate([r for part in parts for r in part])
        self.encoder_ = encoder.fit(sample)
        self.train_items_ = train_items
        self.train_vectors_ = self.encode(train_items)
        return self

    def _vectors(self, items: Sequence[Any]) -> np.ndarray:
        return self.train_vectors_ if items is self.train_items_ else self.encode(items)

    def _gram(self, items_a: Sequence[Any], items_b: Sequence[Any]) -> np.ndarray:
        A = self._vectors(items_a)
        B = A if items_b is items_a else self._vectors(items_b)
        out = (A @ B.T).astype(np.float64)
        return entrywise_power(out, self.p, self.name)

    def diag(self, items: Sequence[Any]) -> np.ndarray:
        V = self._vectors(items)
        return entrywise_power(np.einsum("ij,ij->i", V, V, dtype=np.float64), self.p, self.name)
