"""Imports point down (docs/architecture.md): a test that fails on an import that points up a
layer or across apps the wrong way, on an import cycle between files, and on a project import
placed inside a function (the way a cycle hides), outside `AppConfig.ready`.

The source is read with `ast`, nothing is imported; tests and migrations aside.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(settings.BASE_DIR)
# Bottom to top: an app imports only below.
APPS = ("audit", "jobcost", "webhooks", "config", "bench")

# Bottom to top. A module belongs to the longest prefix that names it; it may import its own
# layer and those below. Every project module must have a layer.
LAYERS: tuple[tuple[str, ...], ...] = (
    # The bottom layer: imports nothing of the project.
    (
        "audit.ids",
        "audit.values",
        "audit.context",
        "jobcost.errors",
        "jobcost.error_codes",
        "jobcost.scope",
        "jobcost.money",
        "jobcost.limits",
        "jobcost.figures",
        "jobcost.redis_client",
        "jobcost.database",
    ),
    ("audit.models", "audit.audited"),
    ("audit",),
    ("jobcost.models",),
    ("jobcost.selectors", "jobcost.budget_files"),
    ("jobcost.services", "jobcost.documents", "jobcost.resources"),
    ("jobcost.api",),
    ("jobcost.serializers", "jobcost.filters"),
    ("jobcost.views",),
    ("jobcost.admin", "jobcost.backoffice_site", "jobcost.templatetags"),
    # Entry points: routes, Celery tasks, commands, the demo, the app's `ready`.
    (
        "jobcost.urls",
        "jobcost.tasks",
        "jobcost.demo",
        "jobcost.management",
        "jobcost.apps",
        "jobcost",
    ),
    ("webhooks.models",),
    ("webhooks",),
    ("config",),
    # The benchmarks (bench/, installed only when benchmarking): nothing imports them.
    ("bench",),
)
# Django runs these when the registry is ready; importing models or connecting signals there
# is its documented place, not a dodge.
READY_FILES = {"audit/apps.py", "jobcost/apps.py", "webhooks/apps.py"}


def _modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            rel = path.relative_to(ROOT)
            if "migrations" in rel.parts:
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _imports(module: str) -> list[tuple[str, int, bool]]:
    """(imported project module, line, inside a function) for each import of `module`."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    in_function = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            in_function.update(id(sub) for sub in ast.walk(node) if sub is not node)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join([*up, base] if base else up)
            # `from package import submodule` imports the submodule; any other name is the
            # module `base` itself.
            names = [f"{base}.{alias.name}" for alias in node.names]
            targets = [name for name in names if name in MODULES] or [base]
        else:
            continue
        for target in targets:
            hit = _resolve(target)
            if hit and hit != module:
                found.append((hit, node.lineno, id(node) in in_function))
    return found


def _rank(module: str) -> int:
    best, rank = -1, None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best:
                best, rank = len(prefix), index
    assert rank is not None, f"{module} has no layer in LAYERS"
    return rank


@functools.cache
def _edges() -> dict[str, list[tuple[str, int, bool]]]:
    """{module: its imports} over the project, parsed when a test first asks (not while
    pytest collects, in every worker)."""
    return {module: _imports(module) for module in MODULES}


def test_every_module_has_a_layer():
    for module in MODULES:
        _rank(module)


def test_no_import_points_up_a_layer_or_to_a_higher_app():
    wrong = []
    for module, imports in _edges().items():
        for target, line, _ in imports:
            if APPS.index(target.split(".")[0]) > APPS.index(module.split(".")[0]):
                wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports {target} (app)")
            elif _rank(target) > _rank(module):
                wrong.append(f"{MODULES[module].relative_to(ROOT)}:{line} imports {target}")
    assert wrong == [], "\n".join(wrong)


def test_no_project_import_inside_a_function():
    wrong = [
        f"{MODULES[module].relative_to(ROOT)}:{line} imports {target} inside a function"
        for module, imports in _edges().items()
        for target, line, inside in imports
        if inside and str(MODULES[module].relative_to(ROOT)) not in READY_FILES
    ]
    assert wrong == [], "\n".join(wrong)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_no_import_cycle_between_files():
    graph = {module: {target for target, _, _ in imports} for module, imports in _edges().items()}
    assert _cycles(graph) == []


@pytest.mark.parametrize(
    "graph, expected",
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": set()}, []),
    ],
)
def test_the_cycle_finder_finds_cycles(graph, expected):
    assert _cycles(graph) == expected
