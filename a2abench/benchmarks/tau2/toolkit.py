"""Tool mechanism: the `tool` decorator, toolkits, OpenAI schemas and upstream's serialization.

A toolkit is a class whose methods decorated with `@tool(ToolType.X)` are tools. Method names,
parameter names, order, annotations and defaults mirror upstream exactly, because they are
visible: they shape the schemas and Python's own `TypeError` texts ("AirlineTools.x() got an
unexpected keyword argument 'y'"), which upstream returns to the agent verbatim.

Schemas are built as upstream does (a pydantic `create_model("parameters", ...)` over the
signature) and the descriptions are then filled in from `ToolTexts`: upstream's own docstrings
and `Field(description=...)` texts when available (see `upstream.py`), otherwise our neutral
fallback text. The structure never depends on the text source.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from enum import StrEnum
from functools import cached_property
from typing import Any, ClassVar, Generic, Literal, cast

from pydantic import BaseModel, Field, create_model
from typing_extensions import TypeVar

from a2abench.benchmarks.tau2.db import DBView, StateDB

F = TypeVar("F", bound=Callable[..., Any])
# A toolkit's DB view: record tables (most domains) or a pydantic model (telecom's ModelDB).
DB = TypeVar("DB", bound=StateDB, default=DBView, covariant=True)

_TOOL_ATTR = "__a2abench_tool__"
CLASS_DOC = "__doc__"  # key of a model's own description in `ToolTexts.models`


class ToolType(StrEnum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


def tool(tool_type: ToolType = ToolType.READ, *, mutates_state: bool | None = None,
         discoverable: bool = False) -> Callable[[F], F]:
    """Mark a toolkit method as a tool. `mutates_state` defaults to `tool_type == WRITE`
    (upstream v1.0: only mutating tools are re-executed when a trajectory is replayed).
    A `discoverable` tool (upstream `@is_discoverable_tool`, banking) can be called but is
    left out of the schemas given to the agent or the user simulator."""
    mutates = tool_type == ToolType.WRITE if mutates_state is None else mutates_state

    def decorate(func: F) -> F:
        setattr(func, _TOOL_ATTR, (tool_type, mutates, discoverable))
        return func

    return decorate


@dataclass(frozen=True)
class ToolText:
    """The prose of one tool: its description and one description per documented parameter."""

    description: str
    params: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolTexts:
    """Tool prose for a toolkit, plus field descriptions of the pydantic models in `$defs`."""

    source: Literal["upstream", "fallback"]
    tools: dict[str, ToolText]
    models: dict[str, dict[str, str]] = field(default_factory=dict)


class ModelView:
    """A record returned by a tool where upstream returns a pydantic model.

    Upstream serializes a model with `model_dump()` as is, but stringifies numbers inside plain
    containers; this marker keeps that distinction for records stored as plain data.
    """

    __slots__ = ("data",)

    def __init__(self, data: Any) -> None:
        self.data = data


def _process(resp: Any) -> Any:
    # Upstream Environment.to_json_str: models dumped as is; bare numbers/bools become str.
    if isinstance(resp, ModelView):
        return resp.data
    if isinstance(resp, BaseModel):
        return resp.model_dump()
    if isinstance(resp, str) or resp is None:
        return resp
    if isinstance(resp, (int, float, bool)):
        return str(resp)
    if isinstance(resp, list):
        return [_process(item) for item in resp]
    if isinstance(resp, tuple):
        return tuple(_process(item) for item in resp)
    if isinstance(resp, dict):
        return {k: _process(v) for k, v in resp.items()}
    if isinstance(resp, (datetime, date)):
        return resp.isoformat()
    raise ValueError(f"Unsupported type: {type(resp)}")


def to_json_str(resp: Any) -> str:
    """A tool result as upstream puts it in the ToolMessage: `str` unchanged, else JSON."""
    if isinstance(resp, str):
        return resp
    return json.dumps(_process(resp), default=str)


@dataclass(frozen=True)
class ToolDef:
    name: str
    tool_type: ToolType
    mutates_state: bool
    func: Callable[..., Any]
    discoverable: bool = False

    @cached_property
    def params(self) -> type[BaseModel]:
        """The parameters' model, built on first use: only schemas need it (a pydantic
        model per tool of every domain took ~0.2 s of each process's import)."""
        return _params_model(self.func)

    @cached_property
    def param_names(self) -> tuple[str, ...]:
        """The names of `params`' fields, in order, without building it (pydantic keeps
        names with a leading underscore out of the fields)."""
        return tuple(name for name in inspect.signature(self.func).parameters
                     if name != "self" and not name.startswith("_"))


class Toolkit(Generic[DB]):
    """Base of the domain toolkits. Subclasses define tools; `db` is the task-trial's view."""

    _defs: ClassVar[dict[str, ToolDef]]

    def __init__(self, db: DB) -> None:
        self.db: DB = db

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        defs: dict[str, ToolDef] = {}
        for base in reversed(cls.__mro__[1:]):
            defs.update(getattr(base, "_defs", {}))
        for name, member in cls.__dict__.items():
            marker = getattr(member, _TOOL_ATTR, None)
            if marker is not None:
                defs[name] = ToolDef(name, marker[0], marker[1], member, marker[2])
        cls._defs = defs

    @classmethod
    def tool_defs(cls) -> dict[str, ToolDef]:
        return cls._defs

    def has_tool(self, name: str) -> bool:
        return name in self._defs

    def use_tool(self, name: str, /, **kwargs: Any) -> Any:
        if name not in self._defs:
            raise ValueError(f"Tool '{name}' not found.")
        return getattr(self, name)(**kwargs)

    @classmethod
    def openai_schemas(cls, texts: ToolTexts) -> list[dict[str, Any]]:
        """Every tool's `{"type": "function", "function": {...}}` schema, in upstream order
        (discoverable tools left out, as upstream's `get_tools`)."""
        return [openai_schema(d, texts) for d in cls._defs.values() if not d.discoverable]


def _params_model(func: Callable[..., Any]) -> type[BaseModel]:
    """Upstream `Tool.parse_data`: one field per parameter, required unless defaulted."""
    fields: dict[str, Any] = {}
    for name, param in inspect.signature(func, eval_str=True).parameters.items():
        if name == "self":
            continue
        anno = Any if param.annotation is param.empty else param.annotation
        default = ... if param.default is param.empty else param.default
        fields[name] = (anno, Field(default))
    return cast(type[BaseModel], create_model("parameters", **fields))


def openai_schema(d: ToolDef, texts: ToolTexts) -> dict[str, Any]:
    text = texts.tools.get(d.name)
    params = d.params.model_json_schema()
    props = params.get("properties", {})
    if text is not None:
        for name, desc in text.params.items():
            if name in props:
                props[name] = {"description": desc, **props[name]}
    for def_name, schema in params.get("$defs", {}).items():
        descs = texts.models.get(def_name, {})
        if CLASS_DOC in descs:
            schema["description"] = descs[CLASS_DOC]
        for fname, fschema in schema.get("properties", {}).items():
            if fname in descs:
                schema["properties"][fname] = {"description": descs[fname], **fschema}
    return {"type": "function",
            "function": {"name": d.name,
                         "description": text.description if text else d.name,
                         "parameters": params}}


def strip_descriptions(value: Any, *, names: bool = False) -> Any:
    """A schema without `description` annotations (for structure-only comparisons).

    Keys of a `properties` map are parameter names, kept even when one is called
    "description" (mock's `create_task`).
    """
    if isinstance(value, dict):
        return {k: strip_descriptions(v, names=(k == "properties" and not names))
                for k, v in value.items() if names or k != "description"}
    if isinstance(value, list):
        return [strip_descriptions(v) for v in value]
    return value
