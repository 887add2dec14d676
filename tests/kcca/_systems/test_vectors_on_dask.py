"""A system with the ``vectors`` kernel on both sides, run by ``kcca reproduce`` serially and
on a Dask LocalCluster (``--scheduler``): the same rankings files, and details that name the
scheduler. Vectors are planted for the image ids and caption ids of a small Flickr 8K-shaped
folder, inside the experiments folder; the experiment file names them by absolute path, and by
a path relative to its own folder (the rule of experiments/README.md), whatever folder ``kcca``
runs in. Both runs rank the all-captions protocol
too, and write the same ranks."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from kcca.data._flickr8k import load_flickr8k_with_splits
from tests.support.flickr_like import write_flickr_like
from tests.support.optional_tools import skip_unless
from tests.support.planted_vectors import plant_vectors, vectors_experiment

NAME = "VEC"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """The corpus folder and an experiment folder naming its planted vectors
    (``exp/vectors/``) by absolute path."""
    root = tmp_path_factory.mktemp("vectors-dask")
    write_flickr_like(root / "data")
    vectors = root / "exp" / "vectors"
    vectors.mkdir(parents=True)
    images, captions = plant_vectors(load_flickr8k_with_splits(root / "data", None), vectors)
    _experiment(root / "exp", images.as_posix(), captions.as_posix())
    return root


def _experiment(folder: Path, images: str, captions: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / "vec.toml").write_text(
        vectors_experiment(images, captions, "[5, 10, 20, 39]"), encoding="utf-8"
    )


def _reproduce(root: Path, exp: Path, out: Path, *extra: str) -> None:
    from kcca._cli import main

    rc = main(["reproduce", "--data-dir", str(root / "data"), "--experiments", str(exp),
               "--systems", NAME, "--tables", "3", "--out", str(out),
               "--cache-dir", str(out.parent / f"{out.name}-cache"), "--quiet", *extra])
    assert rc == 0


def _serial_and_on_cluster(root: Path, exp: Path, tmp_path: Path) -> tuple[Path, Path, str]:
    skip_unless(importlib.util.find_spec("distributed") is not None,
                "dask.distributed absent (extra 'dask')")
    from distributed import LocalCluster

    serial, dask = tmp_path / "serial", tmp_path / "dask"
    _reproduce(root, exp, serial, "--protocol", "all-captions")
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp",
                      host="127.0.0.1", dashboard_address=None) as cluster:
        _reproduce(
            root, exp, dask, "--scheduler", cluster.scheduler_address, "--protocol", "all-captions"
        )
    return serial, dask, cluster.scheduler_address


def _check_same_results(serial: Path, dask: Path, address: str) -> None:
    ranked = (serial / "rankings" / f"{NAME}.json").read_bytes()
    assert (dask / "rankings" / f"{NAME}.json").read_bytes() == ranked
    assert json.loads(ranked)["format"] == "kcca-rankings"
    protocol = (serial / "rankings" / f"{NAME}.all-captions.json").read_bytes()
    assert (dask / "rankings" / f"{NAME}.all-captions.json").read_bytes() == protocol
    details = json.loads((dask / "rankings" / "details.json").read_text())
    assert [d["system"] for d in details] == [NAME]
    assert all(d["scheduler"] == address for d in details)
    alone = json.loads((serial / "rankings" / "details.json").read_text())
    assert [d.get("scheduler") for d in alone] == [None]
    assert "on the Dask cluster" in (dask / "table3.md").read_text()


@pytest.mark.data_variables
def test_a_vectors_system_on_a_dask_cluster_gives_the_serial_rankings(root, tmp_path):
    serial, dask, address = _serial_and_on_cluster(root, root / "exp", tmp_path)
    _check_same_results(serial, dask, address)


@pytest.mark.data_variables
def test_relative_paths_are_read_from_the_experiment_files_folder(root, tmp_path, monkeypatch):
    """Run from a folder without the vectors: the experiment file's own folder is where its
    relative paths are read from, by the client and by the workers (the kernels they get
    carry that folder, experiments/README.md)."""
    exp = tmp_path / "relative-exp"
    shutil.copytree(root / "exp" / "vectors", exp / "vectors")
    _experiment(exp, "vectors/images.npy", "vectors/captions.npz")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    serial, dask, address = _serial_and_on_cluster(root, exp, tmp_path)
    _check_same_results(serial, dask, address)
    absolute = tmp_path / "absolute"
    _reproduce(root, root / "exp", absolute)
    assert (absolute / "rankings" / f"{NAME}.json").read_bytes() == (
        serial / "rankings" / f"{NAME}.json"
    ).read_bytes()
