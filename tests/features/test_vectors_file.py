"""Reading per-item vectors (features._vectors_file): the three layouts, memory-mapping, and a
named error for each way a file can be wrong (missing, duplicate or empty ids, shapes,
dtypes, NaN / inf, a file that is not what its extension says, sizes over the limits)."""

from __future__ import annotations

import importlib.util
import zipfile
from pathlib import Path

import numpy as np
import pytest

from features._vectors_file import (
    MAX_IDS_BYTES_ENV,
    MAX_VECTOR_BYTES_ENV,
    VectorsFileError,
    default_ids_path,
    input_files,
    read_item_vectors,
)
from kcca.errors import DataError

IDS = ["a.jpg", "b.jpg", "c.jpg", "d.jpg"]
VECTORS = np.arange(12, dtype=np.float32).reshape(4, 3) / 7


def write_npy(folder: Path, vectors=VECTORS, ids=IDS, name: str = "v.npy") -> Path:
    path = folder / name
    np.save(path, vectors)
    default_ids_path(path).write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")
    return path


def write_npz(folder: Path, vectors=VECTORS, ids=IDS, compressed=False, name="v.npz") -> Path:
    path = folder / name
    (np.savez_compressed if compressed else np.savez)(path, ids=np.asarray(ids), vectors=vectors)
    return path


def refused(match: str, path, ids_path=None) -> VectorsFileError:
    with pytest.raises(VectorsFileError, match=match) as info:
        read_item_vectors(path, ids_path)
    assert isinstance(info.value, DataError) and info.value.fix
    return info.value


# ------------------------------------------------------------------ layouts


def test_npy_with_the_default_ids_file_is_memory_mapped(tmp_path):
    path = write_npy(tmp_path)
    got = read_item_vectors(path)
    assert isinstance(got.vectors, np.memmap) and got.vectors.dtype == np.float32
    assert got.ids == tuple(IDS) and got.dim == 3
    assert got.files == {"vectors": str(path), "ids": str(tmp_path / "v.ids.txt")}
    assert input_files(path) == got.files
    out = got.gather(["d.jpg", "a.jpg", "d.jpg"])
    assert out.dtype == np.float64 and np.array_equal(out, VECTORS[[3, 0, 3]])


def test_npy_with_a_named_ids_file(tmp_path):
    path = tmp_path / "emb.npy"
    np.save(path, VECTORS)
    ids = tmp_path / "names.txt"
    ids.write_text("\r\n".join(IDS), encoding="utf-8")  # CRLF, no final newline
    got = read_item_vectors(path, ids)
    assert got.ids == tuple(IDS) and got.files["ids"] == str(ids)
    assert input_files(path, ids) == {"vectors": str(path), "ids": str(ids)}


def test_npz_stored_is_memory_mapped_and_compressed_is_read(tmp_path):
    stored = read_item_vectors(write_npz(tmp_path))
    assert isinstance(stored.vectors, np.memmap)
    assert np.array_equal(stored.vectors, VECTORS) and stored.ids == tuple(IDS)
    fortran = read_item_vectors(write_npz(tmp_path, np.asfortranarray(VECTORS), name="f.npz"))
    assert np.array_equal(fortran.vectors, VECTORS)
    packed = read_item_vectors(write_npz(tmp_path, compressed=True, name="c.npz"))
    assert not isinstance(packed.vectors, np.memmap) and np.array_equal(packed.vectors, VECTORS)
    assert input_files(tmp_path / "c.npz") == {"vectors": str(tmp_path / "c.npz")}


def test_npz_byte_string_ids(tmp_path):
    path = tmp_path / "b.npz"
    np.savez(path, ids=np.array([i.encode() for i in IDS]), vectors=VECTORS)
    assert read_item_vectors(path).ids == tuple(IDS)


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None, reason="pyarrow not installed")
def test_parquet(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = tmp_path / "v.parquet"
    table = pa.table({"id": IDS, "vector": [list(map(float, r)) for r in VECTORS]})
    pq.write_table(table, path)
    got = read_item_vectors(path)
    assert got.ids == tuple(IDS) and np.allclose(got.vectors, VECTORS)
    ragged = pa.table({"id": IDS[:2], "vector": [[1.0, 2.0], [3.0]]})
    pq.write_table(ragged, tmp_path / "r.parquet")
    refused("row 1 has a vector of 1 values", tmp_path / "r.parquet")
    pq.write_table(pa.table({"id": IDS}), tmp_path / "n.parquet")
    refused("no column 'vector'", tmp_path / "n.parquet")
    ints = pa.table({"id": IDS[:1], "vector": [[1, 2]]})
    pq.write_table(ints, tmp_path / "i.parquet")
    refused("not floats", tmp_path / "i.parquet")


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is not None, reason="pyarrow installed")
def test_parquet_without_pyarrow_says_how_to_install_it(tmp_path):
    (tmp_path / "v.parquet").write_bytes(b"PAR1")
    err = refused("needs pyarrow", tmp_path / "v.parquet")
    assert "pip install pyarrow" in err.fix


# ------------------------------------------------------------------ named errors


def test_missing_id_names_the_item_and_the_file(tmp_path):
    got = read_item_vectors(write_npy(tmp_path))
    with pytest.raises(VectorsFileError, match=r"no vector for id 'x\.jpg' \(and 1 more of the 3"):
        got.rows(["a.jpg", "x.jpg", "y.jpg"])
    with pytest.raises(VectorsFileError, match=str(tmp_path / "v.npy")):
        got.gather(["z.jpg"])


def test_duplicate_id(tmp_path):
    twice = write_npy(tmp_path, ids=IDS[:3] + ["b.jpg"])
    refused(r"id 'b\.jpg' is given twice \(rows 1 and 3\)", twice)
    refused("given twice", write_npz(tmp_path, ids=["a", "a", "b", "c"]))


def test_empty_id_line(tmp_path):
    path = write_npy(tmp_path)
    default_ids_path(path).write_text("a.jpg\n\nc.jpg\nd.jpg\n", encoding="utf-8")
    refused(r"v\.ids\.txt:2: empty line", path)


def test_wrong_dimensions(tmp_path):
    flat = write_npy(tmp_path, VECTORS.ravel(), name="a.npy")
    refused(r"shape \(12,\): expected a 2-D array", flat)
    refused(r"3 ids for 4 rows", write_npy(tmp_path, ids=IDS[:3], name="b.npy"))
    refused(r"5 ids for 4 rows", write_npz(tmp_path, ids=IDS + ["e.jpg"]))
    path = tmp_path / "c.npz"
    np.savez(path, ids=np.array([IDS]), vectors=VECTORS)
    refused(r"'ids' has shape \(1, 4\)", path)


def test_nan_and_inf_name_the_first_bad_row(tmp_path):
    bad = VECTORS.copy()
    bad[2, 1], bad[3, 0] = np.nan, np.inf
    err = refused(r"row 2 \(id 'c\.jpg'\) has a non-finite value \(nan\)", write_npy(tmp_path, bad))
    assert "v.npy" in str(err)
    bad[2, 1] = 0
    refused(r"row 3 \(id 'd\.jpg'\) has a non-finite value \(inf\)", write_npz(tmp_path, bad))


@pytest.mark.parametrize("dtype", [np.int32, np.complex64, np.bool_])
def test_dtype_that_is_not_a_float(tmp_path, dtype):
    refused(f"dtype {np.dtype(dtype)}, not floats", write_npy(tmp_path, VECTORS.astype(dtype)))


def test_object_arrays_are_never_unpickled(tmp_path):
    path = tmp_path / "o.npy"
    np.save(path, np.array([[1.0, None]] * 4, dtype=object), allow_pickle=True)
    default_ids_path(path).write_text("\n".join(IDS), encoding="utf-8")
    refused("not a readable .npy array", path)
    path = tmp_path / "o.npz"
    np.savez(path, ids=np.array(IDS, dtype=object), vectors=VECTORS)
    refused("not a readable array", path)


def test_ids_that_are_not_strings(tmp_path):
    refused(r"'ids' is an array of int64, not of strings", write_npz(tmp_path, ids=np.arange(4)))


def test_file_that_is_not_what_its_extension_says(tmp_path):
    npz = write_npz(tmp_path)
    fake = tmp_path / "z.npy"
    fake.write_bytes(npz.read_bytes())
    default_ids_path(fake).write_text("\n".join(IDS), encoding="utf-8")
    refused(r"not a NumPy \.npy file \(it starts with b'PK", fake)
    npy = write_npy(tmp_path)
    (tmp_path / "y.npz").write_bytes(npy.read_bytes())
    refused(r"not a NumPy \.npz archive", tmp_path / "y.npz")
    (tmp_path / "e.parquet").write_bytes(b"")
    if importlib.util.find_spec("pyarrow") is not None:
        refused(r"not a Parquet file \(it is empty\)", tmp_path / "e.parquet")
    (tmp_path / "v.csv").write_text("a,1\n")
    refused(r"unknown vectors file extension '\.csv'", tmp_path / "v.csv")


def test_truncated_or_damaged_files(tmp_path):
    npy = write_npy(tmp_path)
    raw = npy.read_bytes()
    npy.write_bytes(raw[: len(raw) - 8])
    refused(r"not a readable \.npy array", npy)
    npz = write_npz(tmp_path)
    raw = npz.read_bytes()
    npz.write_bytes(raw[: len(raw) // 2])
    refused(r"damaged \.npz archive|truncated", npz)


def test_npz_without_its_arrays(tmp_path):
    path = tmp_path / "m.npz"
    np.savez(path, embeddings=VECTORS)
    refused(r"no ids\.npy and no vectors\.npy array \(it holds \['embeddings'\]\)", path)


def test_missing_files_and_ids_path_for_a_format_with_its_own_ids(tmp_path):
    with pytest.raises(DataError, match=r"vectors file .*nope\.npy does not exist"):
        read_item_vectors(tmp_path / "nope.npy")
    path = tmp_path / "v.npy"
    np.save(path, VECTORS)
    with pytest.raises(DataError, match=r"ids file of .*v\.npy .*v\.ids\.txt does not exist") as e:
        read_item_vectors(path)
    assert "ids_path" in e.value.fix
    with pytest.raises(DataError, match="ids file of"):
        input_files(path)
    refused("holds its own ids", write_npz(tmp_path), tmp_path / "ids.txt")


def test_sizes_are_checked_before_reading(tmp_path, monkeypatch):
    path = write_npy(tmp_path)
    monkeypatch.setenv(MAX_IDS_BYTES_ENV, "10")
    err = refused(r"ids of 24 bytes is over the limit of 10 bytes", path)
    assert f"export {MAX_IDS_BYTES_ENV}=24" in err.fix
    monkeypatch.delenv(MAX_IDS_BYTES_ENV)
    monkeypatch.setenv(MAX_VECTOR_BYTES_ENV, "16")
    read_item_vectors(write_npz(tmp_path))  # stored: memory-mapped, not limited
    refused(r"vectors \(uncompressed\) of \d+ bytes is over the limit of 16",
            write_npz(tmp_path, compressed=True, name="c.npz"))


def test_a_stored_npz_member_is_mapped_where_its_data_starts(tmp_path):
    """The member's offset is read from its local zip header (a name and extra field of any
    length); a member written with a long name before it does not shift it."""
    path = tmp_path / "long.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, array in (("x" * 300 + ".npy", VECTORS), ("ids.npy", np.array(IDS)),
                            ("vectors.npy", VECTORS * 2)):
            with archive.open(name, "w", force_zip64=True) as f:
                np.lib.format.write_array(f, array)
    got = read_item_vectors(path)
    assert isinstance(got.vectors, np.memmap) and np.array_equal(got.vectors, VECTORS * 2)
