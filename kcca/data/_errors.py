"""Errors raised for bad input data: each names the file, line or item, and the fix."""

from __future__ import annotations

import shlex
from pathlib import Path

from kcca.errors import DataError  # re-exported: defined with the user-error hierarchy

__all__ = ["DataError", "ImageFilesError", "ImageReadError", "check_images_command"]


class ImageReadError(DataError):
    """An image file is missing, empty, truncated, corrupt or not decodable."""

    fix = "replace the file with a valid copy of the image"

    def __init__(self, path: str, reason: str, *, fix: str | None = None):
        self.path = str(path)
        self.reason = reason
        super().__init__(
            f"cannot read image {self.path}: {reason}", fix=fix or _image_fix(self.path)
        )


class ImageFilesError(DataError):
    """Image files of a corpus that are missing, broken links, directories or empty.

    ``problems`` maps each bad file to its reason; ``paths`` (image id -> file) holds the
    corpus's other image files, so a check can go on to decode them.
    """

    fix = "restore the files named above from the corpus release (see data/README.md)"

    def __init__(
        self,
        message: str,
        problems: dict[str, str],
        paths: dict[str, str],
        *,
        fix: str | None = None,
    ):
        self.problems = dict(problems)
        self.paths = dict(paths)
        super().__init__(message, fix=fix)


def check_images_command(data_dir: str | Path) -> str:
    """The ``kcca data`` command line that checks every image of the Flickr 8K copy under
    ``data_dir`` (an absolute path, so it runs from any folder)."""
    return f"kcca data --data-dir {shlex.quote(str(Path(data_dir).resolve()))} --check-images"


def _image_fix(path: str) -> str:
    """Replace the file; for an image of a Flickr 8K-shaped folder (``ROOT/images/`` beside
    ``ROOT/text/``) also the command that lists every bad image file of that folder."""
    fix = f"replace {path} with a valid copy of the image"
    folder = Path(path).parent
    try:
        corpus = folder.name == "images" and (folder.parent / "text").is_dir()
    except OSError:
        corpus = False
    if corpus:
        fix += f"; `{check_images_command(folder.parent)}` lists every bad image file"
    return fix
