"""Nothing is read from outside the folder the user named: an image id of a captions JSON
(Karpathy's format) with ``..`` parts, an absolute id, or a symbolic link on the way that leads
out of ``--images-dir`` (or of Flickr 8K's ``images/``) is refused, by id and file, before
any image is read; so is a file an experiment file names (the ``vectors`` kernel's ``path``)
outside the experiments folder, relative paths being read from the experiment file's folder."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from kcca._cache import Cache
from kcca._cli import main
from kcca.data._demo import make_demo_corpus
from kcca.data._json_splits import load_json_splits
from kcca.data._paths import OutsideFolderError
from kcca._systems import load_specs
from kcca._systems.blocks import Workspace
from kcca._systems.config import RunConfig
from kcca._systems.spec import KernelSpec
from tests.support.fake_flickr8k import write_fake_flickr8k
from tests.support.planted_vectors import plant_vectors, vectors_experiment

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


@pytest.mark.data_variables
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


# ------------------------------------------- files an experiment file names (vectors kernel)
@pytest.fixture(scope="module")
def demo():
    return make_demo_corpus(n_train=30, n_dev=10, n_test=10, image_size=32, seed=1,
                            judgments=False)


def _experiments(root: Path, demo, images: str, captions: str) -> Path:
    """``root/exp/vec.toml`` naming ``images`` and ``captions``; the planted vectors are
    written to ``root/exp/emb/`` and ``root/outside/``."""
    exp = root / "exp"
    for folder in (exp / "emb", root / "outside"):
        folder.mkdir(parents=True, exist_ok=True)
        plant_vectors(demo, folder)
    (exp / "vec.toml").write_text(vectors_experiment(images, captions, "[5]"), encoding="utf-8")
    return exp


def _spec_refused(exp: Path, key: str, value: str) -> OutsideFolderError:
    with pytest.raises(OutsideFolderError) as info:
        load_specs(exp)
    message = str(info.value)
    assert f"{key} {value!r} leads outside {exp}" in message, message
    assert str(exp / "vec.toml") in message
    return info.value


def test_relative_vector_paths_are_read_from_the_experiment_files_folder(
    demo, tmp_path, monkeypatch
):
    exp = _experiments(tmp_path, demo, "emb/images.npy", "emb/captions.npz")
    monkeypatch.chdir(tmp_path / "outside")  # holds other files of the same names: not read
    (spec,) = load_specs(exp)
    ws = Workspace(demo, Cache(None), RunConfig.of(progress=False))
    image = ws.image_blocks(spec.image_kernel)
    assert str(exp / "emb" / "images.npy") in image.inputs
    assert str(exp / "emb" / "images.ids.txt") in image.inputs
    text = ws.text_blocks(spec.text_kernel, "demo")
    assert image.train.shape == (30, 30) and text.train.shape == (30, 30)
    # the spec travels to a worker as it is, and reads the same files from any folder
    again = pickle.loads(pickle.dumps(spec))
    assert again.image_kernel.build().input_files() == spec.image_kernel.build().input_files()


def test_cache_keys_hold_the_path_as_written_and_the_content(demo, tmp_path, monkeypatch):
    """The key of a kernel on ``emb/images.npy`` read from the experiment file's folder is the
    key it had when read from the folder ``kcca`` ran in."""
    exp = _experiments(tmp_path, demo, "emb/images.npy", "emb/captions.npz")
    ws = Workspace(demo, Cache(None), RunConfig.of(progress=False))
    (spec,) = load_specs(exp)
    from_file = ws.image_blocks(spec.image_kernel).key
    monkeypatch.chdir(exp)
    ws = Workspace(demo, Cache(None), RunConfig.of(progress=False))
    from_cwd = ws.image_blocks(KernelSpec("vectors", dict(spec.image_kernel.params))).key
    assert from_file == from_cwd and from_file["params"]["path"] == "emb/images.npy"


def test_a_vector_path_with_dotdot_parts_is_refused(demo, tmp_path):
    exp = _experiments(tmp_path, demo, "../outside/images.npy", "emb/captions.npz")
    _spec_refused(exp, "image_kernel.params.path", "../outside/images.npy")


def test_an_absolute_vector_path_elsewhere_is_refused(demo, tmp_path):
    outside = (tmp_path / "outside" / "captions.npz").as_posix()
    exp = _experiments(tmp_path, demo, "emb/images.npy", outside)
    _spec_refused(exp, "text_kernel.params.path", outside)


def test_a_linked_vectors_file_leading_outside_is_refused(demo, tmp_path):
    exp = _experiments(tmp_path, demo, "emb/images.npy", "emb/linked.npz")
    (exp / "emb" / "linked.npz").symlink_to(tmp_path / "outside" / "captions.npz")
    _spec_refused(exp, "text_kernel.params.path", "emb/linked.npz")


def test_a_linked_default_ids_file_leading_outside_is_refused(demo, tmp_path):
    exp = _experiments(tmp_path, demo, "emb/images.npy", "emb/captions.npz")
    ids = exp / "emb" / "images.ids.txt"
    ids.unlink()
    ids.symlink_to(tmp_path / "outside" / "images.ids.txt")
    _spec_refused(exp, "image_kernel.params.ids_path", "emb/images.ids.txt")


def test_a_mix_part_reading_outside_is_refused(demo, tmp_path):
    exp = _experiments(tmp_path, demo, "emb/images.npy", "emb/captions.npz")
    path = exp / "vec.toml"
    text = path.read_text(encoding="utf-8").replace(
        'name = "vectors"\nparams = {path = "emb/images.npy", function = "rbf"}',
        'name = "mix"\nparams = {parts = [{name = "vectors", params = '
        '{path = "../outside/images.npy"}}]}', 1)
    path.write_text(text, encoding="utf-8")
    _spec_refused(exp, "image_kernel.params.parts[0].params.path", "../outside/images.npy")


@pytest.mark.data_variables
def test_reproduce_names_the_experiment_file(tmp_path, capsys):
    path, imgs, _ = _corpus(tmp_path, ("", "e.jpg"))
    (imgs / "e.jpg").write_bytes(PIXELS)
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "vec.toml").write_text(vectors_experiment("../outside/v.npz", "c.npz", "[2]"),
                                  encoding="utf-8")
    args = ["--no-cache", "reproduce", "--corpus", str(path), "--experiments", str(exp),
            "--systems", "VEC", "--out", str(tmp_path / "out")]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert (f"error: {exp / 'vec.toml'}: image_kernel.params.path '../outside/v.npz' leads "
            f"outside {exp}") in err, err
    assert "fix: " in err and "Traceback" not in err
