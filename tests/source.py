"""What the whole-package scans read from each Python file: its imports and the names it
defines. The layer tests and the architecture map scan all of a2abench; parsing and walking it
is ~1.5 s of CPU, paid by every xdist worker that runs one of them, so a repository file's
scan is kept on disk by its text (tests/kept.py): an edited file is scanned again."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from tests.kept import kept

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Import:
    """One imported module: `import a.b` is level -1 with no names; `from ..m import x, y` is
    level 2, module "m", names ("x", "y")."""

    line: int
    level: int
    module: str
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scan:
    imports: tuple[Import, ...]
    # Classes, functions, methods, assigned names, and identifier-shaped string constants.
    names: frozenset[str]


def scan(path: Path) -> Scan:
    text = path.read_bytes()
    if not path.resolve().is_relative_to(ROOT):
        return _scan(text)  # a test's own file: nothing to keep
    return _kept(text)


@cache
def _kept(text: bytes) -> Scan:
    raw = kept("source-scan-v1", text, lambda t: _encode(_scan(t)))
    return Scan(tuple(Import(line, level, module, tuple(names))
                      for line, level, module, names in raw["imports"]),
                frozenset(raw["names"]))


def _encode(found: Scan) -> dict[str, Any]:
    return {"imports": [[i.line, i.level, i.module, i.names] for i in found.imports],
            "names": sorted(found.names)}


def _scan(text: bytes) -> Scan:
    imports: list[Import] = []
    names: set[str] = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            imports.extend(Import(node.lineno, -1, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            imports.append(Import(node.lineno, node.level, node.module or "",
                                  tuple(alias.name for alias in node.names)))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.isidentifier():
            names.add(node.value)
    return Scan(tuple(imports), frozenset(names))
