"""Sphinx configuration of kcca's API reference, built from the numpydoc docstrings.

Build it with ``python -m sphinx -W --keep-going -b html docs/api build/api-html``; the test
suite builds it too (tests/test_doctests.py). Nothing is fetched from the network.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

project = "kcca"
author = "kcca contributors"
copyright = "kcca contributors"
release = "0.1.0"

extensions = ["sphinx.ext.autodoc", "numpydoc"]

# everything local: no intersphinx inventories, no remote images
intersphinx_mapping: dict = {}
exclude_patterns = ["_build"]

autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc sections give the types
autodoc_class_signature = "separated"
numpydoc_show_class_members = False  # the pages list the members they document
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

html_theme = "alabaster"
html_static_path: list = []
