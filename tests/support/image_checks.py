"""Checks shared by the tests of the image descriptors."""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest


def assert_rejects_naming_the_shape(describe: Callable[[np.ndarray], object],
                                    image: np.ndarray) -> None:
    """``describe(image)`` raises a ValueError whose message names ``image``'s shape."""
    with pytest.raises(ValueError, match=re.escape(str(image.shape))):
        describe(image)
