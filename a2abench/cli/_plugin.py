"""`a2abench run <name>` for benchmarks that third-party packages register."""

from typing import Annotated, Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._flag_table import RUN
from a2abench.cli._flags import run_command
from a2abench.cli._launch import launch_run
from a2abench.options import FlagSpec

# Names a plugin field cannot take as a flag: the run flags and the command's own.
_TAKEN = frozenset({s.name for s in RUN} | {"json", "json_", "option", "run", "options", "ctx",
                                            "help", "help_"})


def plugin_command(name: str) -> Any:
    """A click command with the shared run flags, a flag per field of the plugin's options
    model that has a flag form, and `--option KEY=VALUE` for the rest (flags win)."""
    from a2abench.options import flag_specs
    from a2abench.run.registry import get_driver

    note = ""
    try:
        model = get_driver(name).options_model
        specs = [_unset_by_default(s) for s in flag_specs(model, lenient=True)
                 if s.name not in _TAKEN]
    except Exception as exc:
        # `run --help` builds every command: a plugin that fails to import keeps --option,
        # and running it reports the import error itself.
        specs, note = [], f" It could not be loaded: {type(exc).__name__}: {exc}"
    flag_of = {s.target: s.name for s in specs}
    app = typer.Typer(rich_markup_mode=None, add_completion=False)

    @app.command(name, help=f"Run the {name} benchmark (registered by an installed "
                            f"package).{note}")
    @run_command(specs)
    def run_plugin(
        ctx: typer.Context,
        run: dict[str, Any],
        options: dict[str, Any],
        option: Annotated[list[str] | None, c.opt(
            "--option", "Benchmark option KEY=VALUE (repeatable; values may be JSON); for "
                        "options without a flag of their own.", show_default=False)] = None,
        json_: c.JsonFlag = False,
    ) -> None:
        from a2abench.cli._report import _pairs

        # Precedence: a flag on the command line > --option > the flag's variable > default.
        given = {k: v for k, v in options.items() if v is not None}
        from_env = {k: v for k, v in given.items()
                    if _source(ctx, flag_of[k]) == "ENVIRONMENT"}
        typed = {k: v for k, v in given.items() if k not in from_env}
        launch_run(name, {**from_env, **_pairs(option or []), **typed}, run, json_)

    command = typer.main.get_command(app)
    command.name = name
    return command


def _source(ctx: Any, name: str) -> str:
    """Where a parameter's value came from: COMMANDLINE, ENVIRONMENT, DEFAULT, ..."""
    source = ctx.get_parameter_source(name)
    return str(getattr(source, "name", source))


def _unset_by_default(spec: FlagSpec) -> FlagSpec:
    """An absent flag passes nothing, so `--option` can still set the field (the model
    supplies the default; the help text names it)."""
    shown = f" [default: {spec.default}]" if spec.default is not None else ""
    flag = spec.flag
    if spec.kind == "bool" and "/" not in flag:
        flag = f"{flag}/--no-{flag[2:]}"
    return spec._replace(default=None, show_default=False, flag=flag, required=False,
                         help=(spec.help or "Option of the benchmark.") + shown)
