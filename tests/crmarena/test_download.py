"""Files pinned by their git blob id (CRMArena's org dumps), against a loopback HTTP server."""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from a2abench._paths import cache_dir
from a2abench.benchmarks.crmarena import upstream
from a2abench.errors import DataCorrupt, DataMissing
from a2abench.net import download as _download
from tests.tau2.test_download import FileServer


@pytest.fixture
def server() -> Iterator[FileServer]:
    with FileServer.serving() as s:
        yield s


def test_git_blob_id_is_gits_object_id(tmp_path: Path) -> None:
    body = b"hello\n"
    assert _download.git_blob_sha1(body) == "ce013625030ba8dba906f756967f9e9ca394464a"
    (tmp_path / "f").write_bytes(b"x" * 3_000_000)
    expected = hashlib.sha1(b"blob 3000000\0" + b"x" * 3_000_000).hexdigest()
    assert _download.git_blob_sha1_file(tmp_path / "f") == expected


def test_git_blob_id_matches_git_itself(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"some org bytes\x00\x01")
    try:
        out = subprocess.run(["git", "hash-object", str(tmp_path / "f")], check=True,
                             capture_output=True, text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not installed")
    assert _download.git_blob_sha1_file(tmp_path / "f") == out


def test_a_file_pinned_by_blob_id_is_verified_and_cached(server: FileServer) -> None:
    body = b"SQLite format 3\x00" + bytes(range(256)) * 10
    server.files["/local_data/org.db"] = body
    item = _download.RemoteFile("local_data/org.db", server.url + "local_data/org.db",
                                git_blob_sha1=_download.git_blob_sha1(body))
    path = _download.ensure([item], folder="c")["local_data/org.db"]
    assert path.read_bytes() == body
    _download.ensure([item], folder="c")
    assert server.requests == ["/local_data/org.db"]  # the cached copy was verified, reused


def test_a_tampered_file_is_rejected_with_both_ids(server: FileServer) -> None:
    server.files["/org.db"] = b"tampered"
    item = _download.RemoteFile("org.db", server.url + "org.db",
                                git_blob_sha1=_download.git_blob_sha1(b"original"))
    with pytest.raises(DataCorrupt, match="git blob id") as err:
        _download.ensure([item], folder="c", hint="Pass --crm-db PATH.")
    assert "not cached" in (err.value.hint or "") and "--crm-db" in (err.value.hint or "")
    assert not (cache_dir() / "c" / "org.db").exists()


def test_every_given_pin_must_match(server: FileServer) -> None:
    server.files["/a"] = b"alpha"
    good_blob = _download.git_blob_sha1(b"alpha")
    item = _download.RemoteFile("a", server.url + "a", sha256="0" * 64, git_blob_sha1=good_blob)
    with pytest.raises(DataCorrupt, match="sha256"):
        _download.ensure([item], folder="c")
    with pytest.raises(ValueError, match="pin"):
        _download.RemoteFile("a", "http://x/a")


def test_org_database_downloads_from_the_pinned_path(server: FileServer,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    body = b"pretend this is crmarenapro_b2b_data.db"
    path = "local_data/crmarenapro_b2b_data.db"
    server.files["/" + path] = body
    pinned = upstream.manifest()
    fake = upstream.Manifest(pinned.repository, "abc123", pinned.texts,
                             {"b2b": (path, _download.git_blob_sha1(body))})
    monkeypatch.setattr(upstream, "manifest", lambda: fake)
    monkeypatch.setenv(upstream.URL_ENV, server.url)
    got = upstream.org_database("b2b")
    assert got == cache_dir() / "crmarena" / "abc123" / path and got.read_bytes() == body


def test_org_database_offline_names_crm_db(server: FileServer,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(upstream.URL_ENV, server.url)  # serves nothing: 404
    with pytest.raises(DataMissing, match="crmarena_data.db") as err:
        upstream.org_database("original")
    assert "--crm-db" in (err.value.hint or "")


def test_the_manifest_pins_the_three_orgs_and_three_texts() -> None:
    m = upstream.manifest()
    assert m.commit.startswith("32b609a") and len(m.commit) == 40
    assert {org: blob for org, (_, blob) in m.orgs.items()} == {
        "original": "86cf4c611eb93e674d3af6047ed1aeb9a7f07416",
        "b2b": "6e1978093efd0a7a7c97b65c124d12d098bb917f",
        "b2c": "dd0434bfd849dc8212c41d6095e3365ad75a1ce2"}
    assert sorted(m.texts) == sorted([upstream.ENV_PY, upstream.PROMPTS_PY, upstream.USERS_PY])
