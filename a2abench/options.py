"""Flags declared once: a field of an options model is its flag.

`RunConfig` (the shared run flags), each benchmark's `options_model` and serve-green's
`GreenSettings` (a pydantic dataclass) are the source. A field becomes `--field-name`, read
also from `A2ABENCH_FIELD_NAME` (a run or serve-green flag) or
`A2ABENCH_<BENCHMARK>_FIELD_NAME` (a benchmark's option: `A2ABENCH_CRMARENA_MAX_TURNS` is
CRMArena's alone, so it never reaches another benchmark); its description is the help
text, its default the flag's default, its `ge`/`gt`/`le`/`lt` the flag's range. `option()`
adds what a field alone cannot say (another flag name, `--x/--no-x`, a hidden flag or
default, a key serve-green requests may set). `flag_specs(model)` lists the flags as plain
data: `scripts/gen_run_flags.py` writes the built-in lists into `a2abench/cli/_flag_table.py`
(so `--help` never imports pydantic), and a plugin's command reads its model's list when it
is built.

This module imports only the standard library at import time.
"""

import enum
import inspect
import types
import typing
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple

Kind = Literal["str", "int", "float", "bool", "path", "strs"]
_CLI = "a2abench_cli"  # the key of option()'s extras in a field's json_schema_extra


class FlagSpec(NamedTuple):
    """One command-line flag, as data (no Typer, no pydantic)."""

    name: str  # the Python parameter: the field's name, or the flag's when they differ
    flag: str  # "--name", or "--name/--no-name"
    kind: Kind
    help: str
    default: Any = None  # None, or a str/int/float/bool value
    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    open_min: bool = False  # gt rather than ge
    open_max: bool = False
    show_default: bool = True
    field: str = ""  # the model field when it is not `name` (--allow-host -> allowed_hosts)
    choices: tuple[str, ...] = ()  # a Literal's or Enum's values, shown and checked by --help
    hidden: bool = False  # left out of --help (test-only flags)
    scope: str = ""  # the benchmark whose option this is ("" for a run flag)
    # A built-in benchmark's option also reads its variable of before the scopes (deprecated).
    old_env_kept: bool = False

    @property
    def env(self) -> str:
        """`--white-agent-url` -> `A2ABENCH_WHITE_AGENT_URL` (`--x/--no-x` -> `A2ABENCH_X`);
        tau2's `--max-steps` -> `A2ABENCH_TAU2_MAX_STEPS`."""
        return env_var(self.flag, self.scope)

    @property
    def old_env(self) -> str | None:
        """The unscoped variable a built-in's option still reads, deprecated (None: none)."""
        return env_var(self.flag) if self.scope and self.old_env_kept else None

    @property
    def target(self) -> str:
        return self.field or self.name


def env_var(flag: str, scope: str = "") -> str:
    """A flag's variable; a benchmark's option's carries the benchmark's name (any character
    but a letter or digit as `_`: `arith-tools` -> `A2ABENCH_ARITH_TOOLS_…`)."""
    prefix = "".join(c if c.isalnum() else "_" for c in scope).upper()
    stem = flag.split("/")[0].lstrip("-").replace("-", "_").upper()
    return f"A2ABENCH_{prefix}_{stem}" if prefix else f"A2ABENCH_{stem}"


def parse_pairs(items: Sequence[str] | None, flag: str, *, example: str = "KEY=VALUE",
                hint: str | None = None) -> dict[str, Any]:
    """`--flag KEY=VALUE` items as a dict, the one parser of every such flag (`run --option`,
    `report --scoring`, `serve-green --option`). A value is JSON when it parses as JSON
    (numbers, booleans, lists, objects), else the plain string; the last KEY wins. A malformed
    item raises ConfigError naming the flag the user typed."""
    import json

    from a2abench.errors import ConfigError

    out: dict[str, Any] = {}
    for item in items or ():
        key, sep, raw = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ConfigError(f"{flag} {item!r} is not {example}",
                              hint=hint or f"Write it as {flag} {example} (the value may be "
                                           "JSON).")
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


def option(default: Any = ..., help: str = "", *, flag: str | None = None,
           negatable: bool = False, show_default: bool | None = None, request: bool = False,
           kind: Kind | None = None, hidden: bool = False, **field: Any) -> Any:
    """A pydantic `Field` that also says how its flag looks.

    `flag`: another flag name (`"--allow-host"` for `allowed_hosts`); `negatable`: add
    `--no-x` (implied by a True default); `show_default=False`: the help text says the
    default; `request=True`: serve-green requests may set it (run settings only); `kind`:
    the flag's value type when the field's type is parsed from text (SecretStr, Shard);
    `hidden`: left out of `--help`. Other keywords (`ge`, `gt`, `default_factory`, ...) go
    to `Field`.
    """
    from pydantic import Field

    extras: dict[str, Any] = {}  # JSON values: strings and booleans
    for key, value in (("flag", flag), ("show_default", show_default), ("kind", kind),
                       ("negatable", negatable or None), ("request", request or None),
                       ("hidden", hidden or None)):
        if value is not None:
            extras[key] = value
    if default is not ...:
        field["default"] = default
    return Field(description=help or None, json_schema_extra={_CLI: extras}, **field)


def cli_extras(info: Any) -> dict[str, Any]:
    """`option()`'s extras of a pydantic FieldInfo ({} for a plain Field)."""
    extra = info.json_schema_extra
    found = extra.get(_CLI) if isinstance(extra, dict) else None
    return dict(found) if isinstance(found, dict) else {}


def model_fields(model: Any) -> dict[str, Any]:
    """The fields (name -> FieldInfo) of a pydantic model or pydantic dataclass."""
    fields = getattr(model, "model_fields", None)
    return dict(fields if fields is not None else model.__pydantic_fields__)


def request_keys(model: Any) -> frozenset[str]:
    """Fields of `model` declared with `option(request=True)`."""
    return frozenset(name for name, info in model_fields(model).items()
                     if cli_extras(info).get("request"))


def flag_specs(model: Any, *, skip: frozenset[str] = frozenset(),
               lenient: bool = False) -> list[FlagSpec]:
    """The flags of a pydantic model's (or pydantic dataclass's) fields, its own fields before
    inherited ones.

    A field whose type has no flag form (a nested model, a dict without `kind`) raises
    TypeError, or with `lenient` is left out (plugins keep `--option KEY=VALUE` for those).
    """
    fields = model_fields(model)
    own = set(inspect.get_annotations(model))
    names = [n for n in fields if n in own]
    names += [n for n in fields if n not in own]
    out = []
    for name in names:
        if name in skip:
            continue
        try:
            out.append(_spec(name, fields[name]))
        except TypeError:
            if not lenient:
                raise
    return out


def _spec(name: str, info: Any) -> FlagSpec:
    extras = cli_extras(info)
    kind, optional = _kind(info.annotation)
    kind = extras.get("kind", kind)
    if kind is None:
        raise TypeError(f"field {name!r}: {info.annotation!r} has no flag form; give "
                        "option(kind=...) or leave it to --option")
    required = info.is_required()
    default = None if required else info.get_default(call_default_factory=True)
    if isinstance(default, enum.Enum):
        default = default.value
    if isinstance(default, list | tuple | dict | set) and not default:
        default = None  # an empty list or dict: the flag is simply absent
    if isinstance(default, list | tuple | set | frozenset):
        default = [str(item) for item in default]  # a repeatable flag's values
    elif default is not None and not isinstance(default, str | int | float | bool):
        default = str(default)  # a Path, a model value: the text the flag would carry
    if kind == "bool" and default is None and not optional:
        default = False
    flag = extras.get("flag") or "--" + name.replace("_", "-")
    if kind == "bool" and (extras.get("negatable") or default is True):
        flag = f"{flag}/--no-{flag[2:]}"
    bounds = _bounds(info.metadata)
    stem = flag.split("/")[0][2:].replace("-", "_")
    show = extras.get("show_default", default is not None)
    alias = info.validation_alias if isinstance(info.validation_alias, str) else info.alias
    key = alias or name  # the key the model validates (an alias, when the field has one)
    return FlagSpec(name=stem, flag=flag, kind=kind, help=(info.description or "").strip(),
                    default=default, required=required, show_default=show,
                    field="" if stem == key else key, choices=_choices(info.annotation),
                    hidden=bool(extras.get("hidden")), **bounds)


def _bounds(metadata: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in metadata:
        for attr, key, is_open in (("ge", "minimum", False), ("gt", "minimum", True),
                                   ("le", "maximum", False), ("lt", "maximum", True)):
            value = getattr(item, attr, None)
            if value is not None:
                out[key] = value
                out["open_" + key[:3]] = is_open
    return out


def _choices(annotation: Any) -> tuple[str, ...]:
    """The allowed values of a Literal or Enum field (also inside Optional, list, Annotated)."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is Literal:
        return tuple(str(v) for v in args) if all(isinstance(v, str) for v in args) else ()
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(str(m.value) for m in annotation)
    if origin in (typing.Annotated, list, tuple, set, frozenset):
        return _choices(args[0]) if args else ()
    if origin in (typing.Union, types.UnionType):
        found = [c for a in args if a is not type(None) for c in [_choices(a)] if c]
        return found[0] if len(found) == 1 else ()
    return ()


_SCALARS: dict[Any, Kind] = {bool: "bool", int: "int", float: "float", str: "str",
                             Path: "path"}


def _kind(annotation: Any) -> tuple[Kind | None, bool]:
    """The flag kind of a field type and whether None is allowed."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _kind(typing.get_args(annotation)[0])
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        kinds = {_kind(a)[0] for a in args}
        kind = kinds.pop() if len(kinds) == 1 else None
        return kind, len(args) < len(typing.get_args(annotation))
    if origin is Literal:
        literals = typing.get_args(annotation)
        return ("str" if all(isinstance(v, str) for v in literals) else None), False
    if origin in (list, tuple, set, frozenset):
        items = typing.get_args(annotation)
        return ("strs" if items and _kind(items[0])[0] == "str" else None), False
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return "str", False
    return _SCALARS.get(annotation), False
