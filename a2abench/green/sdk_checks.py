"""a2a-sdk's check of a request's REQUIRED fields, without its walk through DataParts.

a2a-sdk checks every request it serves (`validate_proto_required_fields`) by visiting every
node of the message, the `google.protobuf.Struct` tree of each DataPart included, where no
field is REQUIRED: the tau2 first message (its tools as an 8.7 kB DataPart) cost the agent's
server 19 ms of CPU per match, an a2abench example agent's or any a2a-sdk agent's. The check
installed here walks only into message types that can hold a REQUIRED field somewhere below
and otherwise calls a2a-sdk's own helpers, in a2a-sdk's order: the same errors, for ~15 µs
(tests/green/test_sdk_checks.py compares the two). Every a2a-sdk server a2abench builds
(serve-green, the demo and example agents) installs it; it changes nothing else.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

sdk_original: Callable[[Any], list[Any]] | None = None  # a2a-sdk's own, once replaced


def install() -> None:
    """Put the pruned check in a2a-sdk's place, once per process; a no-op for an a2a-sdk
    without the helpers it calls (its own check stays)."""
    from a2a.utils import proto_utils

    helpers = ("_validate_proto_required_fields_internal", "_check_required_field_violation",
               "_recurse_validation")
    current = getattr(proto_utils, helpers[0], None)
    if current is required_field_errors or not all(hasattr(proto_utils, n) for n in helpers):
        return
    global sdk_original
    sdk_original = current
    proto_utils._validate_proto_required_fields_internal = required_field_errors


def required_field_errors(msg: Any) -> list[Any]:
    """a2a-sdk's `_validate_proto_required_fields_internal`, skipping the fields whose
    message type holds no REQUIRED field at any depth (they can add no error)."""
    from a2a.utils import proto_utils

    errors: list[Any] = []
    for field, required, nested in _plan(msg.DESCRIPTOR):
        if required:
            violation = proto_utils._check_required_field_violation(msg, field)
            if violation:
                errors.append(violation)
        if nested:  # a2a-sdk's recursion, which calls back into this function
            errors.extend(proto_utils._recurse_validation(msg, field))
    return errors


@functools.cache
def _plan(descriptor: Any) -> tuple[tuple[Any, bool, bool], ...]:
    """(field, REQUIRED?, worth walking into?) for each field of a message type, in order."""
    from google.protobuf.descriptor import FieldDescriptor

    return tuple((field, _required(field), field.type == FieldDescriptor.TYPE_MESSAGE
                  and _may_fail(field.message_type)) for field in descriptor.fields)


@functools.cache
def _may_fail(descriptor: Any) -> bool:
    """Whether a message type, or any type below it, has a REQUIRED field (types may
    recurse: Struct holds Values that hold Structs)."""
    from google.protobuf.descriptor import FieldDescriptor

    seen: set[str] = set()
    todo = [descriptor]
    while todo:
        current = todo.pop()
        if current.full_name in seen:
            continue
        seen.add(current.full_name)
        for field in current.fields:
            if _required(field):
                return True
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                todo.append(field.message_type)
    return False


def _required(field: Any) -> bool:
    from google.api.field_behavior_pb2 import REQUIRED, field_behavior

    return REQUIRED in field.GetOptions().Extensions[field_behavior]
