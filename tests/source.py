"""The repository's Python source, parsed once per test process: the layer tests and the
architecture map each scan the whole package, and parsing it is ~1 s of CPU a pass.

Keyed by the file's text, not its path: a test that rewrites a file sees the new text."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's syntax tree (`ast.walk` order). Shared: never mutate one."""
    return _nodes(path.read_text(encoding="utf-8"))


@cache
def _nodes(text: str) -> tuple[ast.AST, ...]:
    return tuple(ast.walk(ast.parse(text)))
