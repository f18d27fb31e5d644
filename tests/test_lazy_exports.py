"""`a2abench.run` and `a2abench.a2a` load their exported names on first use: `report` imports
neither the engine nor the A2A client nor httpx (they were ~0.4 s of every report), and every
exported name still resolves to the object its module defines."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from tests.report.test_html_data import _request, _task, _write


@pytest.mark.parametrize("package", ["a2abench.run", "a2abench.a2a"])
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        value = getattr(module, name)
        assert getattr(importlib.import_module(value.__module__), name) is value
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        _ = module.nope


def test_the_report_imports_no_client(tmp_path: Path) -> None:
    metrics = _write(tmp_path / "metrics.jsonl", [_request("a", 0, 5.0), _task("a", 0)])
    code = ("import sys; from pathlib import Path; from a2abench.report.html import report_page;"
            f" report_page([Path({str(metrics)!r})]);"
            " print(sorted(m for m in ('httpx', 'a2abench.a2a.client', 'a2abench.run.engine',"
            " 'a2abench.run.launch', 'a2abench.run.plan', 'a2abench.run.records', 'asyncio',"
            " 'xml.sax.saxutils') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
