"""`a2abench run crmarena` against hostile white agents (issues 17 and 18): each probe ends
within its timeout, is classified (never a harness_error, never a hang), and the run goes on
to score the task-trials after it."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.crmarena import upstream
from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks
from a2abench.benchmarks.crmarena.upstream import TextSource
from tests.clihelp import Result, run_cli
from tests.crmarena import upstream_shaped
from tests.hostile.hostile_agent import HostileAgent, hostile
from tests.waits import HANG_S

# The hostile task-trial, then one more: enough to show the run goes on and scores it.
TASKS = 2


@pytest.fixture(scope="module")
def org(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("hostile_org")
    db = root / "b2b.db"
    generate_org(db, org="b2b", seed=0, scale="tiny")  # the probes never query it
    rows = generate_tasks(db, org="b2b", seed=0, per_category=1)[:TASKS]
    tasks_file = root / "tasks.jsonl"
    tasks_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"db": db, "file": tasks_file, "texts": upstream_shaped.texts(root / "upstream")}


@pytest.fixture(autouse=True)
def shaped_texts(org: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(upstream, "resolve_texts",
                        lambda base_url=None: TextSource(org["texts"]))


def run(org: dict[str, Any], base: str, out: Path, *extra: str) -> Result:
    return run_cli("run", "crmarena", "--white-agent-url", base, "--tasks-file",
                   str(org["file"]), "--crm-db", str(org["db"]), "--output", str(out),
                   "--judge-llm", "offline", "--concurrency", "1", "--retry-delay", "0.01",
                   *extra)


def tasks(out: Path) -> list[dict[str, Any]]:
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    return [r for r in recs if r["type"] == "task"]


def probe(org: dict[str, Any], tmp_path: Path, mode: str, *extra: str,
          **agent: Any) -> tuple[Result, list[dict[str, Any]], HostileAgent, float]:
    out = tmp_path / f"{mode}.jsonl"
    with hostile(mode, **agent) as (server, base):
        t0 = time.monotonic()
        result = run(org, base, out, *extra)
        elapsed = time.monotonic() - t0
    return result, tasks(out), server, elapsed


# mode, extra flags, status of the first task-trial, error class, message pattern
CASES = [
    ("oversize", ["--max-reply-bytes", "2000000"], "agent_error", "ReplyTooLarge",
     r"larger than the 2 MB cap \(--max-reply-bytes 2000000\)"),
    ("deep", [], "agent_error", "ReplyTooDeep", "nested deeper than 100 levels"),
    ("deep_text", [], "agent_error", "ReplyTooDeep", "nested deeper than 100 levels"),
    ("role_list", [], "agent_error", "ProtocolError", "role"),
    ("artifacts", [], "agent_error", "ReplyLimitExceeded",
     "20000 artifacts; the limit is 1000"),
    ("endless", ["--timeout", "1"], "agent_error", "ReplyTooSlow", "still sending"),
    ("drip", ["--timeout", "1"], "agent_error", "ReplyTooSlow", "still sending"),
    ("silent", ["--timeout", "1", "--retries", "0"], "infrastructure_error", "AgentTimeout",
     "no answer"),
    ("silent", ["--task-timeout", "1"], "agent_error", "TaskTimeout",
     r"--task-timeout 1 s\) passed while waiting for the agent"),
    ("working", ["--timeout", "1"], "agent_error", "ReplyTooSlow",
     "still working after 1 s"),
    ("working", ["--task-timeout", "1"], "agent_error", "TaskTimeout",
     "--task-timeout 1 s"),
    ("bad_utf8", [], "agent_error", "ProtocolError", "not valid UTF-8"),
    ("surrogate", [], "agent_error", "ProtocolError",
     r"not valid Unicode text: a lone surrogate \(U\+D800 at character 3 of parts\[0\]\.text\)"),
    ("wrong_ctype", [], "agent_error", "ProtocolError", "not JSON \\(content-type text/html"),
    ("retry_after", ["--retries", "3"], "infrastructure_error", "AgentUnreachable",
     "asked to retry after 999999 s"),
]


@pytest.mark.parametrize(("mode", "extra", "status", "error", "pattern"), CASES,
                         ids=[f"{c[0]}{'-' + c[1][0] if c[1] else ''}" for c in CASES])
def test_hostile_reply_is_classified_and_the_run_goes_on(
        org: dict[str, Any], tmp_path: Path, mode: str, extra: list[str], status: str,
        error: str, pattern: str) -> None:
    result, recs, _, elapsed = probe(org, tmp_path, mode, *extra)
    assert result.code == 0, result.err
    assert elapsed < HANG_S, f"{mode} took {elapsed:.1f} s"  # a hang bound, not a speed
    assert len(recs) == TASKS
    first, rest = recs[0], recs[1:]
    assert (first["status"], first["error"]["error"]) == (status, error), first["error"]
    assert pytest.approx(0.0) == (first["reward"] or 0.0)


    assert re.search(pattern, first["error"]["message"]), first["error"]["message"]
    assert all(r["status"] == "ok" for r in rest), [r["error"] for r in rest]


def test_oversize_reply_request_record_counts_what_was_read(org: dict[str, Any],
                                                            tmp_path: Path) -> None:
    result, _, _, _ = probe(org, tmp_path, "oversize", "--max-reply-bytes", "2000000")
    assert result.code == 0, result.err
    recs = [json.loads(x) for x in (tmp_path / "oversize.jsonl").read_text().splitlines()]
    first = next(r for r in recs if r["type"] == "request")
    # stopped at the cap (plus at most one chunk), not after 50 MB
    assert 2_000_000 < first["bytes_received"] < 3_200_000
    assert first["error"].startswith("ReplyTooLarge")


def test_token_goes_only_to_the_host_the_user_gave(org: dict[str, Any],
                                                   tmp_path: Path) -> None:
    # Two redirects: the lean client's first call, then httpx sending it again (issue 39).
    result, _, agent, _ = probe(org, tmp_path, "redirect", "--auth-token", "s3cret",
                                hostile_calls=2)
    assert result.code == 0, result.err
    # 127.0.0.1 (given) got the token; the redirect target `localhost` did not.
    assert agent.seen[:2] == [("127.0.0.1", "Bearer s3cret")] * 2
    assert agent.seen[2] == ("localhost", None)
    assert all(h == "127.0.0.1" for h, _ in agent.seen[3:])
    assert "s3cret" not in (tmp_path / "redirect.jsonl").read_text()


def test_a_redirect_ending_in_403_names_the_final_url(org: dict[str, Any],
                                                     tmp_path: Path) -> None:
    result, recs, _, _ = probe(org, tmp_path, "redirect_403", "--auth-token", "s3cret",
                               hostile_calls=2)  # the lean client's 307, then httpx's
    assert result.code == 0, result.err
    error = recs[0]["error"]
    assert error["error"] == "AgentHTTPError"
    assert re.search(r"HTTP 403 from http://localhost:\d+/forbidden \(redirected from "
                     r"http://127\.0\.0\.1:\d+/rpc\)", error["message"]), error
    # The token was never sent to that host: passing one is no fix.
    assert "--auth-token" not in error["hint"] and "another host" in error["hint"]
    assert all(r["status"] == "ok" for r in recs[1:])


def test_token_follows_card_interfaces_on_hosts_allowed_explicitly(
        org: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "allowed.jsonl"
    with hostile("normal") as (agent, base):
        agent.interface_url = base.replace("127.0.0.1", "localhost") + "/rpc"
        result = run(org, base, out, "--auth-token", "s3cret", "--allow-host", "localhost")
    assert result.code == 0, result.err
    assert "not sent there" not in result.err
    assert {seen for seen in agent.seen} == {("localhost", "Bearer s3cret")}
    # (a redirect to another origin never carries it: httpx drops it there itself)


def test_redirect_outside_allow_host_is_refused(org: dict[str, Any], tmp_path: Path) -> None:
    result, recs, agent, _ = probe(org, tmp_path, "redirect", "--allow-host", "10.0.0.0/8",
                                   hostile_calls=2)  # the lean client's 307, then httpx's
    assert result.code == 0, result.err
    assert (recs[0]["status"], recs[0]["error"]["error"]) == ("agent_error", "HostNotAllowed")
    assert "localhost is not an allowed host" in recs[0]["error"]["message"]
    assert [h for h, _ in agent.seen].count("localhost") == 0
    assert all(r["status"] == "ok" for r in recs[1:])


def test_card_pointing_elsewhere_keeps_the_token_and_warns(org: dict[str, Any],
                                                           tmp_path: Path) -> None:
    out = tmp_path / "card.jsonl"
    with hostile("normal") as (agent, base):
        agent.interface_url = base.replace("127.0.0.1", "localhost") + "/rpc"
        result = run(org, base, out, "--auth-token", "s3cret")
    assert result.code == 0, result.err
    assert "the bearer token is not sent there" in result.err
    assert {auth for _, auth in agent.seen} == {None}


def test_card_pointing_at_a_metadata_address_is_refused_under_allow_host(
        org: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "meta.jsonl"
    with hostile("normal") as (agent, base):
        agent.interface_url = "http://169.254.169.254/latest/rpc"
        result = run(org, base, out, "--allow-host", "agent.internal")
    assert result.code == 0, result.err
    recs = tasks(out)
    assert {r["error"]["error"] for r in recs} == {"HostNotAllowed"}
    assert agent.calls == 0
