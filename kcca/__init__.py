"""Sentence-based image description and search framed as ranking (Hodosh et al., 2013).

The ``kcca`` package holds data sets, learning (KCCA, nearest neighbours), ranking,
evaluation and the ``kcca`` command; the sibling ``features`` package turns images and
captions into representations and kernels.

The public API (docs/design.md#public-api) is every name in the ``__all__`` of a public
module: here the estimators (:class:`KCCA`, :class:`KCCAGrid`, :func:`paper_n_grid`) and what
runs a system of an experiment file (:func:`load_spec`, :func:`run_system`, :class:`Cache`),
loaded on first use.
"""

import os as _os
import sys as _sys

__version__ = "0.1.0"

__all__ = ["Cache", "KCCA", "KCCAGrid", "__version__", "load_spec", "paper_n_grid", "run_system"]


def _foreign_features_error(module: object) -> ImportError:
    """The error for a ``features`` package that is not kcca's (:data:`features.KCCA_FEATURES`
    missing): where it lies and how to remove it from kcca's way."""
    from pathlib import Path

    where = getattr(module, "__file__", None) or next(iter(getattr(module, "__path__", [])), "?")
    folder = Path(where).parent if str(where).endswith(".py") else Path(where)
    source = Path(__file__).resolve().parents[1]
    if "-packages" in str(folder):  # an installed distribution (site- or dist-packages)
        reinstall = (
            f"`{_sys.executable} -m pip install --no-deps --force-reinstall -e {source}`"
            if (source / "pyproject.toml").is_file()
            else "in kcca's clone, `python -m pip install --no-deps --force-reinstall .`"
        )
        fix = (
            f"`{_sys.executable} -m pip uninstall -y features` (or give kcca its own virtual "
            f"environment), then reinstall kcca: {reinstall}"
        )
    elif str(folder.parent) in _os.environ.get("PYTHONPATH", "").split(_os.pathsep):
        fix = f"remove {folder.parent} from PYTHONPATH: it comes before kcca on sys.path"
    else:
        fix = f"run from another folder, or rename {folder}: it comes before kcca on sys.path"
    return ImportError(
        f"\nerror: the package `features` imported from {folder} is not kcca's image and text "
        "features but another package of the same name (such as `features` from PyPI), which "
        f"shadows kcca's\nfix: {fix}",
        name="features",
    )


def _check_features() -> None:
    """Raise :func:`_foreign_features_error` when ``import features`` is not kcca's; in the
    ``kcca`` command, print its ``error:`` and ``fix:`` lines and exit with status 2."""
    import features

    if not getattr(features, "KCCA_FEATURES", False):
        error = _foreign_features_error(features)
        if _os.path.basename(_sys.argv[0]) == "kcca":  # the console script: no traceback
            print(str(error).strip(), file=_sys.stderr)
            raise SystemExit(2)
        raise error


_check_features()

from kcca._lazy import lazy_exports as _lazy_exports  # noqa: E402

#: the public names that load on first use: name -> the module defining it
_LAZY = {
    "Cache": "kcca._cache",
    "KCCA": "kcca._solver.estimators",
    "KCCAGrid": "kcca._solver.estimators",
    "load_spec": "kcca._systems.spec",
    "paper_n_grid": "kcca._solver.estimators",
    "run_system": "kcca._systems.runner",
}
__getattr__, __dir__ = _lazy_exports("kcca", _LAZY, globals())
