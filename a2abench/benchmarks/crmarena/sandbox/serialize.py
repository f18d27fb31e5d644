"""Values and records exactly as the official connector hands them to the agent.

The live path is: Salesforce REST JSON -> simple-salesforce (`json(object_pairs_hook=
OrderedDict)`) -> `SalesforceConnector.run_query` (drops the top-level `attributes`, rebuilds
each row as a plain dict without the columns that are None in every row) -> `str(list)`.

So the top level prints as a dict, while nested relationship records and child-subquery
results stay OrderedDicts with their own `attributes`. Upstream ran Python 3.10/3.11, where
`repr(OrderedDict)` is `OrderedDict([('k', v)])`; Python 3.12 changed it to
`OrderedDict({'k': v})`. `sf_repr` always prints the 3.10/3.11 form so observations are the
same on every interpreter we support.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

API_VERSION = "59.0"   # simple-salesforce 1.12.6 (upstream's pin) defaults to API v59.0

Converter = Callable[[Any], Any]

_DATETIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?)?\s*(Z|[+-]\d{2}:?\d{2})?$")


def record_url(obj: str, record_id: str) -> str:
    return f"/services/data/v{API_VERSION}/sobjects/{obj}/{record_id}"


def attributes(obj: str, record_id: str | None = None,
               url_type: str | None = None) -> OrderedDict[str, Any]:
    """A record's `attributes`; polymorphic lookups say type 'Name' but link the real type."""
    attrs: OrderedDict[str, Any] = OrderedDict(type=obj)
    if record_id is not None:
        attrs["url"] = record_url(url_type or obj, record_id)
    return attrs


def to_datetime(value: Any) -> str | None:
    """A stored datetime as Salesforce's REST API prints it: `2021-06-07T10:50:00.000+0000`."""
    if value is None or value == "":
        return None
    text = str(value).strip()
    if len(text) == 28 and text[10] == "T" and text.endswith("+0000"):
        return text
    m = _DATETIME.match(text)
    if m is None:
        return text
    day, clock, frac, zone = m.groups()
    clock = clock or "00:00:00"
    if len(clock) == 5:
        clock += ":00"
    millis = (frac or "0")[:3].ljust(3, "0")
    if zone and zone not in ("Z", "+0000", "+00:00", "-0000", "-00:00"):
        stamp = dt.datetime.fromisoformat(f"{day}T{clock}{zone[:3]}:{zone[-2:]}")
        utc = stamp.astimezone(dt.UTC)
        day, clock = utc.strftime("%Y-%m-%d"), utc.strftime("%H:%M:%S")
    return f"{day}T{clock}.{millis}+0000"


def _text(value: Any) -> Any:
    if value is None or value == "":
        return None   # Salesforce never stores empty strings: they read back as null
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _boolean(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "1.0", "true")
    return bool(value)


def _integer(value: Any) -> Any:
    if value is None or value == "":
        return None
    try:
        return int(float(value))
    except (TypeError, ValueError):
        return value


def _double(value: Any) -> Any:
    if value is None or value == "":
        return None
    try:
        return float(value)   # the REST API prints currency/number fields as JSON doubles
    except (TypeError, ValueError):
        return value


def _date(value: Any) -> Any:
    if value is None or value == "":
        return None
    return str(value)[:10]


def _raw(value: Any) -> Any:
    return None if value == "" else value


_CONVERTERS: dict[str, Converter] = {
    "boolean": _boolean, "int": _integer, "double": _double, "currency": _double,
    "percent": _double, "date": _date, "datetime": to_datetime,
}


def converter(ftype: str) -> Converter:
    """How a stored value of Salesforce type `ftype` reads back through the REST API."""
    if ftype in _CONVERTERS:
        return _CONVERTERS[ftype]
    if ftype in ("string", "textarea", "longtext", "picklist", "email", "phone", "url", "id",
                 "reference"):
        return _text
    return _raw


def connector_rows(records: list[OrderedDict[str, Any]]) -> list[dict[str, Any]]:
    """`SalesforceConnector.run_query`'s post-processing of `records`.

    Drops the top-level `attributes` and every column that is None in all rows, checking
    the keys of the first row as upstream does. Where upstream would raise KeyError (a
    later row lacks one of those keys, which happens with mixed-object SOSL results) we
    treat the missing key as None instead of crashing.
    """
    if not records:
        return []
    keys = [k for k in records[0] if k != "attributes"]
    rows = [{k: v for k, v in r.items() if k != "attributes"} for r in records]
    all_none = {k for k in keys if all(row.get(k) is None for row in rows)}
    return [{k: v for k, v in row.items() if k not in all_none} for row in rows]


def sf_repr(value: Any) -> str:
    """`repr` as CPython 3.10/3.11 prints simple-salesforce results (see module docstring)."""
    if isinstance(value, OrderedDict):
        if not value:
            return "OrderedDict()"
        items = ", ".join(f"({sf_repr(k)}, {sf_repr(v)})" for k, v in value.items())
        return f"OrderedDict([{items}])"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{sf_repr(k)}: {sf_repr(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(sf_repr(v) for v in value) + "]"
    return repr(value)
