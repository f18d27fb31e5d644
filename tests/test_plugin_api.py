"""Pin the plugin surface (`a2abench.plugin`: its stable core, and the provisional names only
the built-ins use) and check that `Driver` is generic over its options model, so changing
either is a deliberate act."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

import a2abench.plugin
from a2abench.plugin import Driver, TaskContext, TaskOutcome, TaskSpec

# The stable core: what a third-party benchmark may rely on (docs/writing-a-benchmark.md,
# "The door"). A name is added deliberately, and never removed or changed without a
# deprecation: this list is the contract, as httpx pins its `__all__`.
CORE = [
    # the benchmark interface
    "Driver", "TaskSpec", "TaskContext", "TaskOutcome", "TaskStatus", "TaskRecord", "Scoring",
    "Skill", "DataSet", "Exporter", "ExportFormat", "ExportResult", "iter_records",
    # talking to the agent
    "Conversation", "AgentReply", "Part", "TextPart", "DataPart", "FilePart", "TaskState",
    # the rules that keep an agent from escaping its score
    "agent_input", "evaluator_failure", "loads", "DEFAULT_MAX_DEPTH", "is_success",
    # errors
    "A2ABenchError", "AgentError", "ProtocolError", "InfrastructureError", "LLMError",
    "ConfigError", "DataError", "DataMissing", "DataCorrupt",
    # options and LLMs
    "option", "LLMOptions", "build_llm", "ChatLLM", "ChatResult",
    # data
    "RemoteFile", "ensure_files", "cache_dir",
    # registration
    "ENTRY_POINT_GROUP", "register", "unregister", "A2ABENCH_VERSION",
]
# What only the built-ins need: no stability promise, but every change is deliberate too.
PROVISIONAL = [
    "CallRejected", "McpChannel", "ToolChannelOptions", "ToolResult", "ToolSession",
    "ToolSpec",  # the MCP tool channel (issue 25)
    "EmbeddingClient", "LLMConfig", "LLMUsage", "api_key_from_env",
    "DataProgress", "git_blob_sha1_file", "raw_base", "sha256_file",
    "DEFAULT_MAX_TOOL_CALLS", "ReplyLimitExceeded", "check_count", "raw_decode",
    "ErrorInfo", "RecordsError", "SCORED_STATUSES", "failed_reward", "egress_refusal",
    "Scenario", "Participant", "Forfeit", "participant_input",  # multi-party (issue 37)
    "Lineup", "DELEGATE", "DELEGATE_DESCRIPTION", "DELEGATE_PARAMETERS", "SPECIALIST",
    "DelegateRefused", "DelegationOptions", "Delegations", "refusal_text", "team_scenario",
    "GOLD_SPECIALIST", "DELEGATING_AGENT", "NO_SPECIALIST",  # scenario team (issue 38)
    "BudgetSpent",  # a delegation whose byte budget ran out (issue 38)
    "gc_paused",  # large acyclic builds (tau2's task files) without collector passes
]
GUIDE = Path(__file__).resolve().parents[1] / "docs" / "writing-a-benchmark.md"


def test_the_stable_core_is_pinned() -> None:
    assert sorted(a2abench.plugin.__all__) == sorted(CORE)
    for name in CORE:
        assert getattr(a2abench.plugin, name) is not None
    assert a2abench.plugin.ENTRY_POINT_GROUP == "a2abench.benchmarks"


def test_the_provisional_names_are_pinned_and_apart_from_the_core() -> None:
    from a2abench.plugin import provisional

    assert sorted(provisional.__all__) == sorted(PROVISIONAL)
    assert set(CORE).isdisjoint(PROVISIONAL)
    for name in PROVISIONAL:
        assert getattr(provisional, name) is not None
    assert "PROVISIONAL" in (provisional.__doc__ or "").split("\n")[0]


def test_every_core_name_is_documented() -> None:
    """In the module's docstring and in the guide's section on the door."""
    import re

    section = GUIDE.read_text(encoding="utf-8").split("\n## The door", 1)[1].split("\n## ")[0]
    doc = a2abench.plugin.__doc__ or ""

    def missing(text: str) -> list[str]:
        return [n for n in CORE if not re.search(rf"`{n}[`(\[.]", text)]

    assert missing(section) == [] and missing(doc) == []


def test_status_and_termination_values_are_literal_types() -> None:
    statuses = set(typing.get_args(a2abench.plugin.TaskStatus))
    assert {"ok", "agent_error", "infrastructure_error", "harness_error"} <= statuses
    from a2abench.run.driver import EngineTermination

    assert set(typing.get_args(EngineTermination)) == {
        "task_timeout", "agent_error", "infrastructure_error", "harness_error"}


class Opts(BaseModel):
    n: int = 2


class Bench(Driver[Opts]):
    name = "generic-check"

    def tasks(self) -> list[TaskSpec]:
        return [TaskSpec(task_id=str(i)) for i in range(self.options.n)]  # typed: Opts.n

    async def run_task(self, ctx: TaskContext) -> TaskOutcome:
        return TaskOutcome(reward=1.0)


def test_driver_is_generic_over_its_options() -> None:
    assert Driver[Opts].__origin__ is Driver  # type: ignore[attr-defined]
    assert typing.get_args(Bench.__orig_bases__[0]) == (Opts,)  # type: ignore[attr-defined]
    bench = Bench(Opts(n=3))
    assert isinstance(bench.options, Opts) and len(bench.tasks()) == 3


def test_the_type_argument_alone_declares_the_options_model() -> None:
    assert Bench.options_model is Opts

    class Other(BaseModel):
        pass

    with pytest.raises(TypeError, match=r"Driver\[Opts\] already declares"):
        class Twice(Driver[Opts]):
            options_model = Other

            def tasks(self) -> list[TaskSpec]:
                return []

            async def run_task(self, ctx: TaskContext) -> TaskOutcome:
                return TaskOutcome()


def test_the_guides_hook_table_is_generated_from_driver(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "scripts" / "gen_hook_table.py"
    monkeypatch.syspath_prepend(str(script.parent))  # its sibling _generated.py
    spec = importlib.util.spec_from_file_location("gen_hook_table", script)
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    text = gen.TARGET.read_text(encoding="utf-8")
    assert gen.render(text) == text, "run python scripts/gen_hook_table.py"
    table = gen.render_table()
    for hook, kind in [("setup", "async method"), ("run_task", "async method"),
                       ("rescore", "async method"), ("aclose", "async method"),
                       ("tasks", "method"), ("compat", "method"), ("exporters", "classmethod"),
                       ("domain", "property"), ("help", "class attribute")]:
        assert f"| `{hook}` | {kind} |" in table, hook


def test_a_plugin_declares_its_pinned_data_for_the_data_command() -> None:
    from a2abench import data
    from a2abench.plugin import DataSet, RemoteFile, register, unregister

    class Pinned(Bench):
        @classmethod
        def data_sets(cls) -> list[DataSet]:
            files = (RemoteFile("q.json", "http://127.0.0.1:9/q.json", "0" * 64),)
            return [DataSet("questions", "pinned/1", files, "the questions"),
                    DataSet("big", "pinned/1", files, "a large extra", large=True)]

    register("pinned", Pinned)
    try:
        every = data.file_sets(["pinned"])  # type: ignore[list-item]
        small = data.file_sets(["pinned"], org_dbs=False)  # type: ignore[list-item]
    finally:
        unregister("pinned")
    assert [(s.benchmark, s.name) for s in every] == [("pinned", "questions"), ("pinned", "big")]
    assert [s.name for s in small] == ["questions"]
    assert [s.name for s in data.file_sets(["crmarena"], org_dbs=False)] == ["texts", "reference"]
