"""The test servers free their port on every failure path (issue 22: a skip inside an app
factory left a bound socket that `filterwarnings = error` turned into another test's error)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from tests.servers import serve


def test_serve_closes_its_socket_when_the_app_factory_skips() -> None:
    def factory(base: str) -> Any:
        pytest.skip("no reference data")

    gc.freeze()  # what the worker held before: the collection below walks the test's own
    try:
        with pytest.raises(pytest.skip.Exception), serve(factory):
            pass
        gc.collect()  # an unclosed socket warns here, and pytest fails this test for it
    finally:
        gc.unfreeze()
