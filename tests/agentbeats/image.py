"""The a2abench image as a manifest starts it, without Docker: the Dockerfile's ENV and
ENTRYPOINT, and its entrypoint script run in-process up to the exec of `a2abench`."""

from __future__ import annotations

import importlib.util
import json
import os
import shlex
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.agentbeats.test_image import instructions

ROOT = Path(__file__).parents[2]
SCRIPT = ROOT / "examples/agentbeats/entrypoint.py"


def image_entrypoint() -> list[str]:
    """The Dockerfile's ENTRYPOINT (exec form)."""
    (entry,) = [json.loads(args) for op, args in instructions() if op == "ENTRYPOINT"]
    assert isinstance(entry, list)
    return [str(a) for a in entry]


def image_env() -> dict[str, str]:
    """The Dockerfile's ENV (KEY=VALUE pairs, unquoted)."""
    env: dict[str, str] = {}
    for op, args in instructions():
        if op == "ENV":
            env.update(pair.split("=", 1) for pair in shlex.split(args))
    return env


def entrypoint_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("image_entrypoint", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def argv_of(program: Mapping[str, Any]) -> list[str]:
    entry = program["entrypoint"]
    return [str(a) for a in entry] if isinstance(entry, list) else shlex.split(entry)


def start(argv: list[str], env: Mapping[str, str], port_file: Path,
          monkeypatch: pytest.MonkeyPatch) -> tuple[int, list[str]]:
    """Run a manifest's command as the image would: (the entrypoint's exit code, the command
    it execs; [] when it refused). The command must be the image's own entrypoint."""
    entry = image_entrypoint()
    assert argv[:len(entry)] == entry, f"{argv} bypasses the image's entrypoint {entry}"
    module = entrypoint_module()
    monkeypatch.setattr(module, "PORT_FILE", port_file)
    execed: list[str] = []
    monkeypatch.setattr(os, "execvp", lambda _file, args: execed.extend(args))
    code = module.main(argv[len(entry):], {**image_env(), **env})
    return code, execed
