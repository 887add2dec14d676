"""``kcca report`` on a run of ``kcca reproduce --corpus FILE.json`` (Karpathy's format) whose
systems read vectors files, so that the run needed no images: image ids where thumbnails
would be, thumbnails with ``--images-dir``, the captions JSON taken from the recorded command
by default, and errors naming the file when the corpus is not there or ranks other images."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import cv2
import pytest

from kcca._cli import main
from kcca.data._demo import make_demo_corpus
from kcca.data._json_splits import load_json_splits
from kcca._evaluate import protocol_ranks as PR
from tests.support.karpathy_corpus import FOLD, karpathy_json
from tests.support.planted_vectors import plant_vectors, vectors_experiment

DATA_RE = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A run of VEC under the all-captions protocol, made in its folder with relative paths
    (as a user types them) and recorded with that command."""
    root = tmp_path_factory.mktemp("json-run")
    corpus_file = karpathy_json(root / "dataset_coco.json")
    corpus = load_json_splits(corpus_file)
    (root / "experiments").mkdir()
    images, captions = plant_vectors(corpus, root / "experiments")  # inside it, as they must be
    (root / "experiments" / "vec.toml").write_text(  # paths from the file's folder
        vectors_experiment(images.name, captions.name, '"geometric:5:6"'),
        encoding="utf-8",
    )
    args = [
        "--quiet",
        "--cache-dir",
        "cache",
        "reproduce",
        "--corpus",
        "dataset_coco.json",
        "--experiments",
        "experiments",
        "--systems",
        "VEC",
        "--tables",
        "3",
        "--protocol",
        "all-captions",
        "--no-plots",
        "--out",
        "out",
    ]
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setattr(sys, "argv", ["kcca", *args])
        mp.setattr(PR, "FOLD_SIZE", FOLD)
        assert main(args) == 0
    return {"root": root, "corpus": corpus, "file": corpus_file, "out": root / "out"}


@pytest.fixture(scope="module")
def images_dir(run) -> Path:
    """The test images of the corpus as files under ``images/val2014/`` (its ids' folder)."""
    demo = make_demo_corpus(n_train=60, n_dev=15, n_test=25, image_size=32, seed=1)
    folder = run["root"] / "images"
    for image_id in run["corpus"].split("test"):
        path = folder / image_id
        path.parent.mkdir(parents=True, exist_ok=True)
        name = image_id.rpartition("/")[2]
        cv2.imwrite(str(path), cv2.cvtColor(demo.load_image(name), cv2.COLOR_RGB2BGR))
    return folder


def page_json(html: str) -> dict:
    return json.loads(DATA_RE.search(html).group(1))


def run_fix(err: str) -> int:
    """Run the ``fix:`` line of ``err`` as printed (the part in backticks, if any), as
    typed at a shell."""
    fix = err.split("fix: ", 1)[1].strip()
    quoted = re.search(r"`(kcca [^`]*)`", fix)
    command = quoted.group(1) if quoted else fix
    words = shlex.split(command)
    assert words[0] == "kcca"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(sys, "argv", words)  # the command a run records
        return main(words[1:])


@pytest.mark.data_variables
def test_without_images_the_page_shows_ids_and_the_all_captions_section(run, tmp_path, capsys):
    page = tmp_path / "page"
    args = ["report", str(run["out"]), "-o", str(page), "--corpus", str(run["file"])]
    assert main(args) == 0
    assert "shows image ids instead of thumbnails" in capsys.readouterr().err
    html = (page / "index.html").read_text(encoding="utf-8")
    data = page_json(html)
    pool = run["corpus"].pool("test")
    assert data["images"] == [p[0] for p in pool]
    assert data["captions"] == [p[2] for p in pool]  # the captions' text, from the JSON
    assert data["thumbs"] == [""] * len(pool) and not (page / "thumbs").exists()
    assert '<section id="all-captions">' in html
    assert "| VEC | all-captions 25 images |" in (run["out"] / "all-captions.md").read_text()
    assert '<td class="name">all-captions 25 images</td>' in html
    assert "images are shown by id" in html and "--images-dir DIR" in html


def test_the_recorded_corpus_is_read_by_default_from_another_folder(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(run["out"]), "-o", "page"]) == 0
    data = page_json((tmp_path / "page" / "index.html").read_text(encoding="utf-8"))
    assert data["images"] == list(run["corpus"].split("test"))


def test_with_images_dir_the_page_has_thumbnails(run, images_dir, tmp_path):
    page = tmp_path / "page"
    args = ["report", str(run["out"]), "-o", str(page), "--images-dir", str(images_dir)]
    assert main(args) == 0
    html = (page / "index.html").read_text(encoding="utf-8")
    thumbs = page_json(html)["thumbs"]
    assert len(thumbs) == 25 and all(t.startswith("thumbs/") for t in thumbs)
    assert all((page / t).is_file() for t in thumbs)
    assert "images are shown by id" not in html


def test_thumbnails_are_never_read_from_outside_images_dir(run, images_dir, tmp_path, capsys):
    """An image folder whose ``val2014`` is a link to another folder: its images are outside
    ``--images-dir``, so no page is written with them."""
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "val2014").symlink_to(images_dir / "val2014", target_is_directory=True)
    page = tmp_path / "page"
    args = ["report", str(run["out"]), "-o", str(page), "--images-dir", str(linked)]
    assert main(args) == 2
    err = capsys.readouterr().err
    first = run["corpus"].split("test")[0]
    assert f"error: {run['file']}: image id {first!r} leads outside {linked}" in err, err
    assert not (page / "thumbs").exists()


@pytest.mark.data_variables
def test_thumbnails_of_ids_leading_out_of_images_dir_are_refused(tmp_path, capsys):
    """A run on a captions JSON whose ids climb out of their folder (``../val2014/...``),
    made without images (vectors kernels): the report with ``--images-dir`` reads none."""
    path = karpathy_json(tmp_path / "climbing.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    for item in doc["images"]:
        item["filepath"] = "../val2014"
    path.write_text(json.dumps(doc), encoding="utf-8")
    corpus = load_json_splits(path)
    experiments = tmp_path / "experiments"
    experiments.mkdir()
    images, captions = plant_vectors(corpus, experiments)
    (experiments / "vec.toml").write_text(
        vectors_experiment(images.as_posix(), captions.as_posix(), "[5]"), encoding="utf-8"
    )
    out = tmp_path / "out"
    args = ["--quiet", "--no-cache", "reproduce", "--corpus", str(path), "--experiments",
            str(experiments), "--systems", "VEC", "--tables", "3", "--no-plots", "--out", str(out)]
    assert main(args) == 0
    outside = tmp_path / "val2014"
    outside.mkdir()
    first = corpus.split("test")[0]
    demo = make_demo_corpus(n_train=60, n_dev=15, n_test=25, image_size=32, seed=1)
    for image_id in corpus.split("test"):
        name = image_id.rpartition("/")[2]
        cv2.imwrite(str(outside / name), cv2.cvtColor(demo.load_image(name), cv2.COLOR_RGB2BGR))
    inside_folder = tmp_path / "imgs"
    inside_folder.mkdir()
    page = tmp_path / "page"
    capsys.readouterr()
    args = ["report", str(out), "-o", str(page), "--corpus", str(path), "--images-dir",
            str(inside_folder)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: image id {first!r} leads outside {inside_folder}" in err, err
    assert not (page / "thumbs").exists()


def test_a_recorded_images_dir_is_named_not_read(run, images_dir, tmp_path, capsys):
    """A run whose recorded command names an image folder: the report reads no image from
    it (a file says where it is, the user did not), and its note names it for the user."""
    out = shutil.copytree(run["out"], tmp_path / "out")
    details_file = out / "rankings" / "details.json"
    details = json.loads(details_file.read_text(encoding="utf-8"))
    for entry in details:  # the files by absolute path, as the run could have named them
        entry["command"] = entry["command"].replace(
            "--corpus dataset_coco.json", f"--corpus {shlex.quote(str(run['file']))}"
        ) + f" --images-dir {shlex.quote(str(images_dir))}"
    assert str(run["file"]) in details[0]["command"]
    details_file.write_text(json.dumps(details), encoding="utf-8")
    page = tmp_path / "page"
    assert main(["report", str(out), "-o", str(page)]) == 0
    assert not (page / "thumbs").exists()
    assert page_json((page / "index.html").read_text(encoding="utf-8"))["thumbs"] == [""] * 25
    assert f"the run was made with --images-dir {images_dir}" in capsys.readouterr().err
    args = ["report", str(out), "-o", str(page), "--images-dir", str(images_dir)]
    assert main(args) == 0 and (page / "thumbs").is_dir()


def test_a_missing_corpus_file_is_named_and_the_fix_runs(run, tmp_path, capsys):
    missing = tmp_path / "dataset_coco.json"
    args = ["report", str(run["out"]), "-o", str(tmp_path / "page"), "--corpus", str(missing)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"error: --corpus {missing}: no such file" in err
    assert f"fix: kcca report {run['out']} --corpus {run['file']}" in err
    assert run_fix(err) == 0


def test_a_run_without_a_recorded_corpus_asks_for_it(run, tmp_path, capsys):
    out = shutil.copytree(run["out"], tmp_path / "out")
    (out / "rankings" / "details.json").unlink()
    for table in out.glob("*.md"):
        table.unlink()
    assert main(["report", str(out), "-o", str(tmp_path / "page")]) == 2
    err = capsys.readouterr().err
    assert f"error: the rankings in {out} rank corpus 'coco'" in err
    assert f"fix: kcca report {out} --corpus FILE.json" in err
    assert run_fix(err.replace("FILE.json", str(run["file"]))) == 0


def test_a_recorded_corpus_not_there_from_here(run, tmp_path, monkeypatch, capsys):
    """A copy of the run elsewhere: the recorded relative path leads nowhere."""
    out = shutil.copytree(run["out"], tmp_path / "copy" / "run")
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(out), "-o", "page"]) == 2
    err = capsys.readouterr().err
    assert "were made on --corpus dataset_coco.json" in err and "not there from here" in err
    assert run_fix(err.replace("FILE.json", str(run["file"]))) == 0


def other_test_images(path: Path, source: Path) -> Path:
    """``source`` with its first test image and its first training image swapped."""
    doc = json.loads(source.read_text(encoding="utf-8"))
    test = next(i for i in doc["images"] if i["split"] == "test")
    train = next(i for i in doc["images"] if i["split"] == "train")
    test["split"], train["split"] = "train", "test"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("compact", [True, False], ids=["compact", "rankings-only"])
def test_a_corpus_of_other_test_images_is_named(run, tmp_path, capsys, compact):
    """A copy of the run beside its captions JSON: the fix reports on that file."""
    out = shutil.copytree(run["out"], tmp_path / "out")
    recorded = shutil.copy(run["file"], tmp_path / "dataset_coco.json")
    if not compact:
        (out / "rankings" / "VEC.ranks.npz").unlink()
    other = other_test_images(tmp_path / "other.json", run["file"])
    args = ["report", str(out), "-o", str(tmp_path / "page"), "--corpus", str(other)]
    assert main(args) == 2
    err = capsys.readouterr().err
    ranked = "VEC.ranks.npz" if compact else "VEC.json"
    assert f"error: {other}: its test split (25 images) is not the pool that" in err
    assert ranked in err and "val2014/demo_" in err
    assert f"fix: kcca report {out} --corpus {recorded}" in err
    assert run_fix(err) == 0


@pytest.mark.data_variables
def test_a_captions_json_changed_since_the_run(run, tmp_path, monkeypatch, capsys):
    """The recorded file ranks other images now: the fix reruns the recorded command, after
    which the report is made."""
    root = shutil.copytree(run["root"], tmp_path / "moved")
    other_test_images(root / "dataset_coco.json", run["file"])
    assert main(["report", str(root / "out"), "-o", str(tmp_path / "page")]) == 2
    err = capsys.readouterr().err
    assert "the file has changed since the run" in err
    assert (
        "fix: rank it again, from the folder the run was made in: `kcca reproduce --quiet "
        "--cache-dir cache --corpus dataset_coco.json" in err
    )
    assert "--out out --force`" in err
    monkeypatch.chdir(root)
    monkeypatch.setattr(PR, "FOLD_SIZE", FOLD)
    assert run_fix(err) == 0
    assert main(["report", str(root / "out"), "-o", str(tmp_path / "page")]) == 0


def test_images_dir_faults_say_how_to_report_without(run, tmp_path, capsys):
    page = str(tmp_path / "page")
    nowhere = tmp_path / "nowhere"
    assert main(["report", str(run["out"]), "-o", page, "--images-dir", str(nowhere)]) == 2
    err = capsys.readouterr().err
    assert f"error: --images-dir {nowhere} is not a folder" in err
    assert run_fix(err) == 0
    capsys.readouterr()
    assert main(["report", str(run["out"]), "-o", page, "--images-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"error: --images-dir {tmp_path}: 25 of the 25 test images" in err
    assert "val2014/demo_" in err and "(file not found)" in err


def test_images_dir_on_a_demo_run_is_refused(run_dir, tmp_path, capsys):
    args = ["report", str(run_dir), "-o", str(tmp_path / "page"), "--images-dir", str(tmp_path)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "error: --images-dir is the image folder of a captions JSON" in err
    assert "fix: drop --images-dir" in err
