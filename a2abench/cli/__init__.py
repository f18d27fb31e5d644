"""The `a2abench` command line. Commands parse flags, call one core function, render.

Nothing heavy is imported here: a2a-sdk, httpx and the benchmarks load inside the commands
so that `a2abench --help` starts fast (tests/test_cli.py checks it). The command modules do
not postpone annotations (`from __future__ import annotations`): Typer would then compile
every parameter's annotation string on each start (docs/performance.md, Startup).
"""

import functools
import sys
from typing import Annotated, Any

import typer
import typer.main
from typer.models import DeveloperExceptionConfig

from a2abench._version import __version__
from a2abench.cli import _common, _data, _demo, _discover, _rate, _report, _run, _serve

EXIT_CODES_HELP = (
    "Exit codes: 0 success · 1 the work could not be done (unreachable agent, bad data, bug) · "
    "2 usage error · 3 --fail-under not met (score below it, missing or incomplete) · "
    "130 interrupted · 143 terminated (SIGTERM)."
)

app = typer.Typer(
    name="a2abench",
    help=(
        "Benchmark any A2A agent on tau2-bench and CRMArena with official-fidelity scores.\n\n"
        "Example: a2abench discover http://127.0.0.1:9999"
    ),
    epilog=EXIT_CODES_HELP + " Every flag also reads an A2ABENCH_<FLAG> environment variable.",
    no_args_is_help=True,
    add_completion=False,
    # Markdown/markup parsing costs ~100 ms of imports on every --help; panels stay Rich.
    rich_markup_mode=None,
    pretty_exceptions_show_locals=False,
    cls=_common.Group,
)


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"a2abench {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version_callback, is_eager=True,
                     help="Print the version and exit."),
    ] = False,
) -> None:
    """Benchmark any A2A agent on tau2-bench and CRMArena."""


app.command("demo", epilog=EXIT_CODES_HELP)(_demo.demo)
app.command("discover", epilog=EXIT_CODES_HELP)(_discover.discover)
app.add_typer(_run.app, name="run")
app.command("serve-green", epilog=EXIT_CODES_HELP)(_serve.serve_green)
app.command("report", epilog=EXIT_CODES_HELP)(_report.report)
app.command("rate", epilog=EXIT_CODES_HELP)(_rate.rate)
app.add_typer(_data.app, name="data")


def repeated_agents(argv: list[str]) -> list[str]:
    """`run ... --white-agent-url A --white-agent-url B` (a cross-play run's agents): the
    second and later as `--participant agent_2=B`, ... (RunConfig keeps one white agent URL;
    the others are participants like any other, docs/multi-agent.md)."""
    if not argv or argv[0] != "run":
        return argv
    out: list[str] = []
    seen, i = 0, 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return out + argv[i:]
        value: str | None = None
        if arg == "--white-agent-url" and i + 1 < len(argv):
            value, i = argv[i + 1], i + 2
        elif arg.startswith("--white-agent-url="):
            value, i = arg.partition("=")[2], i + 1
        else:
            out.append(arg)
            i += 1
            continue
        seen += 1
        out += (["--white-agent-url", value] if seen == 1
                else ["--participant", f"agent_{seen}={value}"])
    return out


@functools.cache
def _command() -> Any:
    """The click command tree, built once per process: `app(...)` rebuilds it on every call
    (~10 ms of signatures and type hints), which callers running several commands in one
    process pay each time (the test suite runs hundreds)."""
    return typer.main.get_command(app)


def _call(**kwargs: Any) -> None:
    """`app(**kwargs)` on the cached command, with Typer's own handling of an uncaught error
    (its excepthook and the pretty-traceback settings it attaches to the exception)."""
    if sys.excepthook != typer.main.except_hook:
        sys.excepthook = typer.main.except_hook
    try:
        _command()(**kwargs)
    except Exception as exc:
        setattr(exc, typer.main._typer_developer_exception_attr_name, DeveloperExceptionConfig(
            pretty_exceptions_enable=app.pretty_exceptions_enable,
            pretty_exceptions_show_locals=app.pretty_exceptions_show_locals,
            pretty_exceptions_short=app.pretty_exceptions_short))
        raise


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point: runs the app and renders domain errors once."""
    from a2abench.errors import A2ABenchError

    try:
        _call(args=repeated_agents(sys.argv[1:] if argv is None else argv), prog_name="a2abench")
    except A2ABenchError as exc:
        from a2abench.render.output import Output
        from a2abench.run.config import redact_url_credentials

        Output.for_command().error(redact_url_credentials(exc.render()))
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        # Ctrl-C outside a command body (Typer maps the in-command case to 130 itself).
        sys.exit(130)
    finally:
        if argv is None:  # the console script: the process ends here
            # Every object into the permanent generation: the interpreter's collections
            # at exit then skip them (they walked ~40,000 objects: 50-100 ms of each
            # command; docs/performance.md). What is no longer referenced is still freed;
            # only reference cycles are left to the process's end.
            import gc

            gc.freeze()
