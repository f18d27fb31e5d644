"""Concurrent downloads (workers > 1) are bound by a run's --allow-host egress policy too:
worker threads get the caller's context (a merge of hostile's egress policy with the
parallel downloads of the banking data)."""

from __future__ import annotations

import pytest

from a2abench._download import RemoteFile, ensure
from a2abench.a2a.hosts import HostPolicy, egress_policy
from a2abench.errors import A2ABenchError


@pytest.mark.parametrize("workers", [1, 4])
def test_downloads_stay_on_allowed_hosts(workers: int) -> None:
    files = [RemoteFile(path=f"f{i}.txt", url=f"http://elsewhere.invalid/f{i}.txt",
                        sha256="0" * 64) for i in range(3)]
    with egress_policy(HostPolicy(["agent.example"])), \
            pytest.raises(A2ABenchError, match="not an allowed host"):
        ensure(files, folder="egress-test", workers=workers)
