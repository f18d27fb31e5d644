"""`a2abench.run` and `a2abench.a2a` load their exported names on first use: `report` imports
neither the engine nor the A2A client nor httpx (they were ~0.4 s of every report), and every
exported name still resolves to the object its module defines."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest


@pytest.mark.parametrize("package", ["a2abench.run", "a2abench.a2a"])
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        assert getattr(importlib.import_module(value.__module__), name) is value
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = module.nope


def test_the_report_imports_no_client() -> None:
    code = ("import sys, a2abench.report.html, a2abench.run.status, a2abench.a2a.metrics; "
            "print(sorted(m for m in ('httpx', 'a2abench.a2a.client', 'a2abench.run.engine',"
            " 'a2abench.run.launch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
