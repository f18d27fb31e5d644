"""The plugin API is the only door: the built-in benchmarks (and the example plugin) import
nothing of a2abench but `a2abench.plugin` and their own modules, so whatever the built-ins
need, a plugin written from docs/writing-a-benchmark.md can have too."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOOR = "a2abench.plugin"


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every a2abench import in one file, lazy ones included."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "a2abench":  # `from a2abench import x` names a module
                out.extend((node.lineno, f"a2abench.{a.name}") for a in node.names)
            else:
                out.append((node.lineno, node.module))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
    return [(line, m) for line, m in out if m == "a2abench" or m.startswith("a2abench.")]


def _offences(folder: Path, own: str) -> list[str]:
    return [f"{path.relative_to(ROOT)}:{line} imports {module}"
            for path in sorted(folder.rglob("*.py"))
            for line, module in _imports(path)
            if module != DOOR and not module.startswith(own)]


def test_built_in_benchmarks_enter_only_through_the_plugin_module() -> None:
    folder = ROOT / "a2abench" / "benchmarks"
    assert len(list(folder.rglob("*.py"))) > 50  # the scan sees the benchmarks
    assert _offences(folder, "a2abench.benchmarks") == []


def test_the_example_plugin_uses_the_same_door() -> None:
    assert _offences(ROOT / "examples" / "plugin", "a2abench_arith") == []


def test_the_scan_catches_a_sideways_import(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("def f():\n    from a2abench.run.driver import agent_input\n"
                                   "from a2abench import _download\n")
    found = [m for _, m in sorted(_imports(tmp_path / "m.py"))]
    assert found == ["a2abench.run.driver", "a2abench._download"]  # by line
