"""Reading image files with clear errors for missing, empty, truncated or corrupt files.

Corrupt data that a decoder recovers from is an error too. libjpeg reports it only as a
warning on the process's C-level stderr (``Corrupt JPEG data: premature end of data
segment``, ``... bad Huffman code``, ...) and OpenCV returns the patched-up picture, so
:func:`read_image` points file descriptor 2 at a temporary file while ``cv2.imdecode`` runs
(threads share that window; fd 2 is restored in ``finally`` when the last one ends; each
process, a joblib worker too, has its own), and raises :class:`ImageReadError` naming the
file and libjpeg's message when one was written. Other text written there meanwhile
(another thread's output, benign library notes such as libpng's) is passed on to stderr.

A file may declare a picture far larger than itself (a few hundred KB of PNG can hold
20,000 x 20,000 pixels): :func:`read_image` reads the width and height from the file's header
first (:mod:`kcca.data._image_header`) and refuses, before decoding, a picture of more than
``MAX_IMAGE_PIXELS`` pixels (:mod:`kcca.limits`); ``$KCCA_MAX_IMAGE_PIXELS`` sets another limit.

:func:`check_image_file` is the cheap check of a file's presence (``stat`` only);
:func:`damaged_band` a heuristic for pictures whose bottom rows were lost before the file was
written (a flat or vertically smeared band under a detailed picture).
"""

from __future__ import annotations

import os
import re
import stat
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Mapping

import cv2
import numpy as np

from kcca.data._errors import DataError, ImageReadError
from kcca.data._image_header import image_dimensions
from kcca.limits import MAX_IMAGE_PIXELS_ENV, current_limit

_JPEG_EOI = b"\xff\xd9"
_PNG_IEND = b"IEND"

#: libjpeg's warnings about damaged data (jerror.h, JWRN_*): the decoder went on regardless
_DECODER_WARNING = re.compile(
    r"^(Corrupt JPEG data|Premature end of JPEG file|Invalid SOS parameters for sequential JPEG"
    r"|Inconsistent progression sequence|Unknown Adobe color transform"
    r"|Application transferred too many scanlines|Warning: unknown JFIF revision)"
)
#: messages of a decoder that gave up (shown in the reason when decoding failed)
_DECODER_ERROR = re.compile(r"^(libpng error|Not a JPEG file|Bogus |Corrupt JPEG|Premature end)")


def read_image(path: str | os.PathLike) -> np.ndarray:
    """Read an image as RGB ``uint8`` (H, W, 3); grey-scale files are expanded to 3 channels.

    Raises :class:`ImageReadError` naming the file when it is missing, zero-size,
    truncated (JPEG without end-of-image marker, PNG without IEND), not decodable, or
    decodable only with the decoder's warnings about corrupt data, or larger than
    :func:`max_image_pixels` (checked on the header's size before decoding).
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ImageReadError(str(path), "file not found") from None
    except IsADirectoryError:
        raise ImageReadError(str(path), "a directory, not an image file") from None
    except OSError as exc:
        raise ImageReadError(str(path), f"unreadable ({exc.strerror or exc})") from None
    if not data:
        raise ImageReadError(str(path), "file is empty (0 bytes)")
    _check_complete(path, data)
    limit = max_image_pixels()
    size = image_dimensions(data)
    if size is not None:
        _check_pixels(path, *size, limit)
    try:
        arr, messages = _CAPTURE.decode(data)
    except cv2.error as exc:  # a size or format the decoder refuses outright
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else "cv2.error"
        raise ImageReadError(str(path), f"not a decodable image (OpenCV: {reason})") from None
    if arr is None or arr.size == 0:
        said = [m for m in messages if _DECODER_ERROR.match(m)]
        raise ImageReadError(
            str(path), "not a decodable image" + (f" (decoder: {said[0]})" if said else "")
        )
    warnings = [m for m in messages if _DECODER_WARNING.match(m)]
    if warnings:
        more = f" and {len(warnings) - 1} more warning(s)" if len(warnings) > 1 else ""
        raise ImageReadError(str(path), f"corrupt image data (decoder: {warnings[0]}{more})")
    _check_pixels(path, arr.shape[1], arr.shape[0], limit)  # a header that under-stated it
    return to_rgb_uint8(arr, str(path))


def max_image_pixels() -> int:
    """The pixel limit of :func:`read_image`: ``$KCCA_MAX_IMAGE_PIXELS`` when set, else
    the default of ``MAX_IMAGE_PIXELS`` (:mod:`kcca.limits`)."""
    return current_limit(MAX_IMAGE_PIXELS_ENV)


def _check_pixels(path: Path, width: int, height: int, limit: int) -> None:
    if width * height > limit:
        raise ImageReadError(
            str(path),
            f"{width} x {height} pixels ({width * height:,}), over the limit of {limit:,} "
            f"pixels (${MAX_IMAGE_PIXELS_ENV})",
            fix=(
                f"replace {path} with a smaller copy of the image, or allow it: export "
                f"{MAX_IMAGE_PIXELS_ENV}={width * height} (then run the command again)"
            ),
        )


class _StderrCapture:
    """Runs ``cv2.imdecode`` with fd 2 pointed at a temporary file and returns the decoder's
    messages; other text written there meanwhile is passed on to stderr.

    Threads decode at the same time inside one shared "window" (fd 2 redirected while any
    decode runs). A decode that finds nothing written when it ends is clean. When something
    was written and other decodes shared the window, the messages cannot be told apart, so
    each such decode runs again alone; that happens only around a damaged file.
    """

    def __init__(self) -> None:
        self._reset()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:  # also in a forked child: its own lock, file and window
        self.cond = threading.Condition()
        self.file: IO[bytes] | None = None  # open while decodes share the window
        self.saved = -1  # the real fd 2 while the window is open
        self.active = 0  # decodes in the open window
        self.entered = 0  # decodes that entered it
        self.draining = False  # something was written: no new decode until it closes
        self.alone = False  # one decode has the window to itself
        self.waiting_alone = 0

    def decode(self, data: bytes) -> tuple[np.ndarray | None, list[str]]:
        buf = np.frombuffer(data, np.uint8)
        for alone in (False, True):
            try:
                self._enter(alone)
            except OSError:  # no fd 2 or no temporary file: decode without listening
                return cv2.imdecode(buf, cv2.IMREAD_UNCHANGED), []
            try:
                arr = cv2.imdecode(buf, cv2.IMREAD_UNCHANGED)
            finally:
                written, text = self._leave()
            if not written:
                return arr, []
            if text is not None:  # the window was this decode's alone: the text is its own
                return arr, [line.strip() for line in text.splitlines() if _is_decoders(line)]
        raise AssertionError("unreachable: a decode alone always gets its text")

    def _enter(self, alone: bool) -> None:
        with self.cond:
            self.waiting_alone += alone
            try:
                while (
                    self.alone
                    or self.draining
                    or (alone and self.active)
                    or (not alone and self.waiting_alone)
                ):
                    self.cond.wait()
            finally:
                self.waiting_alone -= alone
            if self.active == 0:
                self._open()
                self.entered = 0
            self.active += 1
            self.entered += 1
            self.alone = alone

    def _leave(self) -> tuple[bool, str | None]:
        """``(something was written, the window's text if this decode had it alone)``."""
        with self.cond:
            assert self.file is not None  # the window is open: _enter opened it
            written = os.fstat(self.file.fileno()).st_size > 0
            self.draining = self.draining or written
            self.active -= 1
            if self.active:
                return written, None
            text = self._close()
            solo = self.entered == 1
            self.draining = self.alone = False
            self.cond.notify_all()
            return written, (text if solo else None)

    def _open(self) -> None:
        if self.file is None:
            self.file = tempfile.TemporaryFile(prefix="kcca-decoder-")
        try:
            if sys.stderr is not None:
                sys.stderr.flush()
        except (OSError, ValueError):
            pass
        saved = os.dup(2)
        try:
            os.dup2(self.file.fileno(), 2)
        except OSError:
            os.close(saved)
            raise
        self.saved = saved

    def _close(self) -> str:
        """Restore fd 2; the text written meanwhile (anything not the decoder's is passed on)."""
        assert self.file is not None  # the window is open: _open opened it
        fd = self.file.fileno()
        try:
            os.dup2(self.saved, 2)
        finally:
            os.close(self.saved)
            self.saved = -1
        size = os.fstat(fd).st_size
        if not size:
            return ""
        text = os.pread(fd, size, 0).decode("utf-8", "replace")
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        other = "".join(line for line in text.splitlines(keepends=True) if not _is_decoders(line))
        if other:
            try:
                os.write(2, other.encode("utf-8", "replace"))
            except OSError:
                pass
        return text


def _is_decoders(line: str) -> bool:
    return bool(_DECODER_WARNING.match(line) or _DECODER_ERROR.match(line))


_CAPTURE = _StderrCapture()


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


def check_image_file(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be an image file, from ``stat`` alone (missing, broken symbolic
    link, directory, not a regular file, empty, unreadable); ``None`` when it may be one."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            return f"broken symbolic link (to {os.readlink(path)}, which does not exist)"
        return "file not found"
    except OSError as exc:
        return f"cannot stat the file ({exc.strerror or exc})"
    if stat.S_ISDIR(st.st_mode):
        return "a directory, not an image file"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size == 0:
        return "file is empty (0 bytes)"
    if not os.access(path, os.R_OK):
        return "not readable (permission denied)"
    return None


# Damaged-band heuristic. A row belongs to a candidate band when it is flat (its pixels
# differ by a standard deviation under FLAT) or a smear (it differs from the row above by
# an amount whose standard deviation across the row is under SMEAR). A lost bottom is
# filled exactly (decoders write mid-grey, or repeat the last row), so the band must be
# exact (median of the smaller of the two under EXACT), at least 1/8 of the height, under a
# picture with detail (median row deviation above >= DETAIL), and not pure black or white
# (clipped shadows, snow, sky and borders look the same). Tuned on the 8,091 Flickr 8K
# images and on bottoms cut away from them (see data/README.md).
BAND_FLAT = 2.0
BAND_SMEAR = 1.0
BAND_EXACT = 0.25
BAND_DETAIL = 8.0
BAND_MIN_FRACTION = 1 / 8
BAND_CLIPPED = (8.0, 247.0)


def damaged_band(rgb: np.ndarray) -> str | None:
    """A description of a band of bottom rows that looks lost in decoding (flat, or each row
    the one above plus a constant), or ``None``. A heuristic: a warning to look at the image."""
    if rgb.ndim != 3 or rgb.shape[0] < 16:
        return None
    h = rgb.shape[0]
    min_run = max(8, int(h * BAND_MIN_FRACTION))
    row_dev, step_dev = _row_deviations(rgb[h - min_run - 1 :])  # most images stop here
    if not ((row_dev[1:] < BAND_FLAT) | (step_dev[1:] < BAND_SMEAR)).all():
        return None
    row_dev, step_dev = _row_deviations(rgb)
    in_band = ((row_dev < BAND_FLAT) | (step_dev < BAND_SMEAR))[::-1]
    run = h if in_band.all() else int(np.argmin(in_band))
    top = h - run
    if top < 8:
        return None
    exactness = float(np.median(np.minimum(row_dev[top:], step_dev[top:])))
    level = float(rgb[top:].mean())
    if (
        exactness > BAND_EXACT
        or float(np.median(row_dev[:top])) < BAND_DETAIL
        or not BAND_CLIPPED[0] <= level <= BAND_CLIPPED[1]
    ):
        return None
    flat = float(np.median(row_dev[top:])) < BAND_FLAT
    kind = "flat" if flat else "each the row above plus a constant (a vertical smear)"
    return (
        f"the bottom {run} of {h} rows ({100 * run / h:.0f}%) are {kind}, mean level "
        f"{level:.0f}, under a detailed picture: part of the image may have been lost in "
        "decoding"
    )


def _row_deviations(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row: the standard deviation of its pixels, and of its difference from the row
    above (``inf`` for the first row); the larger over the colour channels."""
    a = rgb.astype(np.float32)
    row_dev = a.std(axis=1).max(axis=1)
    step_dev = np.full(a.shape[0], np.inf, np.float32)
    step_dev[1:] = (a[1:] - a[:-1]).std(axis=1).max(axis=1)
    return row_dev, step_dev


def inspect_image(path: str | os.PathLike) -> tuple[str | None, str | None]:
    """``(error, warning)`` for one file: why :func:`read_image` refuses it, and else a
    :func:`damaged_band` description (each ``None`` when there is nothing to say)."""
    try:
        rgb = read_image(path)
    except ImageReadError as exc:
        return exc.reason, None
    except DataError:  # a setting, not this file ($KCCA_MAX_IMAGE_PIXELS): stop the check
        raise
    except Exception as exc:  # noqa: BLE001 - a check names every failure and goes on
        return f"unexpected {type(exc).__name__} while reading: {exc}", None
    return None, damaged_band(rgb)


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
