"""The layers and the import graph: ``engine`` <- ``infra`` <- ``handlers``, and no import
cycles among our modules.

Read with the stdlib ``ast`` from the files (nothing is imported, so the test is fast and sees
imports inside functions too). An import in a function body counts: it runs when the function
does, so it is as much a dependency as one at the top. An import under ``if TYPE_CHECKING:``
counts for the layers (the engine may not even name an infra type) but not for cycles: it never
runs, and typing two modules that use each other's types is what it is for. ``from pkg import
name`` is an edge to ``pkg.name`` when that is one of our modules, else to ``pkg``; an
``importlib.import_module`` with a computed name (the CLI's subcommands, the ruleset registry)
is a plugin lookup and not an edge.

:data:`KNOWN_CYCLE_EDGES` is an allow-list that may only shrink, and is empty (issue 19 took
the Telegram shell apart into layers): a new edge inside a cycle fails, and so does a listed
edge that is no longer in one (delete it from the list).

The Telegram shell (``handlers/telegram``) has layers of its own: ``app`` (the wiring) imports
the ``features``, which import only ``shared`` modules, renderers and the ruleset UIs, never
another feature; ``shared`` imports no feature; the renderers in ``screens`` import no
python-telegram-bot. No module there is over 400 lines and no function over 80
(:data:`KNOWN_OVERSIZE`, another allow-list that may only shrink).

A ruleset's UI package (``ui/<ruleset>/``, its Telegram flow included) imports no feature, and a
feature reaches the ruleset UIs only through ``handlers.telegram.ui`` (``get_ui``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engine", "infra", "handlers")
# Which layers each layer may import (the stdlib and third-party packages aside).
ALLOWED: Mapping[str, frozenset[str]] = {
    "engine": frozenset({"engine"}),
    "infra": frozenset({"engine", "infra"}),
    "handlers": frozenset({"engine", "infra", "handlers"}),
}
# Edges inside the import cycles that exist today. Remove an entry when its edge stops
# closing a cycle; never add one.
KNOWN_CYCLE_EDGES: frozenset[tuple[str, str]] = frozenset()

TELEGRAM = ROOT / "handlers" / "telegram"
FEATURES = "handlers.telegram.features."
SHARED = "handlers.telegram.shared."
SCREENS = "handlers.telegram.screens"
# reveal.py is a renderer that stays at the package root: the ruleset UIs import it by name.
RENDERERS = frozenset({"handlers.telegram.reveal"})
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80
# Modules and functions of handlers/telegram over the limits today (path relative to it, and
# "path:function"). Remove an entry when it fits; never add one.
KNOWN_OVERSIZE: frozenset[str] = frozenset()

Graph = dict[str, set[str]]


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def our_modules(root: Path = ROOT) -> dict[str, Path]:
    return {
        module_name(p, root): p
        for package in PACKAGES
        if (root / package).is_dir()
        for p in sorted((root / package).rglob("*.py"))
    }


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, typing_only: bool = False) -> Iterator[tuple[ast.stmt, bool]]:
    """Every import statement of ``tree`` with whether it sits under ``if TYPE_CHECKING:``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, typing_only
        elif isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.body:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), True)
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]), typing_only)
        else:
            yield from _imports(node, typing_only)


def import_graph(modules: Mapping[str, Path], *, with_typing: bool) -> Graph:
    """Module -> the modules of ours it imports (``with_typing``: TYPE_CHECKING ones too)."""

    def ours(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: Graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, typing_only in _imports(tree):
            if typing_only and not with_typing:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*up, *([node.module] if node.module else [])])
                targets = [
                    f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base
                    for a in node.names
                ]
            for target in targets:
                found = ours(target)
                if found is not None and found != name:
                    edges.add(found)
        graph[name] = edges
    return graph


def cycle_edges(graph: Graph) -> set[tuple[str, str]]:
    """The edges inside a strongly connected component of more than one module (every edge
    that lies on some import cycle), by Tarjan's algorithm (iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    component: dict[str, int] = {}
    sizes: list[int] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = len(sizes)
                    members.append(member)
                    if member == node:
                        break
                sizes.append(len(members))
    return {
        (a, b)
        for a, targets in graph.items()
        for b in targets
        if b in component and component[a] == component[b] and sizes[component[a]] > 1
    }


MODULES = our_modules()


def test_there_are_modules_to_check() -> None:
    assert {"engine.match", "infra.store", "handlers.telegram.app"} <= set(MODULES)


def forbidden_imports(source: Callable[[str], bool], target: Callable[[str], bool]) -> list[str]:
    """Every ``module imports target`` of our modules (typing-only imports included) where
    ``source(module)`` and ``target(target)`` hold: the edges a layering rule forbids."""
    graph = import_graph(MODULES, with_typing=True)
    return sorted(
        f"{module} imports {t}"
        for module, targets in graph.items()
        if source(module)
        for t in targets
        if target(t)
    )


@pytest.mark.parametrize("layer", PACKAGES)
def test_a_layer_imports_only_the_layers_below_it(layer: str) -> None:
    bad = forbidden_imports(
        lambda m: m.split(".")[0] == layer,
        lambda t: t.split(".")[0] not in ALLOWED[layer],
    )
    assert not bad, "\n".join(bad)


def test_no_new_import_cycle() -> None:
    found = cycle_edges(import_graph(MODULES, with_typing=False))
    new = sorted(found - KNOWN_CYCLE_EDGES)
    assert not new, "new import cycle edges:\n" + "\n".join(f"{a} -> {b}" for a, b in new)


def test_the_allow_list_of_cycles_only_shrinks() -> None:
    found = cycle_edges(import_graph(MODULES, with_typing=False))
    gone = sorted(KNOWN_CYCLE_EDGES - found)
    assert not gone, "no longer in a cycle, delete from KNOWN_CYCLE_EDGES:\n" + "\n".join(
        f"{a} -> {b}" for a, b in gone
    )


def test_engine_infra_and_the_commands_have_no_cycle_at_all() -> None:
    found = cycle_edges(import_graph(MODULES, with_typing=False))
    assert not {
        (a, b)
        for a, b in found
        if a.startswith(("engine.", "infra.", "handlers.commands."))
        or b.startswith(("engine.", "infra.", "handlers.commands."))
    }


def test_no_feature_module_imports_another() -> None:
    bad = forbidden_imports(
        lambda m: m.startswith(FEATURES),
        lambda t: t.startswith(FEATURES),
    )
    assert not bad, "\n".join(bad)


def test_shared_modules_import_no_feature_and_not_the_wiring() -> None:
    bad = forbidden_imports(
        lambda m: m.startswith(SHARED),
        lambda t: t.startswith(FEATURES) or t == "handlers.telegram.app",
    )
    assert not bad, "\n".join(bad)


UI = "handlers.telegram.ui"
RULESET_UIS = tuple(
    f"{UI}.{p.name}" for p in sorted((TELEGRAM / "ui").iterdir()) if (p / "__init__.py").is_file()
)


def test_ruleset_uis_import_no_feature_and_not_the_wiring() -> None:
    assert f"{UI}.plans" in RULESET_UIS
    bad = forbidden_imports(
        lambda m: m.startswith(RULESET_UIS),
        lambda t: t.startswith(FEATURES) or t == "handlers.telegram.app",
    )
    assert not bad, "\n".join(bad)


def test_features_reach_ruleset_uis_only_through_the_ui_package() -> None:
    bad = forbidden_imports(
        lambda m: m.startswith(FEATURES),
        lambda t: t.startswith(f"{UI}."),
    )
    assert not bad, "\n".join(bad)


def _third_party_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node, _typing_only in _imports(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_screens_import_no_python_telegram_bot() -> None:
    screens = [p for name, p in MODULES.items() if name.startswith(SCREENS) or name in RENDERERS]
    assert len(screens) > len(RENDERERS)
    bad = sorted(str(p.relative_to(ROOT)) for p in screens if "telegram" in _third_party_imports(p))
    assert not bad, "screens import telegram: " + ", ".join(bad)


def oversize(root: Path = TELEGRAM) -> set[str]:
    """Modules of ``root`` over :data:`MAX_MODULE_LINES` and functions over
    :data:`MAX_FUNCTION_LINES` (decorators and docstrings included), as in KNOWN_OVERSIZE."""
    found: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        name = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_MODULE_LINES:
            found.add(name)
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if (node.end_lineno or start) - start + 1 > MAX_FUNCTION_LINES:
                    found.add(f"{name}:{node.name}")
    return found


def test_no_new_oversized_module_or_function() -> None:
    new = sorted(oversize() - KNOWN_OVERSIZE)
    assert not new, (
        f"over {MAX_MODULE_LINES} lines a module or {MAX_FUNCTION_LINES} a function:\n"
        + "\n".join(new)
    )


def test_the_allow_list_of_oversize_only_shrinks() -> None:
    gone = sorted(KNOWN_OVERSIZE - oversize())
    assert not gone, "fits now, delete from KNOWN_OVERSIZE:\n" + "\n".join(gone)


# --- the checker itself ----------------------------------------------------------------------


def _tree(tmp_path: Path, files: Mapping[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return our_modules(tmp_path)


def test_the_checker_sees_lazy_relative_and_typing_imports(tmp_path: Path) -> None:
    modules = _tree(
        tmp_path,
        {
            "engine/__init__.py": "",
            "engine/a.py": "def f():\n    from engine import b\n",
            "engine/b.py": "from . import c\n",
            "engine/c.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from infra.x import X\nelse:\n    import engine.a\n"
            ),
            "infra/__init__.py": "",
            "infra/x.py": "import os\n",
        },
    )
    runtime = import_graph(modules, with_typing=False)
    assert runtime["engine.a"] == {"engine.b"}
    assert runtime["engine.b"] == {"engine.c"}
    assert runtime["engine.c"] == {"engine.a"}
    assert import_graph(modules, with_typing=True)["engine.c"] == {"engine.a", "infra.x"}
    assert cycle_edges(runtime) == {
        ("engine.a", "engine.b"),
        ("engine.b", "engine.c"),
        ("engine.c", "engine.a"),
    }


def test_a_cycle_needs_a_way_back(tmp_path: Path) -> None:
    graph: Graph = {"a": {"b", "c"}, "b": {"c"}, "c": {"d"}, "d": {"c"}}
    assert cycle_edges(graph) == {("c", "d"), ("d", "c")}


def test_the_size_check_counts_modules_and_functions(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "big.py").write_text("def long():\n" + body, encoding="utf-8")
    (tmp_path / "small.py").write_text("def short():\n    pass\n", encoding="utf-8")
    (tmp_path / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1), encoding="utf-8")
    assert oversize(tmp_path) == {"big.py:long", "long.py"}
