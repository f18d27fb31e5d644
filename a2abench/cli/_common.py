"""Option types shared by several commands. Each flag also reads A2ABENCH_<FLAG>."""

from pathlib import Path
from typing import Annotated, Any

import typer


def env(flag: str) -> str:
    """`--white-agent-url` -> `A2ABENCH_WHITE_AGENT_URL` (`--probe/--no-probe` -> `..._PROBE`)."""
    return "A2ABENCH_" + flag.split("/")[0].lstrip("-").replace("-", "_").upper()


def opt(flag: str, help: str, **kwargs: Any) -> typer.models.OptionInfo:
    option: typer.models.OptionInfo = typer.Option(
        flag, envvar=env(flag), help=help, **kwargs)
    return option


JsonFlag = Annotated[bool, opt("--json", "Print machine-readable JSON on stdout; "
                                         "everything else goes to stderr.")]
Timeout = Annotated[float, opt("--timeout", "Seconds one A2A request may take, whole (connect, "
                                           "send, every read, a whole stream).", min=0.001)]
Transport = Annotated[str | None, opt(
    "--transport", "Force the A2A binding: jsonrpc | http-json | grpc [default: the card's "
    "first supported interface, 1.0 before 0.3, JSON-RPC first among equals].",
    show_default=False)]
Streaming = Annotated[bool, opt(
    "--streaming/--no-streaming", "Send each message as a streaming call (SSE / gRPC stream) "
    "and assemble the reply from its events; needs the card's capabilities.streaming. The "
    "default is blocking calls.")]
AuthToken = Annotated[str | None, opt("--auth-token", "Bearer token sent to the agent "
                                                      "(prefer the environment variable).",
                                      show_default=False)]

# run flags shared by every benchmark
WhiteAgentUrl = Annotated[str, opt("--white-agent-url", "Base URL (or card URL) of the agent "
                                                        "under test.", show_default=False)]
TaskIds = Annotated[list[str] | None, opt("--task-ids", "Only these task ids (repeatable).",
                                          show_default=False)]
MaxTasks = Annotated[int | None, opt("--max-tasks", "Run at most N tasks (after filters).",
                                     min=1, show_default=False)]
NumTrials = Annotated[int, opt("--num-trials", "Trials per task (pass^k uses them).", min=1)]
Concurrency = Annotated[int, opt("--concurrency", "Task-trials in flight at once.", min=1)]
RateLimit = Annotated[float | None, opt("--rate-limit", "Max A2A requests per second per host.",
                                        min=0.001, show_default=False)]
Seed = Annotated[int, opt("--seed", "Run seed; per-trial seeds derive from it.",
                          min=-(2**63), max=2**63 - 1)]
OutputPath = Annotated[Path | None, opt("--output", "Metrics file (a path with a suffix, or an "
                                                    "existing file) or a directory (an existing "
                                                    "one, a path ending in /, or a new path "
                                                    "without a suffix) [default: "
                                                    "runs/<time>_<bench>_<domain>/].",
                                        show_default=False)]
Resume = Annotated[bool, opt("--resume", "Skip task-trials already recorded in --output.")]
RetryErrors = Annotated[bool, opt("--retry-errors", "With --resume: re-run task-trials that "
                                                    "ended in an infrastructure error.")]
Shard = Annotated[str | None, opt("--shard", "Run shard I of N, written I/N (1-based).",
                                  show_default=False)]
def _score_threshold(value: float | None) -> float | None:
    """Scores are in [0, 1]: nan, infinities and values outside can never mean anything."""
    import math

    if value is not None and not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise typer.BadParameter(f"{value!r} is not a score between 0 and 1.")
    return value


FailUnder = Annotated[float | None, opt("--fail-under", "Exit 3 when the score is below X "
                                                        "(0-1), missing, or incomplete.",
                                        show_default=False, callback=_score_threshold)]
AllowIncomplete = Annotated[bool, opt("--allow-incomplete", "Let --fail-under pass on a score "
                                                            "that leaves task-trials unscored "
                                                            "(infrastructure/harness errors).")]
Retries = Annotated[int, opt("--retries", "Retries of a transient A2A failure (connect errors, "
                                          "timeouts, 429/502/503/504).", min=0)]
RetryDelay = Annotated[float, opt("--retry-delay", "First retry delay in seconds (doubles, "
                                                   "with jitter; Retry-After wins).", min=0)]
TaskTimeout = Annotated[float | None, opt(
    "--task-timeout", "Seconds one task-trial may take in all; passing it while the agent "
                      "answers is the agent's error [default: no limit].",
    min=0.001, show_default=False)]
MaxReplyBytes = Annotated[int, opt("--max-reply-bytes", "Largest reply accepted from the agent "
                                                        "or an LLM endpoint, in bytes "
                                                        "(16000000 = 16 MB).", min=1024)]
AllowHost = Annotated[list[str] | None, opt(
    "--allow-host", "Hosts the run may contact besides --white-agent-url's (card interfaces, "
                    "redirects, data downloads, the Salesforce login), and the only other "
                    "hosts that get --auth-token; repeatable: a name glob, host:port or an IP "
                    "network (docs/limits.md) [default: any host, token to the "
                    "--white-agent-url host only].", show_default=False)]
MaxConsecutiveFailures = Annotated[int, opt(
    "--max-consecutive-failures",
    "Stop the run when the agent was unreachable for N task-trials in a row.", min=1)]
UserLLM = Annotated[str | None, opt("--user-llm", "Model of the user simulator.",
                                    show_default=False)]
UserLLMBaseUrl = Annotated[str | None, opt("--user-llm-base-url", "OpenAI-compatible base URL "
                                                                  "for the user and judge LLMs.",
                                           show_default=False)]
UserLLMArgs = Annotated[str | None, opt(
    "--user-llm-args", "JSON object of extra LLM arguments, e.g. '{\"temperature\": 0}'.",
    show_default=False)]
JudgeLLM = Annotated[str | None, opt(
    "--judge-llm", "Model of the LLM judge. tau2: unset = no judge (NL assertions skipped); "
                   "crmarena: unset = gpt-4o-2024-08-06 (upstream's), 'offline' = "
                   "deterministic scoring.", show_default=False)]
JudgeLLMBaseUrl = Annotated[str | None, opt("--judge-llm-base-url", "Base URL for the judge LLM "
                                                                "[default: --user-llm-base-url].",
                                            show_default=False)]
LLMCache = Annotated[bool, opt("--llm-cache/--no-llm-cache", "Cache LLM responses on disk.")]
DataDir = Annotated[Path | None, opt("--data-dir", "Local data directory laid out like "
                                                   "upstream's data/.", show_default=False)]


class Group(typer.core.TyperGroup):
    """A command group whose `--help` flag defaults to False instead of None.

    Typer coerces every processed value that is not already a bool through a pydantic
    TypeAdapter, built on first use; a group's own `--help`, absent from `a2abench run tau2
    --help`, arrives as None, and building that one adapter imports pydantic (~80 ms, half of
    a sub-command's help). A bool default skips it; parsing and help text are unchanged.
    """

    def get_help_option(self, ctx: Any) -> Any:
        option = super().get_help_option(ctx)
        if option is not None and option.default is None:
            option.default = False
        return option
