"""Record upstream tau2-bench's dense banking_knowledge retrieval on fake vectors
(tests/tau2/golden/banking_dense.json): upstream's own pipeline (embedding_indexer,
embedding_encoder, cosine retriever, and the pointwise LLM reranker) at the pinned commit,
fed by the fake OpenAI-compatible server of tests/fakes on loopback.

Run from the a2abench checkout with a2abench's Python; upstream's code runs in
TAU2_UPSTREAM_PYTHON (a venv with numpy, openai, rank-bm25, pydantic, requests, toml, pyyaml,
loguru, addict, deepdiff, python-dotenv) from TAU2_UPSTREAM_CHECKOUT (src/ and data/):

    TAU2_UPSTREAM_PYTHON=/tmp/up/venv/bin/python TAU2_UPSTREAM_CHECKOUT=/tmp/up \
        python scripts/tau2_banking_dense_golden.py > tests/tau2/golden/banking_dense.json

Only document ids and scores are written (no upstream content). Modes: `openai` (what
a2abench's `openai_embeddings*` variants run), `qwen` (the OpenRouter embedder with its Qwen
query instruction; its client is pointed at the fake server) and `rerank` (BM25 hits rated by
upstream's PointwiseLLMReranker; the fake rating depends only on the rated document).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.fakes.llm_server import FakeLLMServer
from tests.tau2.dense_corpus import QUERIES, rater

UPSTREAM = r'''
import json, sys, types
checkout, base_url, queries = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
src = checkout + "/src"
sys.path.insert(0, src)
# Import the knowledge modules without tau2/__init__ (which pulls the whole simulator).
for name in ("tau2", "tau2.domains", "tau2.domains.banking_knowledge"):
    module = types.ModuleType(name)
    module.__path__ = [src + "/" + name.replace(".", "/")]
    sys.modules[name] = module
import os
os.environ["OPENAI_BASE_URL"] = base_url
os.environ["OPENAI_API_KEY"] = "fake"
import openai
from tau2.domains.banking_knowledge.data_model import KnowledgeBase
from tau2.knowledge import _ensure_registered
from tau2.knowledge.pipeline import RetrievalPipeline
import tau2.knowledge.embedders.openrouter_embedder as openrouter

_ensure_registered()
# Loopback only: upstream's OpenRouter embedder hard-codes its URL.
openrouter.OpenAI = lambda **kw: openai.OpenAI(**{**kw, "base_url": base_url})
kb = KnowledgeBase.load(checkout + "/data/tau2/domains/banking_knowledge/documents")
docs = [{"id": d.id, "text": d.content, "title": d.title} for d in kb.documents.values()]

def pipeline(kind, model, post=None, retriever="cosine"):
    # The config of upstream's create_embedding/bm25_retrieval_pipeline.
    if retriever == "bm25":
        config = {"document_preprocessors": [{"type": "bm25_indexer",
                                              "params": {"state_key": "bm25"}}],
                  "input_preprocessors": [],
                  "retriever": {"type": "bm25", "params": {
                      "query_key": "query", "bm25_state_key": "bm25",
                      "doc_ids_state_key": "bm25_doc_ids", "top_k": 10}},
                  "postprocessors": post or []}
    else:
        params = {"embedder_type": kind, "embedder_params": {"model": model}}
        config = {"document_preprocessors": [{"type": "embedding_indexer", "params": params}],
                  "input_preprocessors": [{"type": "embedding_encoder", "params": params}],
                  "retriever": {"type": "cosine", "params": {"top_k": 10}},
                  "postprocessors": post or []}
    p = RetrievalPipeline(config)
    p.index_documents([dict(d) for d in docs])
    return p

out = {}
modes = {"openai": pipeline("openai", "text-embedding-3-large"),
         "qwen": pipeline("openrouter", "qwen3-embedding-8b"),
         "rerank": pipeline(None, None, [{"type": "pointwise_llm_reranker",
                                          "params": {"min_score": 5}}], retriever="bm25")}
for mode, p in modes.items():
    out[mode] = {q: [[i, s] for i, s in p.retrieve(q)] for q in queries}
print(json.dumps(out))
'''


def main() -> None:
    checkout = Path(os.environ["TAU2_UPSTREAM_CHECKOUT"])
    folder = checkout / "data/tau2/domains/banking_knowledge/documents"
    documents = [json.loads(p.read_bytes())["content"] for p in folder.glob("*.json")]
    server = FakeLLMServer(handler=rater(documents))
    # A fresh working directory: upstream caches embeddings under ./data/.embeddings_cache.
    with server.running(), tempfile.TemporaryDirectory() as work:
        done = subprocess.run([os.environ["TAU2_UPSTREAM_PYTHON"], "-c", UPSTREAM,
                               str(checkout.absolute()), server.base_url, json.dumps(QUERIES)],
                              check=True, capture_output=True, text=True, timeout=600, cwd=work)
    print(json.dumps({"queries": QUERIES, **json.loads(done.stdout.splitlines()[-1])},
                     indent=1))


if __name__ == "__main__":
    main()
