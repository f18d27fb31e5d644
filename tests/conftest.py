"""Shared fixtures: every test runs with a clean A2ABENCH_* environment and its own cache dir."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"

_ISOLATED_PREFIXES = ("A2ABENCH_", "OPENAI_", "SALESFORCE_")
_ISOLATED_NAMES = ("CI", "NO_COLOR", "GITHUB_STEP_SUMMARY", "HF_HUB_OFFLINE")


@pytest.fixture(autouse=True)
def clean_environ(tmp_path_factory: pytest.TempPathFactory,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in list(os.environ):
        if name.startswith(_ISOLATED_PREFIXES) or name in _ISOLATED_NAMES:
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("A2ABENCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    yield


def shared_data(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test with the reason when it is absent."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"reference data not found at {path} (the ../shared/data folder beside "
                    "the project); fidelity tests need it")
    return path
