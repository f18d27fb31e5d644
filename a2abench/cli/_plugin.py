"""`a2abench run <name>` for benchmarks that third-party packages register."""

from typing import Annotated, Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._flag_table import RUN
from a2abench.cli._flags import run_command
from a2abench.cli._launch import launch_run
from a2abench.options import FlagSpec

# Names a plugin field cannot take as a flag: the run flags and the command's own.
_TAKEN = frozenset({s.name for s in RUN} | {"json", "option", "run", "options"})


def plugin_command(name: str) -> Any:
    """A click command with the shared run flags, a flag per field of the plugin's options
    model that has a flag form, and `--option KEY=VALUE` for the rest (flags win)."""
    from a2abench.options import flag_specs
    from a2abench.run.registry import get_driver

    model = get_driver(name).options_model
    specs = [_unset_by_default(s) for s in flag_specs(model, lenient=True)
             if s.name not in _TAKEN]
    app = typer.Typer(rich_markup_mode=None, add_completion=False)

    @app.command(name, help=f"Run the {name} benchmark (registered by an installed package).")
    @run_command(specs)
    def run_plugin(
        run: dict[str, Any],
        options: dict[str, Any],
        option: Annotated[list[str] | None, c.opt(
            "--option", "Benchmark option KEY=VALUE (repeatable; values may be JSON); for "
                        "options without a flag of their own.", show_default=False)] = None,
        json_: c.JsonFlag = False,
    ) -> None:
        from a2abench.cli._report import _pairs

        given = {k: v for k, v in options.items() if v is not None}
        launch_run(name, {**_pairs(option or []), **given}, run, json_)

    command = typer.main.get_command(app)
    command.name = name
    return command


def _unset_by_default(spec: FlagSpec) -> FlagSpec:
    """An absent flag passes nothing, so `--option` can still set the field (the model
    supplies the default; the help text names it)."""
    shown = f" [default: {spec.default}]" if spec.default is not None else ""
    flag = spec.flag
    if spec.kind == "bool" and "/" not in flag:
        flag = f"{flag}/--no-{flag[2:]}"
    return spec._replace(default=None, show_default=False, flag=flag,
                         help=(spec.help or "Option of the benchmark.") + shown)
