"""An image's width and height from its file header, without decoding any pixels.

:func:`image_dimensions` knows the formats OpenCV decodes: PNG, JPEG, GIF, BMP, WebP, TIFF
(and BigTIFF), PNM / PAM / PFM, Sun raster, Radiance HDR, JPEG 2000 (JP2 and codestream) and
AVIF / HEIF. It returns ``None`` for anything else or a header it cannot follow; the decoder
then has the last word on such a file.
"""

from __future__ import annotations

import re
import struct

#: JPEG start-of-frame markers (SOF0-SOF15 less DHT, JPG and DAC): they carry the frame size
_JPEG_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
#: JPEG markers without a length field
_JPEG_STANDALONE = frozenset(range(0xD0, 0xD8)) | {0x01, 0xD8}
#: Radiance HDR resolution line: ``-Y 512 +X 768`` (or another orientation)
_HDR_SIZE = re.compile(rb"^([-+])([XY]) +(\d+) +([-+])([XY]) +(\d+)\s*$")


def image_dimensions(data: bytes) -> tuple[int, int] | None:
    """``(width, height)`` read from the header of the encoded image ``data``, or ``None``."""
    try:
        for reader in _READERS:
            size = reader(data)
            if size is not None:
                return size
    except (struct.error, ValueError, IndexError, KeyError):  # a header lacking a field
        return None
    return None


def _png(data: bytes) -> tuple[int, int] | None:
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        return None
    w, h = struct.unpack(">II", data[16:24])
    return w, h


def _jpeg(data: bytes) -> tuple[int, int] | None:
    if data[:2] != b"\xff\xd8":
        return None
    i, n = 2, len(data)
    while i < n:
        while i < n and data[i] != 0xFF:  # stray bytes: the decoder skips them too
            i += 1
        while i < n and data[i] == 0xFF:  # fill bytes
            i += 1
        if i >= n:
            return None
        marker = data[i]
        i += 1
        if marker in _JPEG_STANDALONE:
            continue
        if marker in (0xD9, 0xDA):  # end of image or start of scan before any frame
            return None
        (length,) = struct.unpack(">H", data[i : i + 2])
        if marker in _JPEG_SOF:
            h, w = struct.unpack(">HH", data[i + 3 : i + 7])
            return w, h
        i += length
    return None


def _gif(data: bytes) -> tuple[int, int] | None:
    if data[:6] not in (b"GIF87a", b"GIF89a"):
        return None
    w, h = struct.unpack("<HH", data[6:10])
    return w, h


def _bmp(data: bytes) -> tuple[int, int] | None:
    if data[:2] != b"BM":
        return None
    (header,) = struct.unpack("<I", data[14:18])
    if header == 12:  # OS/2 BITMAPCOREHEADER
        w, h = struct.unpack("<HH", data[18:22])
        return w, h
    w, h = struct.unpack("<ii", data[18:26])
    return abs(w), abs(h)


def _webp(data: bytes) -> tuple[int, int] | None:
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return None
    chunk = data[12:16]
    if chunk == b"VP8X":
        w = int.from_bytes(data[24:27], "little") + 1
        h = int.from_bytes(data[27:30], "little") + 1
        return w, h
    if chunk == b"VP8L" and data[20] == 0x2F:
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8 " and data[23:26] == b"\x9d\x01\x2a":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def _tiff(data: bytes) -> tuple[int, int] | None:
    order = {b"II": "<", b"MM": ">"}.get(data[:2])
    if order is None:
        return None
    (version,) = struct.unpack(order + "H", data[2:4])
    if version == 42:
        (offset,) = struct.unpack(order + "I", data[4:8])
        count_fmt, entry_fmt, entry_size = "H", "HHI4s", 12
    elif version == 43:  # BigTIFF
        (offset,) = struct.unpack(order + "Q", data[8:16])
        count_fmt, entry_fmt, entry_size = "Q", "HHQ8s", 20
    else:
        return None
    (count,) = struct.unpack(order + count_fmt, data[offset : offset + struct.calcsize(count_fmt)])
    first = offset + struct.calcsize(count_fmt)
    size: dict[int, int] = {}
    for k in range(min(count, 4096)):
        at = first + k * entry_size
        tag, kind, _, value = struct.unpack(order + entry_fmt, data[at : at + entry_size])
        if tag in (256, 257):  # ImageWidth, ImageLength: SHORT or LONG (LONG8 in BigTIFF)
            fmt = {3: "H", 4: "I", 16: "Q"}.get(kind)
            if fmt is None:
                return None
            size[tag] = struct.unpack(order + fmt, value[: struct.calcsize(fmt)])[0]
    if 256 in size and 257 in size:
        return size[256], size[257]
    return None


def _pnm(data: bytes) -> tuple[int, int] | None:
    if data[:1] != b"P" or data[1:2] not in b"123456fF7" or not data[2:3].isspace():
        return None
    head = data[:4096]
    if data[1:2] == b"7":  # PAM: WIDTH and HEIGHT lines before ENDHDR
        fields = dict(
            line.split(None, 1)
            for line in head.split(b"\n")[1:]
            if len(line.split(None, 1)) == 2 and not line.startswith(b"#")
        )
        return int(fields[b"WIDTH"]), int(fields[b"HEIGHT"])
    text = re.sub(rb"#[^\n]*", b" ", head[2:])
    w, h = text.split()[:2]
    return int(w), int(h)


def _sun_raster(data: bytes) -> tuple[int, int] | None:
    if data[:4] != b"\x59\xa6\x6a\x95":
        return None
    w, h = struct.unpack(">II", data[4:12])
    return w, h


def _hdr(data: bytes) -> tuple[int, int] | None:
    if not data.startswith((b"#?RADIANCE", b"#?RGBE")):
        return None
    lines = data[:65536].split(b"\n")
    for k, line in enumerate(lines):
        if not line.strip():  # the resolution line follows the header's blank line
            match = _HDR_SIZE.match(lines[k + 1])
            if match is None:
                return None
            sizes = {match.group(2): int(match.group(3)), match.group(5): int(match.group(6))}
            return sizes[b"X"], sizes[b"Y"]
    return None


def _jpeg2000(data: bytes) -> tuple[int, int] | None:
    if data[:4] == b"\xff\x4f\xff\x51":  # codestream: SIZ follows SOC
        xsiz, ysiz, xo, yo = struct.unpack(">IIII", data[8:24])
        return xsiz - xo, ysiz - yo
    if data[:12] != b"\x00\x00\x00\x0cjP  \r\n\x87\n":
        return None
    header = _box(data, 12, len(data), b"jp2h")
    if header is None:
        return None
    ihdr = _box(data, header[0], header[1], b"ihdr")
    if ihdr is None:
        return None
    h, w = struct.unpack(">II", data[ihdr[0] : ihdr[0] + 8])
    return w, h


def _box(data: bytes, start: int, end: int, kind: bytes) -> tuple[int, int] | None:
    """The content span of the first ISO / JP2 box of type ``kind`` in ``data[start:end]``."""
    at = start
    while at + 8 <= end:
        length, name = struct.unpack(">I4s", data[at : at + 8])
        head = 8
        if length == 1:
            (length,) = struct.unpack(">Q", data[at + 8 : at + 16])
            head = 16
        elif length == 0:
            length = end - at
        if length < head:
            return None
        if name == kind:
            return at + head, min(at + length, end)
        at += length
    return None


def _heif(data: bytes) -> tuple[int, int] | None:
    if data[4:8] != b"ftyp":
        return None
    best = None
    at = data.find(b"ispe")
    while at >= 4:  # every image's spatial extent (tiles, thumbnails): the largest
        w, h = struct.unpack(">II", data[at + 8 : at + 16])
        if best is None or w * h > best[0] * best[1]:
            best = (w, h)
        at = data.find(b"ispe", at + 4)
    return best


_READERS = (_png, _jpeg, _gif, _bmp, _webp, _tiff, _pnm, _sun_raster, _hdr, _jpeg2000, _heif)
