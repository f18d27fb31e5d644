"""Layering (docs/architecture.md): the core never imports Rich, Typer or the CLI layer."""

from __future__ import annotations

import ast
from pathlib import Path

import a2abench

PACKAGE = Path(a2abench.__file__).parent
FRONT = ("cli", "render", "__main__.py")  # the layers allowed to import Rich and Typer
FORBIDDEN = ("rich", "typer", "click", "a2abench.cli", "a2abench.render")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_the_core_imports_no_rendering_or_cli() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.relative_to(PACKAGE).parts[0] in FRONT:
            continue
        bad = sorted(n for n in _imports(path)
                     if any(n == f or n.startswith(f + ".") for f in FORBIDDEN))
        if bad:
            offenders.append(f"{path.relative_to(PACKAGE)}: {', '.join(bad)}")
    assert offenders == []


def test_the_top_level_holds_no_rendering_module() -> None:
    assert not (PACKAGE / "display.py").exists() and not (PACKAGE / "_output.py").exists()
