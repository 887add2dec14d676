"""Texture descriptors: the Varma-Zisserman MR8 filter responses of every pixel (Sec. 3.3, K_T).

The paper's texture feature "captures edge information at different orientations centred on
the pixel" (Section 3.3.1, citing Varma & Zisserman, 2005): the Maximum Response 8 (MR8)
filter bank (a reading of the citation: docs/paper-notes.md#descriptors-and-codebooks).

Filter bank (VGG's ``makeRFSfilters``; 38 filters of support 49 x 49):
  * 18 edge filters (first derivative of an anisotropic Gaussian) and 18 bar filters (second
    derivative), at 3 scales (sigma along the filter, sigma across) = (3, 1), (6, 2), (12, 4)
    and 6 orientations theta_k = pi k / 6. Filter k differentiates along the direction
    (sin theta_k, cos theta_k) in (x right, y up) coordinates: theta = 0 is a vertical
    derivative (it responds to horizontal edges). Order: edges scale-major, then bars, then
  * a Gaussian and a Laplacian of Gaussian, both sigma = 10 (MATLAB ``fspecial``).
  Edge, bar and LoG filters are made zero mean; every filter has L1 norm 1. Unlike VGG's
  MATLAB code (which also subtracts the mean of the truncated Gaussian, turning it into a
  centre-surround filter), the Gaussian is kept a low-pass filter (sum 1), as the paper
  describes it.

Responses, per pixel (8 values, in this order): for each scale the maximum *absolute* edge
response over the 6 orientations (3 values), the same for the bars (3 values), then the
Gaussian and the LoG. Taking absolute values makes a filter and its 180-degree rotation
equivalent, so MR8 is invariant to 90-degree image rotations (VZ 2005; VGG's MR8fast takes
absolute values for the edges only).

Preprocessing (VZ 2005, Sec. 2): the grey image (``cv2.COLOR_RGB2GRAY`` / 255) is normalised
to zero mean and unit standard deviation (``normalize_intensity``; a constant image is only
centred). Borders are reflected (``cv2.BORDER_REFLECT``, "fedcba|abcdef"); the 38 correlations
are computed at once with real FFTs (one forward transform, 38 inverse ones).

Contrast normalisation (VZ 2005, eq. for Weber's law): with L(x) = ||F(x)||_2 over the 8
responses, F(x) <- F(x) * log(1 + L(x) / 0.03) / L(x) (``contrast_normalize``,
``contrast_scale``); F stays 0 where L = 0.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np
import scipy.fft

from features._color import check_rgb_image, pixel_grid
from features._descriptors import Descriptors, config_function

#: Bump when the numbers this module produces change (part of the cache key).
VERSION = 1

SUPPORT = 49
SCALES = (1, 2, 4)
NUM_ORIENTATIONS = 6
NUM_FILTERS = 2 * len(SCALES) * NUM_ORIENTATIONS + 2  # 38
NUM_RESPONSES = 2 * len(SCALES) + 2  # 8
ROTATION_INVARIANT_SIGMA = 10.0


def _gauss1d(sigma: float, x: np.ndarray, order: int) -> np.ndarray:
    """Gaussian (order 0) or its first / second derivative at ``x`` (VGG's ``gauss1d``)."""
    variance = sigma**2
    g = np.exp(-x * x / (2 * variance)) / np.sqrt(2 * np.pi * variance)
    if order == 1:
        return -g * x / variance
    if order == 2:
        return g * (x * x - variance) / variance**2
    return g


def _zero_mean_l1(f: np.ndarray) -> np.ndarray:
    f = f - f.mean()
    return f / np.abs(f).sum()


def _coordinates(support: int) -> tuple[np.ndarray, np.ndarray]:
    """x (right) and y (up) of each filter tap; tap [i, j] sits at (j - h, h - i)."""
    h = (support - 1) // 2
    x, y = np.meshgrid(np.arange(-h, h + 1), np.arange(h, -h - 1, -1))
    return x.astype(np.float64), y.astype(np.float64)


@lru_cache(maxsize=1)
def _filter_bank() -> np.ndarray:
    x, y = _coordinates(SUPPORT)
    n = len(SCALES) * NUM_ORIENTATIONS
    bank = np.zeros((NUM_FILTERS, SUPPORT, SUPPORT))
    count = 0
    for scale in SCALES:
        for k in range(NUM_ORIENTATIONS):
            angle = np.pi * k / NUM_ORIENTATIONS
            c, s = np.cos(angle), np.sin(angle)
            rx, ry = c * x - s * y, s * x + c * y
            along = _gauss1d(3 * scale, rx, 0)
            bank[count] = _zero_mean_l1(along * _gauss1d(scale, ry, 1))
            bank[count + n] = _zero_mean_l1(along * _gauss1d(scale, ry, 2))
            count += 1
    sigma2 = ROTATION_INVARIANT_SIGMA**2
    r2 = x * x + y * y
    gauss = np.exp(-r2 / (2 * sigma2))
    gauss /= gauss.sum()  # fspecial('gaussian', 49, 10): L1 norm 1, not zero mean
    bank[2 * n] = gauss
    log = gauss * (r2 - 2 * sigma2) / sigma2**2  # fspecial('log', 49, 10)
    bank[2 * n + 1] = _zero_mean_l1(log - log.mean())
    bank.setflags(write=False)
    return bank


def mr8_filter_bank() -> np.ndarray:
    """The 38 RFS filters (38, 49, 49), float64: 18 edge, 18 bar, Gaussian, LoG (see module)."""
    return _filter_bank().copy()


def grey_float(image: np.ndarray, normalize_intensity: bool = True) -> np.ndarray:
    """Grey image in [0, 1] (float32), optionally normalised to zero mean and unit variance."""
    grey = cv2.cvtColor(check_rgb_image(image), cv2.COLOR_RGB2GRAY).astype(np.float32) / 255.0
    if normalize_intensity:
        grey = grey - grey.mean(dtype=np.float64).astype(np.float32)
        std = float(grey.std(dtype=np.float64))
        if std > 1e-6:
            grey = grey / np.float32(std)
    return grey


@lru_cache(maxsize=8)
def _bank_spectrum(shape: tuple[int, int]) -> np.ndarray:
    """rfft2 of the flipped filters, zero-padded to ``shape`` (so products are correlations)."""
    flipped = np.ascontiguousarray(_filter_bank()[:, ::-1, ::-1], dtype=np.float32)
    spectrum = scipy.fft.rfft2(flipped, s=shape, axes=(-2, -1))
    spectrum.setflags(write=False)
    return spectrum


def filter_responses(grey: np.ndarray) -> np.ndarray:
    """Correlate a 2-d float image with all 38 filters, reflected borders: float32 (38, H, W).

    Equal to ``cv2.filter2D(grey, -1, f, borderType=cv2.BORDER_REFLECT)`` for each filter f.
    """
    if grey.ndim != 2 or grey.size == 0:
        raise ValueError(f"expected a non-empty 2-d grey image, got shape {grey.shape}")
    h, w = grey.shape
    half = SUPPORT // 2
    padded = np.pad(grey.astype(np.float32, copy=False), half, mode="symmetric")
    shape = (
        scipy.fft.next_fast_len(h + 2 * half, real=True),
        scipy.fft.next_fast_len(w + 2 * half, real=True),
    )
    spectrum = scipy.fft.rfft2(padded, s=shape)
    full = scipy.fft.irfft2(_bank_spectrum(shape) * spectrum, s=shape, axes=(-2, -1))
    return full[:, 2 * half : 2 * half + h, 2 * half : 2 * half + w]


def max_responses(responses: np.ndarray) -> np.ndarray:
    """Collapse (38, H, W) filter responses to the 8 MR8 responses (8, H, W), float32."""
    n_scales, n_orient = len(SCALES), NUM_ORIENTATIONS
    oriented = np.abs(responses[: 2 * n_scales * n_orient])
    oriented = oriented.reshape(2 * n_scales, n_orient, *responses.shape[1:]).max(axis=1)
    return np.concatenate([oriented, responses[2 * n_scales * n_orient :]]).astype(np.float32)


def normalize_contrast(mr8: np.ndarray, scale: float = 0.03) -> np.ndarray:
    """VZ's contrast normalisation along axis 0: F <- F log(1 + L / scale) / L, L = ||F||_2."""
    norm = np.sqrt(np.einsum("k...,k...->...", mr8, mr8))
    factor = np.zeros_like(norm)
    nonzero = norm > 0
    factor[nonzero] = np.log1p(norm[nonzero] / scale) / norm[nonzero]
    return mr8 * factor[None]


def mr8_responses(
    image: np.ndarray,
    normalize_intensity: bool = True,
    contrast_normalize: bool = True,
    contrast_scale: float = 0.03,
) -> np.ndarray:
    """The 8 MR8 responses of every pixel of an RGB uint8 image: float32 (8, H, W)."""
    grey = grey_float(image, normalize_intensity)
    mr8 = max_responses(filter_responses(grey))
    if contrast_normalize:
        mr8 = normalize_contrast(mr8, contrast_scale)
    return mr8


def texture_descriptors(
    image: np.ndarray,
    normalize_intensity: bool = True,
    contrast_normalize: bool = True,
    contrast_scale: float = 0.03,
) -> Descriptors:
    """One 8-d MR8 row per pixel, row-major (n = H * W, d = 8); see the module docstring.

    Args:
        image: RGB uint8 (H, W, 3).
        normalize_intensity: zero-mean, unit-variance grey image first (VZ 2005; default on).
        contrast_normalize: apply F log(1 + L / contrast_scale) / L per pixel (default on).
        contrast_scale: the constant of the contrast normalisation (VZ: 0.03).
    """
    mr8 = mr8_responses(image, normalize_intensity, contrast_normalize, contrast_scale)
    _, height, width = mr8.shape
    rows, cols = pixel_grid(height, width)
    values = np.ascontiguousarray(mr8.reshape(NUM_RESPONSES, -1).T, dtype=np.float32)
    if not np.isfinite(values).all():
        raise ValueError(f"non-finite MR8 responses for the image of shape {image.shape}")
    return Descriptors(values=values, rows=rows, cols=cols, height=height, width=width)


#: ``config(**params)``: the extractor's config for cache keys (:func:`config_function`)
config = config_function("texture", VERSION, texture_descriptors)
