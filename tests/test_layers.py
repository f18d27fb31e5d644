"""Layering (docs/architecture.md): the core never imports Rich, Typer or the CLI layer, and
the plugin API is the only door: the built-in benchmarks import nothing of a2abench but
`a2abench.plugin` (its stable core and its provisional sub-module) and their own modules, so
whatever the built-ins need, a plugin can have too; the example plugin, written from
docs/writing-a-benchmark.md, needs the stable core alone."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import a2abench
from tests import source

PACKAGE = Path(a2abench.__file__).parent
FORBIDDEN = ("rich", "typer", "click", "a2abench.cli", "a2abench.render")
MAP = PACKAGE.parent / "docs" / "architecture.md"
_ROW = re.compile(r"^  ([\w.]+/?(?:, [\w.]+/?)*)(?: {2,}|$)")


def diagram(text: str) -> tuple[list[list[str]], int]:
    """docs/architecture.md's layer diagram: its rows of units, top first (`cli/` -> "cli",
    `data.py` -> "data"), and how many rows stand above the "core never imports Rich or
    Typer" line."""
    block = text.split("## Layers", 1)[1].split("```", 2)[1]
    rows: list[list[str]] = []
    front = -1
    for line in block.splitlines():
        if line.strip().startswith("─"):
            front = len(rows)
        found = _ROW.match(line)
        if found:
            rows.append([u.removesuffix("/").removesuffix(".py")
                         for u in found[1].split(", ")])
    assert rows and front > 0, "the layer diagram or its Rich/Typer line is missing"
    return rows, front


ROWS, FRONT_ROWS = diagram(MAP.read_text(encoding="utf-8"))
FRONT = tuple(u for row in ROWS[:FRONT_ROWS] for u in row)  # may import Rich and Typer


ROOT = PACKAGE.parent
DOOR = "a2abench.plugin"
PROVISIONAL = "a2abench.plugin.provisional"  # the door's names outside the stable core


def _imports_at(path: Path, package: list[str] | None = None, *,
                names: bool = False) -> list[tuple[int, str]]:
    """(line, module) of every import in one file, lazy ones included; a relative import is
    resolved against the file's package (`from ....errors import x` under
    a2abench/benchmarks/crmarena/sandbox/ is `a2abench.errors`), and `from a2abench import x`
    counts as importing `a2abench.x`."""
    if package is None:
        package = list(path.relative_to(ROOT).parts[:-1]) if path.is_relative_to(ROOT) else []
    out: list[tuple[int, str]] = []
    for found in source.scan(path).imports:
        if found.level < 0:
            out.append((found.line, found.module))
            continue
        base = package[:len(package) - found.level + 1] if found.level else []
        module = ".".join([*base, *([found.module] if found.module else [])])
        if names or module == "a2abench" or (found.level and not found.module):
            # `from pkg import x`: x may be a module (with `names`, always listed)
            out.extend((found.line, f"{module}.{name}") for name in found.names)
        if not (module == "a2abench" or (found.level and not found.module)):
            out.append((found.line, module))
    return sorted(out)


def _imports(path: Path) -> set[str]:
    return {module for _, module in _imports_at(path)}


def _side_doors(folder: Path, own: str,
                doors: tuple[str, ...] = (DOOR, PROVISIONAL)) -> list[str]:
    return [f"{path.relative_to(folder)}:{line} imports {module}"
            for path in sorted(folder.rglob("*.py"))
            for line, module in _imports_at(path)
            if module.startswith("a2abench") and module not in doors
            and not module.startswith(own)]


def _unit(path: Path) -> str:
    """The diagram's unit of a module: its top folder, or its own name at the top."""
    return path.relative_to(PACKAGE).parts[0].removesuffix(".py")


def test_the_core_imports_no_rendering_or_cli() -> None:
    assert set(FRONT) == {"cli", "__main__", "render"}
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if _unit(path) in FRONT:
            continue
        bad = sorted(n for n in _imports(path)
                     if any(n == f or n.startswith(f + ".") for f in FORBIDDEN))
        if bad:
            offenders.append(f"{path.relative_to(PACKAGE)}: {', '.join(bad)}")
    assert offenders == []


def test_the_top_level_holds_no_rendering_module() -> None:
    assert not (PACKAGE / "display.py").exists() and not (PACKAGE / "_output.py").exists()


def test_built_in_benchmarks_enter_only_through_the_plugin_module() -> None:
    folder = PACKAGE / "benchmarks"
    assert len(list(folder.rglob("*.py"))) > 50  # the scan sees the benchmarks
    assert _side_doors(folder, "a2abench.benchmarks") == []


def test_the_example_plugin_uses_the_stable_core_alone() -> None:
    import a2abench.plugin

    folder = ROOT / "examples" / "plugin"
    assert _side_doors(folder, "a2abench_arith", (DOOR,)) == []
    names = [(path.name, line, module.rpartition(".")[2])
             for path in sorted(folder.rglob("*.py"))
             for line, module in _imports_at(path, names=True)
             if module.startswith(DOOR + ".")]
    assert names and [n for n in names if n[2] not in a2abench.plugin.__all__] == []


def test_the_door_scan_catches_a_sideways_import(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    from a2abench.run.driver import agent_input\n"
                                   "from a2abench.net import download\n"
                                   "import a2abench.net.limits\n")
    assert _side_doors(tmp_path, "a2abench.benchmarks") == [
        "m.py:2 imports a2abench.run.driver", "m.py:3 imports a2abench.net",
        "m.py:4 imports a2abench.net.limits"]
    (tmp_path / "m.py").write_text("from a2abench.plugin.provisional import raw_base\n")
    assert _side_doors(tmp_path, "a2abench_arith", (DOOR,)) == [
        "m.py:1 imports a2abench.plugin.provisional"]


def test_the_door_scan_resolves_relative_imports() -> None:
    sandbox = PACKAGE / "benchmarks" / "crmarena" / "sandbox" / "engine.py"
    found = dict(_imports_at(sandbox))
    assert "a2abench.benchmarks.crmarena.sandbox.schema" in found.values()

def test_a_relative_import_out_of_the_benchmarks_is_caught(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("from ....errors import DataError\nfrom .. import tasks\n")
    inside = ["a2abench", "benchmarks", "crmarena", "sandbox"]
    assert _imports_at(tmp_path / "m.py", inside) == [
        (1, "a2abench.errors"), (2, "a2abench.benchmarks.crmarena.tasks")]


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _circles(folder: Path) -> list[list[str]]:
    """Groups of modules under `folder` that import each other in a loop (type-only and lazy
    imports count: they tie the files as much), by Tarjan's strongly connected components."""
    modules = {_module_of(p): p for p in folder.rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = set()
        for _, target in _imports_at(path, names=True):
            while target and target not in modules:  # `from pkg.mod import name`
                target = target.rpartition(".")[0]
            if target and target != name and not name.startswith(target + "."):
                found.add(target)  # a package's __init__ is not a loop of its own modules
        edges[name] = found
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return out


def test_no_import_circle_in_the_benchmarks() -> None:
    assert _circles(PACKAGE / "benchmarks") == []


def test_the_circle_scan_sees_a_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "loop"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from loop.b import x\n")
    (pkg / "b.py").write_text("def f():\n    from loop import a\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert _circles(pkg) == [["loop.a", "loop.b"]]


def upward_imports(rows: list[list[str]], edges: dict[str, set[str]]) -> list[str]:
    """Imports that break the diagram: to a unit in a row above, or to another unit of the
    same row (`edges`: unit -> the units it imports)."""
    row_of = {unit: i for i, row in enumerate(rows) for unit in row}
    return [f"{unit} ({row_of[unit]}) imports {other} ({row_of[other]})"
            for unit, targets in sorted(edges.items()) for other in sorted(targets)
            if row_of[other] <= row_of[unit]]


def _package_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.parent == PACKAGE and path.name == "__init__.py":
            continue  # the package itself, not a layer
        unit = _unit(path)
        for _, module in _imports_at(path):
            parts = module.split(".")
            if parts[0] == "a2abench" and len(parts) > 1 and parts[1] != unit:
                edges.setdefault(unit, set()).add(parts[1])
    return edges


def test_the_layer_diagram_is_true_by_imports() -> None:
    """docs/architecture.md's diagram, read here: every unit of the package has exactly one
    row, every row names what exists, and every import (lazy and type-only ones included)
    points to a row below its own."""
    drawn = [unit for row in ROWS for unit in row]
    present = {_unit(p) for p in PACKAGE.rglob("*.py")} - {"__init__"}
    assert sorted(drawn) == sorted(set(drawn)), "a unit is drawn twice"
    assert set(drawn) == present, (f"not drawn: {sorted(present - set(drawn))}; "
                                   f"drawn but absent: {sorted(set(drawn) - present)}")
    assert upward_imports(ROWS, _package_edges()) == []


def test_the_diagram_check_sees_an_upward_or_sideways_import() -> None:
    rows, front = diagram("## Layers\n```\n  cli/            top\n  ──── line\n"
                          "  report/, run/   a row\n                  more words\n"
                          "  net/            ground\n```\n")
    assert (rows, front) == ([["cli"], ["report", "run"], ["net"]], 1)
    assert upward_imports(rows, {"cli": {"run"}, "run": {"net"}}) == []
    assert upward_imports(rows, {"net": {"run"}, "report": {"run"}}) == [
        "net (2) imports run (1)", "report (1) imports run (1)"]

