"""Colour descriptors: the CIELAB coordinates of every pixel (Sec. 3.3.1, K_C).

The paper represents colour "by the three CIELAB coordinates"; each pixel is one 3-d sample
(L* in [0, 100], a* and b* roughly in [-128, 127], D65 white point, sRGB input).

OpenCV's 8-bit Lab conversion rescales (L*255/100, a+128, b+128) and rounds; we convert
from float32 RGB in [0, 1] instead, which yields true CIELAB values.

This module also holds :func:`check_rgb_image`, the input check shared by the three
descriptor extractors (colour, texture, SIFT).
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from features._descriptors import Descriptors, config_function

#: Bump when the numbers this module produces change (part of the cache key).
VERSION = 1


def check_rgb_image(image: Any) -> np.ndarray:
    """Return ``image`` as a C-contiguous RGB ``uint8`` (H, W, 3) array, or raise ValueError.

    Grey images must be expanded to 3 identical channels first (``kcca.data._images.read_image``
    does this); a 2-d array, another channel count, another dtype or an empty image is refused
    with a message naming its shape and dtype.
    """
    if not isinstance(image, np.ndarray):
        raise ValueError(
            f"expected an RGB uint8 numpy array of shape (H, W, 3), got {type(image).__name__}"
        )
    if image.ndim != 3 or image.shape[2] != 3:
        raise ValueError(
            f"expected an RGB image of shape (H, W, 3), got shape {image.shape}; expand grey "
            "images to 3 channels (e.g. np.repeat(img[:, :, None], 3, axis=2)) and drop alpha"
        )
    if image.dtype != np.uint8:
        raise ValueError(
            f"expected dtype uint8 for the image of shape {image.shape}, got {image.dtype}; "
            "convert with np.clip(img, 0, 255).astype(np.uint8) (or read it with read_image)"
        )
    if image.shape[0] == 0 or image.shape[1] == 0:
        raise ValueError(f"empty image of shape {image.shape}")
    return np.ascontiguousarray(image)


def rgb_to_lab(image: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of an RGB uint8 image as float32 (H, W, 3): L* in [0, 100], a*, b*."""
    image = check_rgb_image(image)
    rgb = image.astype(np.float32) * np.float32(1.0 / 255.0)
    return cv2.cvtColor(rgb, cv2.COLOR_RGB2Lab)


def pixel_grid(height: int, width: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column coordinates (float32, row-major order) of all pixels of an image."""
    rows = np.repeat(np.arange(height, dtype=np.float32), width)
    cols = np.tile(np.arange(width, dtype=np.float32), height)
    return rows, cols


def color_descriptors(image: np.ndarray) -> Descriptors:
    """One (L*, a*, b*) row per pixel, in row-major order (n = H * W, d = 3)."""
    lab = rgb_to_lab(image)
    height, width = lab.shape[:2]
    rows, cols = pixel_grid(height, width)
    values = np.ascontiguousarray(lab.reshape(-1, 3), dtype=np.float32)
    return Descriptors(values=values, rows=rows, cols=cols, height=height, width=width)


#: ``config(**params)``: the extractor's config for cache keys (:func:`config_function`)
config = config_function("color", VERSION, color_descriptors)
