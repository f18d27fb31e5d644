"""Synthetic orgs shared by the CRMArena sandbox tests (generated once per session)."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.crmarena.sandbox import OrgSandbox
from a2abench.benchmarks.crmarena.synthetic import generate_org

TODAY = dt.date(2023, 6, 15)   # a Thursday; relative date literals are checked against it


@pytest.fixture(scope="session")
def org_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("orgs")


@pytest.fixture(scope="session")
def b2b_db(org_dir: Path) -> Path:
    path = org_dir / "b2b.db"
    generate_org(path, org="b2b", seed=0, scale="small")
    return path


@pytest.fixture(scope="session")
def b2c_db(org_dir: Path) -> Path:
    path = org_dir / "b2c.db"
    generate_org(path, org="b2c", seed=0, scale="small")
    return path


@pytest.fixture(scope="session")
def original_db(org_dir: Path) -> Path:
    path = org_dir / "original.db"
    generate_org(path, org="original", seed=0, scale="small")
    return path


@pytest.fixture(scope="session")
def b2b(b2b_db: Path) -> Iterator[OrgSandbox]:
    with OrgSandbox.open(b2b_db, today=TODAY) as sandbox:
        yield sandbox


@pytest.fixture(scope="session")
def raw(b2b_db: Path) -> Iterator[sqlite3.Connection]:
    """A plain read-only connection for oracle SQL written by hand in the tests."""
    conn = sqlite3.connect(f"{b2b_db.resolve().as_uri()}?mode=ro", uri=True)
    yield conn
    conn.close()


_PLACEHOLDER = re.compile(
    r"\{(id15:|day:)?([A-Za-z0-9_]+):(\d+)(?::([A-Za-z0-9_]+))?\}")


def fill(text: str, conn: sqlite3.Connection) -> str:
    """Replace `{Object:n}` (n-th row's Id), `{Object:n:Field}`, `{id15:Object:n}` (the
    15-character Id) and `{day:Object:n:Field}` (the date part of a datetime)."""
    def value(m: re.Match[str]) -> str:
        prefix, obj, n, fld = m.groups()
        row = conn.execute(f'SELECT "{fld or "Id"}" FROM "{obj}" ORDER BY rowid '
                           f"LIMIT 1 OFFSET {int(n)}").fetchone()
        assert row is not None, f"no row {n} in {obj}"
        out = str(row[0])
        return out[:15] if prefix == "id15:" else out[:10] if prefix == "day:" else out
    return _PLACEHOLDER.sub(value, text)


def normal(value: Any) -> Any:
    """Compare values across the sandbox and raw SQLite (booleans, float noise)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return round(value, 6)
    return value


@pytest.fixture(autouse=True)
def no_upstream_downloads(monkeypatch: pytest.MonkeyPatch) -> None:
    """Point pinned CRMArena downloads at a closed loopback port: no test reaches GitHub."""
    from a2abench.benchmarks.crmarena import upstream
    from tests.servers import free_port

    monkeypatch.setenv(upstream.URL_ENV, f"http://127.0.0.1:{free_port()}/")
