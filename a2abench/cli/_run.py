"""`a2abench run <benchmark>`: flags -> RunConfig -> the run engine -> rendered summary."""

from typing import Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._flag_table import BENCHMARKS
from a2abench.cli._flags import run_command
from a2abench.cli._launch import launch_run
from a2abench.cli._plugin import plugin_command


class _BenchmarkGroup(c.Group):
    """`run` lists tau2, crmarena and every benchmark registered by an installed package."""

    # `ctx` is Typer's click Context and the result a click Command; Typer vendors click and
    # names neither publicly, so they stay untyped here (no import of its private module).
    def list_commands(self, ctx: Any) -> list[str]:
        from a2abench.run.registry import names

        return sorted(set(super().list_commands(ctx)) | set(names()))

    def get_command(self, ctx: Any, name: str) -> Any:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        from a2abench.run.registry import names

        return plugin_command(name) if name in names() else None


app = typer.Typer(
    help="Run a benchmark against an A2A agent and write metrics.jsonl.",
    no_args_is_help=True,
    rich_markup_mode=None,
    cls=_BenchmarkGroup,
)


def _require(benchmark: str) -> None:
    from a2abench.errors import NotAvailableYet
    from a2abench.run.registry import names

    if benchmark not in names():
        raise NotAvailableYet(f"`run {benchmark}` is not available in this version yet",
                              hint="Use `a2abench discover URL` to check an agent meanwhile.")


@app.command("tau2", epilog="Example: a2abench run tau2 --white-agent-url http://127.0.0.1:9999 "
                            "--domain airline --user-llm gpt-4.1 --max-tasks 5")
@run_command(BENCHMARKS["tau2"])
def run_tau2(run: dict[str, Any], options: dict[str, Any], json_: c.JsonFlag = False) -> None:
    """Run tau2-bench (airline, retail, mock, telecom, banking_knowledge) against an A2A
    agent."""
    _require("tau2")
    launch_run("tau2", options, run, json_)


@app.command("crmarena", epilog="Example: a2abench run crmarena --white-agent-url "
                                "http://127.0.0.1:9999 --org b2b --task-category handle_time")
@run_command(BENCHMARKS["crmarena"])
def run_crmarena(run: dict[str, Any], options: dict[str, Any],
                 json_: c.JsonFlag = False) -> None:
    """Run CRMArena or CRMArena-Pro against an A2A agent."""
    _require("crmarena")
    launch_run("crmarena", options, run, json_)
