"""Flags from options models (a2abench/options.py): how a field becomes a flag, and a plugin's
fields becoming its command's flags."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import pytest
from pydantic import BaseModel, Field

from a2abench.llm import LLMOptions
from a2abench.options import FlagSpec, flag_specs, option, request_keys
from a2abench.run.registry import register, unregister
from tests.clihelp import run_cli
from tests.engine.conftest import agent
from tests.engine.scripted import ScriptedDriver


class _Model(LLMOptions):
    count: int = Field(3, ge=1, le=9, description="How many.")
    rate: float | None = option(None, "Per second.", gt=0)
    mode: Literal["a", "b"] = option("a", "a | b.")
    tags: list[str] = Field(default_factory=list, description="Repeatable.")
    hosts: list[str] = option(help="Hosts.", flag="--host", default_factory=list)
    fast: bool = Field(True, description="Go fast.")
    loud: bool = option(False, "Loud.", negatable=True, request=True)
    where: Path | None = option(None, "A path.", show_default=False)
    url: str = option(help="Required.")


def _specs(model: Any = _Model, **kwargs: Any) -> dict[str, FlagSpec]:
    return {spec.name: spec for spec in flag_specs(model, **kwargs)}


def test_a_field_is_its_flag() -> None:
    specs = _specs()
    assert list(specs)[:9] == ["count", "rate", "mode", "tags", "host", "fast", "loud", "where",
                               "url"]  # own fields first, inherited (the LLM flags) after
    assert specs["count"] == FlagSpec(name="count", flag="--count", kind="int", help="How many.",
                                      default=3, minimum=1, maximum=9)
    assert (specs["rate"].kind, specs["rate"].minimum, specs["rate"].open_min) == ("float", 0, True)
    assert specs["rate"].show_default is False  # nothing to show
    assert (specs["mode"].kind, specs["mode"].default) == ("str", "a")
    assert (specs["tags"].kind, specs["tags"].default) == ("strs", None)
    assert (specs["host"].flag, specs["host"].target, specs["host"].env) == (
        "--host", "hosts", "A2ABENCH_HOST")
    assert specs["fast"].flag == "--fast/--no-fast"  # a True default needs its negation
    assert specs["loud"].flag == "--loud/--no-loud" and specs["loud"].env == "A2ABENCH_LOUD"
    assert specs["where"].show_default is False
    assert specs["url"].required and specs["url"].default is None
    assert specs["user_llm_args"].kind == "str"  # JSON text, parsed by the model
    assert specs["llm_cache"].flag == "--llm-cache/--no-llm-cache"
    assert request_keys(_Model) == {"loud"}


def test_a_field_without_a_flag_form_is_refused_or_left_out() -> None:
    class Nested(BaseModel):
        pairs: dict[str, int] = Field(default_factory=dict)
        count: int = 1

    with pytest.raises(TypeError, match="'pairs'.*has no flag form"):
        flag_specs(Nested)
    assert list(_specs(Nested, lenient=True)) == ["count"]


@pytest.fixture
def plugin() -> Iterator[None]:
    register("flagged", ScriptedDriver)
    yield
    unregister("flagged")


def test_a_plugin_gets_a_flag_per_field(plugin: None) -> None:
    r = run_cli("run", "flagged", "--help")
    assert r.code == 0, r.err
    for flag, variable in [("--tasks", "A2ABENCH_FLAGGED_TASKS"),
                           ("--turns", "A2ABENCH_FLAGGED_TURNS"),
                           ("--strict / --no-strict", "A2ABENCH_FLAGGED_STRICT"),
                           ("--boom-task", "A2ABENCH_FLAGGED_BOOM_TASK"), ("--option", "")]:
        assert flag in r.out and variable in r.out, flag
    assert "default: 10]" in " ".join(r.out.split())  # the model's default, in the help


def _tasks(path: Path) -> int:
    return sum(json.loads(line).get("type") == "task" for line in path.read_text().splitlines())


def test_plugin_flags_set_options_and_win_over_option(plugin: None, tmp_path: Path) -> None:
    with agent() as (_, base):
        by_flag = run_cli("run", "flagged", "--white-agent-url", base, "--output",
                          str(tmp_path / "a.jsonl"), "--tasks", "2", "--turns", "1")
        by_option = run_cli("run", "flagged", "--white-agent-url", base, "--output",
                            str(tmp_path / "b.jsonl"), "--option", "tasks=3", "--turns", "1")
        both = run_cli("run", "flagged", "--white-agent-url", base, "--output",
                       str(tmp_path / "c.jsonl"), "--option", "tasks=3", "--tasks", "1",
                       "--turns", "1")
    assert (by_flag.code, by_option.code, both.code) == (0, 0, 0), by_flag.err + both.err
    assert [_tasks(tmp_path / f"{n}.jsonl") for n in "abc"] == [2, 3, 1]


def test_a_bad_run_flag_names_its_flag_and_variable(tmp_path: Path) -> None:
    from a2abench.cli._launch import run_config
    from a2abench.errors import ConfigError

    with pytest.raises(ConfigError, match=r"--allow-host \(A2ABENCH_ALLOW_HOST\)"):
        run_config("tau2", {}, {"white_agent_url": "http://127.0.0.1:9", "allowed_hosts": 5})


def test_empty_run_flag_values_mean_unset() -> None:
    from a2abench.cli._launch import run_config

    config = run_config("tau2", {}, {"white_agent_url": "http://127.0.0.1:9", "auth_token": "",
                                     "task_ids": [], "allowed_hosts": None, "shard": ""})
    assert (config.auth_token, config.task_ids, config.allowed_hosts, config.shard) == (
        None, None, [], None)


class _OddOptions(BaseModel):
    req: str = Field(description="Required by the model.")
    max_n: int = Field(1, alias="maxN", description="Aliased.")
    pos: int = Field(5, gt=0, lt=10, description="Open bounds.")
    help: str = Field("h", description="Would shadow --help.")


class _OddDriver(ScriptedDriver):
    options_model = _OddOptions  # type: ignore[assignment]
    seen: ClassVar[list[Any]] = []

    def tasks(self) -> list[Any]:
        _OddDriver.seen.append(self.options)
        return []


@pytest.fixture
def odd() -> Iterator[None]:
    register("odd", _OddDriver)
    _OddDriver.seen.clear()
    yield
    unregister("odd")


def _odd(*args: str) -> Any:
    r = run_cli("run", "odd", "--white-agent-url", "http://127.0.0.1:9", *args)
    return r, (_OddDriver.seen[-1] if _OddDriver.seen else None)


def test_plugin_fields_the_cli_cannot_take_as_they_stand(odd: None,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli("run", "odd", "--help").code == 0  # a field named help keeps --option only
    r, opts = _odd("--option", "req=r", "--max-n", "4")
    assert opts is not None, r.err  # the required field came through --option
    assert (opts.req, opts.max_n) == ("r", 4)  # the alias is what the model reads
    r, _ = _odd("--option", "req=r", "--pos", "0")
    assert r.code == 2 and "--pos" in r.err  # gt=0 on an integer: 1 is the least
    monkeypatch.setenv("A2ABENCH_ODD_MAX_N", "2")
    _, opts = _odd("--option", "req=r")
    assert opts is not None and opts.max_n == 2  # the benchmark's own variable
    _, opts = _odd("--option", "req=r", "--option", "maxN=7")
    assert opts is not None and opts.max_n == 7  # --option beats the variable
    _, opts = _odd("--option", "req=r", "--option", "maxN=7", "--max-n", "3")
    assert opts is not None and opts.max_n == 3  # the flag beats --option


class _QuizOptions(BaseModel):
    max_turns: int = Field(3, ge=1, le=5, description="Turns per question.")


class _QuizDriver(_OddDriver):
    options_model = _QuizOptions  # type: ignore[assignment]


def test_a_variable_set_for_another_benchmark_never_reaches_a_plugin(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A2ABENCH_MAX_TURNS=20, set for CRMArena, made a third-party `run quiz` exit 2: each
    benchmark's options now read their own prefix (issue 36)."""
    register("quiz", _QuizDriver)
    _OddDriver.seen.clear()
    try:
        monkeypatch.setenv("A2ABENCH_MAX_TURNS", "20")
        monkeypatch.setenv("A2ABENCH_CRMARENA_MAX_TURNS", "20")
        r = run_cli("run", "quiz", "--white-agent-url", "http://127.0.0.1:9")
        assert _OddDriver.seen and _OddDriver.seen[-1].max_turns == 3, r.err
        assert "deprecated" not in r.err  # a plugin never read the unscoped names
        monkeypatch.setenv("A2ABENCH_QUIZ_MAX_TURNS", "4")
        run_cli("run", "quiz", "--white-agent-url", "http://127.0.0.1:9")
        assert _OddDriver.seen[-1].max_turns == 4
        help_text = run_cli("run", "quiz", "--help").out
        assert "A2ABENCH_QUIZ_MAX_TURNS" in help_text and "A2ABENCH_MAX_TURNS" not in help_text
    finally:
        unregister("quiz")


def test_a_built_ins_old_variable_still_works_with_a_deprecation_note(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from a2abench.cli import _benchmark

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(_benchmark, "launch_run", lambda name, options, run, json_:
                        seen.append(options))
    monkeypatch.setenv("A2ABENCH_MAX_STEPS", "7")
    r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9")
    assert seen[-1]["max_steps"] == 7, r.err
    assert "warning: A2ABENCH_MAX_STEPS is deprecated for tau2: set A2ABENCH_TAU2_MAX_STEPS" \
        in r.err
    monkeypatch.setenv("A2ABENCH_TAU2_MAX_STEPS", "8")  # the scoped name wins, silently
    r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9")
    assert seen[-1]["max_steps"] == 8 and "deprecated" not in r.err
    monkeypatch.setenv("A2ABENCH_CRMARENA_MAX_TURNS", "3")  # CRMArena's: not tau2's business
    monkeypatch.setenv("A2ABENCH_CRMARENA_DOMAIN", "retail")
    run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9")
    assert "domain" not in seen[-1]
    monkeypatch.setenv("A2ABENCH_SOLO", "true")  # converted and checked as the flag's value
    run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9")
    assert seen[-1]["solo"] is True
    monkeypatch.setenv("A2ABENCH_DOMAIN", "nowhere")
    r = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9")
    assert r.code == 2 and "'nowhere' is not one of" in r.err, r.err
    shown = " ".join(run_cli("run", "tau2", "--help").out.split())
    assert "A2ABENCH_TAU2_MAX_STEPS" in shown and "A2ABENCH_MAX_STEPS" not in shown


def test_a_plugin_that_cannot_load_is_still_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    from a2abench.run import registry

    def broken(name: str) -> Any:
        raise ModuleNotFoundError("No module named 'nonexistent_module_xyz'")

    register("broken", ScriptedDriver)
    monkeypatch.setattr(registry, "get_driver", broken)
    try:
        r = run_cli("run", "--help")
        assert r.code == 0 and "broken" in r.out, r.err
        r = run_cli("run", "broken", "--help")
        assert r.code == 0 and "could not be loaded" in " ".join(r.out.split())
    finally:
        unregister("broken")


# -- one KEY=VALUE parser, one command builder ----------------------------------------------

def test_one_parser_reads_json_values_and_names_the_flag_typed() -> None:
    from a2abench.errors import ConfigError
    from a2abench.options import parse_pairs

    assert parse_pairs(["n=3", "on=true", "xs=[1, 2]", "name=gpt-4.1", "n=4"], "--option") == {
        "n": 4, "on": True, "xs": [1, 2], "name": "gpt-4.1"}
    for flag in ("--option", "--scoring"):
        with pytest.raises(ConfigError, match=f"^{flag} 'foo' is not KEY=VALUE$"):
            parse_pairs(["foo"], flag)


@pytest.mark.parametrize("args", [
    ["run", "tau2", "--white-agent-url", "http://127.0.0.1:9", "--option", "foo"],
    ["report", "missing.jsonl", "--rescore", "--scoring", "foo"]])
def test_a_malformed_pair_is_a_usage_error_naming_its_flag(args: list[str]) -> None:
    r = run_cli(*args)
    flag = args[-2]
    assert r.code == 2 and f"{flag} 'foo' is not KEY=VALUE" in r.err, r.err
    assert "Traceback" not in r.err


def test_built_ins_take_option_and_show_literal_choices() -> None:
    r = run_cli("run", "tau2", "--help")
    assert "--option" in r.out and "[airline|retail|mock|telecom|banking_knowledge]" in r.out
    bad = run_cli("run", "tau2", "--white-agent-url", "http://127.0.0.1:9", "--domain", "x")
    assert bad.code == 2 and "'x' is not one of airline, retail" in bad.err


class _Helped(ScriptedDriver):
    help = "Ask the agent to echo, and count the echoes."
    example = "a2abench run helped --white-agent-url http://127.0.0.1:9999"


def test_a_plugin_sets_its_command_help() -> None:
    register("helped", _Helped)
    try:
        r = run_cli("run", "helped", "--help")
        listing = run_cli("run", "--help")
    finally:
        unregister("helped")
    assert "Ask the agent to echo, and count the echoes." in r.out
    assert "Example: a2abench run helped --white-agent-url" in r.out
    assert "helped    Ask the agent to echo" in listing.out
