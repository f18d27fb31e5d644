"""run/tracebacks.py: the remembered traceback text is always the one `format_exc` gives."""

from __future__ import annotations

import traceback
from collections.abc import Callable

import pytest

from a2abench.run import tracebacks


def _raise(message: str) -> None:
    raise ValueError(message)


def _through_a(message: str) -> None:
    _raise(message)


def _through_b(message: str) -> None:
    _raise(message)


def _caused(message: str) -> None:
    try:
        _raise(message)
    except ValueError as exc:
        raise KeyError("outer") from exc


def _during(message: str) -> None:
    try:
        _raise(message)
    except ValueError:
        raise KeyError("outer")  # noqa: B904 - the implicit context is the point


def _suppressed(message: str) -> None:
    try:
        _raise(message)
    except ValueError:
        raise KeyError("outer") from None


def _noted(message: str) -> None:
    try:
        _raise(message)
    except ValueError as exc:
        exc.add_note(f"note {message}")
        raise


def _group(message: str) -> None:
    raise ExceptionGroup("group", [ValueError(message)])


def _both(fn: Callable[[str], None], message: str) -> tuple[str, str]:
    """(remembered text, traceback.format_exc()) for the same exception."""
    try:
        fn(message)
    except Exception:
        return tracebacks.format_exc(), traceback.format_exc()
    raise AssertionError("did not raise")


@pytest.mark.parametrize("fn", [_through_a, _caused, _during, _suppressed, _noted, _group])
def test_the_text_is_format_exc_first_and_every_later_time(fn: Callable[[str], None]) -> None:
    tracebacks._MEMO.clear()
    for message in ("one", "one", "two", "one"):
        remembered, fresh = _both(fn, message)
        assert remembered == fresh


def test_a_different_path_message_or_chain_is_a_different_text() -> None:
    tracebacks._MEMO.clear()
    texts = {_both(fn, message)[0] for fn in (_through_a, _through_b, _caused, _during, _noted)
             for message in ("one", "two")}
    assert len(texts) == 10
    assert len(tracebacks._MEMO) == 10
    # `from None` hides the inner exception: its message does not change the text
    assert _both(_suppressed, "one")[0] == _both(_suppressed, "two")[0]


def _linked(how: str) -> tuple[str, str]:
    """The same two raises, chained as a cause or as a context."""
    inner = ValueError("inner")
    try:
        raise KeyError("outer")
    except KeyError as exc:
        if how == "cause":
            exc.__cause__ = inner
        else:
            exc.__context__ = inner
        return tracebacks.format_exc(), traceback.format_exc()


def test_a_cause_and_a_context_are_different_texts() -> None:
    tracebacks._MEMO.clear()
    (cause, fresh_cause), (context, fresh_context) = _linked("cause"), _linked("context")
    assert cause == fresh_cause and context == fresh_context and cause != context


def test_a_looping_chain_is_formatted_afresh() -> None:
    tracebacks._MEMO.clear()
    inner, outer = ValueError("inner"), KeyError("outer")
    try:
        raise outer
    except KeyError as exc:
        inner.__context__, exc.__context__ = exc, inner  # each the other's context
        assert tracebacks.format_exc() == traceback.format_exc()
    assert not tracebacks._MEMO


def test_the_memo_stays_bounded() -> None:
    tracebacks._MEMO.clear()
    for i in range(tracebacks._MEMO_MAX + 5):
        _both(_through_a, str(i))
    assert len(tracebacks._MEMO) <= tracebacks._MEMO_MAX
