"""What every `run <benchmark>` command does after parsing: build the RunConfig, run the
engine with the display the environment asks for, print the report, map the outcome to an
exit code."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any

import typer


def run_config(benchmark: str, options: dict[str, Any], run: dict[str, Any]) -> Any:
    """The RunConfig of a `run` command: its run flags (RunConfig keywords) and options."""
    from pydantic import ValidationError

    from a2abench.cli._flag_table import RUN
    from a2abench.errors import ConfigError
    from a2abench.run.config import RunConfig

    if run.get("retry_errors") and not run.get("resume"):
        raise ConfigError("--retry-errors needs --resume", hint="Add --resume.")
    try:
        return RunConfig(benchmark=benchmark, options=options, **run)
    except ValidationError as exc:
        error = exc.errors()[0]
        field = str(error["loc"][0]) if error["loc"] else ""
        spec = next((s for s in RUN if s.target == field), None)
        where = f"{spec.flag.split('/')[0]} ({spec.env}): " if spec else ""
        message = error["msg"].removeprefix("Value error, ")
        raise ConfigError(f"invalid run configuration: {where}{message}") from None


def launch_run(benchmark: str, options: dict[str, Any], run: dict[str, Any],
               json_: bool) -> None:
    """Build the RunConfig from a command's flags, then launch."""
    launch(run_config(benchmark, options, run), json_)


def launch(config: Any, json_: bool) -> None:
    """Run, render, exit: 0 ok, 1 failed run (or no task-trial reached the agent), 3 below
    --fail-under (or, A/B, worse than the baseline), 130 interrupted (Ctrl-C), 143
    terminated (SIGTERM)."""
    from a2abench.errors import A2ABenchError
    from a2abench.render.display import make_display, render_report
    from a2abench.render.output import Output
    from a2abench.report import build_report, gate
    from a2abench.run import execute

    out = Output.for_command(json_)
    display = make_display(out)
    try:
        summary = execute(config, display)
    finally:
        stop = getattr(display, "stop", None)
        if stop is not None:
            stop()
    if summary.status == "interrupted":
        from a2abench.run.config import Redactor

        command = Redactor(config.secrets()).text(resume_command(summary.output))
        stopped = "terminated (SIGTERM)" if summary.stopped_by == "SIGTERM" else "Interrupted"
        from a2abench.report.wording import count

        out.err.print(f"{stopped}: {count(summary.ran, 'task-trial')} recorded in "
                      f"{summary.output}. "
                      f"Resume with:\n  {command}", markup=False)
        code = 143 if summary.stopped_by == "SIGTERM" else 130
        if summary.aborted:  # a second signal: leave now, past any thread still working
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        raise typer.Exit(code)
    try:
        report = build_report([summary.output])
    except A2ABenchError as exc:  # the run itself finished: say why there is no summary
        out.warn(f"no report for {summary.output}: {exc.render()}")
        report = None
    if report is not None:
        if json_:
            out.emit_json({"kind": "report", **report.model_dump(mode="json"),
                           **({"roles": report.roles} if report.roles is not None else {})})
        else:
            render_report(report, out)
    _fail_if_unreached(summary)
    if config.fail_under is not None:
        gate.check(report, config.fail_under, allow_incomplete=config.allow_incomplete)
    if config.baseline is not None and config.adaptive_gate:  # better/equal 0, worse 3
        gate.check_baseline(report)


def _fail_if_unreached(summary: Any) -> None:
    """Exit 1 when no task-trial of this session reached the agent: nothing was measured."""
    from a2abench.errors import AgentUnreachable

    if summary.ran and summary.counts.infra_errors == summary.ran:
        first = summary.first_infra_error or ""
        # An LLM's failure (its class: LLMError, LLMAuthError, ...) is not the agent's: the
        # message names the LLM (its role, flag and model), the hint sends the user there.
        check = ("The agent was not at fault: check that LLM's model, base URL and key"
                 if first.startswith("LLM") else "Check the agent and its card's URL")
        raise AgentUnreachable(
            f"no task-trial reached the agent: all {summary.ran} ended in an infrastructure "
            f"error (first: {first})",
            hint=f"{check}; results are in {summary.output}, re-run them with --resume "
                 "--retry-errors.")


def resume_command(output: Path, argv: list[str] | None = None) -> str:
    """The command line that continues this run: same flags, --output pinned, --resume."""
    args = list(sys.argv[1:] if argv is None else argv)
    cleaned: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        name = arg.partition("=")[0]  # tokens (--auth-token, --user-auth-token, ...):
        secret = name.startswith("--") and name.endswith("auth-token")  # from the env
        if arg == "--output" or (secret and "=" not in arg):
            skip = True
            continue
        if arg.startswith("--output=") or secret or arg == "--resume":
            continue
        cleaned.append(arg)
    return shlex.join(["a2abench", *cleaned, "--output", str(output), "--resume"])
