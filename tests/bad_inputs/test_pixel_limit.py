"""A small file that declares a huge picture (a pixel bomb) is refused before it is decoded.

A 50 KB PNG can declare 20,000 x 20,000 pixels (1.2 GB once decoded to RGB). ``read_image``
reads the size from the file's header and refuses, with an ``ImageReadError`` naming the file,
a picture over ``MAX_IMAGE_PIXELS`` (``$KCCA_MAX_IMAGE_PIXELS``); every format OpenCV writes
is checked this way.
"""

from __future__ import annotations

import os
import resource
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from kcca._cli import main
from kcca.data import _images as image_module
from kcca.data._errors import DataError, ImageReadError
from kcca.data._images import MAX_IMAGE_PIXELS_ENV, read_image
from tests.support.fake_images import _fake_corpus, _jpeg, _photo

ROOT = Path(__file__).resolve().parents[2]


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _png_bomb(width: int = 20_000, height: int = 20_000) -> bytes:
    """A valid 1-bit grey PNG of ``width`` x ``height`` black pixels: tens of KB on disk."""
    row = bytes(1 + (width + 7) // 8)  # filter byte 0, then zeros
    packer = zlib.compressobj(9)
    rows = row * 1000
    idat = b"".join(packer.compress(rows) for _ in range(height // 1000))
    idat += packer.compress(row * (height % 1000)) + packer.flush()
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat)
            + _chunk(b"IEND", b""))


def _jpeg_claiming(width: int, height: int) -> bytes:
    """A small JPEG whose frame header (SOF0) claims ``width`` x ``height``."""
    data = bytearray(_jpeg(_photo(size=32)))
    sof = data.index(b"\xff\xc0")
    data[sof + 5: sof + 9] = struct.pack(">HH", height, width)
    return bytes(data)


@pytest.fixture
def no_decoding(monkeypatch):
    """``cv2.imdecode`` fails the test: the refusal must come before any decoding."""
    def refuse(buf, flags):
        raise AssertionError("the picture was decoded")

    monkeypatch.setattr(image_module.cv2, "imdecode", refuse)


def test_png_bomb_is_refused_before_decoding(tmp_path, no_decoding):
    path = tmp_path / "bomb.png"
    path.write_bytes(_png_bomb())
    assert path.stat().st_size < 100_000
    with pytest.raises(ImageReadError) as info:
        read_image(path)
    assert info.value.path == str(path)
    assert "20000 x 20000 pixels (400,000,000), over the limit of 100,000,000" in str(info.value)
    assert f"export {MAX_IMAGE_PIXELS_ENV}=400000000" in info.value.fix


@pytest.mark.parametrize("junk", [b"", b"\x00\x17"], ids=["plain", "stray-bytes-before-SOF"])
def test_jpeg_frame_header_over_the_limit_is_refused_before_decoding(tmp_path, no_decoding,
                                                                     junk):
    data = _jpeg_claiming(60_000, 60_000)
    sof = data.index(b"\xff\xc0")
    path = tmp_path / "huge.jpg"
    path.write_bytes(data[:sof] + junk + data[sof:])
    with pytest.raises(ImageReadError, match=r"huge\.jpg: 60000 x 60000 pixels"):
        read_image(path)


#: every format OpenCV writes (and reads), with the encoder's parameters
FORMATS = [(".png", []), (".jpg", []), (".jpg", [cv2.IMWRITE_JPEG_PROGRESSIVE, 1]),
           (".bmp", []), (".webp", [cv2.IMWRITE_WEBP_QUALITY, 80]),
           (".webp", [cv2.IMWRITE_WEBP_QUALITY, 101]), (".tiff", []), (".ppm", []),
           (".pgm", []), (".pam", []), (".pfm", []), (".sr", []), (".hdr", []), (".jp2", []),
           (".avif", []), (".gif", [])]


def _encoded(ext: str, params: list[int]) -> bytes:
    img = _photo(size=64)[:48]
    if ext in (".pfm", ".hdr"):
        img = img.astype(np.float32) / 255
    if ext == ".pgm":
        img = img[:, :, 0]
    try:
        ok, buf = cv2.imencode(ext, img, params)
    except cv2.error:
        ok = False
    if not ok:
        pytest.skip(f"this OpenCV cannot write {ext}")
    return buf.tobytes()


@pytest.mark.parametrize("ext, params", FORMATS, ids=[f"{e}{p}" for e, p in FORMATS])
def test_every_format_is_measured_before_decoding(tmp_path, monkeypatch, ext, params):
    path = tmp_path / f"small{ext}"
    path.write_bytes(_encoded(ext, params))
    monkeypatch.setenv(MAX_IMAGE_PIXELS_ENV, str(64 * 48))
    if ext in (".pfm", ".hdr"):  # at the limit: read as before (floating-point: refused)
        with pytest.raises(ImageReadError, match="unsupported pixel type float32"):
            read_image(path)
    else:
        assert read_image(path).shape == (48, 64, 3)
    monkeypatch.setenv(MAX_IMAGE_PIXELS_ENV, str(64 * 48 - 1))
    with monkeypatch.context() as m:
        m.setattr(image_module.cv2, "imdecode", lambda buf, flags: pytest.fail("decoded"))
        with pytest.raises(ImageReadError, match=r"64 x 48 pixels \(3,072\), over the limit "
                                                 r"of 3,071 pixels \(\$KCCA_MAX_IMAGE_PIXELS\)"):
            read_image(path)


def test_a_size_the_header_does_not_give_is_checked_after_decoding(tmp_path, monkeypatch):
    path = tmp_path / "small.png"
    path.write_bytes(_encoded(".png", []))
    monkeypatch.setattr(image_module, "image_dimensions", lambda data: None)
    monkeypatch.setenv(MAX_IMAGE_PIXELS_ENV, "1000")
    with pytest.raises(ImageReadError, match=r"small\.png: 64 x 48 pixels"):
        read_image(path)


@pytest.mark.parametrize("value", ["many", "0", "-5", "1e9"])
def test_a_bad_limit_setting_is_named(tmp_path, monkeypatch, value):
    path = tmp_path / "small.png"
    path.write_bytes(_encoded(".png", []))
    monkeypatch.setenv(MAX_IMAGE_PIXELS_ENV, value)
    with pytest.raises(DataError, match=rf"\$KCCA_MAX_IMAGE_PIXELS='{value}' is not a positive "
                                        r"whole number") as info:
        read_image(path)
    assert info.value.fix.startswith(f"export {MAX_IMAGE_PIXELS_ENV}=100000000 (the default)")


def _limited(limit_bytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


@pytest.mark.data_variables
def test_check_images_refuses_the_bomb_under_a_memory_limit(tmp_path):
    """``kcca data --check-images`` in a process allowed 1.5 GB of address space: the bomb
    (1.2 GB decoded, more with the decoder's copy) is an error naming it, within seconds."""
    images = _fake_corpus(tmp_path, ["bomb.jpg"])
    (images / "bomb.jpg").write_bytes(_png_bomb())
    env = {k: v for k, v in os.environ.items() if k != MAX_IMAGE_PIXELS_ENV}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-m", "kcca", "data", "--data-dir", str(tmp_path), "--check-images",
         "-q"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        preexec_fn=_limited(1536 * 2**20))
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert (f"error: cannot read image {images / 'bomb.jpg'}: 20000 x 20000 pixels "
            "(400,000,000), over the limit of 100,000,000 pixels") in done.stderr


def test_check_images_stops_on_a_bad_limit_setting(tmp_path, capsys, monkeypatch):
    _fake_corpus(tmp_path, [])
    monkeypatch.setenv(MAX_IMAGE_PIXELS_ENV, "lots")
    assert main(["data", "--data-dir", str(tmp_path), "--check-images", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 1 and "$KCCA_MAX_IMAGE_PIXELS='lots'" in err, err
    assert "fix: export KCCA_MAX_IMAGE_PIXELS=100000000 (the default)" in err
