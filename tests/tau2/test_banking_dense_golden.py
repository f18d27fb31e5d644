"""Dense retrieval and reranking against upstream's own pipeline: tests/tau2/golden/
banking_dense.json holds the ids and scores upstream's embedding_indexer + embedding_encoder
+ cosine retriever (and PointwiseLLMReranker) returned at the pinned commit for the fake
vectors of tests/fakes (scripts/tau2_banking_dense_golden.py recorded it). The Qwen and
reranker modes need upstream's prose (query instruction, prompt): they run with
TAU2_UPSTREAM_CHECKOUT; TAU2_UPSTREAM_PYTHON also re-records the file upstream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from a2abench.benchmarks.tau2 import domain as domain_module
from a2abench.benchmarks.tau2.domain import load_domain
from a2abench.benchmarks.tau2.options import Tau2Options, embedding_config, reranker_config
from a2abench.llm import LLMConfig
from tests.fakes.llm_server import FakeLLMServer
from tests.tau2.dense_corpus import QUERIES, rater
from tests.tau2.tau2_support import UPSTREAM_ENV, data_root

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = json.loads((ROOT / "tests/tau2/golden/banking_dense.json").read_text())


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setattr(domain_module, "_DOMAINS", {})
    s = FakeLLMServer()
    with s.running():
        yield s


def _checkout() -> Path:
    checkout = os.environ.get(UPSTREAM_ENV)
    if not checkout or not (Path(checkout) / "src" / "tau2").is_dir():
        pytest.skip(f"set {UPSTREAM_ENV} to a tau2-bench checkout at the pinned commit "
                    "(upstream's query instruction and reranker prompt)")
    return Path(checkout)


def _dense(d: Any) -> dict[str, list[list[Any]]]:
    return {q: [[i, s] for i, s in d.dense.search(d.dense.embed_query(q), 10)] for q in QUERIES}


def test_cosine_ranking_equals_upstreams(server: FakeLLMServer) -> None:
    assert GOLDEN["queries"] == QUERIES
    d = load_domain("banking_knowledge", data_dir=data_root(),
                    retrieval_variant="openai_embeddings",
                    embedding=LLMConfig(model="text-embedding-3-large",
                                        base_url=server.base_url))
    assert _dense(d) == GOLDEN["openai"]  # ids, order and every float bit


def test_qwen_ranking_equals_upstreams(server: FakeLLMServer) -> None:
    checkout = _checkout()
    config = embedding_config(Tau2Options(domain="banking_knowledge",
                                          retrieval_variant="qwen_embeddings",
                                          embedding_llm_base_url=server.base_url))
    d = load_domain("banking_knowledge", data_dir=checkout / "data",
                    retrieval_variant="qwen_embeddings", embedding=config)
    assert _dense(d) == GOLDEN["qwen"]


def test_reranked_bm25_equals_upstreams(server: FakeLLMServer) -> None:
    checkout = _checkout()
    config = reranker_config(Tau2Options(domain="banking_knowledge",
                                         reranker_llm_base_url=server.base_url))
    d: Any = load_domain("banking_knowledge", data_dir=checkout / "data",
                         retrieval_variant="bm25_reranker", reranker=config)
    server.handler = rater([doc.content for doc in d.kb.documents])
    got = {q: [[i, s] for i, s in d.reranker.rerank(q, d.kb.search_bm25(q, 10), d.kb)]
           for q in QUERIES}
    assert got == GOLDEN["rerank"]


@pytest.mark.skipif(not os.environ.get("TAU2_UPSTREAM_PYTHON"),
                    reason="set TAU2_UPSTREAM_PYTHON (and TAU2_UPSTREAM_CHECKOUT) to re-record "
                           "banking_dense.json with upstream's code")
def test_golden_rerecorded_by_upstream_is_unchanged() -> None:
    _checkout()
    done = subprocess.run([sys.executable, str(ROOT / "scripts/tau2_banking_dense_golden.py")],
                          check=True, capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert json.loads(done.stdout) == GOLDEN
