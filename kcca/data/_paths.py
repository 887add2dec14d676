"""Where the data lives: a ``--data-dir`` flag, else ``$KCCA_DATA_DIR``. Nothing is downloaded."""

from __future__ import annotations

import os
from pathlib import Path

from kcca.errors import DataError, DataFolderNotGiven

DATA_DIR_ENV = "KCCA_DATA_DIR"


def resolve_data_dir(flag: str | os.PathLike | None = None) -> Path:
    """The data folder from the flag, else the environment; a clear error if neither exists."""
    value = flag if flag is not None else os.environ.get(DATA_DIR_ENV)
    if not value:
        raise DataFolderNotGiven(
            f"no data folder given: pass --data-dir or set {DATA_DIR_ENV} to the folder that "
            "holds flickr8k/ (see data/README.md for how to obtain it)",
            fix=f"pass --data-dir PATH or export {DATA_DIR_ENV}=PATH, where PATH holds "
            "flickr8k/ (data/README.md says how to obtain it)",
        )
    path = Path(value).expanduser()
    if not path.is_dir():
        raise DataError(
            f"data folder {path} does not exist (from --data-dir / {DATA_DIR_ENV})",
            fix="give the folder that holds flickr8k/ (check for a typo), or "
            "obtain the data first (data/README.md)",
        )
    return path


class OutsideFolderError(DataError):
    """A path that a data file supplies (an image id, a file an experiment file names) leads
    outside the folder the user named for it: through ``..`` parts, as an absolute path, or
    through a symbolic link. It is never read."""


def inside(
    folder: str | os.PathLike,
    name: str,
    *,
    item: str,
    source: str | os.PathLike,
    base: str | os.PathLike | None = None,
) -> Path:
    """``base / name`` (``folder / name`` by default), when it stays inside ``folder`` once
    both are resolved.

    Parameters
    ----------
    folder : path
        The folder the user named (``--images-dir``, the data folder, the experiments folder).
    name : str
        The relative path a data file gives (an image id, a kernel's ``path``).
    item : str
        What ``name`` is, for the message (``"image id 'a/b.jpg'"``).
    source : path
        The file that gives ``name``.
    base : path, optional
        The folder a relative ``name`` is read from, when not ``folder`` itself (an
        experiment file's folder, inside the experiments folder).

    Returns
    -------
    Path
        ``base / name`` as joined (not resolved), so that the names it produces are those
        of the folder as given.

    Raises
    ------
    OutsideFolderError
        When ``name`` is absolute, or its ``..`` parts or a symbolic link on its way lead out
        of ``folder``; the message names ``item`` and ``source``.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> inside(folder, "a/b.jpg", item="image id 'a/b.jpg'", source="c.json").name
    'b.jpg'
    >>> try:
    ...     inside(folder, "../b.jpg", item="image id '../b.jpg'", source="c.json")
    ... except OutsideFolderError as exc:
    ...     print(str(exc).split(" leads")[0])
    c.json: image id '../b.jpg'
    """
    path = Path(folder if base is None else base) / name
    if within(folder, path):
        return path
    target = path.resolve()
    how = "is an absolute path" if Path(name).is_absolute() else f"leads to {target}"
    raise OutsideFolderError(
        f"{source}: {item} leads outside {folder}: it {how}; paths a data file gives are "
        f"read only inside the folder named for them",
        fix=f"give {item} as a relative path that stays inside {folder}: no '..' parts and "
        f"no symbolic link leading out of it (copy the file into {folder} if it belongs there)",
    )


def within(folder: str | os.PathLike, path: str | os.PathLike) -> bool:
    """Whether ``path`` lies inside ``folder`` once both are resolved (symbolic links
    followed, ``..`` parts applied; a relative ``path`` from the current folder).

    Examples
    --------
    >>> within("/data", "/data/images/../images/a.jpg"), within("/data", "/data/../a.jpg")
    (True, False)
    """
    root = Path(folder).resolve()
    target = Path(path).resolve()
    return target == root or root in target.parents
