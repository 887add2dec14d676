"""An empty Flickr 8K split file (train, dev or test; of the data folder or of ``--splits``),
or a JSON split file with no image in a split, is a named error naming the file when the
corpus is loaded: ``kcca data`` accepted it, and a run failed much later (a message about
codebooks, or 'unexpected ValueError ... 0 sample(s)')."""

from __future__ import annotations

import json

import pytest

from kcca._cli import main
from tests.support.fake_flickr8k import write_fake_flickr8k
from tests.support.named_errors import one_error

EMPTY = ("the split file lists no image ids (an empty split: training, selection on dev and "
         "the test metrics each need images)")


@pytest.mark.parametrize("split", ["train", "dev", "test"])
@pytest.mark.parametrize("content", ["", "\n\n"], ids=["empty", "blank-lines"])
def test_kcca_data_refuses_an_empty_split_file(tmp_path, capsys, split, content):
    root = tmp_path / "data"
    write_fake_flickr8k(root)
    path = root / "flickr8k" / "text" / f"Flickr_8k.{split}Images.txt"
    path.write_text(content)
    code = main(["data", "--data-dir", str(root)])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"{path}: {EMPTY}", error
    assert fix.startswith(f"list the split's image ids in {path}, one per line"), fix


def test_reproduce_refuses_an_empty_split_of_splits_before_any_run(tmp_path, capsys,
                                                                   monkeypatch):
    root = tmp_path / "data"
    write_fake_flickr8k(root)
    monkeypatch.setenv("KCCA_DATA_DIR", str(root))
    splits = tmp_path / "splits"
    splits.mkdir()
    for split in ("train", "dev", "test"):
        source = root / "flickr8k" / "text" / f"Flickr_8k.{split}Images.txt"
        (splits / source.name).write_text("" if split == "test" else source.read_text())
    code = main(["reproduce", "--systems", "BoW5", "--tables", "3", "--splits", str(splits),
                 "--out", str(tmp_path / "out"), "--cache-dir", str(tmp_path / "cache"),
                 "--quiet"])
    error, _ = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == f"{splits / 'Flickr_8k.testImages.txt'}: {EMPTY}", error
    assert not (tmp_path / "cache").exists()  # nothing was computed


def karpathy_file(path, labels) -> str:
    """A JSON split file (Karpathy's format) with one image per split label in ``labels``."""
    images = [
        {"filename": f"{k}.jpg", "split": label,
         "sentences": [{"raw": f"a dog runs {j}"} for j in range(5)]}
        for k, label in enumerate(labels)
    ]
    path.write_text(json.dumps({"dataset": "toy", "images": images}), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "labels,split,marks",
    [
        (["train", "restval", "val"], "test", '"split": "test"'),
        (["train", "test", "test"], "dev", '"split": "dev" or "split": "val"'),
        (["val", "test"], "train", '"split": "restval" or "split": "train"'),
    ],
)
def test_kcca_data_names_an_empty_split_of_a_json_corpus(tmp_path, capsys, labels, split, marks):
    """Before: `kcca data` printed '0 images' for the split and exited 0; a run failed later
    with 'unexpected ValueError ... 0 sample(s)'."""
    corpus = karpathy_file(tmp_path / "dataset_toy.json", labels)
    code = main(["data", "--corpus", corpus])
    error, fix = one_error(capsys.readouterr().err)
    assert code == 2
    assert error == (
        f"{corpus}: the {split} split has no image (no image is marked {marks}; training, "
        "selection on dev and the test metrics each need images)"
    ), error
    assert fix == f"mark some of the file's images {marks}, or use the released split file"


def test_kcca_data_names_a_json_corpus_without_images(tmp_path, capsys):
    corpus = karpathy_file(tmp_path / "dataset_toy.json", [])
    code = main(["data", "--corpus", corpus])
    error, _ = one_error(capsys.readouterr().err)
    assert code == 2
    assert error.startswith(f"{corpus}: the file has no image in any split"), error
