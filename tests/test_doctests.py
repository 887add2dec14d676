"""The public API's docstrings: each public estimator, kernel and scorer has one numpydoc
``Examples`` section, and every example of the public modules runs as a doctest.

The examples are small, deterministic and fast (no Flickr 8K data); those that would load
METEOR's resources (seconds) are marked ``+SKIP``. The same list of public names is what the
API reference (docs/api/) documents.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

import pytest

#: public module -> the public classes and functions it defines (the API reference's pages)
PUBLIC: dict[str, tuple[str, ...]] = {
    "kcca._solver.estimators": ("KCCA", "KCCAGrid", "paper_n_grid"),
    "features.kernels._base": ("Kernel", "register_kernel", "make_kernel", "available_kernels"),
    "features.kernels._image": ("HistogramKernel", "PyramidKernel"),
    "features.kernels._mixture": ("MixtureKernel",),
    "features.kernels._fisher": ("FisherKernel",),
    "features.text._bow_kernel": ("BowKernel",),
    "features.text._trigram_kernel": ("TrigramKernel",),
    "features.text._tagrank_kernel": ("TagRankKernel",),
    "features.text._f1_similarity": ("F1Similarity",),
    "features.text._word_kernel": ("WordKernel",),
    "kcca.captions._scorer": ("CaptionScorer", "validate_inputs"),
    "kcca.captions._bleu": ("Bleu", "sentence_bleu"),
    "kcca.captions._rouge": ("RougeL",),
    "kcca.captions._cider": ("CiderD", "Cider"),
    "kcca.captions._meteor": ("Meteor", "meteor_available"),
    "kcca.captions._tokenizer": ("PTBTokenizer", "tokenize"),
    "kcca.captions._evaluate": ("evaluate_captions", "CaptionEvaluation"),
    "kcca.coco.eval": ("COCOEvalCap",),
    "kcca.coco.bleu.bleu": ("Bleu",),
    "kcca.coco.meteor.meteor": ("Meteor",),
    "kcca.coco.rouge.rouge": ("Rouge",),
    "kcca.coco.cider.cider": ("Cider",),
    "kcca.coco.spice.spice": ("Spice",),
}

OPTIONS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

API_DOCS = Path(__file__).resolve().parents[1] / "docs" / "api"


def _public_objects() -> list[tuple[str, str]]:
    return [(module, name) for module, names in PUBLIC.items() for name in names]


@pytest.mark.parametrize("module_name", list(PUBLIC))
def test_examples_run(module_name: str) -> None:
    """Every docstring example of the module gives the output it shows."""
    module = importlib.import_module(module_name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    tests = [t for t in finder.find(module, module_name) if t.examples]
    assert tests, f"{module_name} has no docstring examples"
    for test in sorted(tests, key=lambda t: t.name):
        runner.run(test)
    failed, attempted = runner.summarize(verbose=False)
    assert failed == 0, f"{failed} of {attempted} doctest examples of {module_name} failed"


@pytest.mark.parametrize(("module_name", "name"), _public_objects())
def test_public_docstring_has_one_examples_section(module_name: str, name: str) -> None:
    """numpydoc sections: one ``Examples`` with a runnable example; parameters documented."""
    obj = getattr(importlib.import_module(module_name), name)
    doc = inspect.getdoc(obj) or ""
    headers = re.findall(r"^Examples\n-{8}$", doc, flags=re.MULTILINE)
    assert len(headers) == 1, f"{module_name}.{name}: {len(headers)} Examples sections"
    examples = doc.split("Examples\n--------", 1)[1]
    assert ">>> " in examples, f"{module_name}.{name}: its Examples section has no example"
    takes_arguments = [
        p
        for p in inspect.signature(obj).parameters.values()
        if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    if takes_arguments:
        assert re.search(r"^Parameters\n-{10}$", doc, flags=re.MULTILINE), (
            f"{module_name}.{name}: no Parameters section"
        )


def _documented_objects() -> list[object]:
    """The objects docs/api documents (``.. autoclass::`` / ``.. autofunction::`` lines), each
    under its public name (docs/design.md#public-api)."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(API_DOCS.glob("*.rst")))
    found = []
    for path in re.findall(r"^\.\. auto(?:class|function):: (\S+)$", text, re.M):
        module, _, name = path.rpartition(".")
        found.append(getattr(importlib.import_module(module), name))
    return found


def test_api_reference_lists_the_public_names() -> None:
    """docs/api documents every public name of :data:`PUBLIC` (autoclass / autofunction)."""
    documented = _documented_objects()
    missing = [
        f"{module}.{name}"
        for module, name in _public_objects()
        if not any(getattr(importlib.import_module(module), name) is d for d in documented)
    ]
    assert not missing, f"docs/api does not document {missing}"


@pytest.mark.slow
def test_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    """The Sphinx API reference builds from the docstrings with warnings as errors, offline."""
    pytest.importorskip("sphinx")
    pytest.importorskip("numpydoc")
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]
    done = subprocess.run(
        [*command, str(API_DOCS), str(tmp_path / "html")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"sphinx failed:\n{done.stdout}\n{done.stderr}"
    assert (tmp_path / "html" / "solver.html").is_file()
