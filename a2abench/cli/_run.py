"""`a2abench run <benchmark>`: flags -> RunConfig -> the run engine -> rendered summary."""

from pathlib import Path
from typing import Annotated, Any

import typer

from a2abench.cli import _common as c
from a2abench.cli._flags import RunFlags, llm_flags, run_flags
from a2abench.cli._launch import launch_run
from a2abench.cli._plugin import plugin_command


class _BenchmarkGroup(c.Group):
    """`run` lists tau2, crmarena and every benchmark registered by an installed package."""

    # `ctx` is Typer's click Context and the result a click Command; Typer vendors click and
    # names neither publicly, so they stay untyped here (no import of its private module).
    def list_commands(self, ctx: Any) -> list[str]:
        from a2abench.run.registry import names

        return sorted(set(super().list_commands(ctx)) | set(names()))

    def get_command(self, ctx: Any, name: str) -> Any:
        command = super().get_command(ctx, name)
        if command is not None:
            return command
        from a2abench.run.registry import names

        return plugin_command(name) if name in names() else None


app = typer.Typer(
    help="Run a benchmark against an A2A agent and write metrics.jsonl.",
    no_args_is_help=True,
    rich_markup_mode=None,
    cls=_BenchmarkGroup,
)


def _require(benchmark: str) -> None:
    from a2abench.errors import NotAvailableYet
    from a2abench.run.registry import names

    if benchmark not in names():
        raise NotAvailableYet(f"`run {benchmark}` is not available in this version yet",
                              hint="Use `a2abench discover URL` to check an agent meanwhile.")


@app.command("tau2", epilog="Example: a2abench run tau2 --white-agent-url http://127.0.0.1:9999 "
                            "--domain airline --user-llm gpt-4.1 --max-tasks 5")
@run_flags
@llm_flags
def run_tau2(
    flags: RunFlags,
    llm: dict[str, Any],
    domain: Annotated[str, c.opt("--domain", "airline | retail | mock | telecom | "
                                             "banking_knowledge.")] = "airline",
    split: Annotated[str, c.opt("--split", "Task split: base | train | test "
                                           "(telecom also small | full).")] = "base",
    data_dir: c.DataDir = None,
    max_steps: Annotated[int, c.opt("--max-steps", "Max conversation hops.", min=1)] = 200,
    max_errors: Annotated[int, c.opt("--max-errors", "Max tool errors per task.", min=1)] = 10,
    reward_basis: Annotated[str, c.opt("--reward-basis", "official | classic (retail scored "
                                                         "DB+COMMUNICATE as in v0.2).")]
    = "official",
    policy: Annotated[str, c.opt("--policy", "Telecom policy: manual | workflow.")] = "manual",
    tool_call_format: Annotated[str, c.opt(
        "--tool-call-format", "Where tool calls are read: any (DataParts, or a text reply "
                              "that is one whole call) | datapart (DataParts only; text goes "
                              "to the user) | tags (<json> tags, as tau2's agentify example)."
    )] = "any",
    solo: Annotated[bool, c.opt("--solo", "Solo mode (mock, telecom): no user simulator; the "
                                          "agent gets the ticket and the user's tools, and "
                                          "calls `done` when finished.")] = False,
    retrieval_variant: Annotated[str | None, c.opt(
        "--retrieval-variant", "banking_knowledge retrieval: bm25_grep (default) | bm25 | "
                               "grep_only | full_kb | golden_retrieval | no_knowledge; with "
                               "--embedding-llm: openai_embeddings[_grep] | "
                               "qwen_embeddings[_grep]; add _reranker (bm25_reranker[_grep] "
                               "too) with --reranker-llm.")] = None,
    embedding_llm: Annotated[str | None, c.opt(
        "--embedding-llm", "Embedding model for the *_embeddings variants [default: "
                           "text-embedding-3-large; qwen_*: qwen/qwen3-embedding-8b].",
        show_default=False)] = None,
    embedding_llm_base_url: Annotated[str | None, c.opt(
        "--embedding-llm-base-url", "OpenAI-compatible endpoint serving /embeddings (key from "
                                    "OPENAI_API_KEY; qwen_*: OpenRouter, OPENROUTER_API_KEY).",
        show_default=False)] = None,
    reranker_llm: Annotated[str | None, c.opt(
        "--reranker-llm", "Chat model rating documents for the *_reranker variants "
                          "[default: gpt-5.2].", show_default=False)] = None,
    reranker_llm_base_url: Annotated[str | None, c.opt(
        "--reranker-llm-base-url", "OpenAI-compatible chat endpoint of --reranker-llm (key "
                                   "from OPENAI_API_KEY).", show_default=False)] = None,
    prompt_style: Annotated[str, c.opt("--prompt-style", "Message format: a2abench | "
                                                         "agentbeats (the stock AgentBeats "
                                                         "tau2 green) | agentify (tau2's "
                                                         "agentify example).")] = "a2abench",
) -> None:
    """Run tau2-bench (airline, retail, mock, telecom, banking_knowledge) against an A2A
    agent."""
    _require("tau2")
    launch_run("tau2", {"domain": domain, "split": split, "data_dir": data_dir,
                        "max_steps": max_steps, "max_errors": max_errors,
                        "reward_basis": reward_basis, "policy": policy,
                        "tool_call_format": tool_call_format, "solo": solo,
                        "prompt_style": prompt_style,
                        "retrieval_variant": retrieval_variant, "embedding_llm": embedding_llm,
                        "embedding_llm_base_url": embedding_llm_base_url,
                        "reranker_llm": reranker_llm,
                        "reranker_llm_base_url": reranker_llm_base_url, **llm}, flags)


@app.command("crmarena", epilog="Example: a2abench run crmarena --white-agent-url "
                                "http://127.0.0.1:9999 --org b2b --task-category handle_time")
@run_flags
@llm_flags
def run_crmarena(
    flags: RunFlags,
    llm: dict[str, Any],
    dataset: Annotated[str | None, c.opt("--dataset", "crmarenapro | crmarena [default: "
                                                      "crmarena with --org original, else "
                                                      "crmarenapro].", show_default=False)]
    = None,
    org: Annotated[str | None, c.opt("--org", "b2b | b2c | original [default: original with "
                                              "--dataset crmarena, else b2b].",
                                     show_default=False)] = None,
    tasks_file: Annotated[Path | None, c.opt("--tasks-file", "Tasks as JSON or JSONL in the "
                                                             "Hugging Face row format.",
                                             show_default=False)] = None,
    schema_file: Annotated[Path | None, c.opt("--schema-file", "Org schema records as JSON "
                                                               "(default: the hub's, or our own "
                                                               "catalog with --tasks-file).",
                                              show_default=False)] = None,
    task_category: Annotated[str, c.opt("--task-category", "Comma list of categories, "
                                                           "or all.")] = "all",
    interactive: Annotated[bool, c.opt("--interactive", "Multi-turn with an LLM user.")] = False,
    max_turns: Annotated[int, c.opt("--max-turns", "Max agent actions per task.", min=1)] = 20,
    max_user_turns: Annotated[int, c.opt("--max-user-turns", "Max user turns (interactive).",
                                         min=1)] = 10,
    backend: Annotated[str, c.opt("--backend", "sandbox (local SQLite org) | salesforce.")]
    = "sandbox",
    crm_db: Annotated[Path | None, c.opt("--crm-db", "SQLite org dump to query.",
                                         show_default=False)] = None,
    privacy_aware: Annotated[bool, c.opt("--privacy-aware", "Use the privacy-aware prompt.")]
    = False,
    aided: Annotated[bool, c.opt("--aided/--no-aided", "Add the task's optional context "
                                                       "(upstream's aided mode).")] = True,
) -> None:
    """Run CRMArena or CRMArena-Pro against an A2A agent."""
    _require("crmarena")
    launch_run("crmarena", {"dataset": dataset, "org": org, "tasks_file": tasks_file,
                            "task_category": task_category, "interactive": interactive,
                            "max_turns": max_turns, "max_user_turns": max_user_turns,
                            "backend": backend, "crm_db": crm_db, "schema_file": schema_file,
                            "privacy_aware": privacy_aware, "aided": aided, **llm}, flags)
