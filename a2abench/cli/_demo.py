"""`a2abench demo`: an offline run on generated data with the bundled scripted agent."""

from enum import StrEnum
from pathlib import Path
from typing import Annotated

from a2abench.cli import _common as c


class ToolChannel(StrEnum):
    a2a = "a2a"
    mcp = "mcp"


def demo(
    output: Annotated[Path | None, c.opt("--output", "Directory for the demo's data and "
                                                     "metrics [default: runs/demo-<time>/].",
                                         show_default=False)] = None,
    white_agent_url: Annotated[str | None, c.opt(
        "--white-agent-url", "Benchmark this A2A agent instead of the bundled scripted one "
                             "(same generated data and scripted user, still offline).",
        show_default=False)] = None,
    tool_channel: Annotated[ToolChannel, c.opt(
        "--tool-channel", "Where the agent finds its tools: a2a (in its messages) | mcp (an "
                          "MCP server per task-trial; the bundled agent is then the MCP "
                          "example agent).")
    ] = ToolChannel.a2a,
    json_: c.JsonFlag = False,
) -> None:
    """Run a short benchmark offline: no network, no API key, about 10 seconds.

    Example: a2abench demo --white-agent-url http://127.0.0.1:9019
    """
    import asyncio
    from datetime import UTC, datetime

    from a2abench.demo import explain, run_demo
    from a2abench.render.display import make_display, render_report
    from a2abench.render.output import Output
    from a2abench.report import build_report

    out = Output.for_command(json_)
    target = output or Path("runs") / datetime.now(UTC).strftime("demo-%Y%m%dT%H%M%SZ")
    result = asyncio.run(run_demo(target, make_display(out), white_agent_url,
                                  tool_channel.value))
    for benchmark, path in result.metrics.items():
        report = build_report([path])
        note = explain(benchmark, report.passed, report.scored) if result.scripted else None
        if json_:
            out.emit_json({"kind": "report", "benchmark": benchmark, "note": note,
                           **report.model_dump(mode="json")})
        else:
            out.out.print(f"\n[bold]{benchmark}[/bold] — {path}", highlight=False)
            render_report(report, out)
            if note:
                out.out.print(f"Why: {note}", markup=False, highlight=False)
    out.err.print(f"demo finished in {result.duration_s:.1f} s; metrics in {result.output}",
                  markup=False)
