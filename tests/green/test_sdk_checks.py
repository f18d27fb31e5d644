"""The REQUIRED-field check a2abench's a2a-sdk servers install (green/sdk_checks.py) gives
a2a-sdk's own errors, in a2a-sdk's order, on requests with and without what is required,
DataParts of any depth included; and a2a-sdk's request handlers use it."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.types import (
    AuthenticationInfo,
    Message,
    Part,
    SendMessageConfiguration,
    SendMessageRequest,
    TaskPushNotificationConfig,
)
from a2a.utils import proto_utils
from google.protobuf.json_format import ParseDict

from a2abench.green import sdk_checks


def _data(depth: int) -> dict[str, Any]:
    """Tool schemas' shape: objects and lists nested `depth` deep."""
    node: Any = {"type": "string", "enum": ["a", "b"], "n": 3, "ok": True, "none": None}
    for i in range(depth):
        node = {"type": "object", "properties": {f"p{i}": node, "list": [node, i]}}
    return {"tools": [node, node]}


def _message(**fields: Any) -> Message:
    return ParseDict({"parts": [{"text": "hi"}, {"data": _data(6)}], **fields}, Message())


CASES = [
    SendMessageRequest(message=_message(messageId="m", role="ROLE_USER")),
    SendMessageRequest(message=_message()),  # no message id, no role
    SendMessageRequest(message=Message(message_id="m", role="ROLE_USER")),  # no parts
    SendMessageRequest(),  # no message
    SendMessageRequest(message=_message(messageId="m", role="ROLE_USER"),
                       configuration=SendMessageConfiguration(
                           task_push_notification_config=TaskPushNotificationConfig(
                               authentication=AuthenticationInfo()))),  # no url, no scheme
    _message(role="ROLE_AGENT"),
    Part(),
]


def test_the_errors_are_a2a_sdks_own(monkeypatch: pytest.MonkeyPatch) -> None:
    sdk_checks.install()
    original = sdk_checks.sdk_original
    assert original is not None
    assert proto_utils._validate_proto_required_fields_internal is \
        sdk_checks.required_field_errors
    ours = [sdk_checks.required_field_errors(case) for case in CASES]
    monkeypatch.setattr(proto_utils, "_validate_proto_required_fields_internal", original)
    theirs = [original(case) for case in CASES]  # its recursion: its own function again
    assert ours == theirs
    assert [len(e) for e in ours] == [0, 2, 1, 1, 2, 1, 0]  # what each case misses


def test_a2a_sdks_handlers_check_with_it() -> None:
    from a2a.utils.errors import InvalidParamsError

    sdk_checks.install()
    sdk_checks.install()  # once is enough; again changes nothing
    assert sdk_checks.sdk_original is not sdk_checks.required_field_errors
    proto_utils.validate_proto_required_fields(CASES[0])
    with pytest.raises(InvalidParamsError) as raised:
        proto_utils.validate_proto_required_fields(CASES[1])
    assert raised.value.data == {"errors": [
        {"field": "message.message_id", "message": "Field is required."},
        {"field": "message.role", "message": "Field is required."}]}
