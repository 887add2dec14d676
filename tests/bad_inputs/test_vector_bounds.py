"""A vectors file does not decide how much memory reading it takes, and a wrong one is named
for what is wrong with it.

A compressed ``.npz`` member whose ``.npy`` header declares more bytes than the member holds
is refused before the array is allocated (checked here under an address-space limit, with a
file of a few hundred bytes declaring 12.5 GiB); vectors of dimension 0 are a named error;
an ids file that is not the one of its vectors is named as the cause.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from features._vectors_file import VectorsFileError, default_ids_path, read_item_vectors

#: the address-space limit the forged archive is read under
MEMORY_LIMIT = 2 << 30
#: the declared shape: 12.5 GiB of float64
DECLARED = (2, 838_860_800)


def forged_npz(path: Path) -> Path:
    """An ``.npz`` of two ids whose compressed ``vectors`` member declares :data:`DECLARED`
    in a header followed by 130 KB of zeros."""
    ids = io.BytesIO()
    np.save(ids, np.array(["a.jpg", "b.jpg"]))
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": DECLARED}
    )
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("ids.npy", ids.getvalue())
        archive.writestr("vectors.npy", header.getvalue() + bytes(130_000))
    return path


@pytest.mark.data_variables
def test_a_declared_huge_npz_member_is_refused_before_it_is_allocated(tmp_path):
    """Under a 2 GiB address-space limit: a named error (before: 'Unable to allocate
    12.5 GiB', a MemoryError)."""
    path = forged_npz(tmp_path / "forged.npz")
    assert path.stat().st_size < 10_000
    script = (
        "import resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({MEMORY_LIMIT}, {MEMORY_LIMIT})); "
        "from features._vectors_file import read_item_vectors, VectorsFileError\n"
        "try:\n"
        "    read_item_vectors(sys.argv[1])\n"
        "except VectorsFileError as exc:\n"
        "    print('refused:', exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(
        f"refused: {path}: vectors.npy declares shape {DECLARED} of float64 "
        "(13,421,772,800 bytes) in 130,000 bytes of data"
    ), proc.stdout


@pytest.mark.parametrize("suffix", [".npy", ".npz"])
def test_vectors_of_dimension_0_are_a_named_error(tmp_path, suffix):
    """Before: read without complaint, and the kernel failed later with 'unexpected
    ValueError: Found array with 0 feature(s)'."""
    path = tmp_path / f"v{suffix}"
    ids = ["a.jpg", "b.jpg", "c.jpg"]
    vectors = np.zeros((3, 0), dtype=np.float32)
    if suffix == ".npy":
        np.save(path, vectors)
        default_ids_path(path).write_text("\n".join(ids) + "\n", encoding="utf-8")
    else:
        np.savez(path, ids=np.array(ids), vectors=vectors)
    with pytest.raises(VectorsFileError) as info:
        read_item_vectors(path)
    assert str(info.value) == (
        f"{path}: the vectors have dimension 0 (shape (3, 0)): every row needs at least one "
        "value"
    )


def npy_with_ids(tmp_path: Path, ids: list[str]) -> tuple[Path, Path]:
    """Four rows of vectors in ``v.npy`` and the given ids in ``other.ids.txt``."""
    path = tmp_path / "v.npy"
    np.save(path, np.eye(4, dtype=np.float32))
    other = tmp_path / "other.ids.txt"
    other.write_text("\n".join(ids) + "\n", encoding="utf-8")
    return path, other


def test_an_ids_file_of_another_length_is_named_as_the_cause(tmp_path):
    """Before: '3 ids for 4 rows of vectors' with a fix saying how to save vectors."""
    path, other = npy_with_ids(tmp_path, ["a", "b", "c"])
    with pytest.raises(VectorsFileError) as info:
        read_item_vectors(path, other)
    assert str(info.value) == (
        f"{path}: its ids file {other} gives 3 ids for 4 rows of vectors: it is not the ids "
        "file of these vectors"
    )
    assert info.value.fix.startswith(f"give the ids file written with {path} "), info.value.fix
    assert "ids_path" in info.value.fix


def test_an_ids_file_of_other_items_is_named_as_the_cause(tmp_path):
    """Before: 'no vector for id ...' with the fix 'add a row for every image ... to the
    file', when no asked id is in the ids file at all."""
    path, other = npy_with_ids(tmp_path, ["x#0", "x#1", "x#2", "x#3"])
    vectors = read_item_vectors(path, other)
    with pytest.raises(VectorsFileError) as info:
        vectors.rows(["a.jpg", "b.jpg"])
    message = str(info.value)
    assert message.startswith(
        f"{path}: none of the 2 ids asked for (the first: 'a.jpg') is in its ids file {other} "
        "(its first id: 'x#0'): the ids file is not the one of these vectors"
    ), message
    assert info.value.fix.startswith(f"give the ids file written with {path} "), info.value.fix
    with pytest.raises(VectorsFileError, match="no vector for id 'b.jpg'"):
        read_item_vectors(path, other).rows(["x#0", "b.jpg"])
