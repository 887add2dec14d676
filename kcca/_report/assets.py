"""Files the page refers to: image thumbnails, the run's plots, and the page's CSS and JS.

Every asset is either written beside the page (``thumbs/``, ``plots/``; relative links) or,
with ``embed=True``, inlined as a ``data:`` URI so that the page is one file. Nothing is ever
fetched from the network.
"""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
from importlib import resources
from pathlib import Path
from typing import Callable, Iterable

import cv2
import numpy as np

from kcca._cache import atomic_write
from kcca.data._errors import DataError

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def safe_name(name: str, suffix: str = "") -> str:
    """A file name for an id: unsafe characters replaced, plus a short hash when changed."""
    base = _UNSAFE.sub("_", name).lstrip(".") or "item"
    if base != name:
        base += "-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return base + suffix


def data_uri(data: bytes, mime: str) -> str:
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"


def thumbnail_jpeg(rgb: np.ndarray, size: int = 128, quality: int = 80) -> bytes:
    """JPEG bytes of an RGB image scaled so that its longer side is at most ``size`` pixels."""
    img = np.asarray(rgb)
    if img.ndim != 3 or img.shape[2] != 3:
        raise DataError(f"thumbnail needs an (H, W, 3) RGB image, got shape {img.shape}")
    h, w = img.shape[:2]
    scale = size / max(h, w)
    if scale < 1:
        img = cv2.resize(
            img, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
        )
    ok, buf = cv2.imencode(
        ".jpg",
        cv2.cvtColor(np.ascontiguousarray(img), cv2.COLOR_RGB2BGR),
        [cv2.IMWRITE_JPEG_QUALITY, int(quality)],
    )
    if not ok:
        raise DataError("could not encode a JPEG thumbnail")
    return buf.tobytes()


def write_thumbnails(
    image_ids: Iterable[str],
    load: Callable[[str], np.ndarray],
    out_dir: Path,
    *,
    size: int = 128,
    embed: bool = False,
    progress: bool = False,
) -> list[str]:
    """One thumbnail per id: its relative URL under ``out_dir`` (``thumbs/...``) or data URI."""
    ids = list(image_ids)
    folder = out_dir / "thumbs"
    if not embed:
        folder.mkdir(parents=True, exist_ok=True)
    urls = []
    for n, image_id in enumerate(ids):
        data = thumbnail_jpeg(load(image_id), size)
        if embed:
            urls.append(data_uri(data, "image/jpeg"))
        else:
            name = safe_name(image_id, ".jpg")
            # mypy cannot type a lambda with a default argument
            atomic_write(folder / name, lambda tmp, data=data: Path(tmp).write_bytes(data))  # type: ignore[misc]
            urls.append(f"thumbs/{name}")
        if progress and (n + 1) % 200 == 0:
            print(f"report: {n + 1} of {len(ids)} thumbnails")
    return urls


def copy_plots(
    plots: Iterable[Path], run_dir: Path, out_dir: Path, *, embed: bool = False
) -> list[tuple[str, str]]:
    """(title, URL) per plot: copied to ``out_dir/plots`` (or inlined) under a safe name."""
    out = []
    taken: set[str] = set()
    for path in plots:
        try:
            rel = path.relative_to(run_dir).as_posix()
        except ValueError:
            rel = path.name
        if embed:
            out.append((rel, data_uri(path.read_bytes(), "image/png")))
            continue
        name = safe_name(rel.replace("/", "__"))
        while name in taken:
            name = "_" + name
        taken.add(name)
        (out_dir / "plots").mkdir(parents=True, exist_ok=True)
        atomic_write(out_dir / "plots" / name, lambda tmp, src=path: shutil.copyfile(src, tmp))  # type: ignore[misc]
        out.append((rel, f"plots/{name}"))
    return out


def static_text(name: str) -> str:
    """A file of ``kcca/_report/static`` (the page's CSS and JavaScript)."""
    return resources.files("kcca._report").joinpath("static", name).read_text(encoding="utf-8")
