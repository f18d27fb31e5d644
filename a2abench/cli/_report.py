"""`a2abench report`: aggregate metrics.jsonl files into a report."""

import contextlib
import functools
import inspect
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._flag_table import EXPORTS
from a2abench.cli._flags import parameter, with_signature

if TYPE_CHECKING:
    from a2abench.render.output import Output
    from a2abench.report import Report
    from a2abench.report.compare import Comparison


def _with_export_flags(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Give `report` each built-in export format's flags, from the generated table (so
    `--help` imports neither pydantic nor a benchmark); they reach `fn` as
    `exports={format: {field: value}}`, only those given."""
    specs = {s.name: (fmt, s._replace(help=f"{fmt}: {s.help}"))
             for fmt, (_, _, flags) in EXPORTS.items() for s in flags}
    own = [p for p in inspect.signature(fn, eval_str=True).parameters.values()
           if p.name != "exports"]
    params = own + [parameter(spec) for _, spec in specs.values()]

    @functools.wraps(fn)
    def command(**kwargs: Any) -> Any:
        exports: dict[str, dict[str, Any]] = {fmt: {} for fmt in EXPORTS}
        for name, (fmt, spec) in specs.items():
            value = kwargs.pop(name)
            if value is not None:
                exports[fmt][spec.target] = value
        return fn(exports=exports, **kwargs)

    return with_signature(command, params)


@_with_export_flags
def report(
    paths: Annotated[list[Path], typer.Argument(help="metrics.jsonl files (shards, resumed "
                                                     "runs), or the run directories holding "
                                                     "them.", show_default=False)],
    exports: dict[str, dict[str, Any]],
    format: Annotated[str, c.opt("--format", "table | json | markdown | html | junit | tau2 | "
                                             "tau2-submission (a leaderboard directory; "
                                             "benchmarks may add formats).")] = "table",
    output: Annotated[Path | None, typer.Option(
        "--output", envvar="A2ABENCH_REPORT_OUTPUT",  # not run's A2ABENCH_OUTPUT: its input
        help="Write the report to this file (never one of the input files).",
        show_default=False)] = None,
    fail_under: c.FailUnder = None,
    allow_incomplete: c.AllowIncomplete = False,
    rescore: Annotated[bool, c.opt("--rescore", "Re-score recorded task-trials (changed judge "
                                                "or scoring) without re-running the agent.")]
    = False,
    scoring: Annotated[list[str] | None, c.opt(
        "--scoring", "With --rescore: benchmark option KEY=VALUE to change (repeatable), "
                     "e.g. judge_llm=gpt-4.1.", show_default=False)] = None,
    compare: Annotated[bool, c.opt("--compare", "Put different runs side by side (b2b vs b2c, "
                                                "two agents...): table, markdown, json or html.")]
    = False,
    rescored_output: Annotated[Path | None, c.opt(
        "--rescored-output", "With --rescore: where to write the re-scored records "
                             "[default: <first file>.rescored.jsonl].", show_default=False)]
    = None,
    format_option: Annotated[list[str] | None, c.opt(
        "--format-option", "An export format's option KEY=VALUE (repeatable; values may be "
                           "JSON); for options without a flag here (a plugin's formats).",
        show_default=False)] = None,
) -> None:
    """Aggregate one or many metrics.jsonl files (shards, resumes) into a report.

    With GITHUB_STEP_SUMMARY set, the table and markdown formats are also appended there.

    Example: a2abench report runs/*/metrics.jsonl --format markdown --fail-under 0.6
    """
    from a2abench.options import parse_pairs

    paths = [_metrics_file(p) for p in paths]
    _refuse_overwrite(paths, output)
    if compare:
        return _compare(paths, format, output)
    if _export(format, paths, output, {**parse_pairs(format_option, "--format-option"),
                                       **exports.get(format, {})}):
        return
    if rescore:
        import asyncio

        from a2abench.report.rescore import rescore_files

        target = rescored_output or paths[0].with_suffix(".rescored.jsonl")
        asyncio.run(rescore_files(paths, target, parse_pairs(scoring, "--scoring")))
        paths = [target]
    _report(paths, format, output, fail_under, allow_incomplete)


def _export(format: str, paths: list[Path], output: Path | None,
            options: dict[str, Any]) -> bool:
    """Write a benchmark's export format (`Driver.export_formats`); False if `format` is
    not one (a built-in format, or a benchmark's text format)."""
    from a2abench.report import BUILTIN_FORMATS

    if format in BUILTIN_FORMATS:
        return False
    from a2abench.report.exports import find_format, write_export

    fmt = find_format(format, paths, EXPORTS[format][0] if format in EXPORTS else None)
    if fmt is None:
        return False
    from a2abench.render.output import Output

    result = write_export(fmt, paths, output, options)
    out = Output.for_command(False)
    for warning in result.warnings:
        out.warn(warning)
    for line in result.lines:
        out.err.print(line, markup=False)
    return True


def _report(paths: list[Path], format: str, output: Path | None, fail_under: float | None,
            allow_incomplete: bool) -> None:
    from a2abench.render.output import Output
    from a2abench.report import build_report, gate, render, step_summary

    page: bytes | None = None
    if format == "html":  # the page's data is gathered in the same pass as the report
        from a2abench.report.html import report_page

        rep, page = report_page(paths)
    else:
        rep = build_report(paths)
    out = Output.for_command(format == "json" and output is None)
    with _reader_may_stop():
        _show(rep, page, out, format, output, paths)
    if format in ("table", "markdown"):
        step_summary(render(rep, "markdown", paths))
    if fail_under is not None:
        gate.check(rep, fail_under, allow_incomplete=allow_incomplete)


@contextlib.contextmanager
def _reader_may_stop() -> Iterator[None]:
    """`report ... | head`: a reader that stops early is no failure. The rest of the report
    goes nowhere, quietly, and the exit code stays the report's own (--fail-under still
    decides it)."""
    from a2abench.render.output import stdout_gone

    try:
        yield
        sys.stdout.flush()
    except BrokenPipeError:
        stdout_gone()


def _show(rep: "Report", page: bytes | None, out: "Output", format: str,
          output: Path | None, paths: list[Path]) -> None:
    from a2abench.errors import write_output
    from a2abench.report import render

    if format == "table" and output is None:
        from a2abench.render.display import render_report

        render_report(rep, out)
    else:
        for warning in rep.warnings:
            out.warn(warning)
        text = page if page is not None else render(rep, "markdown" if format == "table"
                                                    else format, paths)
        if output is not None:
            write_output(output, text)
            out.err.print(f"wrote {output}", markup=False)
        else:
            typer.echo(text.decode() if isinstance(text, bytes) else text)


def _metrics_file(path: Path) -> Path:
    """A run's directory (what `run --output runs/x/` names) stands for its metrics.jsonl."""
    if not path.is_dir():
        return path
    inside = path / "metrics.jsonl"
    if inside.is_file():
        return inside
    from a2abench.errors import RecordsError

    runs = sorted(str(p) for p in path.glob("*/metrics.jsonl"))[:8]
    hint = (f"It holds {', '.join(runs)}: pass one, or several with --compare to put them "
            "side by side." if runs else
            "Pass the metrics.jsonl file a run wrote, or the directory `run --output` named.")
    raise RecordsError(f"{path} is a directory without a metrics.jsonl", hint=hint)


def _refuse_overwrite(paths: list[Path], output: Path | None) -> None:
    """The report must never replace the records it is built from."""
    from a2abench.errors import ConfigError

    if output is None:
        return
    target = output.resolve()
    for path in paths:
        same = (path.exists() and output.exists() and path.samefile(output)) \
            or path.resolve() == target
        if same:
            raise ConfigError(f"--output {output} is one of the input files",
                              hint="Write the report to another path (A2ABENCH_REPORT_OUTPUT "
                                   "sets it for `report`; A2ABENCH_OUTPUT is `run`'s).")


def _compare(paths: list[Path], format: str, output: Path | None) -> None:
    from a2abench.errors import ConfigError
    from a2abench.render.output import Output
    from a2abench.report import step_summary
    from a2abench.report.compare import compare, to_markdown

    if format not in ("table", "markdown", "json", "html"):
        raise ConfigError(f"--compare writes table, markdown, json or html, not {format!r}")
    page: bytes | None = None
    if format == "html":  # the page's data is gathered in the same pass as the reports
        from a2abench.report.html import compare_page

        comparison, page = compare_page(paths)
    else:
        comparison = compare(paths)
    out = Output.for_command(format == "json" and output is None)
    with _reader_may_stop():
        _show_comparison(comparison, page, out, format, output)
    if format in ("table", "markdown"):
        step_summary(to_markdown(comparison))


def _show_comparison(comparison: "Comparison", page: bytes | None, out: "Output", format: str,
                     output: Path | None) -> None:
    from a2abench.errors import write_output
    from a2abench.report.compare import to_markdown

    if format == "table" and output is None:
        from rich.table import Table

        table = Table(title="a2abench comparison", title_justify="left")
        table.add_column("")
        for column in comparison.columns:
            table.add_column(column, justify="right")
        for name, values in comparison.rows:
            table.add_row(name, *("—" if v is None else f"{v:.3f}" for v in values))
        out.out.print(table)
    else:
        text: str | bytes
        if page is not None:
            text = page
        elif format == "json":
            text = comparison.model_dump_json(indent=2, exclude={"reports"})
        else:
            text = to_markdown(comparison)
        if output is not None:
            write_output(output, text)
            out.err.print(f"wrote {output}", markup=False)
        else:
            typer.echo(text.decode() if isinstance(text, bytes) else text)
