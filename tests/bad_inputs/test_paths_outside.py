"""Nothing is read from outside the folder the user named: an image id of a captions JSON
(Karpathy's format) with ``..`` parts, an absolute id, or a symbolic link on the way that leads
out of ``--images-dir`` (or of Flickr 8K's ``images/``) is refused, by id and file, before
any image is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kcca.cli import main
from kcca.data.json_splits import load_json_splits
from kcca.data.paths import OutsideFolderError
from tests.support.fake_flickr8k import write_fake_flickr8k

PIXELS = b"\xff\xd8 not decoded by a stat check"


def _corpus(root: Path, hostile: tuple[str, str]) -> tuple[Path, Path, Path]:
    """``root/C.json`` with four images under ``root/imgs`` (``val2014/`` and flat names)
    and one more, ``hostile`` (its ``filepath`` and ``filename``), in the test split; a
    readable file ``root/outside/secret.jpg``. Returns the JSON, the images folder and the
    secret."""
    imgs = root / "imgs"
    (imgs / "val2014").mkdir(parents=True)
    outside = root / "outside"
    outside.mkdir()
    secret = outside / "secret.jpg"
    secret.write_bytes(PIXELS)
    entries = [("val2014", "a.jpg", "train"), ("", "b.jpg", "train"), ("val2014", "c.jpg", "val"),
               ("", "d.jpg", "test"), (*hostile, "test")]
    images = []
    for n, (folder, name, split) in enumerate(entries):
        if (folder, name) != hostile:
            (imgs / folder / name).write_bytes(PIXELS)
        sentences = [{"raw": f"a dog number {k} runs on image {n} ."} for k in range(5)]
        item = {"filename": name, "split": split, "sentences": sentences}
        images.append({**item, "filepath": folder} if folder else item)
    path = root / "C.json"
    path.write_text(json.dumps({"dataset": "hostile", "images": images}), encoding="utf-8")
    return path, imgs, secret


def _refused(capsys, args: list[str], image_id: str, source: Path) -> str:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and "unexpected" not in err
    error = [line for line in err.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and repr(image_id) in error[0] and str(source) in error[0], err
    assert "leads outside" in error[0], err
    assert any(line.startswith("fix:") for line in err.splitlines())
    return err


def test_an_id_with_dotdot_parts_is_refused(tmp_path, capsys):
    path, imgs, _ = _corpus(tmp_path, ("../outside", "secret.jpg"))
    _refused(capsys, ["data", "--corpus", str(path), "--images-dir", str(imgs)],
             "../outside/secret.jpg", path)


def test_an_id_whose_dotdot_parts_stay_inside_is_read(tmp_path, capsys):
    path, imgs, _ = _corpus(tmp_path, ("val2014/../val2014", "a2.jpg"))
    (imgs / "val2014" / "a2.jpg").write_bytes(PIXELS)
    assert main(["data", "--corpus", str(path), "--images-dir", str(imgs), "-q"]) == 0


def test_an_absolute_id_is_refused(tmp_path, capsys):
    secret = tmp_path / "outside" / "secret.jpg"
    path, imgs, _ = _corpus(tmp_path, (str(secret.parent), "secret.jpg"))
    _refused(capsys, ["data", "--corpus", str(path), "--images-dir", str(imgs)], str(secret),
             path)


def test_reproduce_refuses_it_before_reading_an_image(tmp_path, capsys):
    path, imgs, _ = _corpus(tmp_path, ("../outside", "secret.jpg"))
    _refused(capsys, ["--no-cache", "reproduce", "--corpus", str(path), "--images-dir",
                      str(imgs), "--out", str(tmp_path / "out")],
             "../outside/secret.jpg", path)
    assert not (tmp_path / "out").exists()


def test_a_linked_folder_leading_outside_is_refused(tmp_path, capsys):
    path, imgs, _ = _corpus(tmp_path, ("elsewhere", "secret.jpg"))
    (imgs / "elsewhere").symlink_to(tmp_path / "outside", target_is_directory=True)
    _refused(capsys, ["data", "--corpus", str(path), "--images-dir", str(imgs)],
             "elsewhere/secret.jpg", path)


def test_a_linked_file_leading_outside_is_refused(tmp_path, capsys):
    path, imgs, secret = _corpus(tmp_path, ("", "e.jpg"))
    (imgs / "e.jpg").symlink_to(secret)
    _refused(capsys, ["data", "--corpus", str(path), "--images-dir", str(imgs)], "e.jpg", path)


def test_links_inside_the_folder_and_a_linked_folder_itself_are_read(tmp_path):
    path, imgs, _ = _corpus(tmp_path, ("", "e.jpg"))
    (imgs / "e.jpg").symlink_to(imgs / "d.jpg")
    (tmp_path / "link").symlink_to(imgs, target_is_directory=True)
    corpus = load_json_splits(path, tmp_path / "link")
    assert corpus.image_paths["e.jpg"] == str(tmp_path / "link" / "e.jpg")


def test_a_flickr8k_image_linked_outside_its_folder_is_refused(tmp_path, capsys):
    write_fake_flickr8k(tmp_path)
    secret = tmp_path / "secret.jpg"
    images = tmp_path / "flickr8k" / "images"
    (images / "a.jpg").rename(secret)
    (images / "a.jpg").symlink_to(secret)
    token = tmp_path / "flickr8k" / "text" / "Flickr8k.token.txt"
    _refused(capsys, ["data", "--data-dir", str(tmp_path)], "a.jpg", token)


def test_the_error_is_a_data_error_naming_the_id_and_file(tmp_path):
    path, imgs, _ = _corpus(tmp_path, ("../outside", "secret.jpg"))
    with pytest.raises(OutsideFolderError) as info:
        load_json_splits(path, imgs)
    assert isinstance(info.value, ValueError)
    assert "'../outside/secret.jpg'" in str(info.value) and str(path) in str(info.value)
