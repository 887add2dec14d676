"""Local colour statistics of dense patches: the colour descriptor of Fisher-vector pipelines.

Not in Hodosh et al. (2013), whose colour feature is one CIELAB pixel per descriptor
(Section 3.3). Perronnin, Sanchez & Mensink (2010) describe a patch by the mean and the
standard deviation of R, G and B in each cell of a 4 x 4 grid (96 dimensions); the same
statistics of the CIELAB coordinates (the paper's colour space) are the ``"lab"`` variant.
Here the patches lie on the dense-SIFT grid (:mod:`features._sift`): ``4 bin_size`` pixels wide,
top-left corners every ``step`` pixels, so a colour and a SIFT descriptor of the same scale cover
the same pixels.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from features._color import check_rgb_image, rgb_to_lab
from features._descriptors import Descriptors

CELLS = 4  #: cells per patch side

#: colour spaces of the statistics: RGB in [0, 1]; CIELAB as (L*/100, a*/128, b*/128)
COLOR_SPACES = ("rgb", "lab")


def channels(image: np.ndarray, color_space: str = "rgb") -> np.ndarray:
    """The three float32 channels the statistics are taken over (see :data:`COLOR_SPACES`)."""
    if color_space not in COLOR_SPACES:
        raise ValueError(f"color_space must be one of {COLOR_SPACES}, got {color_space!r}")
    if color_space == "rgb":
        return image.astype(np.float32) / np.float32(255.0)
    return rgb_to_lab(image) / np.array([100.0, 128.0, 128.0], dtype=np.float32)


def color_patch_descriptors(
    image: np.ndarray, step: int = 4, bin_size: int = 4, color_space: str = "rgb"
) -> Descriptors:
    """Mean and standard deviation of the three colour channels (:func:`channels`) in each of
    the 4 x 4 cells of every dense patch; values ordered (cell row, cell column, [three means,
    three stds]), float32.

    Args:
        image: RGB uint8 (H, W, 3).
        step: spacing of the patches' corners in pixels.
        bin_size: cell width in pixels (patches are ``4 bin_size`` wide).
        color_space: ``"rgb"`` (Perronnin et al.'s) or ``"lab"`` (CIELAB, the paper's K_C space).
    """
    if int(step) != step or step < 1 or int(bin_size) != bin_size or bin_size < 1:
        raise ValueError(f"step and bin_size must be positive integers, got {step}, {bin_size}")
    image = check_rgb_image(image)
    h, w = image.shape[:2]
    step, b = int(step), int(bin_size)
    patch = CELLS * b
    rgb = channels(image, color_space)
    box: dict[str, Any] = dict(ksize=(b, b), normalize=True, borderType=cv2.BORDER_REFLECT)
    mean = cv2.boxFilter(rgb, -1, **box)
    sq = cv2.boxFilter(rgb * rgb, -1, **box)
    std = np.sqrt(np.maximum(sq - mean * mean, 0.0))
    y0 = np.arange(0, h - patch + 1, step)
    x0 = np.arange(0, w - patch + 1, step)
    if y0.size == 0 or x0.size == 0:
        return Descriptors(
            np.zeros((0, 6 * CELLS * CELLS), np.float32),
            np.zeros(0, np.float32),
            np.zeros(0, np.float32),
            h,
            w,
        )
    # the box filter's value at a cell's centre (offset b // 2) is the mean over that cell
    centre = np.arange(CELLS) * b + b // 2
    Y = (y0[:, None] + centre[None, :])[:, None, :, None]  # (ny, 1, 4, 1)
    X = (x0[:, None] + centre[None, :])[None, :, None, :]  # (1, nx, 1, 4)
    stats = np.concatenate([mean[Y, X], std[Y, X]], axis=-1)  # (ny, nx, 4, 4, 6)
    values = stats.reshape(y0.size * x0.size, -1).astype(np.float32)
    rows = np.repeat(y0 + patch / 2.0, x0.size).astype(np.float32)
    cols = np.tile(x0 + patch / 2.0, y0.size).astype(np.float32)
    return Descriptors(values, rows, cols, h, w)
