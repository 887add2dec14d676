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
