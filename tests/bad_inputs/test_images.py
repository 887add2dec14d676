"""Bad images are named, never accepted silently: JPEG data the decoder only warns about,
files that are no image (empty, text, garbage, broken links, directories), and pictures whose
bottom rows were lost in decoding before the file was written.

``kcca data`` checks the files with ``stat``; ``kcca data --check-images`` decodes them all:
exit status 2 with one ``error:`` line per bad file and a ``fix:`` that runs as printed.
"""

from __future__ import annotations

import os
import random
import shlex
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from kcca._cli import main
from kcca.data._errors import ImageReadError
from kcca.data import _images as image_module
from kcca.data._images import read_image
from tests.support.fake_flickr8k import write_fake_flickr8k
from tests.support.fake_images import _fake_corpus, _jpeg, _photo

FLICKR_IMAGE = "1000268201_693b08cb0e.jpg"


@pytest.fixture(params=["synthetic", "flickr8k"])
def photo(request) -> np.ndarray:
    """A BGR picture: the synthetic one, and a real Flickr 8K image (skips without data)."""
    if request.param == "synthetic":
        return _photo()
    data_dir = request.getfixturevalue("data_dir")
    return cv2.imread(str(data_dir / "flickr8k" / "images" / FLICKR_IMAGE))


def _cut_progressive(img: np.ndarray) -> bytes:
    """A progressive JPEG cut in half, with an end-of-image marker appended."""
    data = _jpeg(img, cv2.IMWRITE_JPEG_PROGRESSIVE, 1)
    return data[: len(data) // 2] + b"\xff\xd9"


def _entropy_coded_range(data: bytes) -> tuple[int, int]:
    sos = data.index(b"\xff\xda")
    return sos + 2 + int.from_bytes(data[sos + 2: sos + 4], "big"), data.rindex(b"\xff\xd9")


def _libjpeg_warns(paths: list[Path]) -> list[bool]:
    """Whether libjpeg writes a warning for each file, seen from a separate process's stderr."""
    code = ("import os, sys, cv2, numpy as np\n"
            "for p in sys.argv[1:]:\n"
            "    cv2.imdecode(np.fromfile(p, np.uint8), cv2.IMREAD_UNCHANGED)\n"
            "    os.write(2, b'\\n@@END@@\\n')\n")
    res = subprocess.run([sys.executable, "-c", code, *map(str, paths)], capture_output=True,
                         text=True, check=True)
    parts = res.stderr.split("@@END@@")[: len(paths)]
    return ["Corrupt JPEG data" in p or "Premature end" in p for p in parts]


def _fd2_identity() -> tuple[int, int]:
    st = os.fstat(2)
    return st.st_dev, st.st_ino


@pytest.mark.data_variables
def test_truncated_progressive_jpeg_with_end_marker_is_an_error(tmp_path, photo):
    path = tmp_path / "cut.jpg"
    path.write_bytes(_cut_progressive(photo))
    assert _libjpeg_warns([path]) == [True]
    before = _fd2_identity()
    with pytest.raises(ImageReadError, match=r"cut\.jpg: corrupt image data \(decoder: "
                                             r"Corrupt JPEG data: premature end"):
        read_image(path)
    assert _fd2_identity() == before  # stderr is never left redirected


@pytest.mark.data_variables
def test_every_byte_flip_libjpeg_warns_about_is_an_error(tmp_path, photo):
    data = _jpeg(photo)
    start, end = _entropy_coded_range(data)
    rng = random.Random(0)
    paths = []
    for k in range(40):
        flipped = bytearray(data)
        flipped[rng.randrange(start, end)] ^= rng.randrange(1, 256)
        paths.append(tmp_path / f"flip{k:02d}.jpg")
        paths[-1].write_bytes(bytes(flipped))
    warned = _libjpeg_warns(paths)
    assert sum(warned) >= 10  # the flips exercise the check
    raised = []
    for path in paths:
        try:
            read_image(path)
            raised.append(False)
        except ImageReadError as exc:
            assert exc.path == str(path)
            raised.append(True)
    missed = [p.name for p, w, r in zip(paths, warned, raised) if w and not r]
    assert not missed


def test_clean_image_reads_identically(tmp_path, photo):
    path = tmp_path / "clean.jpg"
    path.write_bytes(_jpeg(photo))
    progressive = tmp_path / "progressive.jpg"
    progressive.write_bytes(_jpeg(photo, cv2.IMWRITE_JPEG_PROGRESSIVE, 1))
    for p in (path, progressive):
        expected = cv2.cvtColor(cv2.imread(str(p)), cv2.COLOR_BGR2RGB)
        assert np.array_equal(read_image(p), expected)


def test_threads_and_worker_processes(tmp_path):
    from joblib import Parallel, delayed

    clean, cut = tmp_path / "clean.jpg", tmp_path / "cut.jpg"
    clean.write_bytes(_jpeg(_photo()))
    cut.write_bytes(_cut_progressive(_photo()))
    expected = cv2.cvtColor(cv2.imread(str(clean)), cv2.COLOR_BGR2RGB)
    before = _fd2_identity()
    for backend, n in (("threading", 8), ("loky", 2)):
        out = Parallel(n_jobs=n, backend=backend)(
            delayed(_outcome)(p) for p in [clean, cut] * 16)
        assert all(np.array_equal(o, expected) for o in out[0::2]), backend
        assert all(isinstance(o, str) and "cut.jpg" in o for o in out[1::2]), backend
    assert _fd2_identity() == before


def _outcome(path):
    try:
        return read_image(path)
    except ImageReadError as exc:
        return str(exc)


def test_other_stderr_text_is_passed_on(tmp_path, capfd, monkeypatch):
    real = cv2.imdecode

    def noisy(buf, flags):  # a library note written to fd 2 during the decode
        os.write(2, b"some library note\n")
        return real(buf, flags)

    monkeypatch.setattr(image_module.cv2, "imdecode", noisy)
    path = tmp_path / "clean.jpg"
    path.write_bytes(_jpeg(_photo()))
    assert read_image(path).shape == (224, 224, 3)
    assert "some library note" in capfd.readouterr().err


def test_read_error_fix_names_a_command_that_exists(tmp_path):
    write_fake_flickr8k(tmp_path)
    path = tmp_path / "flickr8k" / "images" / "a.jpg"
    path.write_bytes(_cut_progressive(_photo()))
    with pytest.raises(ImageReadError) as info:
        read_image(path)
    assert "--skip-bad-images" not in str(info.value) + info.value.fix
    command = info.value.fix.split("`")[1]
    assert command.startswith("kcca data --data-dir ") and command.endswith("--check-images")
    assert main(shlex.split(command)[1:] + ["-q"]) == 2


# ---------------------------------------------------------------- kcca data on a bad folder
BAD_FILES = ["cut.jpg", "empty.jpg", "text.jpg", "garbage.jpg", "link.jpg", "folder.jpg",
             "trunc.jpg"]


def _bad_folder(root: Path) -> Path:
    images = _fake_corpus(root, BAD_FILES)
    (images / "cut.jpg").write_bytes(_cut_progressive(_photo()))
    (images / "empty.jpg").write_bytes(b"")
    (images / "text.jpg").write_text("these are captions, not pixels\n")
    (images / "garbage.jpg").write_bytes(np.random.default_rng(0).bytes(5000))
    (images / "link.jpg").symlink_to(root / "nowhere.jpg")
    (images / "folder.jpg").mkdir()
    data = _jpeg(_photo())
    (images / "trunc.jpg").write_bytes(data[: len(data) // 2])
    return images


def _fix_command(err: str) -> list[str]:
    fix = [line for line in err.splitlines() if line.startswith("fix:")]
    assert len(fix) == 1, err
    command = fix[0].split("kcca ", 1)[1].split("`")[0]
    return shlex.split(command)


def test_check_images_names_every_bad_file(tmp_path, capsys):
    images = _bad_folder(tmp_path)
    assert main(["data", "--data-dir", str(tmp_path), "--check-images"]) == 2
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    reasons = {"cut.jpg": "corrupt image data", "empty.jpg": "empty", "text.jpg": "not a decod",
               "garbage.jpg": "not a decod", "link.jpg": "broken symbolic link",
               "folder.jpg": "a directory", "trunc.jpg": "truncated JPEG"}
    for name, reason in reasons.items():
        assert any(str(images / name) in e and reason in e for e in errors), (name, err)
    assert not any(f"/{ok}" in err for ok in ("a.jpg", "b.jpg", "c.jpg", "d.jpg"))
    assert "error: 7 of 11 image file(s) cannot be read" in err
    # the fix runs as printed: the same check, the same findings
    argv = _fix_command(err)
    assert argv[:1] == ["data"] and "--check-images" in argv
    assert main(argv + ["-q"]) == 2
    assert capsys.readouterr().err.count("error: cannot read image") == 7


def test_check_images_with_workers(tmp_path, capsys, monkeypatch):
    import kcca._cli.data_cmd as data_cmd

    _bad_folder(tmp_path)
    monkeypatch.setattr(data_cmd, "CHUNK", 2)
    assert main(["data", "--data-dir", str(tmp_path), "--check-images", "--jobs", "2",
                 "-q"]) == 2
    assert capsys.readouterr().err.count("error: cannot read image") == 7


def test_default_data_names_empty_link_and_directory(tmp_path, capsys):
    images = _fake_corpus(tmp_path, ["empty.jpg", "link.jpg", "folder.jpg"])
    (images / "empty.jpg").write_bytes(b"")
    (images / "link.jpg").symlink_to(tmp_path / "nowhere.jpg")
    (images / "folder.jpg").mkdir()
    assert main(["data", "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "3 image file(s)" in err
    for name, reason in (("empty.jpg", "file is empty"), ("link.jpg", "broken symbolic link"),
                         ("folder.jpg", "a directory")):
        assert f"{name}: {reason}" in err, err
    assert main(_fix_command(err) + ["-q"]) == 2  # runs as printed, lists them again
    assert capsys.readouterr().err.count("error: cannot read image") == 3


def test_clean_folder_counts(tmp_path, capsys):
    _fake_corpus(tmp_path, [])
    assert main(["data", "--data-dir", str(tmp_path)]) == 0
    assert "image files: 4 present" in capsys.readouterr().out
    assert main(["data", "--data-dir", str(tmp_path), "--check-images"]) == 0
    out, err = capsys.readouterr()
    assert "image files: 4 checked, 4 decoded cleanly, 0 unreadable, 0 with a possibly " \
           "damaged band" in out
    assert "error:" not in err and "warning:" not in err


# ------------------------------------------------------------------- damaged bottom band
def _grey_bottom(img: np.ndarray) -> np.ndarray:
    """A baseline JPEG of a larger copy cut at 45%: libjpeg fills the rest with mid-grey;
    then resized back and saved again, as a bad upstream copy would be."""
    big = cv2.resize(img, (500, 375), interpolation=cv2.INTER_CUBIC)
    data = _jpeg(big, cv2.IMWRITE_JPEG_QUALITY, 90)
    broken = cv2.imdecode(np.frombuffer(data[: int(len(data) * 0.45)] + b"\xff\xd9",
                                        np.uint8), cv2.IMREAD_COLOR)
    small = cv2.resize(broken, img.shape[1::-1], interpolation=cv2.INTER_LINEAR)
    return cv2.imdecode(np.frombuffer(_jpeg(small, cv2.IMWRITE_JPEG_QUALITY, 90), np.uint8),
                        cv2.IMREAD_COLOR)


def _smeared_bottom(img: np.ndarray) -> np.ndarray:
    out = img.copy()
    out[img.shape[0] // 2:] = img[img.shape[0] // 2 - 1]
    return out


def test_damaged_band_flagged(photo):
    rgb = cv2.cvtColor(photo, cv2.COLOR_BGR2RGB)
    assert image_module.damaged_band(rgb) is None
    grey = image_module.damaged_band(cv2.cvtColor(_grey_bottom(photo), cv2.COLOR_BGR2RGB))
    assert grey and "are flat, mean level 12" in grey
    smear = image_module.damaged_band(_smeared_bottom(rgb))
    assert smear and "the bottom 112 of 224 rows" in smear and "smear" in smear


def test_flat_black_or_white_bottom_is_not_flagged():
    rgb = cv2.cvtColor(_photo(), cv2.COLOR_BGR2RGB)
    for level in (0, 255):  # shadows, snow and borders look the same
        img = rgb.copy()
        img[150:] = level
        assert image_module.damaged_band(img) is None


def test_check_images_warns_about_a_damaged_band(tmp_path, capsys):
    images = _fake_corpus(tmp_path, ["band.jpg"])
    (images / "band.jpg").write_bytes(_jpeg(_grey_bottom(_photo())))
    assert main(["data", "--data-dir", str(tmp_path), "--check-images", "-q"]) == 0
    out, err = capsys.readouterr()
    assert f"warning: {images / 'band.jpg'}: possibly damaged: the bottom" in err
    assert "1 with a possibly damaged band" in out and "error:" not in err
