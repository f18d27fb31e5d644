"""tests/kept.py: values derived from a text, kept on disk between runs by the text's hash."""

from __future__ import annotations

from pathlib import Path

import pytest


def test_a_kept_value_follows_the_text(tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # A derived value is read back for the same text, derived again for an
    # edited one, and a torn entry is derived again rather than trusted.
    from tests import kept

    monkeypatch.setattr(kept, "STORE", tmp_path)
    calls: list[bytes] = []

    def derive(text: bytes) -> list[str]:
        calls.append(text)
        return [text.decode()]

    assert kept.kept("k", b"one", derive) == ["one"] == kept.kept("k", b"one", derive)
    assert kept.kept("k", b"two", derive) == ["two"] and calls == [b"one", b"two"]
    for entry in (tmp_path / "k").iterdir():
        entry.write_text('["torn')
    assert kept.kept("k", b"one", derive) == ["one"] and len(calls) == 3
    monkeypatch.setattr(kept, "LIMIT", 1)
    kept.kept("k", b"three", derive)
    assert len(list((tmp_path / "k").iterdir())) == 1  # started again past the limit
