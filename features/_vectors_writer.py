"""Write per-item vectors in the layouts the ``vectors`` kernel reads (features._vectors_file).

Chosen by the extension: ``.npz`` (``np.savez``: ``ids`` and ``vectors``, stored uncompressed so
the reader memory-maps ``vectors``) or ``.npy`` with the ids one a line in ``NAME.ids.txt``.
Each file goes through a unique temporary file and ``os.replace``
(:func:`kcca._atomic_files.atomic_write`): a reader sees the old file or the new one, never a
partial one.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from features._vectors_file import VectorsFileError, default_ids_path
from kcca._atomic_files import atomic_write, write_text_atomic

#: the extensions written, and what each is
WRITTEN_FORMATS = {
    ".npz": "a NumPy archive of 'ids' and 'vectors', stored uncompressed",
    ".npy": "a NumPy array, with the ids in NAME.ids.txt",
}


def check_vectors_path(path: str | os.PathLike) -> Path:
    """``path`` if its extension is one :func:`write_item_vectors` writes, else a
    :class:`~features._vectors_file.VectorsFileError` naming the ones it does."""
    path = Path(path)
    if path.suffix.lower() not in WRITTEN_FORMATS:
        raise VectorsFileError(
            f"{path}: cannot write vectors as {path.suffix or 'a file with no extension'!r}",
            fix="name the file with one of "
            + ", ".join(f"{s} ({what})" for s, what in WRITTEN_FORMATS.items()),
        )
    return path


def written_files(path: str | os.PathLike) -> list[Path]:
    """The files :func:`write_item_vectors` writes for ``path``: it, and for ``.npy`` its
    ids file."""
    path = check_vectors_path(path)
    return [path, default_ids_path(path)] if path.suffix.lower() == ".npy" else [path]


def write_item_vectors(
    path: str | os.PathLike, ids: Sequence[str], vectors: np.ndarray
) -> list[Path]:
    """Write ``vectors[r]`` as the vector of ``ids[r]`` (module docstring); returns the files
    written. The ids must be distinct, non-empty and free of line breaks (a
    :class:`~features._vectors_file.VectorsFileError` otherwise)."""
    path = check_vectors_path(path)
    vectors = np.ascontiguousarray(vectors)
    if vectors.ndim != 2 or vectors.shape[0] != len(ids):
        raise ValueError(f"{len(ids)} ids need a ({len(ids)}, dim) array, got {vectors.shape}")
    bad = [i for i in ids if not i or i != i.strip() or "\n" in i or "\r" in i]
    if bad or len(set(ids)) != len(ids):
        raise VectorsFileError(
            f"{path}: the ids must be distinct non-empty strings with no surrounding space or "
            f"line break (first bad: {bad[0] if bad else 'a repeated id'!r})",
            fix="give each item one distinct id",
        )
    if path.suffix.lower() == ".npz":

        def write_npz(tmp: str) -> None:
            with open(tmp, "wb") as f:  # a file object: np.savez adds no extension
                np.savez(f, ids=np.array(list(ids), dtype=str), vectors=vectors)

        return [atomic_write(path, write_npz)]

    def write_npy(tmp: str) -> None:
        with open(tmp, "wb") as f:
            np.save(f, vectors, allow_pickle=False)

    ids_file = write_text_atomic(default_ids_path(path), "".join(f"{i}\n" for i in ids))
    return [atomic_write(path, write_npy), ids_file]
