"""Run flags against their sources (issue 16): the options models and `RunConfig` own names,
types and defaults; the Typer signature, the `A2ABENCH_*` variables, serve-green's request keys
and docs/cli.md must follow them. A flag added, renamed or re-defaulted in one place and not
the others fails here (docs/cli.md: tests/test_cli.py runs gen_cli_reference.py --check)."""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing
from pathlib import Path
from typing import Any

import pytest
import typer.main

from a2abench.cli._flags import RunFlags, _llm_params, _run_params
from a2abench.cli._launch import common_config
from a2abench.cli._run import app
from a2abench.green.request import RUN_KEYS
from a2abench.run.config import RunConfig
from a2abench.run.registry import get_driver

# Run flags that are not RunConfig fields: the report gate's switch and the output mode.
_NOT_CONFIG = {"json_", "allow_incomplete"}
_CONFIG_NAME = {"allow_host": "allowed_hosts"}  # repeatable flag, list field


# Typer vendors click and names its classes nowhere public: duck-typed here.
def _command(name: str) -> Any:
    group: Any = typer.main.get_command(app)
    command = group.get_command(group.context_class(group), name)
    assert command is not None
    return command


def _options(name: str) -> dict[str, Any]:
    return {p.name: p for p in _command(name).params if p.param_type_name == "option"}


def _names(fn: Any) -> list[str]:
    return list(inspect.signature(fn).parameters)


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
    for name, option in _options(benchmark).items():
        stem = name.rstrip("_")
        assert option.opts == ["--" + stem.replace("_", "-")], name
        assert option.envvar == "A2ABENCH_" + stem.upper(), name
        assert option.help and option.help.strip(), name


@pytest.mark.parametrize("benchmark", ["tau2", "crmarena"])
def test_benchmark_flags_are_the_options_model(benchmark: str) -> None:
    model = get_driver(benchmark).options_model
    shared = {"white_agent_url", *_names(_run_params)}
    own = {k: v for k, v in _options(benchmark).items() if k not in shared}
    assert set(own) == set(model.model_fields)
    assert set(_names(_llm_params)) <= set(own)  # the LLM flags are options of both benchmarks
    # Every flag's default means the field's default once the model has read it.
    from_flags = model.model_validate({k: v.default for k, v in own.items()})
    assert from_flags == model()
    _check_types(benchmark, model.model_fields)


def test_run_flags_are_run_config_fields_with_its_defaults() -> None:
    options = _options("tau2")
    names = _names(_run_params)
    assert [f.name for f in dataclasses.fields(RunFlags)] == names
    fields = {_CONFIG_NAME.get(n, n) for n in names if n not in _NOT_CONFIG}
    assert fields == set(RunConfig.model_fields) - {"benchmark", "options"}
    defaults = {n: options[n].default for n in names if n not in ("white_agent_url", "json_",
                                                                   "allow_incomplete")}
    built = common_config("tau2", {}, white_agent_url="http://127.0.0.1:9", **defaults)
    assert built == RunConfig(benchmark="tau2", white_agent_url="http://127.0.0.1:9", options={})
    _check_types("tau2", RunConfig.model_fields)


def test_serve_green_run_keys_are_run_flags() -> None:
    assert set(_names(_run_params)) & set(RunConfig.model_fields) >= RUN_KEYS
