"""CRMArena's tasks from the Hugging Face hub when there is no route to it (issue 35): the run
fails at once with the fix, instead of spending most of a minute in the hub client's retries."""

from __future__ import annotations

import importlib.util
import sys
import types
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

from a2abench.benchmarks.crmarena.tasks import load_hub_rows
from a2abench.errors import DataMissing
from tests.servers import free_port, serve

# Looked up, not imported: `datasets` costs ~1.6 s of CPU to import (see `hub`).
pytestmark = pytest.mark.skipif(importlib.util.find_spec("datasets") is None,
                                reason="the `hub` extra (datasets) is not installed")


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The hub client's calls, recorded instead of made. `datasets` is a stand-in: the product
    reads offline mode without it and only calls its `load_dataset` (the real one runs in
    test_tasks' slow hub test); importing the real package costs ~1.6 s of CPU."""
    from huggingface_hub import constants

    calls: list[tuple[Any, ...]] = []

    def load_dataset(*args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        calls.append(args)
        return [{"idx": 0, "query": "q"}]

    stand_in = types.ModuleType("datasets")
    stand_in.__spec__ = importlib.util.find_spec("datasets")
    stand_in.load_dataset = load_dataset  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "datasets", stand_in)
    monkeypatch.delenv("HF_DATASETS_OFFLINE", raising=False)
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", f"http://127.0.0.1:{free_port()}")  # no one
    return calls


def test_no_route_to_the_hub_fails_at_once_with_the_fix(hub: list[tuple[Any, ...]]) -> None:
    with pytest.raises(DataMissing, match="hub at http://127.0.0.1:.* cannot be reached") as err:
        load_hub_rows("Salesforce/CRMArenaPro", "CRMArenaPro", "b2b")
    assert hub == []  # the hub client (and its retries) never started
    hint = err.value.hint or ""
    assert "--tasks-file" in hint and "HF_HUB_OFFLINE=1" in hint and "synthetic org" in hint


def test_a_hub_that_answers_is_used(hub: list[tuple[Any, ...]],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    app = Starlette(routes=[Route("/", lambda _: Response(status_code=404),
                                  methods=["GET", "HEAD"])])
    with serve(lambda _: app) as base:
        monkeypatch.setattr(constants, "ENDPOINT", base)
        rows = load_hub_rows("Salesforce/CRMArenaPro", "CRMArenaPro", "b2b")
    assert rows == [{"idx": 0, "query": "q"}] and len(hub) == 1


def test_offline_mode_reads_the_cache_without_a_probe(hub: list[tuple[Any, ...]],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    assert load_hub_rows("Salesforce/CRMArenaPro", "CRMArenaPro", "b2b") == [
        {"idx": 0, "query": "q"}]
