"""The errors a user can fix: each carries a one-line message and a ``fix``.

``kcca`` (:func:`kcca._cli.main`) prints ``error: <message>`` and ``fix: <fix>`` for these and
exits with status 2, with no traceback unless ``--verbose`` is given::

    KccaUserError                 anything the user can correct (message + fix)
    ├── DataError (ValueError)    bad, missing or inconsistent input data, files or settings
    │   ├── DataFolderNotGiven    no --data-dir and no $KCCA_DATA_DIR (a fresh clone)
    │   ├── FileVersionError      a file written by another version of the toolkit
    │   ├── KernelError           a kernel matrix KCCA cannot use (not PSD, NaN/inf, not numbers)
    │   ├── SettingError          a setting out of range or unknown (a kernel's parameter, ...)
    │   └── UnknownNameError (KeyError)   an unknown kernel, system, ... (close matches named)
    └── PluginError (ImportError) a kernel plug-in that cannot be imported or registers nothing

Modules raise the most specific class and pass ``fix=`` when they know the remedy; each class
has a general default. The type alone says whose fault an error is: a check of something the
user gives (a file, a setting, an option) raises one of these classes, so that it holds
wherever the package is installed; a plain ``ValueError`` is a bug, reported as unexpected.
``kcca.data._errors`` re-exports :class:`DataError` (its historical home).
"""

from __future__ import annotations

import difflib
from typing import Any, Iterable

__all__ = [
    "BackendUnavailableError",
    "DataError",
    "DataFolderNotGiven",
    "FileVersionError",
    "KccaUserError",
    "KernelError",
    "PluginError",
    "SettingError",
    "UnknownNameError",
]


class KccaUserError(Exception):
    """An error the user can correct. ``str(exc)`` is the message; ``exc.fix`` the remedy."""

    #: the remedy printed after the message when the raiser gives none
    fix: str | None = "check the command line and the files it names (kcca COMMAND --help)"

    def __init__(self, message: str = "", *, fix: str | None = None):
        super().__init__(message)
        self.message = str(message)
        if fix is not None:
            self.fix = fix

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):  # keep ``fix`` and subclass fields across processes (joblib)
        return (_restore, (type(self), self.args, dict(self.__dict__)))


def _restore(cls: type[KccaUserError], args: tuple, state: dict) -> KccaUserError:
    exc = cls.__new__(cls)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class DataError(KccaUserError, ValueError):
    """Malformed, missing or inconsistent input data.

    The message always names the offending file (and line, or item) and says what to do.
    """

    fix = (
        "correct the file, folder or value named above; data/README.md describes where each "
        "data set goes, and `kcca data` checks the layout"
    )


class DataFolderNotGiven(DataError):
    """Neither ``--data-dir`` nor ``$KCCA_DATA_DIR`` names a data folder: what a command that
    can do part of its work without the data (``kcca report``, ``kcca evaluate`` on compact
    results) catches to go on with what the repository holds."""


class FileVersionError(DataError):
    """A file (rankings, model, cache entry) written by another version of the toolkit."""

    fix = "re-create the file with this version of kcca (re-run the command that wrote it)"


class KernelError(DataError):
    """A kernel matrix that KCCA (Section 3.2.1, eq. 3) cannot use: not real numbers, a NaN or
    infinite entry, not symmetric, not positive semi-definite, or of a scale float64 cannot
    carry through the solve. The message names the view (``Kx`` / ``Ky``).

    Kernels come from data and from plug-in kernels (``@register_kernel``), so this is the
    user's to fix, not a bug of the solver.
    """

    fix = (
        "a training kernel must be a finite, symmetric, positive semi-definite Gram matrix "
        "k(x_i, x_j): check the kernel's gram() (a plug-in kernel's: "
        "docs/plugin-kernels.md) and the features it reads"
    )


class SettingError(DataError):
    """A setting out of range or of an unknown value: a kernel's parameter in an experiment
    file, a value of a ``run.toml``, an environment variable, an argument of a library call.
    The message names the setting and the values it takes."""

    fix = (
        "correct the setting named above where it was given: the experiment file, the [run] "
        "table of run.toml, the environment or the command's options (kcca COMMAND --help)"
    )


class UnknownNameError(DataError, KeyError):
    """A name (kernel, system, preset, ...) that is not known; the message lists close matches."""

    fix = "use one of the names listed above"


class PluginError(KccaUserError, ImportError):
    """A kernel plug-in (entry point or ``plugins = [...]`` module) failed to load."""

    fix = (
        "make the plug-in importable (install it and its dependencies, or check the module "
        "name and the experiment file's folder); run with --verbose for the import traceback"
    )


class BackendUnavailableError(KccaUserError, RuntimeError):
    """An array backend was asked for that this machine cannot provide (cupy without a GPU)."""

    fix = (
        "install the GPU extra (pip install '.[gpu]') on a machine with a CUDA GPU, or use "
        "backend auto / numpy"
    )


def close_matches(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """Up to ``n`` names of ``choices`` close to ``name`` (difflib), best first."""
    choices = [str(c) for c in choices]
    out = difflib.get_close_matches(name, choices, n=n, cutoff=0.6)
    if not out:  # case or separator slips: "Trigram", "colour_moments"
        norm = {c.lower().replace("_", "-"): c for c in choices}
        out = [
            norm[m]
            for m in difflib.get_close_matches(
                name.lower().replace("_", "-"), list(norm), n=n, cutoff=0.6
            )
        ]
    return out


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """``"; did you mean 'x'?"`` (or ``'x' or 'y'``) when close matches exist, else ``""``."""
    matches = close_matches(name, choices)
    if not matches:
        return ""
    return "; did you mean " + " or ".join(repr(m) for m in matches) + "?"


def unknown_name(
    kind: str, name: str, choices: Iterable[str], *, where: str = "", fix: str | None = None
) -> UnknownNameError:
    """An :class:`UnknownNameError` for ``name`` naming the close matches and every choice."""
    choices = sorted(set(map(str, choices)))
    prefix = f"{where}: " if where else ""
    msg = f"{prefix}unknown {kind} {name!r}{did_you_mean(name, choices)}"
    return UnknownNameError(msg, fix=fix or f"use one of the {kind}s: {', '.join(choices)}")


def type_name(value: Any) -> str:
    """A TOML/JSON-ish name of a value's type, for "must be X, got Y" messages."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, dict):
        return "table"
    return type(value).__name__
