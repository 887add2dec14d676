"""Named limits a user may raise through an environment variable (image pixels, model bytes).

A file never decides how much work or memory reading it takes; where a limit is too low for a
trusted input, the user says so in the environment, and a value that is not a positive whole
number is a named error.
"""

from __future__ import annotations

import os

from kcca.errors import DataError


def limit_from_env(name: str, default: int, unit: str) -> int:
    """The positive whole number in ``$name``, or ``default`` when it is unset or empty;
    ``unit`` names what is counted in the message (``"pixels"``, ``"bytes"``)."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        limit = int(value)
    except ValueError:
        limit = 0
    if limit <= 0:
        raise DataError(
            f"${name}={value!r} is not a positive whole number of {unit}",
            fix=f"export {name}={default} (the default), or unset {name}",
        )
    return limit
