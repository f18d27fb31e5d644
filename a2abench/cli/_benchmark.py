"""`a2abench run <benchmark>`: one builder for every benchmark's command, built-in or plugin.

A built-in benchmark's flags and help come from the generated table (`_flag_table.py`), so
its `--help` imports neither pydantic nor the benchmark; a plugin's are read from its driver
(`options_model`, `help`, `example`) when its command is built. Every command has the shared
run flags, a flag per option field with a flag form, and `--option KEY=VALUE` for the rest.
"""

import functools
from typing import Annotated, Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._flag_table import BENCHMARKS, HELP, RUN
from a2abench.cli._flags import run_command
from a2abench.cli._launch import launch_run
from a2abench.options import FlagSpec

# Names an option field cannot take as a flag: the run flags and the command's own.
_TAKEN = frozenset({s.name for s in RUN} | {"json", "json_", "option", "run", "options", "ctx",
                                            "help", "help_"})


def benchmark_command(name: str) -> Any:
    """The click command `run <name>`."""
    if name in BENCHMARKS:
        return _built_in(name)
    return _build(name, *_plugin_parts(name))


@functools.cache
def _built_in(name: str) -> Any:
    # Made from static tables, so one per process serves every invocation in it (a click
    # command keeps no state between them; ~25 ms each for in-process callers such as tests).
    # A plugin's is made each time: the installed packages may change between invocations.
    summary, example = HELP[name]
    return _build(name, BENCHMARKS[name], summary, example)


def _plugin_parts(name: str) -> tuple[list[FlagSpec], str, str]:
    """A plugin's flags, help and example, read from its driver."""
    from a2abench.options import flag_specs
    from a2abench.run.registry import get_driver

    fallback = f"Run the {name} benchmark (registered by an installed package)."
    try:
        driver = get_driver(name)
        specs = flag_specs(driver.options_model, lenient=True)
    except Exception as exc:
        # `run --help` builds every command: a plugin that fails to import keeps --option,
        # and running it reports the import error itself.
        return [], f"{fallback} It could not be loaded: {type(exc).__name__}: {exc}", ""
    return [s for s in specs if s.name not in _TAKEN], driver.help or fallback, driver.example


def _build(name: str, specs: list[FlagSpec] | tuple[FlagSpec, ...], summary: str,
           example: str) -> Any:
    # A benchmark's options read A2ABENCH_<NAME>_*: a variable set for one benchmark never
    # reaches another. The built-ins' unscoped names still work, with a deprecation note.
    specs = [_loosened(s)._replace(scope=name, old_env_kept=name in BENCHMARKS)
             for s in specs]
    flag_of = {s.target: s.name for s in specs}
    app = typer.Typer(rich_markup_mode=None, add_completion=False)

    @app.command(name, help=summary, epilog=f"Example: {example}" if example else None)
    @run_command(specs)
    def run_benchmark(
        ctx: typer.Context,
        run: dict[str, Any],
        options: dict[str, Any],
        option: Annotated[list[str] | None, c.opt(
            "--option", "Benchmark option KEY=VALUE (repeatable; values may be JSON); for "
                        "options without a flag of their own.", show_default=False)] = None,
        json_: c.JsonFlag = False,
    ) -> None:
        from a2abench.options import parse_pairs

        # Precedence: a flag on the command line > --option > the flag's variable > default
        # (a flag left at its default passes nothing: the model has the same default).
        source = {k: _source(ctx, flag_of[k]) for k in options}
        given = {k: v for k, v in options.items()
                 if v is not None and source[k] in ("COMMANDLINE", "ENVIRONMENT")}
        from_env = {**_from_old_names(ctx, specs, source),
                    **{k: v for k, v in given.items() if source[k] == "ENVIRONMENT"}}
        typed = {k: v for k, v in given.items() if k not in from_env}
        if _source(ctx, "seed") == "DEFAULT":  # an adaptive order is fresh unless --seed is
            run.pop("seed", None)
        launch_run(name, {**from_env, **parse_pairs(option, "--option"), **typed}, run, json_)

    command = typer.main.get_command(app)
    command.name = name
    return command


def _from_old_names(ctx: Any, specs: list[FlagSpec], source: dict[str, str]
                    ) -> dict[str, Any]:
    """A built-in's options left unset that its deprecated unscoped variable sets
    (`A2ABENCH_MAX_STEPS` for tau2's A2ABENCH_TAU2_MAX_STEPS), converted and checked as
    the flag would be, each one noted on stderr. Read here, not by click, so that `--help`
    and docs/cli.md show the scoped name alone."""
    import os

    params = {p.name: p for p in ctx.command.params}
    out: dict[str, Any] = {}
    for spec in specs:
        raw = os.environ.get(spec.old_env) if spec.old_env else None
        if raw is None or source.get(spec.target) != "DEFAULT":
            continue
        param = params[spec.name]
        value: Any = raw
        if param.multiple or param.nargs != 1:  # a repeatable flag: split like click does
            value = param.type.split_envvar_value(raw)
        out[spec.target] = param.process_value(ctx, value)
        typer.echo(f"warning: {spec.old_env} is deprecated for {spec.scope}: set {spec.env} "
                   "(each benchmark's options have their own prefix, so that a variable set "
                   "for one never reaches another)", err=True)
    return out


def _source(ctx: Any, name: str) -> str:
    """Where a parameter's value came from: COMMANDLINE, ENVIRONMENT, DEFAULT, ..."""
    source = ctx.get_parameter_source(name)
    return str(getattr(source, "name", source))


def _loosened(spec: FlagSpec) -> FlagSpec:
    """A required field may come through --option, and a switch can be turned off on the
    command line against its variable (`--no-x`)."""
    flag = spec.flag
    if spec.kind == "bool" and "/" not in flag:
        flag = f"{flag}/--no-{flag[2:]}"
    return spec._replace(required=False, flag=flag)
