"""What every benchmark does with its result: write it as JSON (through a temporary file, so an
interrupted run leaves the previous file whole) and say where."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kcca._cache import write_text_atomic


def write_result(path: str | Path, result: Any, indent: int = 1) -> Path:
    """``result`` as JSON at ``path`` (folders created); prints ``wrote PATH``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(result, indent=indent) + "\n")
    print(f"wrote {path}")
    return path
