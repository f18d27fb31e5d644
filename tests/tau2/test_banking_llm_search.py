"""banking_knowledge variants that need a model, through OpenAI-compatible endpoints (the real
fake LLM server on loopback): upstream's pointwise LLM reranker over the chat endpoint, the
Qwen/OpenRouter embedding variants, and the refusals (no endpoint, no upstream text, shell)."""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from a2abench.benchmarks.tau2 import data
from a2abench.benchmarks.tau2 import domain as domain_module
from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.domains.banking import llm_search
from a2abench.benchmarks.tau2.models import ToolCall
from a2abench.benchmarks.tau2.options import Tau2Options, embedding_config, reranker_config
from a2abench.errors import ConfigError, LLMResponseInvalid
from a2abench.llm import LLMConfig
from tests.fakes.llm_server import FakeLLMServer, Reply, completion, error_body, word_vector
from tests.tau2 import gold_agent
from tests.tau2.tau2_support import UPSTREAM_ENV, data_root

# Stand-ins for upstream's prose (the real texts are read from the pinned sources at run
# time; the optional cross-check below reads them from an upstream checkout).
PROMPT = "Q<<{}>>\nD<<{}>>"
INSTRUCTION = "find passages"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeLLMServer]:
    monkeypatch.setattr(domain_module, "_DOMAINS", {})
    texts = {llm_search.RERANKER_SOURCE: f'DEFAULT_POINTWISE_PROMPT = """{PROMPT}"""\n',
             llm_search.OPENROUTER_SOURCE: f'DEFAULT_QWEN_QUERY_INSTRUCTION = "{INSTRUCTION}"\n'}

    def optional_source(rel: str, data_dir: Path | None = None, **_: Any
                        ) -> tuple[Path | None, str]:
        path = tmp_path / Path(rel).name
        path.write_text(texts[rel])
        return path, ""

    monkeypatch.setattr(data, "optional_source", optional_source)
    s = FakeLLMServer()
    with s.running():
        yield s


def _rating(doc_id: str) -> int:
    """A fixed pseudo-random rating per document (some below upstream's threshold of 5)."""
    return int(hashlib.sha256(doc_id.encode()).hexdigest(), 16) % 13 - 1  # -1..11: clamped


def _rater(kb: Any, special: dict[str, dict[str, Any]] | None = None) -> Any:
    by_content = {d.content: d.id for d in kb.documents}

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        text = body["messages"][0]["content"]
        match = re.fullmatch(r"Q<<(.*)>>\nD<<(.*)>>", text, re.S)
        assert match, text
        doc_id = by_content[match.group(2)]
        if special and doc_id in special:
            return special[doc_id]
        return completion(json.dumps({"relevance_score": _rating(doc_id)}))
    return reply


def _ids(out: str) -> list[tuple[str, str]]:
    lines = out.splitlines()
    return [(a.split("ID: ")[1], b.split("Score: ")[1])
            for a, b in itertools.pairwise(lines) if a.startswith("   ID: ")]


def _load(server: FakeLLMServer, variant: str, model: str = "gpt-5.2") -> Any:
    return load_domain("banking_knowledge", data_dir=data_root(), retrieval_variant=variant,
                       reranker=LLMConfig(model=model, base_url=server.base_url),
                       embedding=LLMConfig(model="text-embedding-3-large",
                                           base_url=server.base_url))


def test_reranker_rates_each_hit_and_keeps_upstreams_order(server: FakeLLMServer,
                                                           caplog: pytest.LogCaptureFixture
                                                           ) -> None:
    d = _load(server, "bm25_reranker")
    query = "credit card annual fee"
    hits = d.kb.search_bm25(query, 10)
    garbage, refused = hits[0][0], hits[1][0]
    server.handler = _rater(d.kb, {
        garbage: completion("a seven"),  # not a RelevanceScore: dropped, as upstream
        refused: {**completion(None), "choices": [{"index": 0, "finish_reason": "stop",
                                                   "message": {"role": "assistant",
                                                               "content": None,
                                                               "refusal": "no"}}]}})
    env = d.fresh_environment()
    with caplog.at_level(logging.WARNING):
        out = env.execute(ToolCall(id="k", name="KB_search", arguments={"query": query}))
    assert not out.error, out.content
    # Upstream: ratings clamped to 0..10, those below 5 dropped, a stable sort by rating.
    ratings = [(i, float(max(0, min(10, _rating(i))))) for i, _ in hits
               if i not in (garbage, refused)]
    expected = sorted([r for r in ratings if r[1] >= 5], key=lambda r: r[1], reverse=True)
    assert 0 < len(expected) < 8 and len({r for _, r in expected}) < len(expected)  # ties
    assert _ids(out.content or "") == [(i, f"{r:.4f}") for i, r in expected]
    assert re.search(r"\n\n\[Timing: retrieval=\d+ms, reranking=\d+ms, total=\d+ms\]$",
                     out.content or "")
    assert env.blocking  # the orchestrator runs these tool calls off the event loop
    bodies = [r.json for r in server.requests if r.path.endswith("/chat/completions")]
    assert len(bodies) == 10
    assert all(b["model"] == "gpt-5.2" and b["reasoning_effort"] == "low"
               and b["response_format"] == llm_search.RESPONSE_FORMAT for b in bodies)
    assert {b["messages"][0]["content"] for b in bodies} == {
        PROMPT.format(query, d.kb.by_id[i].content) for i, _ in hits}
    assert any("not a RelevanceScore" in r.message for r in caplog.records)


def test_reranker_endpoint_errors_drop_documents_and_are_logged(
        server: FakeLLMServer, caplog: pytest.LogCaptureFixture) -> None:
    d = _load(server, "bm25_reranker_grep", model="rater")
    server.handler = lambda body: Reply(status=400, body=error_body("bad request"))
    with caplog.at_level(logging.WARNING):
        out = d.fresh_environment().execute(ToolCall(id="k", name="KB_search",
                                                     arguments={"query": "overdraft fee"}))
    assert (out.content or "").startswith("No relevant documents found.\n\n[Timing: ")
    assert sum("document dropped" in r.message for r in caplog.records) == 10
    assert all("reasoning_effort" not in r.json for r in server.requests)  # not a gpt-5 model


def test_embeddings_reranker_variant_reranks_dense_hits(server: FakeLLMServer) -> None:
    d = _load(server, "openai_embeddings_reranker_grep")
    server.handler = _rater(d.kb)
    out = d.fresh_environment().execute(ToolCall(id="k", name="KB_search",
                                                 arguments={"query": "wire transfer limit"}))
    dense = d.dense.search(np.array(word_vector("wire transfer limit")), 10)
    rated = [(i, float(max(0, min(10, _rating(i))))) for i, _ in dense]
    expected = sorted([r for r in rated if r[1] >= 5], key=lambda r: r[1], reverse=True)
    assert expected and [i for i, _ in _ids(out.content or "")] == [i for i, _ in expected]
    names = [s["function"]["name"] for s in d.agent_tool_schemas()]
    assert names[:2] == ["KB_search", "grep"]
    assert d.describe()["reranker_model"] == "gpt-5.2"


def test_qwen_variant_prefixes_queries_like_upstreams_openrouter_embedder(
        server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("A2ABENCH_LLM_API_KEY", "my-key")
    monkeypatch.setenv("OPENROUTER_API_KEY", "or-key")
    opts = Tau2Options(domain="banking_knowledge", retrieval_variant="qwen_embeddings",
                       embedding_llm="qwen3-embedding-8b",
                       embedding_llm_base_url=server.base_url)
    config = embedding_config(opts)
    assert config is not None and config.model == "qwen/qwen3-embedding-8b"
    assert config.args == {"encoding_format": "float"}
    d = load_domain("banking_knowledge", data_dir=data_root(),
                    retrieval_variant="qwen_embeddings", embedding=config)
    out = d.fresh_environment().execute(ToolCall(id="k", name="KB_search",
                                                 arguments={"query": "annual fee"}))
    sent = [r.json for r in server.requests]
    assert all(b["model"] == "qwen/qwen3-embedding-8b" and b["encoding_format"] == "float"
               for b in sent)
    assert sent[-1]["input"] == [f"Instruct: {INSTRUCTION}\nQuery:annual fee"]
    assert sent[0]["input"][0] == d.kb.documents[0].content  # documents go as they are
    # An explicit URL gets the usual key, as every other endpoint.
    assert server.requests[-1].headers["authorization"] == "Bearer my-key"
    expected = d.dense.search(np.array(word_vector(sent[-1]["input"][0])), 10)
    assert [i for i, _ in _ids(out.content or "")] == [i for i, _ in expected]
    assert d.describe()["embedding_query_instruction"] is True


def test_qwen_defaults_and_non_qwen_openrouter_models(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key")
    config = embedding_config(Tau2Options(domain="banking_knowledge",
                                          retrieval_variant="qwen_embeddings_grep",
                                          embedding_llm="gemini-embedding-001"))
    assert config is not None and config.base_url == llm_search.OPENROUTER_BASE_URL
    assert config.api_key is None  # the OpenAI key never goes to upstream's OpenRouter URL
    assert llm_search.openrouter_model(config.model) == ("google/gemini-embedding-001", False)
    assert llm_search.openrouter_model("my/qwen-embed") == ("my/qwen-embed", True)
    openai = embedding_config(Tau2Options(domain="banking_knowledge",
                                          retrieval_variant="openai_embeddings",
                                          embedding_llm_base_url="http://127.0.0.1:1/v1"))
    assert openai is not None and openai.model == "text-embedding-3-large" and not openai.args
    assert reranker_config(Tau2Options(domain="banking_knowledge")) is None
    assert reranker_config(Tau2Options(domain="banking_knowledge",
                                       reranker_llm="gpt-5.2")) is not None  # key set above
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(ConfigError, match="--reranker-llm gpt-5.2 needs an API key"):
        reranker_config(Tau2Options(domain="banking_knowledge", reranker_llm="gpt-5.2"))
    rr = reranker_config(Tau2Options(domain="banking_knowledge",
                                     reranker_llm_base_url="http://127.0.0.1:1/v1"))
    assert rr is not None and rr.model == "gpt-5.2"


def test_variants_without_what_they_need_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(domain_module, "_DOMAINS", {})
    with pytest.raises(ConfigError, match="needs an LLM reranker") as err:
        load_domain("banking_knowledge", data_dir=data_root(), retrieval_variant="bm25_reranker")
    assert "--reranker-llm" in (err.value.hint or "")
    with pytest.raises(ConfigError, match="embeddings endpoint") as err:
        load_domain("banking_knowledge", data_dir=data_root(),
                    retrieval_variant="qwen_embeddings_reranker",
                    reranker=LLMConfig(model="m", base_url="http://127.0.0.1:1/v1"))
    assert "qwen/qwen3-embedding-8b" in (err.value.hint or "")
    for name in ("terminal_use", "terminal_use_write", "alltools", "AllTools", "alltools-qwen"):
        with pytest.raises(ConfigError, match="shell sandbox"):
            load_domain("banking_knowledge", data_dir=data_root(), retrieval_variant=name)
    # Upstream's reranker prompt is neither beside --data-dir nor in the cache: refused.
    with pytest.raises(ConfigError, match="reranker's prompt is upstream's text") as err:
        load_domain("banking_knowledge", data_dir=data_root(), retrieval_variant="bm25_reranker",
                    reranker=LLMConfig(model="m", base_url="http://127.0.0.1:1/v1"))
    assert llm_search.RERANKER_SOURCE in (err.value.hint or "")


def test_run_end_to_end_with_the_reranker(tmp_path: Path, server: FakeLLMServer) -> None:
    d = _load(server, "bm25_reranker")
    tasks = {t.id: t for t in d.tasks(task_ids=["task_046"])}
    user, rater = gold_agent.gold_user(tasks), _rater(d.kb)
    server.handler = lambda body: rater(body) if "response_format" in body else user(body)
    records = gold_agent.run_banking_gold(
        tasks, tmp_path / "rerank.jsonl", server.base_url, data_root(), "--retrieval-variant",
        "bm25_reranker", "--reranker-llm-base-url", server.base_url)
    run = next(x for x in records if x["type"] == "run")
    assert run["data"]["reranker_model"] == "gpt-5.2"
    assert run["data"]["retrieval_variant"] == "bm25_reranker"
    assert [x["reward"] for x in records if x["type"] == "task"] == [1.0]


def test_upstream_texts_load_from_a_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    checkout = os.environ.get(UPSTREAM_ENV)
    if not checkout or not (Path(checkout) / "src" / "tau2").is_dir():
        pytest.skip(f"set {UPSTREAM_ENV} to a tau2-bench checkout at the pinned commit")
    data_dir = Path(checkout) / "data"
    prompt = llm_search.load_reranker_prompt(data_dir)
    assert prompt.count("{}") == 2 and "relevance_score" not in prompt
    assert llm_search.load_qwen_instruction(data_dir).strip()


def test_openai_variants_ask_for_base64_and_decode_float32_like_the_sdk(
        server: FakeLLMServer) -> None:
    import array
    import base64

    def packed(text: str) -> Any:
        return base64.b64encode(array.array("f", word_vector(text)).tobytes()).decode()

    server.embed = packed
    d = _load(server, "openai_embeddings")
    d.fresh_environment().execute(ToolCall(id="k", name="KB_search",
                                           arguments={"query": "annual fee"}))
    assert {r.json["encoding_format"] for r in server.requests} == {"base64"}
    first = np.array(word_vector(d.kb.documents[0].content), dtype=np.float32).astype(float)
    assert np.array_equal(d.dense.docs[0], first / np.linalg.norm(first))
    server.embed = lambda text: "not base64!"
    domain_module._DOMAINS.clear()  # the fixture's own dict: load afresh with another model
    with pytest.raises(LLMResponseInvalid, match="usable `data` list"):
        load_domain("banking_knowledge", data_dir=data_root(),
                    retrieval_variant="openai_embeddings",
                    embedding=LLMConfig(model="m2", base_url=server.base_url))
