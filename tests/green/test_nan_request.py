"""Issue 34: NaN or Infinity in a request's DataPart is rejected as a2abench rejects any bad
request. The task kept the request in its history as sent, so every answer about it failed to
serialise: the requester got -32603 instead of the rejection, the log a traceback."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import httpx
import pytest
from a2a.types import Message, Part
from google.protobuf.struct_pb2 import Value

from a2abench.green import GreenSettings
from a2abench.green.executor import finite_copy
from tests.green.helpers import green_server

REQUEST = ('{"participants": {"agent": "http://127.0.0.1:9"}, "config": {"benchmark": "tau2", '
           '"timeout": %s, "nested": [1, {"deep": [%s]}]}}')


def _post(base: str, version: str, number: str) -> httpx.Response:
    data = REQUEST % (number, number)
    mid = f"m{time.time_ns()}"
    if version == "0.3":
        body = ('{"jsonrpc": "2.0", "id": 1, "method": "message/send", "params": {"message": '
                f'{{"kind": "message", "role": "user", "messageId": "{mid}", "parts": '
                f'[{{"kind": "data", "data": {data}}}]}}}}}}')
        headers = {"content-type": "application/json"}
    else:
        body = ('{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": '
                f'{{"role": "ROLE_USER", "messageId": "{mid}", "parts": [{{"data": {data}}}]}}'
                "}}")
        headers = {"content-type": "application/json", "A2A-Version": "1.0"}
    return httpx.post(base + "/", content=body, headers=headers, timeout=30)


@pytest.mark.parametrize(("version", "number"), [("0.3", "NaN"), ("1.0", "Infinity"),
                                                 ("0.3", "-Infinity")])
def test_a_non_finite_number_is_rejected_not_an_internal_error(
        tmp_path: Path, version: str, number: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    with green_server(GreenSettings(output_dir=tmp_path)) as (base, _):
        answer = _post(base, version, number).json()
    assert "error" not in answer, answer
    task = answer["result"] if version == "0.3" else answer["result"]["task"]
    state = task["status"]["state"]
    assert state in ("rejected", "TASK_STATE_REJECTED")
    text = task["status"]["message"]["parts"][0]["text"]
    assert "a DataPart holds a value JSON cannot carry" in text
    assert "Traceback" not in caplog.text and "Failed to serialize" not in caplog.text


def test_the_stored_copy_keeps_every_finite_value_and_the_request_stays_as_sent() -> None:
    sent = Message(message_id="m", parts=[Part(data=Value(number_value=float("nan")))])
    sent.parts[0].data.Clear()
    sent.parts[0].data.struct_value.update({"a": 1.5, "b": [float("inf"), "x"],
                                            "c": {"d": float("-inf")}})
    stored = finite_copy(sent)
    fields = stored.parts[0].data.struct_value.fields
    assert fields["a"].number_value == 1.5
    assert [v.string_value or v.number_value for v in fields["b"].list_value.values] == \
        ["Infinity", "x"]
    assert fields["c"].struct_value.fields["d"].string_value == "-Infinity"
    assert sent.parts[0].data.struct_value.fields["c"].struct_value.fields["d"].number_value \
        == float("-inf")
    clean = Message(message_id="n", parts=[Part(text="hi")])
    assert finite_copy(clean) is clean


@pytest.mark.parametrize(("version", "number"), [("0.3", "9" * 400), ("1.0", "-" + "9" * 400),
                                                 ("0.3", "1" * 5000)])
def test_an_integer_beyond_a_double_is_invalid_params_not_an_internal_error(
        tmp_path: Path, version: str, number: str, caplog: pytest.LogCaptureFixture) -> None:
    """protobuf's Value cannot hold it: a2a-sdk answered -32603 (0.3) or logged a traceback."""
    caplog.set_level(logging.INFO)
    with green_server(GreenSettings(output_dir=tmp_path)) as (base, _):
        answer = _post(base, version, number).json()
    assert answer["id"] == 1
    assert answer["error"]["code"] == -32602
    assert "integers must fit a double" in answer["error"]["message"]
    assert "Traceback" not in caplog.text and "OverflowError" not in caplog.text


def test_long_digit_runs_that_fit_or_sit_in_text_are_not_refused(tmp_path: Path) -> None:
    with green_server(GreenSettings(output_dir=tmp_path)) as (base, _):
        fits = _post(base, "0.3", "1" + "0" * 308).json()  # 1e308: a double holds it
        text = _post(base, "1.0", '"%s"' % ("9" * 400)).json()
    for answer in (fits, text):
        assert "integers must fit a double" not in str(answer.get("error")), answer
