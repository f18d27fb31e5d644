"""Run flags against their sources (issue 16): the options models and `RunConfig` declare names,
types, defaults, bounds and help (a2abench/options.py); the flag table, the Typer signature,
the `A2ABENCH_*` variables, serve-green's request keys, the README's table and docs/cli.md
derive from them. A flag edited anywhere but its field fails here (docs/cli.md:
tests/test_cli.py runs gen_cli_reference.py --check)."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import typer.main

from a2abench.cli._flag_table import RUN
from a2abench.cli._launch import run_config
from a2abench.cli._run import app
from a2abench.green.request import RUN_KEYS
from a2abench.llm import LLMOptions
from a2abench.options import flag_specs
from a2abench.run.config import RunConfig
from a2abench.run.registry import get_driver

ROOT = Path(__file__).resolve().parents[1]
_CONFIG_NAME = {"allow_host": "allowed_hosts"}  # repeatable flag, list field
_RUN_NAMES = [spec.name for spec in RUN]


# Typer vendors click and names its classes nowhere public: duck-typed here.
def _command(name: str) -> Any:
    group: Any = typer.main.get_command(app)
    command = group.get_command(group.context_class(group), name)
    assert command is not None
    return command


def _options(name: str) -> dict[str, Any]:
    return {p.name: p for p in _command(name).params if p.param_type_name == "option"}


def _types(annotation: Any) -> set[Any]:
    """The value types an annotation admits (Literal values by their type, None left out)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return {type(arg) for arg in typing.get_args(annotation)}
    if origin is typing.Annotated:
        return _types(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_types(arg) for arg in typing.get_args(annotation)))
    if origin is not None:
        return {origin} | set().union(*(_types(arg) for arg in typing.get_args(annotation)))
    return set() if annotation is type(None) else {annotation}


def _check_types(command: str, fields: dict[str, Any]) -> None:
    """A flag's Python type is one its field accepts (a string may be parsed into a richer
    field type: SecretStr, Shard, JSON arguments)."""
    signature = inspect.signature(_command(command).callback, eval_str=True)
    for name, param in signature.parameters.items():
        field = fields.get(_CONFIG_NAME.get(name, name))
        if field is None:
            continue
        flag, model = _types(param.annotation), _types(field.annotation)
        assert flag <= model or (flag == {str} and not model & {int, float, bool, Path}), (
            f"--{name}: flag {flag} vs field {model}")


@pytest.mark.parametrize("benchmark", ["tau2", "crmarena"])
def test_every_flag_is_named_after_its_field_with_its_env_var_and_help(benchmark: str) -> None:
    model = get_driver(benchmark).options_model
    for name, option in _options(benchmark).items():
        stem = name.rstrip("_")
        assert option.opts == ["--" + stem.replace("_", "-")], name
        # A benchmark's own option reads A2ABENCH_<BENCHMARK>_*; a run flag, A2ABENCH_*.
        scope = f"{benchmark.upper()}_" if name in model.model_fields else ""
        assert option.envvar == f"A2ABENCH_{scope}{stem.upper()}", name
        assert option.help and option.help.strip(), name


@pytest.mark.slow
def test_the_flag_table_is_generated_from_the_models() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_run_flags.py"), "--check"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("benchmark", ["tau2", "crmarena"])
def test_benchmark_flags_are_the_options_model(benchmark: str) -> None:
    model = get_driver(benchmark).options_model
    own = {k: v for k, v in _options(benchmark).items()
           if k not in {*_RUN_NAMES, "json_", "option"}}
    assert set(own) == set(model.model_fields)
    assert set(LLMOptions.model_fields) <= set(own)  # the LLM flags are options of both
    # Every flag's default means the field's default once the model has read it.
    from_flags = model.model_validate({k: v.default for k, v in own.items()})
    assert from_flags == model()
    _check_types(benchmark, model.model_fields)
    for name, option in own.items():  # help and bounds are the field's
        field = model.model_fields[name]
        assert option.help == field.description, name
        bounds = [getattr(m, "ge", None) for m in field.metadata]
        assert option.min in bounds or not any(bounds), name


def test_run_flags_are_run_config_fields_with_its_defaults() -> None:
    options = _options("tau2")
    fields = {_CONFIG_NAME.get(n, n) for n in _RUN_NAMES}
    assert fields == set(RunConfig.model_fields) - {"benchmark", "options"}
    defaults = {_CONFIG_NAME.get(n, n): options[n].default for n in _RUN_NAMES
                if n != "white_agent_url"}
    built = run_config("tau2", {}, {"white_agent_url": "http://127.0.0.1:9", **defaults})
    assert built == RunConfig(benchmark="tau2", white_agent_url="http://127.0.0.1:9", options={})
    _check_types("tau2", RunConfig.model_fields)
    for spec in RUN:
        field = RunConfig.model_fields[spec.target]
        assert options[spec.name].help == field.description, spec.name


def test_serve_green_run_keys_are_run_flags() -> None:
    assert set(_RUN_NAMES) >= RUN_KEYS
    assert {"num_trials", "task_ids", "timeout", "shard"} <= RUN_KEYS
    assert not RUN_KEYS & {"output", "auth_token", "allowed_hosts", "white_agent_url"}


def test_the_readme_names_each_flag_with_its_variable() -> None:
    """README's configuration table: every `--flag` row names that flag's variable."""
    specs = {s.flag.split("/")[0]: s for s in flag_specs(RunConfig, skip=frozenset(
        {"benchmark", "options"}))}
    # A benchmark's option's variable carries its name: the README shows tau2's.
    specs.update({s.flag.split("/")[0]: s._replace(scope="tau2")
                  for s in flag_specs(LLMOptions)})
    rows = re.findall(r"^\| (`--[^|]+) \| (`A2ABENCH_[^|]+) \|", (ROOT / "README.md").read_text(
        encoding="utf-8"), re.M)
    checked = 0
    for flags, variables in rows:
        for flag, variable in zip(re.findall(r"`(--[\w-]+)`", flags),
                                  re.findall(r"`(A2ABENCH_\w+)`", variables), strict=True):
            if flag in specs:
                assert specs[flag].env == variable, flag
                checked += 1
    assert checked >= 15


def test_serve_green_docs_name_exactly_the_run_keys() -> None:
    text = (ROOT / "docs" / "serve-green.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| run keys |"))
    named = set(re.findall(r"`([a-z_]+)`", row.split("|")[2]))
    assert named - {"num_tasks", "jsonrpc", "grpc"} == RUN_KEYS


def test_serve_green_flags_are_green_settings_fields() -> None:
    """Issue 36: serve-green's flags are generated from GreenSettings, as the run flags are
    from RunConfig: the same names, variables, help, bounds and defaults, nothing by hand."""
    from a2abench.cli import app as root
    from a2abench.cli._flag_table import GREEN
    from a2abench.green.settings import NOT_FLAGS, GreenSettings
    from a2abench.options import model_fields

    group: Any = typer.main.get_command(root)
    command = group.get_command(group.context_class(group), "serve-green")
    options = {p.name: p for p in command.params if p.param_type_name == "option"}
    assert list(GREEN) == flag_specs(GreenSettings, skip=NOT_FLAGS)
    assert set(options) == {spec.name for spec in GREEN}
    assert {spec.target for spec in GREEN} == set(model_fields(GreenSettings)) - NOT_FLAGS
    for spec in GREEN:
        option = options[spec.name]
        assert option.opts == [spec.flag.split("/")[0]], spec.name
        assert option.envvar == spec.env and option.help == spec.help, spec.name
        assert option.hidden == spec.hidden, spec.name
    # Every flag's default means the field's default once GreenSettings has read it.
    from_flags = {spec.target: options[spec.name].default for spec in GREEN
                  if options[spec.name].default is not None}
    assert GreenSettings(**from_flags) == GreenSettings()
    assert options["tck"].hidden and options["port"].envvar == "A2ABENCH_PORT"
    assert options["heartbeat"].envvar == "A2ABENCH_HEARTBEAT"


def test_serve_green_flags_reach_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each flag and its variable set its field (the repeatable ones as tuples/dicts)."""
    from tests.clihelp import run_cli

    captured: list[Any] = []
    monkeypatch.setattr("a2abench.green.serve", lambda settings, **_: captured.append(settings))
    monkeypatch.setenv("A2ABENCH_MAX_TRIALS", "3")
    r = run_cli("serve-green", "--allow-host", "a", "--allow-host", "b:1", "--option",
                "tau2.max_steps=5", "--cap", "concurrency=2", "--no-grpc", "--heartbeat", "2.5",
                "--log-format", "json", "--rpc-path", "/a2a", "--tck")
    assert r.code == 0, r.err
    (got,) = captured
    assert got.allow_hosts == ("a", "b:1") and got.presets == {"tau2": {"max_steps": 5}}
    assert got.caps == {"*": {"concurrency": 2}} and got.grpc is False and got.tck is True
    assert (got.heartbeat_s, got.log_format, got.rpc_path, got.max_trials) == (
        2.5, "json", "/a2a", 3)
