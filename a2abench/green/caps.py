"""Operator caps (`serve-green --cap`): the most an assessment request may ask for.

`--option` gives a default that a request may change; `--cap` bounds what a request may ask
for, in whichever format it comes. A cap judges the value as the run will use it (after
coercion: `"concurrency": "64"`, `64.0` and `64` are one value), by the cap's own type:

* a number: at most the cap; "none" (`max_tasks`, `rate_limit` or `task_timeout` left
  unbounded) is over every cap;
* a boolean: `false` keeps the switch off (`true` bounds nothing);
* a list: only its items ("none", meaning all of them, is over the cap);
* anything else (a domain, a split): that value only.

A request over a cap is rejected, naming the key and the cap, never clamped: a clamped run
would be scored as if it were the run that was asked for. A default over a cap (the model's,
e.g. `concurrency` 4 under a cap of 2, or `max_tasks` "all") drops to the cap; an `--option`
over a cap is a startup error. `BENCH.KEY` caps one benchmark, a bare `KEY` every benchmark
that has the key (run keys such as `concurrency`: all of them), so a request cannot escape a
cap by naming another benchmark.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from typing import Any

from a2abench.errors import ConfigError
from a2abench.options import parse_pairs

ALL = "*"  # the benchmark key of a cap without BENCH.
Caps = dict[str, dict[str, Any]]  # benchmark (or ALL) -> key -> cap, as JSON
_EXAMPLE = "e.g. --cap concurrency=4 or --cap tau2.llm_cache=false."


def parse_caps(items: Iterable[str] | None) -> Caps:
    """`["concurrency=4", "tau2.max_steps=30"]` -> {"*": {"concurrency": 4}, "tau2": {...}}."""
    caps: Caps = {}
    for key, value in parse_pairs(list(items or ()), "--cap", example="[BENCHMARK.]KEY=VALUE",
                                  hint=_EXAMPLE).items():
        bench, dot, name = key.partition(".")
        if not dot:
            bench, name = ALL, bench
        if not bench or not name:
            raise ConfigError(f"--cap {key}=…: name a key, or BENCHMARK.KEY", hint=_EXAMPLE)
        caps.setdefault(bench, {})[name.strip().replace("-", "_")] = value
    return caps


def for_benchmark(caps: Caps, bench: str, keys: Iterable[str]) -> dict[str, Any]:
    """The caps that bind `bench`, whose request keys are `keys`: its own over the bare ones."""
    known = set(keys)
    return {**{k: v for k, v in caps.get(ALL, {}).items() if k in known},
            **caps.get(bench, {})}


@functools.cache
def _adapter(model: Any, key: str) -> Any:
    """A validator of `model`'s field `key` as the model reads it (bounds included)."""
    from typing import Annotated

    from pydantic import TypeAdapter

    info = model.model_fields[key]
    kind: Any = (Annotated[(info.annotation, *info.metadata)] if info.metadata
                 else info.annotation)
    return TypeAdapter(kind)


def as_field(model: Any, key: str, value: Any) -> Any:
    """`value` as `model`'s field `key` holds it. Raises pydantic's ValidationError."""
    return _adapter(model, key).validate_python(value)


def within(value: Any, cap: Any) -> bool:
    """Whether `value` (as the run uses it) keeps to `cap` (as the field holds it)."""
    if isinstance(cap, bool):
        return cap or not value
    if isinstance(cap, int | float):
        return (isinstance(value, int | float) and not isinstance(value, bool)
                and value <= cap)  # NaN on either side is never within
    if isinstance(cap, list | tuple | set | frozenset):
        return isinstance(value, list | tuple | set | frozenset) and all(
            item in cap for item in value)
    return bool(value == cap)


def problem(key: str, value: Any, cap: Any, raw: Any, bench: str | None) -> str:
    """Why `value` is over `cap`, naming the key, the cap and the flag that set it."""
    flag = f"serve-green --cap {bench + '.' if bench else ''}{key}={json.dumps(raw)}"
    if isinstance(cap, bool):
        return f"{key} true is over this server's cap: the operator keeps it off ({flag})"
    if isinstance(cap, int | float):
        shown = "unbounded" if value is None else _show(value)
        return f"{key} {shown} is over this server's cap of {_show(cap)} ({flag})"
    if isinstance(cap, list | tuple | set | frozenset):
        outside = ("all" if value is None else
                   ", ".join(str(item) for item in value if item not in cap))
        return (f"{key} {outside} is outside this server's cap: only "
                f"{', '.join(map(str, cap))} ({flag})")
    return f"{key} {_show(value)} is not the one value this server allows, {_show(cap)} ({flag})"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(getattr(value, "value", value)) if not isinstance(value, str) else repr(value)


class Bound:
    """The caps that bind one request: those of its benchmark and the bare ones its keys
    have. `run_keys` are judged on `run_model` (RunConfig), the rest on `options_model`."""

    def __init__(self, caps: Caps, bench: str, options_model: Any, run_model: Any,
                 run_keys: frozenset[str]) -> None:
        self.bench, self.own = bench, caps.get(bench, {})
        self.caps = for_benchmark(caps, bench, {*options_model.model_fields, *run_keys})
        self._models = (options_model, run_model, run_keys)

    def model_of(self, key: str) -> Any:
        options_model, run_model, run_keys = self._models
        return run_model if key in run_keys else options_model

    def defaults(self, given: Iterable[str]) -> dict[str, Any]:
        """Each cap whose key neither the operator's `--option` nor the request gave
        (`given`) and whose model default is over it: the default drops to the cap."""
        given = set(given)
        out = {}
        for key, raw in self.caps.items():
            model = self.model_of(key)
            default = model.model_fields[key].get_default(call_default_factory=True)
            if key not in given and not within(default, as_field(model, key, raw)):
                out[key] = raw
        return out

    def problem(self, value_of: Callable[[str], Any]) -> str | None:
        """The first capped key whose value in force (`value_of(key)`, as the run will use
        it) is over its cap, as a message; None when every one keeps to its cap."""
        for key, raw in self.caps.items():
            cap = as_field(self.model_of(key), key, raw)
            value = value_of(key)
            if not within(value, cap):
                return problem(key, value, cap, raw, self.bench if key in self.own else None)
        return None


def check_at_start(caps: Caps, presets: dict[str, dict[str, Any]],
                   models: dict[str, tuple[Any, frozenset[str]]], run_model: Any,
                   run_keys: frozenset[str]) -> None:
    """Every cap names a key some request may set, with a value its field accepts, and no
    `--option` default is over its cap. `models`: benchmark -> (options model, the keys only
    the operator may set). Raises ConfigError."""
    from pydantic import ValidationError

    for bench, keys in caps.items():
        if bench != ALL and bench not in models:
            raise ConfigError(f"--cap {bench}.…: unknown benchmark {bench!r}",
                              hint=f"Registered: {', '.join(sorted(models)) or 'none'}.")
        for key, raw in keys.items():
            named = key if bench == ALL else f"{bench}.{key}"
            where = [b for b in models if bench in (ALL, b)]
            holders = [b for b in where if key in run_keys or _settable(models[b], key)]
            if not holders:
                raise ConfigError(f"--cap {named}: not a key requests may set",
                                  hint="Cap a run key (concurrency, timeout, num_trials, …) or "
                                       "a benchmark option a request may set.")
            for b in holders:
                model = run_model if key in run_keys else models[b][0]
                try:
                    cap = as_field(model, key, raw)
                except ValidationError as exc:
                    raise ConfigError(f"--cap {named}={json.dumps(raw)}: "
                                      f"{exc.errors()[0]['msg']}") from None
                _check_preset(presets.get(b, {}), b, key, model, cap, f"{named}="
                                                                     f"{json.dumps(raw)}")


def _settable(model: tuple[Any, frozenset[str]], key: str) -> bool:
    options, operator_only = model
    return key in options.model_fields and key not in operator_only


def _check_preset(preset: dict[str, Any], bench: str, key: str, model: Any, cap: Any,
                  named: str) -> None:
    from pydantic import ValidationError

    if key not in preset:
        return
    shown = f"--option {bench}.{key}={json.dumps(preset[key])}"
    try:
        value = as_field(model, key, preset[key])
    except ValidationError as exc:
        raise ConfigError(f"{shown}: {exc.errors()[0]['msg']}") from None
    if not within(value, cap):
        raise ConfigError(f"{shown} is over --cap {named}",
                          hint="Lower the default or raise the cap.")
