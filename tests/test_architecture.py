"""The layout the code keeps: import-linter's contracts (``[tool.importlinter]`` in
pyproject.toml: the library never imports the CLI, ``features`` below the pipeline and above
the base modules, the runner never imports the paper's report, no import circle between
sibling modules; imports made for type hints count), ruff's checks (``[tool.ruff]``) over
the whole repository (tests, benchmarks and scripts too), and ruff's layout (``ruff format``)
and mypy's checks (``[tool.mypy]``) over ``kcca/`` and ``features/``. The tools come with the
``dev`` extra."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.optional_tools import skip_unless

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.data_variables
def test_import_contracts_are_kept():
    skip_unless(importlib.util.find_spec("importlinter") is not None,
                "import-linter is not installed (pip install -e '.[dev]')")
    # in a subprocess: import-linter reconfigures logging, which other tests capture
    done = subprocess.run([sys.executable, "-c",
                           "from importlinter.cli import lint_imports_command as c; c()",
                           "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_import_contracts_count_type_checking_imports():
    """An import made only for type hints is an import: no contract may hold only because
    import-linter leaves those out. The runner (kcca._systems) never imports the paper's
    report, and the layers are one contract."""
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    linter = config["tool"]["importlinter"]
    assert linter.get("exclude_type_checking_imports", False) is False
    forbidden = {(tuple(c["source_modules"]), tuple(c["forbidden_modules"]))
                 for c in linter["contracts"] if c["type"] == "forbidden"}
    assert (("kcca._systems",), ("kcca._paper",)) in forbidden
    layers = [c["layers"] for c in linter["contracts"] if c["type"] == "layers"]
    assert any(ls[0] == "kcca._cli" and "features" in ls for ls in layers)


def test_ruff_finds_nothing():
    skip_unless(importlib.util.find_spec("ruff") is not None,
                "ruff is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "."],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_ruff_format_leaves_every_file_as_it_is():
    """``ruff format --check``: the code is in the formatter's layout (the formatter's version
    is pinned in the dev extra, since its layout changes between releases)."""
    skip_unless(importlib.util.find_spec("ruff") is not None,
                "ruff is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "ruff", "format", "--check", "kcca", "features"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


@pytest.mark.slow
def test_mypy_finds_nothing():
    skip_unless(importlib.util.find_spec("mypy") is not None,
                "mypy is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


VULTURE_WHITELIST = ROOT / "tests" / "vulture_whitelist.py"


def test_vulture_finds_no_dead_code():
    """vulture over ``kcca`` and ``features`` at confidence 60 (its lowest level, where unused
    functions, classes, methods, attributes and variables are reported) finds nothing outside
    ``tests/vulture_whitelist.py``, which lists the public API that only users, scikit-learn or
    Python use, each with its reason. vulture reads only the library: code that only the tests
    use counts as dead (test oracles live in ``tests/support``)."""
    skip_unless(importlib.util.find_spec("vulture") is not None,
                "vulture is not installed (pip install -e '.[dev]')")
    done = subprocess.run([sys.executable, "-m", "vulture", "kcca", "features",
                           str(VULTURE_WHITELIST.relative_to(ROOT)), "--min-confidence", "60"],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_vulture_whitelist_names_what_exists():
    """Every module and name the whitelist imports still exists (a stale entry would hide
    nothing, but would no longer say what the public API is)."""
    tree = ast.parse(VULTURE_WHITELIST.read_text(encoding="utf-8"))
    imports = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    exec(compile(ast.Module(body=imports, type_ignores=[]), str(VULTURE_WHITELIST), "exec"), {})


def _module_names_in(tree: ast.AST):
    """Module-like names a file mentions: what it imports (``from m import x`` gives ``m`` and
    ``m.x``) and every string constant, ``module:attr`` read as ``module``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value.partition(":")[0]


def test_every_library_module_is_reachable_from_an_entry_point():
    """No module of ``kcca`` or ``features`` is there for the tests only.

    grimp (with import-linter) builds the import graph of the two packages, imports inside
    functions included and ``if TYPE_CHECKING:`` imports left out (they load nothing). A
    module counts as used when it is reachable along imports (importing ``a.b.c`` also runs
    ``a`` and ``a.b``) from one of the ways in:

    * the console scripts and entry points of ``[project]`` in pyproject.toml, ``python -m``
      (every ``__main__`` module), and ``import kcca`` / ``import features``;
    * the pycocoevalcap drop-in: every public module of ``kcca.coco`` is imported by path by
      scripts written for pycocoevalcap (its module docstring);
    * modules the library names in a string (``importlib.import_module``: the built-in
      kernels, the classes model files and cache entries may hold, ``module:attr`` names);
    * what the code shipped beside the library imports: ``scripts/``, ``examples/`` and the
      plug-ins of ``experiments/``. Not ``tests/`` and not ``benchmarks/``: a module that
      only they use is not library code.

    Anything else is dead or belongs in ``tests/support``; to keep a module that users import
    by path, reach it from one of the ways in above (or name it in its package's ``__init__``).
    """
    skip_unless(importlib.util.find_spec("grimp") is not None,
                "grimp is not installed (it comes with import-linter: pip install -e '.[dev]')")
    import grimp

    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib

    graph = grimp.build_graph("kcca", "features", exclude_type_checking_imports=True,
                              cache_dir=None)
    modules = set(graph.modules)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    targets = [*project.get("scripts", {}).values(),
               *(t for group in project.get("entry-points", {}).values() for t in group.values())]
    roots = {"kcca", "features", *(t.partition(":")[0] for t in targets)}
    roots |= {m for m in modules if m.rsplit(".", 1)[-1] == "__main__"}
    roots |= {m for m in modules if m.startswith("kcca.coco.")
              and not any(part.startswith("_") for part in m.split("."))}
    for folder in ("kcca", "features", "scripts", "examples", "experiments"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            roots.update(name for name in _module_names_in(tree) if name in modules)
    reached: set[str] = set()
    todo = sorted(roots & modules)
    while todo:
        module = todo.pop()
        if module in reached:
            continue
        reached.add(module)
        parts = module.split(".")
        todo.extend(".".join(parts[:i]) for i in range(1, len(parts)))
        todo.extend(graph.find_modules_directly_imported_by(module))
    unreached = sorted(modules - reached)
    assert not unreached, f"imported by no entry point (only by tests?): {unreached}"


def _private(part: str) -> bool:
    return part.startswith("_") and not (part.startswith("__") and part.endswith("__"))


def _module(path: str) -> bool:
    """Whether ``path`` (``kcca._systems``) is a module or package of the project."""
    file = ROOT.joinpath(*path.split("."))
    return file.with_suffix(".py").is_file() or (file / "__init__.py").is_file()


def test_no_module_imports_another_modules_private_names():
    """An underscore name is private to the module that defines it: no module of ``kcca`` or
    ``features`` imports one from another module (``from kcca.x import _helper``); a name that
    another module needs is named without an underscore. A private module or package
    (``kcca/_systems``, ``kcca/captions/_bleu.py``; docs/design.md#public-api) is private to the
    project: any module of ``kcca`` or ``features`` may import it, a user may not. Relative
    imports are resolved first; dunder names (``__version__``) are not private. Checked on
    ``from`` and plain imports, not on attribute access (``module._name``)."""
    bad = []
    for top in ("kcca", "features"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            package = parts[:-1]
            me = ".".join(package if parts[-1] == "__init__" else parts)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    base = package[: len(package) - node.level + 1] if node.level else []
                    target = ".".join(base + ([node.module] if node.module else []))
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.Import):
                    target, names = "", [a.name for a in node.names]
                else:
                    continue
                for name in names:
                    full = f"{target}.{name}".strip(".")
                    if full.split(".")[0] not in ("kcca", "features"):
                        continue
                    if node.__class__ is ast.ImportFrom and _private(name) and not _module(full):
                        bad.append(f"{me}: imports private {name} from {target}")
    assert not bad, "\n".join(bad)


#: the phrase a function over MAX_FUNCTION_LINES lines gives the reason with, in its docstring
LONG_BY_DESIGN = "Long by design:"
MAX_FUNCTION_LINES = 80


def test_no_function_is_long_without_a_reason():
    """A function does one thing: none of ``kcca/`` and ``features/`` runs over 80 lines unless
    its docstring says why in a sentence beginning ``Long by design:`` (a numba loop whose state
    does not factor, say)."""
    long = []
    for top in ("kcca", "features"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                lines = node.end_lineno - node.lineno + 1
                if lines > MAX_FUNCTION_LINES and LONG_BY_DESIGN not in (
                    ast.get_docstring(node) or ""
                ):
                    long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} ({lines})")
    assert not long, (
        f"functions over {MAX_FUNCTION_LINES} lines: split them into named steps, or say why "
        f"not in their docstring ({LONG_BY_DESIGN} ...):\n" + "\n".join(long)
    )


def test_no_module_changes_the_garbage_collectors_state():
    """The cyclic garbage collector is one for the whole process: no library module pauses,
    freezes or retunes it behind the user's back (``gc.disable``, ``gc.freeze``,
    ``gc.set_threshold``, ...), not even for the duration of a call."""
    changing = {"disable", "enable", "freeze", "unfreeze", "set_threshold", "set_debug"}
    found = []
    for path in sorted([*(ROOT / "kcca").rglob("*.py"), *(ROOT / "features").rglob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "gc"
                and node.attr in changing
            ):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} gc.{node.attr}")
    assert not found, found
