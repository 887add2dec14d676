"""Per-item vectors read from a file (users' own CNN, CLIP or sentence-encoder embeddings).

Three layouts, chosen by the file's extension:

* ``.npy``: a 2-D float array, one row per item, and a text file of the items' ids, one id a
  line in row order: ``ids_path``, or by default the ``.npy`` file's name with ``.ids.txt``
  for ``.npy`` (``clip.npy`` -> ``clip.ids.txt``). The array is memory-mapped
  (``np.load(mmap_mode="r")``): only the rows a kernel asks for are read.
* ``.npz`` (``np.savez(path, ids=..., vectors=...)``): a 1-D string array ``ids`` and the 2-D
  float array ``vectors``. An archive written by ``np.savez`` stores its members uncompressed
  and ``vectors`` is memory-mapped inside it; a member compressed by ``np.savez_compressed``
  cannot be mapped and is read into memory once (up to ``$KCCA_MAX_VECTOR_BYTES``).
* ``.parquet`` (or ``.pq``): a column ``id`` of strings and a column ``vector`` of float lists
  of one length. Read with pyarrow, which kcca does not depend on (``pip install pyarrow``),
  into memory (up to ``$KCCA_MAX_VECTOR_BYTES``).

Every file is checked when it is read: the ids are distinct non-empty strings, one per row;
the vectors are a 2-D array of floats with no NaN or infinite value (the first bad row is
named). Sizes are checked before anything is read into memory (``MAX_IDS_BYTES``,
``MAX_VECTOR_BYTES``, raised through the environment as :mod:`kcca.limits` describes).
Nothing is dropped: an item with no row is an error naming it (:meth:`ItemVectors.rows`).
"""

from __future__ import annotations

import os
import struct
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from kcca.data._text_files import utf8_lines
from kcca.errors import DataError
from kcca._file_kinds import check_regular_file
from kcca.limits import MAX_IDS_BYTES_ENV, MAX_VECTOR_BYTES_ENV, current_limit

#: the extensions read, and what each is
FORMATS = {
    ".npy": "a NumPy array with an ids file",
    ".npz": "a NumPy archive of 'ids' and 'vectors'",
    ".parquet": "a Parquet table of 'id' and 'vector'",
    ".pq": "a Parquet table of 'id' and 'vector'",
}
#: the default ids file of ``NAME.npy``: ``NAME`` + this
IDS_SUFFIX = ".ids.txt"
#: rows scanned at a time for NaN and infinite values
_SCAN_ROWS = 1 << 14
_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_PARQUET_MAGIC = b"PAR1"
_ZIP_LOCAL_HEADER = struct.Struct("<4s5H3L2H")

_SAVE_FIX = (
    "save the vectors as a 2-D float array with one id per row: np.save('vectors.npy', "
    "vectors) with the ids one a line in vectors.ids.txt, or np.savez('vectors.npz', "
    "ids=np.array(ids), vectors=vectors)"
)


class VectorsFileError(DataError):
    """A vectors file (or its ids file) that cannot be used; the message names the file."""

    fix = _SAVE_FIX


@dataclass(frozen=True, eq=False)
class ItemVectors:
    """The checked content of a vectors file: ``ids[r]`` is the id of row ``vectors[r]``.

    ``vectors`` is a ``numpy.memmap`` where the file allows it (module docstring). ``files``
    maps each file read (``"vectors"``, and ``"ids"`` for ``.npy``) to its path; ``index``
    each id to its row.
    """

    ids: tuple[str, ...]
    vectors: np.ndarray
    files: Mapping[str, str]
    index: Mapping[str, int] = field(repr=False)

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    def rows(self, ids: Sequence[str]) -> np.ndarray:
        """The row of each id; an id with no row is a :class:`VectorsFileError` naming it
        (and how many others are missing)."""
        index = self.index
        rows = np.fromiter((index.get(i, -1) for i in ids), dtype=np.int64, count=len(ids))
        missing = np.flatnonzero(rows < 0)
        if len(ids) > 1 and missing.size == len(ids) and "ids" in self.files:
            held = f"its first id: {self.ids[0]!r}" if self.ids else "it holds no id"
            raise VectorsFileError(
                f"{self.files['vectors']}: none of the {len(ids)} ids asked for (the first: "
                f"{ids[0]!r}) is in its ids file {self.files['ids']} ({held}): the ids file is "
                "not the one of these vectors, or the vectors are not of this corpus's items",
                fix=f"give the ids file written with {self.files['vectors']} (one id per row, "
                "in row order; image ids for an image kernel, IMAGE#N for a text kernel) as "
                "the kernel parameter ids_path, or vectors computed for this corpus",
            )
        if missing.size:
            first = ids[int(missing[0])]
            more = f" (and {missing.size - 1} more of the {len(ids)} ids asked for)"
            raise VectorsFileError(
                f"{self.files['vectors']}: no vector for id {first!r}"
                + (more if missing.size > 1 else "")
                + f"; the file has {len(self.ids)} ids",
                fix="add a row for every image (image kernel) or caption (text kernel, ids "
                "IMAGE#N) of the corpus's splits to the file; no item is left out",
            )
        return rows

    def gather(self, ids: Sequence[str]) -> np.ndarray:
        """The vectors of ``ids`` as a float64 array ``(len(ids), dim)`` (only these rows are
        read from a memory-mapped file)."""
        return self.read(self.rows(ids))

    def read(self, rows: np.ndarray) -> np.ndarray:
        """The vectors of ``rows`` (from :meth:`rows`) as a float64 array."""
        order = np.argsort(rows, kind="stable")  # read a mapped file front to back
        out = np.empty((len(rows), self.dim), dtype=np.float64)
        out[order] = self.vectors[rows[order]]
        return out


def read_item_vectors(
    path: str | os.PathLike, ids_path: str | os.PathLike | None = None
) -> ItemVectors:
    """Read and check a vectors file (module docstring); returns :class:`ItemVectors`.

    ``ids_path`` names the ids file of a ``.npy`` array (default: ``NAME.ids.txt`` beside
    ``NAME.npy``); the other layouts hold their ids, so giving it for them is an error.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise VectorsFileError(
            f"{path}: unknown vectors file extension {path.suffix!r}: use one of "
            + ", ".join(f"{s} ({what})" for s, what in FORMATS.items())
        )
    check_regular_file(path, "vectors file", fix=_SAVE_FIX)
    if suffix != ".npy" and ids_path is not None:
        raise VectorsFileError(
            f"{path}: ids_path is given ({ids_path}), but a {suffix} file holds its own ids",
            fix="leave ids_path out, or give a .npy array with it",
        )
    ids_file = None
    if suffix == ".npy":
        ids_file = Path(ids_path) if ids_path is not None else default_ids_path(path)
        ids = _read_ids_file(ids_file, path)
        vectors = _read_npy(path)
        files = {"vectors": str(path), "ids": str(ids_file)}
    elif suffix == ".npz":
        ids, vectors = _read_npz(path)
        files = {"vectors": str(path)}
    else:
        ids, vectors = _read_parquet(path)
        files = {"vectors": str(path)}
    index = _check_vectors(path, ids, vectors, ids_file)
    return ItemVectors(tuple(ids), vectors, files, index)


def default_ids_path(path: str | os.PathLike) -> Path:
    """The ids file of ``NAME.npy`` when none is named: ``NAME.ids.txt`` beside it."""
    path = Path(path)
    return path.with_name(path.stem + IDS_SUFFIX)


def input_files(
    path: str | os.PathLike, ids_path: str | os.PathLike | None = None
) -> dict[str, str]:
    """The files :func:`read_item_vectors` reads, by role: ``{"vectors": path}`` and, for a
    ``.npy`` array, ``"ids"`` (its ids file, named or default). Each must be a regular file
    (a :class:`~kcca.errors.DataError` names the one that is not); none is read."""
    check_regular_file(path, "vectors file", fix=_SAVE_FIX)
    files = {"vectors": str(path)}
    if Path(path).suffix.lower() == ".npy":
        ids_file = Path(ids_path) if ids_path is not None else default_ids_path(path)
        _check_ids_file(ids_file, Path(path))
        files["ids"] = str(ids_file)
    return files


# ------------------------------------------------------------------ layouts


def _check_ids_file(ids_file: Path, vectors: Path) -> None:
    check_regular_file(
        ids_file,
        f"ids file of {vectors}",
        fix=f"write the ids of the rows of {vectors}, one a line in row order, to {ids_file}, "
        "or name the file with the kernel parameter ids_path",
    )


def _read_ids_file(ids_file: Path, vectors: Path) -> list[str]:
    _check_ids_file(ids_file, vectors)
    _check_size(ids_file, ids_file.stat().st_size, MAX_IDS_BYTES_ENV, "ids")
    ids = []
    for number, line in utf8_lines(ids_file, error=VectorsFileError):
        item = line.strip()
        if not item:
            raise VectorsFileError(
                f"{ids_file}:{number}: empty line: every line holds the id of one row of {vectors}",
                fix="remove the empty line, or give the row's id",
            )
        ids.append(item)
    return ids


def _read_npy(path: Path) -> np.ndarray:
    _check_magic(path, _NPY_MAGIC, "a NumPy .npy file")
    try:
        return np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise VectorsFileError(f"{path}: not a readable .npy array ({exc})") from None


def _read_npz(path: Path) -> tuple[list[str], np.ndarray]:
    _check_magic(path, _ZIP_MAGICS, "a NumPy .npz archive (a zip file)")
    try:
        with zipfile.ZipFile(path) as archive:
            members = {info.filename: info for info in archive.infolist()}
            missing = [m for m in ("ids.npy", "vectors.npy") if m not in members]
            if missing:
                have = sorted(m.removesuffix(".npy") for m in members)
                raise VectorsFileError(
                    f"{path}: the archive has no {' and no '.join(missing)} array "
                    f"(it holds {have or 'nothing'})"
                )
            ids_array = _npz_member(path, archive, members["ids.npy"], MAX_IDS_BYTES_ENV)
            vectors = _npz_member(path, archive, members["vectors.npy"], MAX_VECTOR_BYTES_ENV)
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise VectorsFileError(f"{path}: a damaged .npz archive ({exc})") from None
    return _ids_from_array(path, ids_array), vectors


def _npz_member(
    path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo, env: str
) -> np.ndarray:
    """One array of an archive: memory-mapped when stored uncompressed (``vectors``), else
    read after checking its size against the limit of ``env``."""
    if env == MAX_VECTOR_BYTES_ENV and info.compress_type == zipfile.ZIP_STORED:
        return _mapped_member(path, info)
    what = "ids" if env == MAX_IDS_BYTES_ENV else "vectors"
    _check_size(path, info.file_size, env, f"{what} (uncompressed)")
    with archive.open(info) as f:
        shape, _, dtype = _npy_header(f, path, info)
        data_bytes = info.file_size - f.tell()
    declared = int(np.prod(shape, dtype=object)) * dtype.itemsize
    if declared > data_bytes:
        raise VectorsFileError(
            f"{path}: {info.filename} declares shape {shape} of {dtype} ({declared:,} bytes) "
            f"in {max(data_bytes, 0):,} bytes of data: a damaged or forged archive"
        )
    try:
        with archive.open(info) as f:
            return np.lib.format.read_array(f, allow_pickle=False)
    except ValueError as exc:
        raise VectorsFileError(f"{path}: {info.filename} is not a readable array ({exc})") from None


def _npy_header(f: Any, path: Path, info: zipfile.ZipInfo) -> tuple[tuple[int, ...], bool, Any]:
    """The shape, Fortran order and dtype in the ``.npy`` header at ``f``'s position (``f``
    is left where the array's data starts); a header that cannot be read is a
    :class:`VectorsFileError` naming the member."""
    try:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            return np.lib.format.read_array_header_1_0(f)
        if version == (2, 0):
            return np.lib.format.read_array_header_2_0(f)
        raise ValueError(f".npy format version {version} (use np.savez)")
    except ValueError as exc:
        raise VectorsFileError(f"{path}: {info.filename} is not a readable array ({exc})") from None


def _mapped_member(path: Path, info: zipfile.ZipInfo) -> np.ndarray:
    """An uncompressed ``.npy`` member of a zip, memory-mapped where its data starts."""
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        raw = f.read(_ZIP_LOCAL_HEADER.size)
        if len(raw) < _ZIP_LOCAL_HEADER.size:
            raise VectorsFileError(f"{path}: truncated archive (member {info.filename})")
        fields = _ZIP_LOCAL_HEADER.unpack(raw)
        f.seek(info.header_offset + _ZIP_LOCAL_HEADER.size + fields[-2] + fields[-1])
        shape, fortran, dtype = _npy_header(f, path, info)
        offset = f.tell()
    if dtype.hasobject:
        raise VectorsFileError(f"{path}: {info.filename} holds Python objects, not numbers")
    try:
        return np.memmap(
            path, dtype=dtype, mode="r", offset=offset, shape=shape, order="F" if fortran else "C"
        )
    except ValueError as exc:
        raise VectorsFileError(f"{path}: truncated archive ({info.filename}: {exc})") from None


def _ids_from_array(path: Path, ids: np.ndarray) -> list[str]:
    if ids.ndim != 1:
        raise VectorsFileError(f"{path}: 'ids' has shape {ids.shape}, not one id per row (1-D)")
    if ids.dtype.kind == "U":
        return [str(i) for i in ids]
    if ids.dtype.kind == "S":
        try:
            return [bytes(i).decode("utf-8") for i in ids]
        except UnicodeDecodeError as exc:
            raise VectorsFileError(f"{path}: an id in 'ids' is not UTF-8 ({exc})") from None
    raise VectorsFileError(
        f"{path}: 'ids' is an array of {ids.dtype}, not of strings",
        fix="save the ids as strings: np.savez(path, ids=np.array([str(i) for i in ids]), "
        "vectors=vectors)",
    )


def _read_parquet(path: Path) -> tuple[list[str], np.ndarray]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise VectorsFileError(
            f"{path}: reading a Parquet file needs pyarrow, which is not installed (kcca does "
            "not depend on it)",
            fix="pip install pyarrow, or save the vectors as .npy (with an ids file) or .npz",
        ) from None
    _check_magic(path, _PARQUET_MAGIC, "a Parquet file")
    try:
        table_file = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise VectorsFileError(f"{path}: not a readable Parquet file ({exc})") from None
    names = table_file.schema_arrow.names
    missing = [c for c in ("id", "vector") if c not in names]
    if missing:
        raise VectorsFileError(
            f"{path}: the table has no column {' and no column '.join(map(repr, missing))} "
            f"(its columns: {names})",
            fix="write a table of an 'id' column (strings) and a 'vector' column (float lists)",
        )
    meta = table_file.metadata
    size = sum(meta.row_group(g).total_byte_size for g in range(meta.num_row_groups))
    _check_size(path, size, MAX_VECTOR_BYTES_ENV, "the table (uncompressed)")
    table = table_file.read(columns=["id", "vector"])
    return _parquet_ids(path, table.column("id")), _parquet_vectors(path, table.column("vector"))


def _parquet_ids(path: Path, column: Any) -> list[str]:
    import pyarrow as pa

    if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
        raise VectorsFileError(f"{path}: column 'id' is of type {column.type}, not strings")
    if column.null_count:
        raise VectorsFileError(f"{path}: column 'id' has {column.null_count} missing (null) ids")
    return [str(i) for i in column.to_pylist()]


def _parquet_vectors(path: Path, column: Any) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    lists = pa.types.is_list(kind) or pa.types.is_large_list(kind)
    if not (lists or pa.types.is_fixed_size_list(kind)):
        raise VectorsFileError(f"{path}: column 'vector' is of type {kind}, not lists of floats")
    if not pa.types.is_floating(kind.value_type):
        raise VectorsFileError(
            f"{path}: column 'vector' holds {kind.value_type} values, not floats",
            fix="write the vectors as float32 or float64 lists",
        )
    array = column.combine_chunks()
    if array.null_count:
        raise VectorsFileError(f"{path}: column 'vector' has {array.null_count} missing rows")
    lengths = np.asarray(pc.list_value_length(array))
    if lengths.size and (lengths != lengths[0]).any():
        row = int(np.flatnonzero(lengths != lengths[0])[0])
        raise VectorsFileError(
            f"{path}: row {row} has a vector of {lengths[row]} values, row 0 of {lengths[0]}: "
            "every vector must have the same dimension"
        )
    values = array.flatten()
    if values.null_count:
        raise VectorsFileError(f"{path}: column 'vector' has {values.null_count} missing values")
    flat = values.to_numpy(zero_copy_only=False)
    return flat.reshape(len(array), int(lengths[0]) if lengths.size else 0)


# ------------------------------------------------------------------ checks


def _check_magic(path: Path, magic: bytes | tuple[bytes, ...], what: str) -> None:
    magics = (magic,) if isinstance(magic, bytes) else magic
    with open(path, "rb") as f:
        start = f.read(max(len(m) for m in magics))
    if not start.startswith(magics):
        found = "it is empty" if not start else f"it starts with {start!r}"
        raise VectorsFileError(
            f"{path}: not {what} ({found}); its extension says {path.suffix}",
            fix=f"give the file the extension of its format, or {_SAVE_FIX}",
        )


def _check_size(path: Path, size: int, env: str, what: str) -> None:
    limit = current_limit(env)
    if size > limit:
        raise VectorsFileError(
            f"{path}: {what} of {size:,} bytes is over the limit of {limit:,} bytes",
            fix=f"if the file is trusted, raise the limit: export {env}={size}",
        )


def _check_vectors(
    path: Path, ids: Sequence[str], vectors: np.ndarray, ids_file: Path | None = None
) -> dict[str, int]:
    """Ids one per row and distinct; vectors a 2-D float array of at least one column, with
    finite values. Returns each id's row. ``ids_file`` is the separate ids file of a ``.npy``
    array (named in the error when the counts differ)."""
    if vectors.ndim != 2:
        raise VectorsFileError(
            f"{path}: the vectors have shape {vectors.shape}: expected a 2-D array (one row "
            "per item)"
        )
    if vectors.dtype.kind != "f":
        raise VectorsFileError(
            f"{path}: the vectors are of dtype {vectors.dtype}, not floats",
            fix="save them as float32 or float64 (vectors.astype(np.float32))",
        )
    if vectors.shape[1] == 0:
        raise VectorsFileError(
            f"{path}: the vectors have dimension 0 (shape {vectors.shape}): every row needs at "
            "least one value",
            fix="save the vectors the encoder computed (one row of at least one float per item)",
        )
    if len(ids) != vectors.shape[0]:
        if ids_file is not None:
            raise VectorsFileError(
                f"{path}: its ids file {ids_file} gives {len(ids)} ids for {vectors.shape[0]} "
                "rows of vectors: it is not the ids file of these vectors",
                fix=f"give the ids file written with {path} (one id per row, in row order) as "
                f"the kernel parameter ids_path, or write it to {default_ids_path(path)}",
            )
        raise VectorsFileError(
            f"{path}: {len(ids)} ids for {vectors.shape[0]} rows of vectors: one id per row"
        )
    seen: dict[str, int] = {}
    for row, item in enumerate(ids):
        if not item:
            raise VectorsFileError(f"{path}: the id of row {row} is empty")
        first = seen.setdefault(item, row)
        if first != row:
            raise VectorsFileError(
                f"{path}: id {item!r} is given twice (rows {first} and {row})",
                fix="keep one row per id",
            )
    for start in range(0, vectors.shape[0], _SCAN_ROWS):
        block = np.asarray(vectors[start : start + _SCAN_ROWS])
        bad = ~np.isfinite(block).all(axis=1)
        if bad.any():
            row = start + int(np.flatnonzero(bad)[0])
            value = block[row - start][~np.isfinite(block[row - start])][0]
            raise VectorsFileError(
                f"{path}: row {row} (id {ids[row]!r}) has a non-finite value ({value})",
                fix="recompute the vectors with NaN or infinite values",
            )
    return seen
