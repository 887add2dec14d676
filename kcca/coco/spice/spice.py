"""pycocoevalcap's ``Spice``: SPICE (Anderson et al. 2016) parses captions into scene graphs
with Stanford CoreNLP, which needs Java and about 1 GB of models, so it is not computed in
Python here: where pycocoevalcap's SPICE can run (pycocoevalcap installed, Java on the
``PATH``, its Stanford CoreNLP models present), :class:`Spice` runs it, with the same
numbers; where it cannot, :class:`Spice` raises :class:`~kcca.coco.SpiceUnavailable` naming
what is missing and the ways out."""

from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from kcca.coco._compat import SpiceUnavailable

__all__ = ["CACHE_DIR", "SPICE_JAR", "STANFORD_JARS", "Spice", "TEMP_DIR", "spice_missing"]

#: pycocoevalcap's names of the SPICE jar and of the folders it writes beside it
SPICE_JAR = "spice-1.0.jar"
TEMP_DIR = "tmp"
CACHE_DIR = "cache"
#: the Stanford CoreNLP jars pycocoevalcap's SPICE needs, in its ``spice/lib`` folder
#: (pycocoevalcap's ``spice/get_stanford_models.py`` downloads them)
STANFORD_JARS = ("stanford-corenlp-3.6.0.jar", "stanford-corenlp-3.6.0-models.jar")

_WAYS_OUT = (
    "either install what is missing (pip install pycocoevalcap==1.2; Java 8 or later on the "
    'PATH; the models, about 1 GB: python -c "from pycocoevalcap.spice.get_stanford_models '
    'import get_stanford_models; get_stanford_models()"), or leave SPICE out: '
    "COCOEvalCap(coco, cocoRes, spice=False), or a list of scorers without Spice"
)


def _pycocoevalcap_spice_dir() -> Path | None:
    """pycocoevalcap's ``spice`` folder, or None when pycocoevalcap is not installed."""
    try:
        spec = importlib.util.find_spec("pycocoevalcap.spice")
    except ImportError:
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def spice_missing() -> str | None:
    """What pycocoevalcap's SPICE lacks here, in words, or None when it can run.

    Examples
    --------
    >>> from kcca.coco.spice.spice import spice_missing
    >>> spice_missing() is None or "SPICE" in spice_missing()
    True
    """
    folder = _pycocoevalcap_spice_dir()
    if folder is None or not (folder / SPICE_JAR).is_file():
        return "SPICE needs pycocoevalcap 1.2, which is not installed"
    if shutil.which("java") is None:
        return "SPICE needs Java, which is not on the PATH"
    absent = [
        str(folder / "lib" / jar) for jar in STANFORD_JARS if not (folder / "lib" / jar).is_file()
    ]
    if absent:
        return f"SPICE needs the Stanford CoreNLP models, which are missing: {', '.join(absent)}"
    return None


class Spice:
    """``Spice().compute_score(gts, res) -> (mean, list of per-item score dicts)``: runs
    pycocoevalcap's ``Spice`` (same numbers, its order: image ids sorted).

    A drop-in for pycocoevalcap's ``pycocoevalcap.spice.spice.Spice`` (see its documentation
    for the interface). Making one where SPICE cannot run (:func:`spice_missing`) raises
    :class:`~kcca.coco.SpiceUnavailable`, naming what is missing and the ways out.

    Examples
    --------
    Where Java is not on the ``PATH`` (skipped here, as that depends on the machine):

    >>> from kcca.coco.spice.spice import Spice
    >>> Spice()  # doctest: +SKIP
    Traceback (most recent call last):
    ...
    kcca.coco._compat.SpiceUnavailable: SPICE needs Java, which is not on the PATH; either ...
    """

    def __init__(self):
        missing = spice_missing()
        if missing is not None:
            raise SpiceUnavailable(f"{missing}; {_WAYS_OUT}")
        from pycocoevalcap.spice.spice import Spice as _Spice

        self._spice = _Spice()

    def float_convert(self, obj: Any) -> float:
        return self._spice.float_convert(obj)

    def compute_score(self, gts: Mapping, res: Mapping) -> tuple[Any, list[dict]]:
        return self._spice.compute_score(gts, res)

    def method(self) -> str:
        return "SPICE"
