"""`a2abench run <name>` for benchmarks that third-party packages register."""

from typing import Annotated, Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._flags import RunFlags, run_flags
from a2abench.cli._launch import launch_run


def plugin_command(name: str) -> Any:
    """A click command with the shared run flags plus `--option KEY=VALUE`."""
    app = typer.Typer(rich_markup_mode=None, add_completion=False)

    @app.command(name, help=f"Run the {name} benchmark (registered by an installed package).")
    @run_flags
    def run_plugin(
        flags: RunFlags,
        option: Annotated[list[str] | None, c.opt(
            "--option", "Benchmark option KEY=VALUE (repeatable; values may be JSON).",
            show_default=False)] = None,
    ) -> None:
        from a2abench.cli._report import _pairs

        launch_run(name, _pairs(option or []), flags)

    command = typer.main.get_command(app)
    command.name = name
    return command
