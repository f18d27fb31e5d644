"""docs/architecture.md is a true map: every file, folder, function, class and constant it
names in backticks exists (a renamed or deleted piece fails here, not in a newcomer's head)."""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path

from tests import source

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "a2abench"
MAP = ROOT / "docs" / "architecture.md"
# Names of things that are not in the source tree: files a run writes, library names.
NOT_CODE = frozenset({"metrics.jsonl", "results.json", "metrics.rescored.jsonl", "SecretStr",
                      "sys.modules"})
_PATH = re.compile(r"^[\w./-]+(/|\.(py|md|toml|json|js|txt))$")
_NAME = re.compile(r"^[A-Za-z_][\w.]*$")


def spans(text: str) -> list[str]:
    """Backticked spans of the prose and the paths of the layer diagram."""
    out = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
    for block in re.findall(r"```(.*?)```", text, flags=re.S):
        out += [w for w in re.findall(r"[\w./-]+", block) if _PATH.match(w)]
    return out


@cache
def files() -> list[str]:
    """Every tracked-looking path under the repository, as posix strings."""
    skip = {".git", ".venv", "__pycache__", "node_modules", ".pytest_cache", ".mypy_cache",
            ".ruff_cache", ".hypothesis"}  # caches: .pytest_cache mirrors whole trees
    out = []
    for folder, dirs, found in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in skip)  # never walk the venv's ~20k files
        here = Path(folder).relative_to(ROOT)
        out += [(here / d).as_posix() + "/" for d in dirs]
        out += [(here / f).as_posix() for f in found if f not in skip]  # a worktree's .git
    return out


@cache
def names() -> frozenset[str]:
    """Every module, class, function, method and assigned name in the package and scripts,
    and every identifier-shaped string value (statuses such as `agent_error`, record types)."""
    found: set[str] = {"a2abench"}
    for path in [*PACKAGE.rglob("*.py"), *(ROOT / "scripts").glob("*.py")]:
        found.add(path.parent.name if path.stem == "__init__" else path.stem)
        found |= source.scan(path).names
    return frozenset(found)


def resolves(span: str) -> bool:
    token = re.sub(r"\[.*\]|\(.*\)$", "", span.strip())
    if token in NOT_CODE:
        return True
    if _PATH.match(token):
        token = token.removeprefix("a2abench/")
        return any(f == token or f == f"a2abench/{token}" or f.endswith("/" + token)
                   for f in files())
    # A dotted name (`llm.build_llm`, `RetryPolicy.delay`): every part is a known name.
    return all(part in names() for part in token.split("."))


def code_like(span: str) -> bool:
    """A span that names code: a path, or an identifier with _, ., () or a capital."""
    token = span.strip()
    if token.startswith(("-", "A2ABENCH_", "a2abench ")) or " " in token:
        return False  # flags, variables and command lines are checked by tests/test_docs.py
    if _PATH.match(token):
        return True
    bare = re.sub(r"\[.*\]|\(.*\)$", "", token)
    return bool(_NAME.match(bare)) and (bare != bare.lower() or "_" in bare or "." in bare
                                       or token.endswith(")"))


def test_every_reference_in_the_map_exists() -> None:
    refs = [s for s in spans(MAP.read_text(encoding="utf-8")) if code_like(s)]
    assert len(refs) > 100  # the scan reads the map
    assert sorted({s for s in refs if not resolves(s)}) == []


def test_the_scan_rejects_what_does_not_exist() -> None:
    assert resolves("run/engine.py") and resolves("Engine.run") and resolves("cli/")
    assert not resolves("run/nowhere.py") and not resolves("select_nothing")
    assert code_like("`x`".strip("`")) is False and code_like("agent_input") is True
