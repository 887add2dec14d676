"""Dense upright SIFT descriptors on a regular grid (Sec. 3.3, K_S; Lowe 2004, VLFeat dsift).

The paper's shape feature is SIFT (Lowe, 2004) computed densely in the manner of VLFeat
(Vedaldi & Fulkerson, 2008). We compute *upright* (orientation 0) descriptors with SIFT's
layout and normalisation, vectorised like VLFeat's ``dsift``:

1. grey image (``cv2.COLOR_RGB2GRAY``), float32, Gaussian pre-smoothing with
   sigma = sqrt(1.6^2 - 0.5^2) as OpenCV applies to octave 0 (``presmooth``);
2. gradient by central differences, dx = I(y, x+1) - I(y, x-1), dy = I(y-1, x) - I(y+1, x)
   (y pointing *up*, so angles run counter-clockwise on screen, as in OpenCV); border pixels
   get no gradient (as in OpenCV);
3. each pixel's magnitude is split linearly between the two nearest of the 8 orientation
   planes (bin k is centred at angle 2*pi*k/8);
4. every plane is binned spatially with triangular (bilinear) weights of half-width
   ``bin_size`` around each of the 4x4 bin centres, times SIFT's Gaussian window
   (sigma = half the descriptor width). Because the samples lie on a grid this is a separable
   linear map, computed as two sparse matrix products per plane, ``A_y @ plane @ A_x.T``:
   exactly the weights OpenCV's ``calcSIFTDescriptor`` uses, without approximating the window;
5. layout (row bin, column bin, orientation), index ``(r * 4 + c) * 8 + o``, row bin 0 at
   the top; L2 normalise, clamp at 0.2, renormalise (Lowe 2004, Sec. 6.1).

Geometry. With bin size ``b`` the bin centres sit at offsets (-1.5, -0.5, 0.5, 1.5) * b
from the grid point and the descriptor covers a 4b x 4b patch (pixels with non-zero weight
lie within 2.5 b). OpenCV's bin width is ``3 * size / 2`` for keypoint diameter ``size``,
so the same patch is described by ``cv2.KeyPoint(x, y, size=b / 1.5, angle=0)``
(:func:`opencv_keypoint_size`). Defaults: step 4 px, bin size 4 px (16 x 16 patches, the
smallest of VLFeat's PHOW sizes). Grid points are placed where the whole 4b x 4b patch is
inside the image (``p - 2b >= 0`` and ``p + 2b <= size - 1``), centred: 52 x 52 = 2,704 points
on 224 x 224. If no point fits along an axis (image smaller than a patch) one point is put
at the middle of that axis; pixels outside the image then contribute no gradient, exactly as
in OpenCV. A patch without gradient gives the zero descriptor.
"""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
import scipy.sparse

from features._color import check_rgb_image
from features._descriptors import Descriptors, config_function

#: Bump when the numbers this module produces change (part of the cache key).
VERSION = 1

NUM_SPATIAL_BINS = 4
NUM_ORIENTATIONS = 8
DESCRIPTOR_SIZE = NUM_SPATIAL_BINS * NUM_SPATIAL_BINS * NUM_ORIENTATIONS  # 128

#: Pre-smoothing OpenCV applies to its octave-0 image: sqrt(1.6^2 - 0.5^2).
OPENCV_PRESMOOTH = math.sqrt(1.6**2 - 0.5**2)


def opencv_keypoint_size(bin_size: float) -> float:
    """The ``cv2.KeyPoint.size`` whose SIFT bins are ``bin_size`` pixels wide (b = 1.5 size)."""
    return bin_size / 1.5


def grid_positions(length: int, step: int, margin: int) -> np.ndarray:
    """Integer sample positions along one axis of ``length`` pixels.

    Positions p with ``p - margin >= 0`` and ``p + margin <= length - 1``, every ``step``
    pixels, the leftover split evenly between both ends; the middle pixel when none fits.
    """
    if length < 1 or step < 1 or margin < 0:
        raise ValueError(f"bad grid: length={length}, step={step}, margin={margin}")
    span = length - 1 - 2 * margin
    if span < 0:
        return np.array([(length - 1) // 2], dtype=np.int64)
    start = margin + (span % step) // 2
    return np.arange(start, length - margin, step, dtype=np.int64)[: span // step + 1]


def grey_image(image: np.ndarray) -> np.ndarray:
    """The uint8 grey image OpenCV's SIFT would see (``cv2.COLOR_RGB2GRAY``)."""
    return cv2.cvtColor(check_rgb_image(image), cv2.COLOR_RGB2GRAY)


def orientation_planes(grey: np.ndarray, presmooth: float = OPENCV_PRESMOOTH) -> np.ndarray:
    """Gradient magnitude split between 8 orientation planes: float32 (8, H, W).

    Angle ``atan2(dy, dx)`` with y up, bin k centred at ``2 pi k / 8``, linear interpolation
    between the two nearest bins. Pixels on the image border have no gradient (as in OpenCV).
    """
    img: np.ndarray = grey.astype(np.float32)
    if presmooth > 0:
        img = cv2.GaussianBlur(img, (0, 0), sigmaX=presmooth, sigmaY=presmooth)
    h, w = img.shape
    dx = np.zeros_like(img)
    dy = np.zeros_like(img)
    dx[1:-1, 1:-1] = img[1:-1, 2:] - img[1:-1, :-2]
    dy[1:-1, 1:-1] = img[:-2, 1:-1] - img[2:, 1:-1]
    mag, ang = cv2.cartToPolar(dx, dy)  # ang in [0, 2 pi)
    obin = ang.ravel() * np.float32(NUM_ORIENTATIONS / (2 * np.pi))
    o0 = np.floor(obin)
    frac = obin - o0
    o0 = o0.astype(np.int64) % NUM_ORIENTATIONS
    o1 = (o0 + 1) % NUM_ORIENTATIONS
    mag = mag.ravel()
    planes = np.zeros((NUM_ORIENTATIONS, h * w), dtype=np.float32)
    idx = np.arange(h * w)
    planes[o0, idx] = mag * (1 - frac)
    planes[o1, idx] += mag * frac
    return planes.reshape(NUM_ORIENTATIONS, h, w)


@lru_cache(maxsize=32)
def _bin_weights(
    length: int, step: int, bin_size: int, window: bool
) -> tuple[np.ndarray, scipy.sparse.csr_matrix]:
    """Sample positions and the sparse (n_points * 4, length) spatial weight matrix of one axis.

    Row ``p * 4 + r`` holds, for every pixel t, the triangular weight of t for bin r of grid
    point p, times the 1-d factor of SIFT's Gaussian window exp(-2 (t - p)^2 / (4 b)^2);
    at most 2 b - 1 entries per row are non-zero.
    """
    nb = NUM_SPATIAL_BINS
    positions = grid_positions(length, step, nb * bin_size // 2)
    t = np.arange(length, dtype=np.float64)
    offsets = (np.arange(nb) + 0.5 - nb / 2) * bin_size  # bin centres relative to the point
    rel = t[None, None, :] - positions[:, None, None]  # (P, 1, T)
    tri = np.maximum(0.0, 1.0 - np.abs(rel - offsets[None, :, None]) / bin_size)
    if window:
        tri = tri * np.exp(-2.0 * (rel / bin_size) ** 2 / nb**2)
    weights = scipy.sparse.csr_matrix(tri.reshape(len(positions) * nb, length).astype(np.float32))
    positions.setflags(write=False)
    return positions, weights


def _bin_planes(
    planes: np.ndarray, ay: scipy.sparse.csr_matrix, ax: scipy.sparse.csr_matrix
) -> np.ndarray:
    """``ay @ plane @ ax.T`` for every orientation plane: (8, H, W) -> (8, ny * 4, nx * 4)."""
    n_orient, h, w = planes.shape
    by_rows = ay @ planes.transpose(1, 0, 2).reshape(h, n_orient * w)  # (ny * 4, 8 * W)
    by_both = ax @ by_rows.reshape(-1, w).T  # (nx * 4, ny * 4 * 8)
    return by_both.T.reshape(ay.shape[0], n_orient, ax.shape[0]).transpose(1, 0, 2)


def normalize_sift(values: np.ndarray, clamp: float = 0.2) -> np.ndarray:
    """Lowe's normalisation, row-wise: L2 normalise, clamp at ``clamp``, L2 renormalise.

    Rows without gradient stay zero.
    """
    eps = np.float32(np.finfo(np.float32).eps)
    out = values / np.maximum(np.linalg.norm(values, axis=1, keepdims=True), eps)
    np.minimum(out, np.float32(clamp), out=out)
    out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), eps)
    return out


def sift_descriptors(
    image: np.ndarray,
    step: int = 4,
    bin_size: int = 4,
    presmooth: float = OPENCV_PRESMOOTH,
    window: bool = True,
    clamp: float = 0.2,
) -> Descriptors:
    """Dense upright SIFT: one 128-d row per grid point (see the module docstring).

    Args:
        image: RGB uint8 (H, W, 3).
        step: grid spacing in pixels (default 4).
        bin_size: width of each of the 4x4 spatial bins in pixels (default 4: 16x16 patches;
            equals OpenCV keypoint size ``bin_size / 1.5``).
        presmooth: sigma of the Gaussian blur before the gradient (OpenCV's octave 0: 1.52).
        window: weight by SIFT's Gaussian window (sigma = 2 bins), as OpenCV and Lowe do.
        clamp: Lowe's clamp of the unit-normalised descriptor (0.2).

    Returns:
        :class:`Descriptors` with float32 values (n, 128), unit L2 norm (or zero), ordered
        (row bin, column bin, orientation); rows/cols are the grid points, row-major.
    """
    if int(step) != step or step < 1 or int(bin_size) != bin_size or bin_size < 1:
        raise ValueError(f"step and bin_size must be positive integers, got {step}, {bin_size}")
    grey = grey_image(image)
    h, w = grey.shape
    planes = orientation_planes(grey, presmooth)
    ys, ay = _bin_weights(h, int(step), int(bin_size), bool(window))
    xs, ax = _bin_weights(w, int(step), int(bin_size), bool(window))
    binned = _bin_planes(planes, ay, ax)  # (8, ny * 4, nx * 4)
    nb, no = NUM_SPATIAL_BINS, NUM_ORIENTATIONS
    binned = binned.reshape(no, len(ys), nb, len(xs), nb).transpose(1, 3, 2, 4, 0)
    values = normalize_sift(binned.reshape(len(ys) * len(xs), DESCRIPTOR_SIZE), clamp)
    rows = np.repeat(ys.astype(np.float32), len(xs))
    cols = np.tile(xs.astype(np.float32), len(ys))
    return Descriptors(
        values=np.ascontiguousarray(values, dtype=np.float32),
        rows=rows,
        cols=cols,
        height=h,
        width=w,
    )


#: ``config(**params)``: the extractor's config for cache keys (:func:`config_function`)
config = config_function("sift", VERSION, sift_descriptors)


def opencv_sift_descriptors(image: np.ndarray, step: int = 4, bin_size: int = 4) -> Descriptors:
    """Slow reference: OpenCV's SIFT ``compute`` on the same grid, upright (angle 0).

    Keypoints ``cv2.KeyPoint(x, y, size=bin_size / 1.5, angle=0)`` on the grid of
    :func:`sift_descriptors`; OpenCV's descriptors (scaled to 512 and rounded) are divided by
    their L2 norm so both paths are on the same scale.
    """
    grey = grey_image(image)
    h, w = grey.shape
    margin = NUM_SPATIAL_BINS * int(bin_size) // 2
    ys = grid_positions(h, int(step), margin)
    xs = grid_positions(w, int(step), margin)
    size = opencv_keypoint_size(bin_size)
    keypoints = [cv2.KeyPoint(float(x), float(y), size, 0.0) for y in ys for x in xs]
    out_kp, values = cv2.SIFT_create().compute(grey, keypoints)  # type: ignore[attr-defined]
    if values is None or len(out_kp) != len(keypoints):
        raise RuntimeError(
            f"OpenCV SIFT returned {0 if values is None else len(out_kp)} of "
            f"{len(keypoints)} descriptors for an image of shape {image.shape}"
        )
    for kp, original in zip(out_kp, keypoints):
        if kp.pt != original.pt:
            raise RuntimeError("OpenCV SIFT reordered the keypoints; cannot align descriptors")
    values = values.astype(np.float32)
    norms = np.linalg.norm(values, axis=1, keepdims=True)
    values = values / np.maximum(norms, np.float32(np.finfo(np.float32).eps))
    return Descriptors(
        values=values,
        rows=np.repeat(ys.astype(np.float32), len(xs)),
        cols=np.tile(xs.astype(np.float32), len(ys)),
        height=h,
        width=w,
    )
