"""banking_knowledge dense retrieval through an OpenAI-compatible embeddings endpoint (the
real fake LLM server on loopback), with the LLM client's on-disk cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from a2abench.benchmarks.tau2 import domain as domain_module
from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.models import ToolCall
from a2abench.errors import ConfigError, LLMAuthError
from a2abench.llm import LLMConfig
from tests.fakes.llm_server import FakeLLMServer, word_vector
from tests.tau2 import gold_agent
from tests.tau2.tau2_support import data_root


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setattr(domain_module, "_DOMAINS", {})
    s = FakeLLMServer()
    with s.running():
        yield s


def _load(server: FakeLLMServer, variant: str = "openai_embeddings") -> Any:
    config = LLMConfig(model="text-embedding-3-large", base_url=server.base_url)
    return load_domain("banking_knowledge", data_dir=data_root(), retrieval_variant=variant,
                       embedding=config)


def _ranking(d: Any, query: str) -> list[tuple[str, float]]:
    """Upstream's cosine retriever on the same vectors (normalize, dot, argsort reversed),
    then its pipeline's stable sort; computed here independently of DenseIndex."""
    docs = np.array([word_vector(doc.content) for doc in d.kb.documents])
    q = np.array(word_vector(query))
    q = q / np.linalg.norm(q)
    norms = np.linalg.norm(docs, axis=1, keepdims=True)
    scores = np.dot(docs / np.where(norms == 0, 1, norms), q)
    top = np.argsort(scores)[::-1][:10]
    hits = [(d.kb.documents[i].id, float(scores[i])) for i in top]
    return sorted(hits, key=lambda h: h[1], reverse=True)


def test_kb_search_ranks_by_cosine_like_upstream(server: FakeLLMServer) -> None:
    d = _load(server)
    env = d.fresh_environment()
    target = d.kb.documents[5]
    out = env.execute(ToolCall(id="k", name="KB_search", arguments={"query": target.content}))
    assert not out.error
    body = (out.content or "").rsplit("\n\n[Timing: ", 1)[0]
    ids = [line.split("ID: ")[1] for line in body.splitlines() if line.startswith("   ID: ")]
    expected = _ranking(d, target.content)
    assert ids == [doc for doc, _ in expected] and ids[0] == target.id
    assert f"   Score: {expected[0][1]:.4f}" in body
    assert env.blocking  # the orchestrator runs these tool calls off the event loop
    names = [s["function"]["name"] for s in d.agent_tool_schemas()]
    assert names[0] == "KB_search" and "grep" not in names


def test_embeddings_are_cached_on_disk(server: FakeLLMServer,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    d = _load(server, "openai_embeddings_grep")
    d.fresh_environment().execute(ToolCall(id="k", name="KB_search",
                                           arguments={"query": "annual fee"}))
    first = len(server.requests)
    assert first == 7  # 698 documents in batches of 128, then the query
    monkeypatch.setattr(domain_module, "_DOMAINS", {})
    again = _load(server, "openai_embeddings_grep")
    again.fresh_environment().execute(ToolCall(id="k", name="KB_search",
                                               arguments={"query": "annual fee"}))
    assert len(server.requests) == first  # documents and query came from the cache
    assert "grep" in [s["function"]["name"] for s in again.agent_tool_schemas()]


def test_blank_query_is_upstreams_error(server: FakeLLMServer) -> None:
    env = _load(server).fresh_environment()
    out = env.execute(ToolCall(id="k", name="KB_search", arguments={"query": "  "}))
    assert out.error and out.content == ("Error: Empty or missing input for key 'query': "
                                         "cannot generate embedding from blank text.")


def test_dense_variants_without_an_endpoint_are_refused() -> None:
    with pytest.raises(ConfigError) as err:
        load_domain("banking_knowledge", data_dir=data_root(),
                    retrieval_variant="openai_embeddings")
    assert "--embedding-llm" in (err.value.hint or "")
    with pytest.raises(ConfigError, match="reranker"):
        load_domain("banking_knowledge", data_dir=data_root(),
                    retrieval_variant="openai_embeddings_reranker",
                    embedding=LLMConfig(model="m", base_url="http://127.0.0.1:1/v1"))


def test_endpoint_errors_are_llm_errors(server: FakeLLMServer) -> None:
    server.enqueue_error(401, "bad key")
    with pytest.raises(LLMAuthError, match="HTTP 401"):
        _load(server)


def test_run_end_to_end_with_dense_retrieval(tmp_path: Path, server: FakeLLMServer) -> None:
    d = _load(server)
    tasks = {t.id: t for t in d.tasks(task_ids=["task_046"])}
    server.handler = gold_agent.gold_user(tasks)
    records = gold_agent.run_banking_gold(
        tasks, tmp_path / "dense.jsonl", server.base_url, data_root(), "--retrieval-variant",
        "openai_embeddings", "--embedding-llm-base-url", server.base_url)
    run = next(x for x in records if x["type"] == "run")
    assert run["data"]["embedding_model"] == "text-embedding-3-large"
    assert [x["reward"] for x in records if x["type"] == "task"] == [1.0]
