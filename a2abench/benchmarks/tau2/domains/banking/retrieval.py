"""Knowledge base, retrieval indexes, policy prompts and retrieval variants (upstream
`banking_knowledge/retrieval.py` and `tau2/knowledge/*`).

Offline variants run natively: `no_knowledge`, `full_kb`, `golden_retrieval` (policy only),
`bm25`, `bm25_grep`, `grep_only`. The embedding and reranker variants run through
OpenAI-compatible endpoints (`DenseIndex`, `llm_search.LLMReranker`); the shell ones are
refused (docs/tau2.md says why). BM25 uses the same package upstream uses (`rank_bm25`'s
`BM25Okapi` over lower-cased whitespace tokens), so scores and tie order are identical.

Document order is upstream's: `Path.glob("*.json")` over `documents/`, i.e. the directory's
listing order. It decides the full-KB prompt and BM25/grep tie order, exactly as upstream does
on the same directory.
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from a2abench.benchmarks.tau2.domains.banking.grep_pool import GrepPool
from a2abench.benchmarks.tau2.domains.banking.llm_search import LLMReranker, qwen_query
from a2abench.plugin import ConfigError, DataCorrupt

DEFAULT_UPSTREAM = "alltools"  # upstream's default: BM25 + dense embeddings + shell
DEFAULT_VARIANT = "bm25_grep"  # ours: the richest variant that runs offline (recorded)


@dataclass(frozen=True)
class Variant:
    """One retrieval configuration: prompt template, how it is filled, which search tools."""

    name: str
    template: str  # file under prompts/
    prompt: Literal["standard", "full_kb", "golden"] = "standard"
    kb_search: Literal["bm25", "embedding", None] = None
    grep: bool = False
    reranker: bool = False
    shell: bool = False
    embedder: Literal["openai", "openrouter", None] = None

    @property
    def offline(self) -> bool:
        return self.kb_search != "embedding" and not self.reranker and not self.shell

    @property
    def dense(self) -> bool:
        """KB_search by embeddings from an OpenAI-compatible endpoint (`--embedding-llm`)."""
        return self.kb_search == "embedding" and not self.shell


# Upstream RETRIEVAL_VARIANTS (names, templates, tools; every reranker is upstream's
# pointwise LLM reranker). All but the shell ones run here.
VARIANTS: dict[str, Variant] = {v.name: v for v in [
    Variant("no_knowledge", "no_knowledge.md"),
    Variant("full_kb", "full_kb.md", "full_kb"),
    Variant("golden_retrieval", "required_docs.md", "golden"),
    Variant("qwen_embeddings_grep", "classic_rag_qwen.md", kb_search="embedding", grep=True,
            embedder="openrouter"),
    Variant("openai_embeddings_grep", "classic_rag_openai.md", kb_search="embedding", grep=True,
            embedder="openai"),
    Variant("qwen_embeddings_reranker_grep", "classic_rag_qwen.md", kb_search="embedding",
            grep=True, reranker=True, embedder="openrouter"),
    Variant("openai_embeddings_reranker_grep", "classic_rag_openai.md",
            kb_search="embedding", grep=True, reranker=True, embedder="openai"),
    Variant("bm25_grep", "classic_rag_bm25.md", kb_search="bm25", grep=True),
    Variant("bm25_reranker_grep", "classic_rag_bm25.md", kb_search="bm25", grep=True,
            reranker=True),
    Variant("qwen_embeddings", "classic_rag_qwen_no_grep.md", kb_search="embedding",
            embedder="openrouter"),
    Variant("openai_embeddings", "classic_rag_openai_no_grep.md", kb_search="embedding",
            embedder="openai"),
    Variant("qwen_embeddings_reranker", "classic_rag_qwen_no_grep.md", kb_search="embedding",
            reranker=True, embedder="openrouter"),
    Variant("openai_embeddings_reranker", "classic_rag_openai_no_grep.md",
            kb_search="embedding", reranker=True, embedder="openai"),
    Variant("bm25", "classic_rag_bm25_no_grep.md", kb_search="bm25"),
    Variant("bm25_reranker", "classic_rag_bm25_no_grep.md", kb_search="bm25", reranker=True),
    Variant("grep_only", "grep_only.md", grep=True),
    Variant("terminal_use", "agentic_search.md", shell=True),
    Variant("terminal_use_write", "agentic_search_write.md", shell=True),
    Variant("alltools", "all_tools.md", kb_search="embedding", shell=True, embedder="openai"),
    Variant("alltools-qwen", "all_tools.md", kb_search="embedding", shell=True,
            embedder="openrouter"),
]}
OFFLINE = [name for name, v in VARIANTS.items() if v.offline]
NEEDS_MODEL = [name for name, v in VARIANTS.items() if not v.offline and not v.shell]
SHELL = [name for name, v in VARIANTS.items() if v.shell]
DEFAULT_EMBEDDING_MODEL = "text-embedding-3-large"  # upstream's OpenAI embedding model
# Ours (upstream has no limits): BM25 scoring costs ~60 us per query word, so a 200,000-word
# query held a task-trial for seconds; a grep pattern is bounded by its deadline, this by size.
MAX_QUERY_CHARS = 10_000
MAX_QUERY_WORDS = 1_000
MAX_PATTERN_CHARS = 2_000


def check_query(query: str) -> None:
    """Refuse a KB_search query over the limits (the agent sees the error for that call)."""
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"KB_search query is {len(query)} characters long; the limit is "
                         f"{MAX_QUERY_CHARS}")
    words = len(query.split(maxsplit=MAX_QUERY_WORDS))
    if words > MAX_QUERY_WORDS:
        raise ValueError(f"KB_search query has more than {MAX_QUERY_WORDS} words; shorten it")


def resolve_variant(name: str | None, *, embeddings: bool = False,
                    reranker: bool = False) -> Variant:
    """The variant to run; ConfigError naming what it needs when that was not configured
    (`embeddings`: an embeddings endpoint; `reranker`: a reranker chat model)."""
    name = {"AllTools": "alltools"}.get(name or DEFAULT_VARIANT, name or DEFAULT_VARIANT)
    if name not in VARIANTS:
        raise ConfigError(f"unknown retrieval variant {name!r}",
                          hint=f"Offline variants: {', '.join(OFFLINE)}; with "
                               f"--embedding-llm and/or --reranker-llm: {', '.join(NEEDS_MODEL)}")
    variant = VARIANTS[name]
    if variant.shell:
        raise ConfigError(
            f"retrieval variant {name!r} needs upstream's shell sandbox (Anthropic's "
            "sandbox-runtime `srt` with bubblewrap, ripgrep and socat, running the agent's "
            "commands on the host), which a2abench does not run (docs/tau2.md, Shell variants)",
            hint=f"Use an offline variant ({', '.join(OFFLINE)}) or one of "
                 f"{', '.join(NEEDS_MODEL)}")
    if variant.dense and not embeddings:
        model = ("qwen/qwen3-embedding-8b, through OpenRouter by default; key from "
                 "OPENROUTER_API_KEY" if variant.embedder == "openrouter" else
                 f"{DEFAULT_EMBEDDING_MODEL}; key from OPENAI_API_KEY")
        raise ConfigError(f"retrieval variant {name!r} needs an OpenAI-compatible embeddings "
                          "endpoint",
                          hint=f"Pass --embedding-llm MODEL (upstream's: {model}) and/or "
                               f"--embedding-llm-base-url URL, or use an offline variant: "
                               f"{', '.join(OFFLINE)}")
    if variant.reranker and not reranker:
        raise ConfigError(f"retrieval variant {name!r} needs an LLM reranker (a chat model "
                          "rating each retrieved document)",
                          hint="Pass --reranker-llm MODEL (upstream's: gpt-5.2) and/or "
                               "--reranker-llm-base-url URL (key from OPENAI_API_KEY), or drop "
                               "'_reranker' from the variant name")
    return variant


@dataclass(frozen=True)
class Document:
    id: str
    title: str
    content: str


class KnowledgeBase:
    """The documents, in upstream's load order, with lazily built search indexes."""

    def __init__(self, documents: list[Document]) -> None:
        self.documents = documents
        self.by_id = {d.id: d for d in documents}
        self._lock = threading.Lock()
        self._bm25: Any = None
        self._grep: GrepPool | None = None

    @classmethod
    def load(cls, folder: Path) -> KnowledgeBase:
        docs: dict[str, Document] = {}
        for path in folder.glob("*.json"):  # upstream KnowledgeBase.load: listing order
            try:
                raw = json.loads(path.read_bytes())
                doc = Document(str(raw["id"]), str(raw["title"]), str(raw["content"]))
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise DataCorrupt(f"knowledge-base document {path} cannot be read: {exc}",
                                  hint="Replace it with the file from the pinned commit") from exc
            docs[doc.id] = doc  # a repeated id keeps its first position, last content
        return cls(list(docs.values()))

    def bm25(self) -> Any:
        with self._lock:
            if self._bm25 is None:
                from rank_bm25 import BM25Okapi

                self._bm25 = BM25Okapi([d.content.lower().split() for d in self.documents])
            return self._bm25

    def search_bm25(self, query: str, top_k: int) -> list[tuple[str, float]]:
        """Upstream BM25Retriever (then the pipeline's stable re-sort by score)."""
        if not query or not query.strip():
            return []
        scores = self.bm25().get_scores(query.lower().split())
        order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=True)
        return [(self.documents[i].id, float(scores[i]))
                for i in order[:min(top_k, len(self.documents))]]

    def search_grep(self, query: str, top_k: int = 10, case_sensitive: bool = False,
                    cancel: threading.Event | None = None) -> list[tuple[str, float]]:
        """Upstream GrepRetriever: documents ranked by match count (invalid regex: literal),
        evaluated in a worker process under a deadline (grep_pool.py)."""
        if len(query) > MAX_PATTERN_CHARS:  # ours: upstream has no limit
            raise ValueError(f"grep pattern is {len(query)} characters long; the limit is "
                             f"{MAX_PATTERN_CHARS}")
        if not query.strip():
            return []
        with self._lock:
            if self._grep is None:
                self._grep = GrepPool([d.content for d in self.documents])
            pool = self._grep
        hits = pool.search(query, top_k, case_sensitive, cancel=cancel)
        return [(self.documents[i].id, float(n)) for i, n in hits]


def format_hits(kb: KnowledgeBase, hits: list[tuple[str, float]]) -> str:
    return "\n".join(f"{i}. {kb.by_id[doc_id].title or 'Untitled'}\n   ID: {doc_id}\n"
                     f"   Score: {score:.4f}\n   Content: {kb.by_id[doc_id].content}\n"
                     for i, (doc_id, score) in enumerate(hits, 1))


def kb_search_text(kb: KnowledgeBase, query: str, top_k: int,
                   dense: DenseIndex | None = None, reranker: LLMReranker | None = None) -> str:
    """Upstream `_run_kb_search` output. The trailing timing line reports this process's own
    measured time, as upstream's does (so it is the one part not reproducible byte for byte)."""
    check_query(query)
    start = time.perf_counter()
    vector = dense.embed_query(query) if dense is not None else None
    encoded = time.perf_counter()
    hits = dense.search(vector, top_k) if dense is not None else kb.search_bm25(query, top_k)
    retrieved = time.perf_counter()
    if reranker is not None:
        hits = reranker.rerank(query, hits, kb)
    done = time.perf_counter()
    retrieval_ms, reranking_ms = (retrieved - encoded) * 1000, (done - retrieved) * 1000
    body = format_hits(kb, hits) if hits else "No relevant documents found."
    # Upstream names the reranking time only when its postprocessors took any.
    reranking = f", reranking={reranking_ms:.0f}ms" if reranker is not None else ""
    return (f"{body}\n\n[Timing: retrieval={retrieval_ms:.0f}ms{reranking}, "
            f"total={(done - start) * 1000:.0f}ms]")


class DenseIndex:
    """Upstream's embedding pipeline (embedding_indexer + embedding_encoder + cosine) over an
    OpenAI-compatible embeddings endpoint; vectors cached on disk by the client.
    `query_instruction` (Qwen models): queries are sent as upstream's OpenRouter embedder
    formats them; documents are sent as they are."""

    def __init__(self, kb: KnowledgeBase, client: Any,
                 query_instruction: str | None = None) -> None:
        import numpy as np

        self.kb = kb
        self.client = client
        self.query_instruction = query_instruction
        docs = np.array(client.embed([d.content for d in kb.documents]), dtype=float)
        norms = np.linalg.norm(docs, axis=1, keepdims=True)
        self.docs = docs / np.where(norms == 0, 1, norms)

    def embed_query(self, query: str) -> Any:
        import numpy as np

        if not query or not query.strip():  # upstream's encoder raises; the agent sees it
            raise ValueError("Empty or missing input for key 'query': cannot generate "
                             "embedding from blank text.")
        if self.query_instruction:
            query = qwen_query(self.query_instruction, query)
        return np.array(self.client.embed([query])[0], dtype=float)

    def search(self, vector: Any, top_k: int) -> list[tuple[str, float]]:
        """Upstream CosineRetriever: argsort ascending, reversed, first k; then the
        pipeline's stable sort by score."""
        import numpy as np

        norm = np.linalg.norm(vector)
        scores = (np.zeros(len(self.docs)) if norm == 0
                  else np.dot(self.docs, vector / norm))
        top = np.argsort(scores)[::-1][:min(top_k, len(self.kb.documents))]
        hits = [(self.kb.documents[i].id, float(scores[i])) for i in top]
        return sorted(hits, key=lambda h: h[1], reverse=True)


# --------------------------------------------------------------------------- prompts

_COMPONENT = re.compile(r"\{\{component:(\w+)\}\}")
_FULL_KB = re.compile(r"\{\{full_knowledge_base\}\}")


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as exc:
        raise DataCorrupt(f"banking prompt {path} cannot be read: {exc}",
                          hint="Replace it with the file from the pinned commit") from exc


def build_policy(variant: Variant, prompts: Path, kb: KnowledgeBase,
                 required_documents: list[str] | None = None) -> str:
    """Upstream `build_policy`: template + components, then the variant's KB content."""
    content = _read(prompts / variant.template)
    content = _COMPONENT.sub(lambda m: _read(prompts / "components" / f"{m.group(1)}.md"),
                             content)
    if variant.prompt == "full_kb" and _FULL_KB.search(content):
        full = "\n\n---\n\n".join(f"## {d.title}\n\n{d.content}" for d in kb.documents)
        # Upstream passes the KB as a re.sub replacement string, so backslash escapes in the
        # documents are interpreted; the same call keeps that.
        content = _FULL_KB.sub(full, content)
    if variant.prompt == "golden":
        by_title = {d.title: d for d in kb.documents}
        docs = [by_title.get(ref) or kb.by_id.get(ref) for ref in required_documents or []]
        text = "\n\n---\n\n".join(f"## {d.title}\n\n{d.content}" for d in docs if d)
        content = content.replace("{{required_documents}}", text or "(No documents provided)")
    if not content.strip():
        raise DataCorrupt(f"Policy is empty for retrieval variant '{variant.name}'",
                          hint="Replace the prompt files with the ones from the pinned commit")
    return content
