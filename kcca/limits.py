"""Named limits a user may raise through an environment variable (image pixels, model bytes).

A file never decides how much work or memory reading it takes; where a limit is too low for a
trusted input, the user says so in the environment, and a value that is not a positive whole
number is a named error.
"""

from __future__ import annotations

import os

from kcca.errors import DataError

#: the longest caption (a candidate or a reference, in characters, its tokens joined by single
#: spaces) that METEOR scores, unless :data:`MAX_METEOR_CHARACTERS_ENV` says otherwise: its
#: alignment search (the jar's, and the Python engine's that reproduces it) takes memory and
#: time quadratic in a caption's words (measured: 0.34 GB and 23 s for 100,000 characters of
#: Flickr 8K captions run together, 0.76 GB for 60,000 characters of "a dog a dog ..."); a
#: caption is typically under 200 characters
MAX_METEOR_CHARACTERS = 10_000
MAX_METEOR_CHARACTERS_ENV = "KCCA_MAX_METEOR_CHARACTERS"

#: the largest side (pixels) of a demo corpus's images: ``kcca demo --image-size`` and a demo
#: corpus rebuilt from its name (kcca report, kcca evaluate) stay within it, so a demo's
#: images and their features take a bounded amount of memory (a 50,000-pixel side would take
#: 7.5 GB an image)
MAX_DEMO_IMAGE_SIZE = 1_024


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
