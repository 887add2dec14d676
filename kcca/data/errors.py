"""Errors raised for bad input data: each names the file, line or item, and the fix."""

from __future__ import annotations

from kcca.errors import DataError  # re-exported: defined with the user-error hierarchy

__all__ = ["DataError", "ImageReadError"]


class ImageReadError(DataError):
    """An image file is missing, empty, truncated or not decodable."""

    fix = "replace the file with a valid copy, or pass --skip-bad-images to leave it out"

    def __init__(self, path: str, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(
            f"cannot read image {self.path}: {reason}. Replace the file with a valid copy, "
            "or pass --skip-bad-images to leave it out (the run then lists every skipped file)."
        )
