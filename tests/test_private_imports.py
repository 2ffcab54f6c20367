"""A module's private names stay in its room: no module of ``feedback_intelligence`` imports another
module's ``_name`` (``from x import _y``). A name another module needs is public, in the module whose job
it is (the store's rows in ``store/rows.py``, its counters in ``store/counters.py``). Tests may reach in.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_import_layers import PACKAGE, ROOT, _module_name


def _absolute(node: ast.ImportFrom, path: Path) -> str:
    if not node.level:
        return node.module or ""
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports() -> list[str]:
    """``path:line: from module import _name`` for every import of another module's private name."""
    found: list[str] = []
    for path in sorted(ROOT.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            module = _absolute(node, path)
            if module.split(".")[0] != PACKAGE or module == _module_name(path):
                continue
            for alias in node.names:
                if _is_private(alias.name):
                    where = path.relative_to(ROOT.parent)
                    found.append(f"{where}:{node.lineno}: from {module} import {alias.name}")
    return found


def test_no_module_imports_another_modules_private_names() -> None:
    assert private_imports() == []


def test_the_check_sees_absolute_and_relative_imports() -> None:
    """The rule's own parser, on two lines of source: both spellings are found, a dunder is not."""
    source = (
        "from feedback_intelligence.store.rows import _hidden\n"
        "from .rows import _also\n"
        "from feedback_intelligence import __version__\n"
    )
    tree = ast.parse(source)
    path = ROOT / "store" / "example.py"
    imported = [
        (_absolute(node, path), alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if _is_private(alias.name)
    ]
    assert imported == [
        ("feedback_intelligence.store.rows", "_hidden"),
        ("feedback_intelligence.store.rows", "_also"),
    ]
