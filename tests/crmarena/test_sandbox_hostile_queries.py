"""Issue 17 item 1: queries the sandbox cannot compute are the agent's malformed queries
(answered as Salesforce answers them), never a harness crash left out of the score."""

from __future__ import annotations

import pytest

from a2abench.benchmarks.crmarena.sandbox.engine import OrgSandbox


@pytest.mark.parametrize("query", [
    "SELECT Id FROM Case WHERE CreatedDate = LAST_N_DAYS:999999999999",
    "SELECT Id FROM Case WHERE CreatedDate = NEXT_N_YEARS:99999999999999999999",
    "SELECT Id FROM Case WHERE " + "NOT " * 5000 + "Status = 'x'",
    "FIND {abc} RETURNING Case(Id WHERE " + "NOT " * 5000 + "Status = 'x')",
], ids=["last-n-days-overflow", "next-n-years-overflow", "nested-not", "sosl-nested-not"])
def test_uncomputable_queries_are_malformed_query_observations(b2b: OrgSandbox,
                                                               query: str) -> None:
    observation = b2b.observe(query)
    assert observation.startswith("MALFORMED_QUERY: the query cannot be processed")
    assert b2b.observe("SELECT Id FROM Case LIMIT 1").startswith("[{")  # still serving
