"""Dependencies point down: no top-level package of ``feedback_intelligence`` imports one that imports it back.

Each subpackage (``gate``, ``llm``, ``prompting``, ...) and each top-level module (``records.py``,
``settings.py``, ``metrics.py``, ...) is one node. Every import counts, including imports inside functions
and under ``TYPE_CHECKING``: a lazy import is still a dependency a reader has to hold in mind.
"""

from __future__ import annotations

import ast
from pathlib import Path

import feedback_intelligence

PACKAGE = "feedback_intelligence"
ROOT = Path(feedback_intelligence.__file__).resolve().parent


def _node_of(module: str) -> str | None:
    """``feedback_intelligence.gate.gate`` -> ``gate``; anything outside the package -> None."""
    parts = module.split(".")
    if parts[0] != PACKAGE or len(parts) < 2:
        return None
    return parts[1]


def _module_name(path: Path) -> str:
    relative = path.relative_to(ROOT.parent).with_suffix("")
    parts = list(relative.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    return (ROOT / f"{name}.py").is_file() or (ROOT / name / "__init__.py").is_file()


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = _module_name(path).split(".")
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
            # ``from feedback_intelligence import records`` names a node in the alias.
            if module == PACKAGE:
                found.update(f"{PACKAGE}.{alias.name}" for alias in node.names if _is_module(alias.name))
    return found


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in ROOT.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        source = _node_of(_module_name(path))
        if source is None:  # feedback_intelligence/__init__.py
            continue
        targets = graph.setdefault(source, set())
        for module in _imported_modules(path):
            target = _node_of(module)
            if target is not None and target != source:
                targets.add(target)
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm; returns only the components with more than one node (the cycles)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_no_two_top_level_packages_import_each_other() -> None:
    graph = import_graph()
    cycles = strongly_connected(graph)
    described = [
        " <-> ".join(cycle) + ": " + "; ".join(f"{a} -> {sorted(graph[a] & set(cycle))}" for a in cycle)
        for cycle in cycles
    ]
    assert not cycles, "import cycles between top-level packages:\n" + "\n".join(described)


def test_the_walk_sees_the_layers_it_guards() -> None:
    graph = import_graph()
    assert "records" in graph["deterministic"]
    assert "llm" in graph["prompting"] and "gate" in graph["prompting"]
    assert graph["records"] <= set(), "records.py imports nothing of ours"


def test_a_cycle_is_found() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []
