"""`a2abench report`: aggregate metrics.jsonl files into a report."""

from pathlib import Path
from typing import Annotated

import typer

from a2abench.cli import _common as c


def report(
    paths: Annotated[list[Path], typer.Argument(help="metrics.jsonl files (shards, resumed "
                                                     "runs).", show_default=False)],
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
    model_name: Annotated[str | None, c.opt(
        "--model-name", "tau2-submission: the evaluated model/agent.", show_default=False)]
    = None,
    model_organization: Annotated[str | None, c.opt(
        "--model-organization", "tau2-submission: who made the model.", show_default=False)]
    = None,
    submitting_organization: Annotated[str | None, c.opt(
        "--submitting-organization", "tau2-submission: who ran the evaluation "
                                     "[default: --model-organization].", show_default=False)]
    = None,
    contact_email: Annotated[str | None, c.opt(
        "--contact-email", "tau2-submission: contact e-mail.", show_default=False)] = None,
    contact_name: Annotated[str | None, c.opt(
        "--contact-name", "tau2-submission: contact name.", show_default=False)] = None,
    submission_notes: Annotated[str | None, c.opt(
        "--submission-notes", "tau2-submission: extra methodology notes.",
        show_default=False)] = None,
) -> None:
    """Aggregate one or many metrics.jsonl files (shards, resumes) into a report.

    With GITHUB_STEP_SUMMARY set, the table and markdown formats are also appended there.

    Example: a2abench report runs/*/metrics.jsonl --format markdown --fail-under 0.6
    """
    import asyncio

    from a2abench.errors import write_output
    from a2abench.render.display import render_report
    from a2abench.render.output import Output
    from a2abench.report import build_report, gate, render, step_summary

    _refuse_overwrite(paths, output)
    if compare:
        _compare(paths, format, output)
        return
    if format == "tau2-submission":
        from a2abench.cli._submission import write_submission

        write_submission(paths, output, model_name, model_organization,
                         submitting_organization, contact_email, contact_name,
                         submission_notes)
        return
    if rescore:
        from a2abench.report.rescore import rescore_files

        target = rescored_output or paths[0].with_suffix(".rescored.jsonl")
        from a2abench.options import parse_pairs

        asyncio.run(rescore_files(paths, target, parse_pairs(scoring, "--scoring")))
        paths = [target]
    rep = build_report(paths)
    out = Output.for_command(format == "json" and output is None)
    if format == "table" and output is None:
        render_report(rep, out)
    else:
        for warning in rep.warnings:
            out.warn(warning)
        text = render(rep, "markdown" if format == "table" else format, paths)
        if output is not None:
            write_output(output, text)
            out.err.print(f"wrote {output}", markup=False)
        else:
            typer.echo(text)
    if format in ("table", "markdown"):
        step_summary(render(rep, "markdown", paths))
    if fail_under is not None:
        gate.check(rep, fail_under, allow_incomplete=allow_incomplete)


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
    from a2abench.errors import ConfigError, write_output
    from a2abench.render.output import Output
    from a2abench.report import step_summary
    from a2abench.report.compare import compare, to_markdown

    if format not in ("table", "markdown", "json", "html"):
        raise ConfigError(f"--compare writes table, markdown, json or html, not {format!r}")
    comparison = compare(paths)
    out = Output.for_command(format == "json" and output is None)
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
        if format == "html":
            from a2abench.report.html import compare_html

            text = compare_html(comparison, [[Path(f) for f in g] for g in comparison.files])
        elif format == "json":
            text = comparison.model_dump_json(indent=2, exclude={"reports"})
        else:
            text = to_markdown(comparison)
        if output is not None:
            write_output(output, text)
            out.err.print(f"wrote {output}", markup=False)
        else:
            typer.echo(text)
    if format in ("table", "markdown"):
        step_summary(to_markdown(comparison))
