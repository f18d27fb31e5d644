"""`a2abench run <benchmark>`: flags -> RunConfig -> the run engine -> rendered summary.

Every benchmark's command, tau2 and crmarena included, is made by `_benchmark.py`."""

from typing import Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._benchmark import benchmark_command
from a2abench.cli._flag_table import BENCHMARKS


class _BenchmarkGroup(c.Group):
    """`run` lists tau2, crmarena and every benchmark registered by an installed package."""

    # `ctx` is Typer's click Context and the result a click Command; Typer vendors click and
    # names neither publicly, so they stay untyped here (no import of its private module).
    def list_commands(self, ctx: Any) -> list[str]:
        from a2abench.run.registry import names

        return sorted(set(BENCHMARKS) | set(names()))

    def get_command(self, ctx: Any, name: str) -> Any:
        if name in BENCHMARKS:  # the table: no import of the registry or the benchmark
            return benchmark_command(name)
        from a2abench.run.registry import names

        return benchmark_command(name) if name in names() else None


app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, cls=_BenchmarkGroup)


@app.callback()
def run() -> None:
    """Run a benchmark against an A2A agent and write metrics.jsonl."""
