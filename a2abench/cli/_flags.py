"""Typer parameters from flag specs: every `run` flag comes from the model that declares it.

`RunConfig` and the options models are the source (a2abench/options.py). For the built-in
benchmarks their flags arrive as data from `_flag_table.py` (generated; `--help` stays free
of pydantic); a plugin's flags are read from its model when its command is built. `run_command`
turns a function `fn(run, options, ...)` into a command with the shared run flags and the
benchmark's flags; `table_option` gives one table flag to a hand-written command (discover,
report).
"""

import functools
import inspect
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from a2abench.cli._flag_table import RUN
from a2abench.options import FlagSpec

_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool, "path": Path,
                          "strs": list[str]}
_RUN = {spec.name: spec for spec in RUN}


def table_option(name: str) -> typer.models.OptionInfo:
    """The Typer option of run flag `name` (the default stays with the parameter)."""
    return _option(_RUN[name])


def _option(spec: FlagSpec) -> typer.models.OptionInfo:
    kwargs: dict[str, Any] = {"envvar": spec.env, "help": spec.help,
                              "show_default": spec.show_default, "hidden": spec.hidden}
    if spec.kind == "int":  # an open bound on integers is the next integer in
        low, high = spec.minimum, spec.maximum
        kwargs.update(min=None if low is None else int(low) + spec.open_min,
                      max=None if high is None else int(high) - spec.open_max)
    elif spec.kind == "float":
        kwargs["callback"] = _float_check(spec)
    if spec.choices:  # shown in --help as [a|b|c] and checked before the run
        kwargs.update(metavar="[" + "|".join(spec.choices) + "]",
                      callback=_choice_check(spec))
    option: typer.models.OptionInfo = typer.Option(spec.flag, **kwargs)
    return option


def _choice_check(spec: FlagSpec) -> Callable[[Any], Any]:
    """A Literal flag's values (each of a repeatable flag's) among its choices."""
    allowed = ", ".join(spec.choices)

    def check(value: Any) -> Any:
        for item in value if isinstance(value, list | tuple) else [value]:
            if item is not None and item not in spec.choices:
                raise typer.BadParameter(f"{item!r} is not one of {allowed}.")
        return value

    return check


def _float_check(spec: FlagSpec) -> Callable[[float | None], float | None]:
    """A float flag's range, nan included (a float range lets nan through)."""
    low, high = spec.minimum, spec.maximum
    if low is not None and high is not None:
        wanted = f"a number between {low:g} and {high:g}"
    elif low is not None:
        wanted = f"a number {'greater than' if spec.open_min else 'of at least'} {low:g}"
    elif high is not None:
        wanted = f"a number {'less than' if spec.open_max else 'of at most'} {high:g}"
    else:
        wanted = "a number"

    def check(value: float | None) -> float | None:
        if value is None:
            return value
        fits = not math.isnan(value) and (
            low is None or (value > low if spec.open_min else value >= low)) and (
            high is None or (value < high if spec.open_max else value <= high))
        if not fits:
            raise typer.BadParameter(f"{value!r} is not {wanted}.")
        return value

    return check


def parameter(spec: FlagSpec) -> inspect.Parameter:
    """A keyword parameter Typer reads as `spec`'s flag."""
    kind: Any = _TYPES[spec.kind]
    if spec.default is None and not spec.required and spec.kind != "bool":
        kind = kind | None
    default = inspect.Parameter.empty if spec.required else spec.default
    return inspect.Parameter(spec.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                             annotation=Annotated[kind, _option(spec)])


def run_command(specs: Sequence[FlagSpec]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give `fn(run, options, **own)` the shared run flags and the benchmark's `specs`.

    `run` arrives as RunConfig keywords, `options` as the options model's; `fn`'s own
    parameters (`--json`, a plugin's `--option`) stay its own, listed last in `--help`.
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY)
               for p in inspect.signature(fn, eval_str=True).parameters.values()
               if p.name not in ("run", "options")]
        params = [parameter(s) for s in (RUN[0], *specs, *RUN[1:])] + own
        run_fields = {s.name: s.target for s in RUN}
        option_fields = {s.name: s.target for s in specs}

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            run = {run_fields[k]: kwargs.pop(k) for k in list(kwargs) if k in run_fields}
            options = {option_fields[k]: kwargs.pop(k) for k in list(kwargs)
                       if k in option_fields}
            return fn(run=run, options=options, **kwargs)

        return with_signature(command, params)

    return decorate


def with_signature(command: Callable[..., Any],
                   params: list[inspect.Parameter]) -> Callable[..., Any]:
    """`command` as Typer will read it: taking `params` (flags made from specs)."""
    grafted: Any = command  # functools.wraps' type declares no __signature__
    grafted.__signature__ = inspect.Signature(params)
    command.__annotations__ = {p.name: p.annotation for p in params}
    return command
