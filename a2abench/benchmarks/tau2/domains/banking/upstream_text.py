"""Upstream prose that banking tools output, read from upstream's `tools.py` (never executed):
discoverable tools' docstrings (`inspect.getdoc`-cleaned, as upstream shows them when a tool
is unlocked or handed to the user) and the fixed ATM deposit scans."""

from __future__ import annotations

import ast
from pathlib import Path

from a2abench.benchmarks.tau2.domains.banking.tools import BankingTexts

_SCAN_FIELDS = ("atm_id", "envelope_contents", "verification_notes")


def _decorated_discoverable(node: ast.FunctionDef) -> bool:
    for deco in node.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if isinstance(target, ast.Name) and target.id == "is_discoverable_tool":
            return True
    return False


def load_banking_texts(tools_py: Path) -> BankingTexts:
    module = ast.parse(tools_py.read_text(encoding="utf-8"), filename=str(tools_py))
    docs: dict[str, str] = {}
    images: dict[str, dict[str, str]] = {}
    for node in ast.walk(module):
        if not isinstance(node, ast.FunctionDef):
            continue
        if _decorated_discoverable(node):
            docs[node.name] = ast.get_docstring(node, clean=True) or ""
        if node.name == "get_atm_deposit_images_8473":
            images = _scans(node)
    if not docs or not images:
        raise ValueError(f"no banking discoverable tools or ATM scans found in {tools_py}")
    return BankingTexts("upstream", docs, images)


def _scans(func: ast.FunctionDef) -> dict[str, dict[str, str]]:
    for stmt in ast.walk(func):
        if (isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id == "deposit_image_data"
                and isinstance(stmt.value, ast.Dict)):
            out: dict[str, dict[str, str]] = {}
            for key, value in zip(stmt.value.keys, stmt.value.values, strict=True):
                if not (isinstance(key, ast.Constant) and isinstance(value, ast.Dict)):
                    continue
                fields = {k.value: v.value for k, v in zip(value.keys, value.values, strict=True)
                          if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
                if all(isinstance(fields.get(f), str) for f in _SCAN_FIELDS):
                    out[str(key.value)] = {f: str(fields[f]) for f in _SCAN_FIELDS}
            return out
    return {}
