"""Reading image files with clear errors for missing, empty, truncated or corrupt files."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

import cv2
import numpy as np

from kcca.data.errors import ImageReadError

_JPEG_EOI = b"\xff\xd9"
_PNG_IEND = b"IEND"


def read_image(path: str | os.PathLike) -> np.ndarray:
    """Read an image as RGB ``uint8`` (H, W, 3); grey-scale files are expanded to 3 channels.

    Raises :class:`ImageReadError` naming the file when it is missing, zero-size,
    truncated (JPEG without end-of-image marker, PNG without IEND) or not decodable.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageReadError(str(path), "file not found") from None
    except OSError as exc:
        raise ImageReadError(str(path), f"unreadable ({exc.strerror or exc})") from None
    if not data:
        raise ImageReadError(str(path), "file is empty (0 bytes)")
    _check_complete(path, data)
    arr = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if arr is None or arr.size == 0:
        raise ImageReadError(str(path), "not a decodable image")
    return to_rgb_uint8(arr, str(path))


def to_rgb_uint8(arr: np.ndarray, name: str = "<array>") -> np.ndarray:
    """Normalise a decoded (OpenCV BGR / BGRA / grey, 8 or 16 bit) image to RGB uint8."""
    if arr.dtype == np.uint16:
        arr = (arr // 257).astype(np.uint8)
    elif arr.dtype != np.uint8:
        raise ImageReadError(name, f"unsupported pixel type {arr.dtype}")
    if arr.ndim == 2:
        return np.ascontiguousarray(np.repeat(arr[:, :, None], 3, axis=2))
    if arr.ndim == 3 and arr.shape[2] == 1:
        return np.ascontiguousarray(np.repeat(arr, 3, axis=2))
    if arr.ndim == 3 and arr.shape[2] == 3:
        return cv2.cvtColor(arr, cv2.COLOR_BGR2RGB)
    if arr.ndim == 3 and arr.shape[2] == 4:
        return cv2.cvtColor(arr, cv2.COLOR_BGRA2RGB)
    raise ImageReadError(name, f"unsupported image shape {arr.shape}")


def _check_complete(path: Path, data: bytes) -> None:
    head = data[:8]
    if head[:2] == b"\xff\xd8":  # JPEG: the end-of-image marker must be near the end
        if _JPEG_EOI not in data[-64:].rstrip(b"\x00"):
            raise ImageReadError(str(path), "truncated JPEG (no end-of-image marker)")
    elif head == b"\x89PNG\r\n\x1a\n":
        if _PNG_IEND not in data[-16:]:
            raise ImageReadError(str(path), "truncated PNG (no IEND chunk)")


class ImageFiles:
    """An image source backed by files: ``ImageFiles(paths)(image_id) -> RGB array``.

    ``paths`` maps each image id to its file; an unknown id is an error naming the id.
    """

    def __init__(self, paths: Mapping[str, str]):
        self.paths = dict(paths)

    def __call__(self, image_id: str) -> np.ndarray:
        try:
            path = self.paths[image_id]
        except KeyError:
            raise ImageReadError(f"<id {image_id}>", "unknown image id (no file for it)") from None
        return read_image(path)

    def __getstate__(self):  # picklable for joblib workers
        return {"paths": self.paths}

    def __setstate__(self, state):
        self.paths = state["paths"]
