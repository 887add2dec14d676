"""Sentence-based image description and search framed as ranking (Hodosh et al., 2013).

The ``kcca`` package holds data sets, learning (KCCA, nearest neighbours), ranking,
evaluation and the ``kcca`` command; the sibling ``features`` package turns images and
captions into representations and kernels.
"""

import os as _os
import sys as _sys

__version__ = "0.1.0"

__all__ = ["KCCA", "KCCAGrid", "__version__"]


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


def __getattr__(name: str) -> type:
    """``kcca.KCCA`` and ``kcca.KCCAGrid`` without importing the solver at ``import kcca``."""
    if name in ("KCCA", "KCCAGrid"):
        from kcca import solver

        return getattr(solver, name)
    raise AttributeError(f"module 'kcca' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names plus the lazily imported ones (``dir(kcca)`` shows ``KCCA``)."""
    return sorted(set(globals()) | set(__all__))
