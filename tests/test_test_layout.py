"""The layout of the test tree.

The rule: what tests share beside fixtures lives in ``tests/support``, a package of helper
modules named by what they hold; fixtures live in ``conftest.py`` files. So no module of
``tests/`` imports a test module (``test_*.py``) or a ``conftest.py`` (pytest collects those:
importing one ties a suite to another's internals and runs its module code twice), nor a helper
module of ``tests/`` outside ``tests/support``; and no such helper module exists
(``tests/vulture_whitelist.py`` is vulture's input, which nothing imports).

The folders mirror the code: the tests of package ``kcca/<pkg>`` live in ``tests/kcca/<pkg>``
and those of ``features/<pkg>`` in ``tests/features/<pkg>``, so a test folder names a package
that exists.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
SUPPORT = "tests.support"

#: modules of tests/ that are neither tests, conftest files, packages nor helpers
NOT_HELPERS = {"tests.vulture_whitelist"}


def _python_files() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    """Whether ``name`` is a module or package of the project (a file under ROOT)."""
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _is_package(name: str) -> bool:
    return (ROOT.joinpath(*name.split(".")) / "__init__.py").is_file()


def _imported_modules(path: Path, source: str | None = None) -> list[tuple[int, str]]:
    """``(line, module)`` for every module of ``tests`` that ``path`` (or ``source``, read as
    the file at ``path``) imports, relative imports resolved; for ``from package import name``
    the submodule ``package.name`` where one exists, else ``package``."""
    own = _module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    text = path.read_text(encoding="utf-8") if source is None else source
    found = []
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([node.module] if node.module else []))
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                found.append((node.lineno, submodule if _is_module(submodule) else base))
    return sorted({(line, name) for line, name in found if name.split(".")[0] == "tests"})


def _is_test_module(name: str) -> bool:
    last = name.rpartition(".")[2]
    return last.startswith("test_") or last == "conftest"


def _is_helper_outside_support(name: str) -> bool:
    in_support = name == SUPPORT or name.startswith(SUPPORT + ".")
    return not (in_support or _is_test_module(name) or _is_package(name)
                or name in NOT_HELPERS)


def _wrong_imports(path: Path, source: str | None = None) -> list[str]:
    wrong = []
    for line, name in _imported_modules(path, source):
        where = f"{path.relative_to(ROOT)}:{line}"
        if _is_test_module(name):
            wrong.append(f"{where} imports the test module {name}")
        elif _is_helper_outside_support(name):
            wrong.append(f"{where} imports the helper {name}, which is not in {SUPPORT}")
    return wrong


def test_no_module_imports_a_test_module_or_a_helper_outside_support():
    wrong = [w for path in _python_files() for w in _wrong_imports(path)]
    assert not wrong, ("what tests share belongs in tests/support (fixtures in conftest.py):\n"
                       + "\n".join(wrong))


def test_helper_modules_live_in_support():
    outside = [str(path.relative_to(ROOT)) for path in _python_files()
               if _is_helper_outside_support(_module_name(path))]
    assert not outside, f"helper modules outside tests/support: {outside}"


def test_test_folders_mirror_the_packages_they_test():
    missing = set()
    for path in _python_files():
        folder = path.parent.relative_to(TESTS)
        if folder.parts[:1] in (("kcca",), ("features",)) and path.name.startswith("test_"):
            if not (ROOT / folder / "__init__.py").is_file():
                missing.add(f"tests/{folder.as_posix()}: no package {folder.as_posix()}")
    assert not missing, "test folders that name no package:\n" + "\n".join(sorted(missing))


def test_the_checks_see_every_kind_of_import():
    """The checks above find what they look for, so that their passing means something."""
    path = TESTS / "kcca" / "report" / "test_made_up.py"
    source = ("from .conftest import corpus\n"
              "from ..test_solver import paired\n"
              "from tests.kcca.fake_folder import write\n"
              "import tests.support.stress\n"
              "from tests.support import kernels\n"
              "from tests.support.named_errors import one_error\n")
    assert _imported_modules(path, source) == [
        (1, "tests.kcca.report.conftest"), (2, "tests.kcca.test_solver"),
        (3, "tests.kcca.fake_folder"), (4, "tests.support.stress"),
        (5, "tests.support.kernels"), (6, "tests.support.named_errors")]
    assert [w.split(" imports ")[1] for w in _wrong_imports(path, source)] == [
        "the test module tests.kcca.report.conftest", "the test module tests.kcca.test_solver",
        "the helper tests.kcca.fake_folder, which is not in tests.support"]
