"""Whole numbers in DataPart tool calls, restored by the tool's JSON schema.

a2a-sdk 1.x carries a DataPart as a `google.protobuf.Value`, which stores every number as a
double, so an agent built on it sends `2` as `2.0` (in every dialect it serves, 0.3 included).
Upstream tau2 calls the tool with the arguments as given and never validates them, so `2.0`
where the agent meant `2` changes outputs and DB hashes. We therefore turn an integral float
back into an int only where the tool's schema says `integer` and nothing else: a `number`
(telecom `refuel_data(gb_amount: float)`) keeps `2.0`, an unknown key keeps what was sent.

The schemas are the ones pydantic emits for upstream's tool signatures: `properties`, arrays
(`items`), `$ref` into `$defs`, `anyOf` for `Optional[...]` and `Model | dict`. Where several
branches could describe a value, it is restored only if every branch that describes it says
`integer`; an open `{"type": "object"}` branch describes no property, so `List[Payment | dict]`
still restores `Payment.amount`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

Schema = Mapping[str, Any]
_UNIONS = ("anyOf", "oneOf", "allOf")


def _resolve(schema: Schema, defs: Mapping[str, Any], seen: frozenset[str] = frozenset()
             ) -> list[Schema]:
    """The concrete branches of a schema: `$ref`s followed, unions flattened."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        target = defs.get(name)
        if not isinstance(target, Mapping) or name in seen:
            return [{}]  # unknown or recursive: constrains nothing
        return _resolve(target, defs, seen | {name})
    out: list[Schema] = []
    for key in _UNIONS:
        branches = schema.get(key)
        if isinstance(branches, list):
            for branch in branches:
                if isinstance(branch, Mapping):
                    out.extend(_resolve(branch, defs, seen))
    rest = {k: v for k, v in schema.items() if k not in _UNIONS}
    if not out or "type" in rest or "properties" in rest or "items" in rest:
        out.append(rest)
    return out


def _types(schema: Schema) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    if "properties" in schema:
        return {"object"}
    if "items" in schema:
        return {"array"}
    if "enum" in schema or "const" in schema:
        return {"enum"}
    return {"any"}


def _says_integer(branches: Iterable[Schema]) -> bool:
    kinds: set[str] = set()
    for branch in branches:
        kinds |= _types(branch)
    return "integer" in kinds and not kinds & {"number", "any"}


def _children(branches: list[Schema], key: str, defs: Mapping[str, Any]) -> list[Schema]:
    """What the branches say about property `key` of an object value."""
    found: list[Schema] = []
    for branch in branches:
        props = branch.get("properties")
        if isinstance(props, Mapping) and isinstance(props.get(key), Mapping):
            found.extend(_resolve(props[key], defs))
    if found:
        return found
    for branch in branches:
        extra = branch.get("additionalProperties")
        if isinstance(extra, Mapping):
            found.extend(_resolve(extra, defs))
    return found


def _items(branches: list[Schema], defs: Mapping[str, Any]) -> list[Schema]:
    found: list[Schema] = []
    for branch in branches:
        items = branch.get("items")
        if isinstance(items, Mapping):
            found.extend(_resolve(items, defs))
    return found


def _restore(value: Any, branches: list[Schema], defs: Mapping[str, Any]) -> Any:
    if not branches:
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() and _says_integer(branches) else value
    if isinstance(value, dict):
        objects = [b for b in branches if _types(b) & {"object", "any"}]
        return {k: _restore(v, _children(objects, k, defs), defs) for k, v in value.items()}
    if isinstance(value, list):
        arrays = [b for b in branches if _types(b) & {"array", "any"}]
        return [_restore(v, _items(arrays, defs), defs) for v in value]
    return value


def has_float(value: Any) -> bool:
    """Whether a float is anywhere in JSON-like `value` (else `restore_integers` keeps it)."""
    if isinstance(value, float):
        return True
    if isinstance(value, dict):
        return any(has_float(v) for v in value.values())
    if isinstance(value, list):
        return any(has_float(v) for v in value)
    return False


def restore_integers(arguments: dict[str, Any], parameters: Schema | None) -> dict[str, Any]:
    """`arguments` with integral floats turned into ints where `parameters` (a tool's JSON
    schema, as in its OpenAI function schema) says `integer`; everything else as sent."""
    if not parameters:
        return arguments
    defs = parameters.get("$defs") or parameters.get("definitions") or {}
    restored = _restore(arguments, _resolve(parameters, defs), defs)
    assert isinstance(restored, dict)
    return restored


def parameters_by_tool(schemas: Iterable[Mapping[str, Any]]) -> dict[str, Schema]:
    """Tool name -> parameters schema, from OpenAI function schemas."""
    out: dict[str, Schema] = {}
    for schema in schemas:
        function = schema.get("function", schema)
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            out[function["name"]] = function.get("parameters") or {}
    return out
