"""`a2abench report`: aggregate metrics.jsonl files into a report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from a2abench.cli import _common as c


def report(
    paths: Annotated[list[Path], typer.Argument(help="metrics.jsonl files (shards, resumed "
                                                     "runs).", show_default=False)],
    format: Annotated[str, c.opt("--format", "table | json | markdown | html | junit | tau2.")]
    = "table",
    output: Annotated[Path | None, c.opt("--output", "Write the report to this file.",
                                         show_default=False)] = None,
    fail_under: c.FailUnder = None,
) -> None:
    """Aggregate one or many metrics.jsonl files into a report.

    Example: a2abench report runs/*/metrics.jsonl --format markdown --fail-under 0.6
    """
    from a2abench.errors import NotAvailableYet

    raise NotAvailableYet("`report` is not available in this version yet",
                          hint="The raw records are in the metrics.jsonl file meanwhile.")
