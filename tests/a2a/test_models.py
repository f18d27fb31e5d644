"""Normalized models parse card, message and task JSON of A2A 0.2, 0.3 and 1.0."""

from __future__ import annotations

import pytest

from a2abench.a2a import dialects as d
from a2abench.a2a.models import (
    ArtifactUpdate,
    DataPart,
    FilePart,
    StatusUpdate,
    TaskState,
    TextPart,
)
from a2abench.errors import ProtocolError
from tests.a2a import fixtures as fx


def test_card_v02_reads_url_and_legacy_security() -> None:
    card = d.parse_card(fx.CARD_V02)
    assert card.dialect == "0.2" and card.protocol_version is None
    assert [(i.url, i.binding) for i in card.interfaces] == [
        ("https://agents.example.com/weather", "JSONRPC")]
    assert card.provider is not None and card.provider.organization == "Example"
    assert card.capabilities.state_transition_history is True
    assert card.security_schemes["bearer"].type == "http"
    assert card.security_schemes["bearer"].details == {"scheme": "bearer"}
    assert card.security == [{"bearer": []}]
    assert card.skills[0].examples == ["rain in Paris?"]


def test_card_v03_merges_additional_interfaces() -> None:
    card = d.parse_card(fx.CARD_V03)
    assert card.dialect == "0.3" and card.protocol_version == "0.3.0"
    assert [(i.binding, i.url.rsplit("/", 1)[1]) for i in card.interfaces] == [
        ("JSONRPC", "jsonrpc"), ("HTTP+JSON", "rest")]
    assert card.capabilities.extended_agent_card is True
    assert card.security_schemes["key"].details == {"in": "header", "name": "X-Key"}
    assert card.skills[0].input_modes == ["application/json"]


def test_card_v10_interfaces_tenant_and_oneof_schemes() -> None:
    card = d.parse_card(fx.CARD_V10)
    assert card.dialect == "1.0" and card.protocol_version is None
    assert [(i.binding, i.protocol_version, i.tenant) for i in card.interfaces] == [
        ("HTTP+JSON", "1.0", None), ("JSONRPC", "1.0", "acme"), ("JSONRPC", "0.3", None)]
    assert card.security_schemes["oauth"].type == "oauth2"
    assert "flows" in card.security_schemes["oauth"].details
    assert card.security == [{"oauth": ["read"]}]
    assert card.capabilities.extensions[0]["uri"] == "https://ext.example/x"


@pytest.mark.parametrize("raw", [fx.MESSAGE_V03, fx.MESSAGE_V10], ids=["0.3", "1.0"])
def test_message_parts_of_every_kind(raw: dict) -> None:
    msg = d.parse_message(raw)
    assert msg.role == "agent" and msg.context_id == "c1" and msg.task_id == "t1"
    text, url_file, raw_file, data = msg.parts
    assert isinstance(text, TextPart) and text.text == "hi"
    assert isinstance(url_file, FilePart) and url_file.uri == "https://x/a.pdf"
    assert url_file.mime_type == "application/pdf" and url_file.name == "a.pdf"
    assert isinstance(raw_file, FilePart) and raw_file.bytes == "aGk="
    assert isinstance(data, DataPart) and data.data == {"k": "v"}


def test_task_v03_input_required_with_artifacts_and_history() -> None:
    task = d.parse_task(fx.TASK_V03)
    assert task.status.state is TaskState.INPUT_REQUIRED and task.status.state.interrupted
    assert task.status.message is not None and task.status.message.text == "Which date?"
    assert isinstance(task.artifacts[0].parts[0], DataPart)
    assert task.history[0].role == "user"


def test_send_result_v10_envelope_and_enum_spellings() -> None:
    task = d.parse_result(fx.SEND_RESULT_V10)
    assert task.status.state is TaskState.COMPLETED and task.status.state.terminal
    assert task.history[0].role == "user"
    assert d.parse_state(3) is TaskState.COMPLETED
    assert d.parse_state("TASK_STATE_INPUT_REQUIRED") is TaskState.INPUT_REQUIRED
    assert d.parse_state("nonsense") is TaskState.UNKNOWN


def test_stream_events_both_dialects() -> None:
    status = d.parse_stream_event(fx.STATUS_UPDATE_V10)
    assert isinstance(status, StatusUpdate) and status.status.state is TaskState.WORKING
    art = d.parse_stream_event(fx.ARTIFACT_UPDATE_V03)
    assert isinstance(art, ArtifactUpdate) and art.append and art.artifact.artifact_id == "a1"


@pytest.mark.parametrize("dialect", ["0.2", "0.3", "1.0"])
def test_outgoing_message_round_trips(dialect: str) -> None:
    msg = d.parse_message(fx.MESSAGE_V03)
    wire = d.message_to_wire(msg, dialect)  # type: ignore[arg-type]
    assert ("kind" in wire) is (dialect != "1.0")
    assert wire["role"] == ("ROLE_AGENT" if dialect == "1.0" else "agent")
    assert d.parse_message(wire) == msg


def test_bad_shapes_raise_protocol_error_naming_the_problem() -> None:
    with pytest.raises(ProtocolError, match="role"):
        d.parse_message({"messageId": "x", "role": "robot", "parts": []})
    with pytest.raises(ProtocolError, match="neither a Task nor a Message"):
        d.parse_result({"hello": 1})
    with pytest.raises(ProtocolError, match="task.id"):
        d.parse_task({"status": {"state": "completed"}})
    with pytest.raises(ProtocolError, match="part"):
        d.parse_part({"weird": True})


def test_legacy_type_discriminator_is_accepted() -> None:
    assert isinstance(d.parse_part({"type": "text", "text": "x"}), TextPart)
