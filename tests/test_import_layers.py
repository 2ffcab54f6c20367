"""Dependencies point down: no top-level package of ``feedback_intelligence`` imports one that imports it back,
and the rooms of ADR 0054 keep to their job: the leaves (``text``, ``instants``, ``wording``) import nothing of
ours but each other, and a few named edges that would mix two jobs are refused.

Each subpackage (``gate``, ``llm``, ``prompting``, ...) and each top-level module (``records.py``,
``settings.py``, ``metrics.py``, ...) is one node. Every import counts, including imports inside functions
and under ``TYPE_CHECKING``: a lazy import is still a dependency a reader has to hold in mind.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

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


# Packages anything may use: they import nothing of ours outside this set.
LEAVES = {"text", "instants", "wording"}

# (source, target): an import that would mix two jobs, and why it is refused.
FORBIDDEN: dict[tuple[str, str], str] = {
    ("notify", "report"): "a notification takes its words from wording, not from the report",
    ("services", "workers"): "the workers run the services, not the other way round",
    ("services", "notify"): "a service records an alert in the outbox; the notify worker delivers it",
    ("report", "outputs"): "the outputs write a finished report down; the report knows no writer",
    ("report", "workers"): "the report is computed on request; no background worker is part of it",
    ("store", "deterministic"): "the store keeps rows; the rules over them live above it",
    ("text", "deterministic"): "the rules build on text; text knows no rule",
}


def refused_edges(graph: dict[str, set[str]]) -> list[str]:
    """Every import that breaks a room's rule, as ``source -> target (why)``."""
    found = [
        f"{leaf} -> {target} (a leaf imports nothing of ours but the other leaves)"
        for leaf in sorted(LEAVES)
        for target in sorted(graph.get(leaf, set()) - LEAVES)
    ]
    found += [f"{a} -> {b} ({why})" for (a, b), why in FORBIDDEN.items() if b in graph.get(a, set())]
    return found


@pytest.fixture(scope="module")
def real_graph() -> dict[str, set[str]]:
    return import_graph()


def test_each_room_keeps_to_its_job(real_graph: dict[str, set[str]]) -> None:
    refused = refused_edges(real_graph)
    assert not refused, "imports across rooms that ADR 0054 refuses:\n" + "\n".join(refused)


@pytest.mark.parametrize(
    ("edge", "expected"),
    [
        (("text", "records"), "text -> records"),
        (("instants", "config"), "instants -> config"),
        (("wording", "report"), "wording -> report"),
        (("notify", "report"), "notify -> report"),
        (("services", "workers"), "services -> workers"),
        (("services", "notify"), "services -> notify"),
        (("report", "outputs"), "report -> outputs"),
        (("report", "workers"), "report -> workers"),
        (("store", "deterministic"), "store -> deterministic"),
        (("text", "deterministic"), "text -> deterministic"),
    ],
)
def test_each_rule_refuses_its_edge(real_graph: dict[str, set[str]], edge: tuple[str, str], expected: str) -> None:
    graph = {source: set(targets) for source, targets in real_graph.items()}
    source, target = edge
    graph.setdefault(source, set()).add(target)
    assert any(line.startswith(expected + " ") for line in refused_edges(graph))


def test_leaves_may_import_each_other() -> None:
    assert refused_edges({"text": {"instants"}, "wording": {"text"}}) == []


def test_the_walk_sees_the_layers_it_guards() -> None:
    graph = import_graph()
    assert "records" in graph["deterministic"]
    assert "llm" in graph["prompting"] and "gate" in graph["prompting"]
    assert graph["records"] <= set(), "records.py imports nothing of ours"
    assert "wording" in graph["notify"] and "notify" in graph["workers"] and "report" in graph["outputs"]


def test_a_cycle_is_found() -> None:
    assert strongly_connected({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []
