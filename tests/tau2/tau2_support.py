"""Fixtures for the tau2 tests: domains loaded from ../shared/data (skipped when absent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.domain_core import Tau2Domain
from tests.conftest import shared_data

# A checkout of upstream tau2-bench at the pinned commit (holding src/tau2/...), optional:
# with it the tests also compare full schemas (upstream descriptions) and the judge prompt.
UPSTREAM_ENV = "TAU2_UPSTREAM_CHECKOUT"


def data_root() -> Path:
    return shared_data("tau2").parent


def domain(name: str) -> Tau2Domain:
    return load_domain(name, data_dir=data_root())


def upstream_domain(name: str) -> Tau2Domain:
    """The domain read with upstream's source files (descriptions, judge prompt), or skip."""
    checkout = os.environ.get(UPSTREAM_ENV)
    if not checkout or not (Path(checkout) / "src" / "tau2").is_dir():
        pytest.skip(f"set {UPSTREAM_ENV} to a tau2-bench checkout at the pinned commit "
                    "(with data/ and src/) to compare upstream descriptions")
    return load_domain(name, data_dir=Path(checkout) / "data")
