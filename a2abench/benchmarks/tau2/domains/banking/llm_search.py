"""banking_knowledge search that needs a model: upstream's pointwise LLM reranker
(`tau2/knowledge/postprocessors/pointwise_llm_reranker.py`) through a2abench's chat client,
and the Qwen query instruction of its OpenRouter embedder
(`tau2/knowledge/embedders/openrouter_embedder.py`).

Both texts are upstream prose, read at run time from those files at the pinned commit
(sha256-checked; downloaded, or found beside --data-dir or in the cache), never copied here.

    reranker = LLMReranker(LLMConfig(model="gpt-5.2"), load_reranker_prompt(data_dir))
    hits = reranker.rerank("annual fee", [("doc_1", 3.2), ...], kb)   # [(id, rating), ...]
"""

from __future__ import annotations

import ast
import asyncio
import logging
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel, ValidationError

from a2abench.plugin import ConfigError, LLMError

if TYPE_CHECKING:
    from a2abench.plugin.provisional import LLMConfig

logger = logging.getLogger(__name__)


class Passage(Protocol):
    @property
    def content(self) -> str: ...


class Passages(Protocol):
    """What the reranker reads of a knowledge base (retrieval.KnowledgeBase): passages by id."""

    @property
    def by_id(self) -> Mapping[str, Passage]: ...

RERANKER_SOURCE = "src/tau2/knowledge/postprocessors/pointwise_llm_reranker.py"
OPENROUTER_SOURCE = "src/tau2/knowledge/embedders/openrouter_embedder.py"
DEFAULT_RERANKER_MODEL = "gpt-5.2"  # PointwiseLLMReranker's default model
RERANKER_MIN_SCORE = 5  # upstream PipelineSpec.reranker_min_score (the reranker's own is 7)
MAX_CONCURRENCY = 20  # upstream DEFAULT_MAX_CONCURRENCY
DEFAULT_QWEN_MODEL = "qwen/qwen3-embedding-8b"  # upstream "qwen3-embedding-8b", as sent
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"  # upstream's embedder hard-codes it
# Upstream OpenRouterEmbedder.SUPPORTED_MODELS: short names and the model string it sends.
OPENROUTER_MODELS = {"qwen3-embedding-4b": "qwen/qwen3-embedding-4b",
                     "qwen3-embedding-8b": "qwen/qwen3-embedding-8b",
                     "gemini-embedding-001": "google/gemini-embedding-001"}


class RelevanceScore(BaseModel):
    """Upstream's structured-output model; its JSON schema is the request's response_format."""

    relevance_score: int


# What the OpenAI SDK's `beta.chat.completions.parse(response_format=RelevanceScore)` sends
# (captured from the SDK against a loopback server): a strict json_schema.
RESPONSE_FORMAT: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "schema": {"properties": {"relevance_score": {"title": "Relevance Score",
                                                      "type": "integer"}},
                   "required": ["relevance_score"], "title": "RelevanceScore",
                   "type": "object", "additionalProperties": False},
        "name": "RelevanceScore", "strict": True}}


def _string_constant(path: Path, name: str) -> str:
    try:
        module = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        raise ConfigError(f"upstream source {path} cannot be read: {exc}",
                          hint="Replace it with the file from the pinned commit") from exc
    for node in module.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == name
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)):
            return node.value.value
    raise ConfigError(f"upstream source {path} has no string constant {name}",
                      hint="Replace it with the file from the pinned commit")


def _source(rel: str, data_dir: Path | None, what: str) -> Path:
    from a2abench.benchmarks.tau2 import data

    path, why = data.optional_source(rel, data_dir)
    if path is None:
        raise ConfigError(f"{what} is upstream's text and could not be loaded: {why}",
                          hint=f"Drop --data-dir to download it, or put {rel} from the pinned "
                               "commit beside the --data-dir folder (DIR/../" + rel + ")")
    return path


def load_reranker_prompt(data_dir: Path | None) -> str:
    """Upstream DEFAULT_POINTWISE_PROMPT (two `{}` slots: query, document)."""
    path = _source(RERANKER_SOURCE, data_dir, "the LLM reranker's prompt")
    return _string_constant(path, "DEFAULT_POINTWISE_PROMPT")


def load_qwen_instruction(data_dir: Path | None) -> str:
    """Upstream DEFAULT_QWEN_QUERY_INSTRUCTION (prefixed to queries, never to documents)."""
    path = _source(OPENROUTER_SOURCE, data_dir, "the Qwen query instruction")
    return _string_constant(path, "DEFAULT_QWEN_QUERY_INSTRUCTION")


def openrouter_model(model: str) -> tuple[str, bool]:
    """(model string sent, whether queries get the instruction): upstream's short names map
    to their API strings; Qwen models need the instruction, others only if named "qwen"."""
    api = OPENROUTER_MODELS.get(model, model)
    return api, "qwen" in api.lower()


def qwen_query(instruction: str, query: str) -> str:
    return f"Instruct: {instruction}\nQuery:{query}"  # upstream OpenRouterEmbedder._format_text


class LLMReranker:
    """Upstream PointwiseLLMReranker: each retrieved document rated 0-10 by a chat model in
    parallel (at most 20 at once), those rated below `min_score` dropped, the rest sorted by
    rating. Blocking: called from KB_search, which the orchestrator runs in a worker thread."""

    def __init__(self, config: LLMConfig, prompt: str,
                 min_score: int = RERANKER_MIN_SCORE) -> None:
        self.config = config
        self.prompt = prompt
        self.min_score = min_score
        self.overrides: dict[str, Any] = {"response_format": RESPONSE_FORMAT}
        if config.model.startswith("gpt-5"):  # upstream: reasoning_effort only for gpt-5*
            self.overrides["reasoning_effort"] = "low"

    def rerank(self, query: str, hits: list[tuple[str, float]], kb: Passages
               ) -> list[tuple[str, float]]:
        if not hits:
            return hits
        docs = [(doc_id, kb.by_id[doc_id].content) for doc_id, _ in hits
                if kb.by_id[doc_id].content]  # upstream rates only non-empty passages
        if not docs:
            return []
        # A fresh loop in a fresh thread: correct whether or not this thread runs a loop.
        with ThreadPoolExecutor(max_workers=1) as one:
            ratings = one.submit(asyncio.run, self._rate_all(query, docs)).result()
        rated = [(doc_id, float(r)) for (doc_id, _), r in zip(docs, ratings, strict=True)
                 if r is not None and r >= self.min_score]
        rated.sort(key=lambda x: x[1], reverse=True)
        return rated

    async def _rate_all(self, query: str, docs: list[tuple[str, str]]) -> list[int | None]:
        from a2abench.plugin import ChatLLM

        gate = asyncio.Semaphore(MAX_CONCURRENCY)
        async with ChatLLM(self.config) as llm:
            async def rate(doc_id: str, passage: str) -> int | None:
                async with gate:
                    return await self._rate(llm, query, doc_id, passage)
            return list(await asyncio.gather(*(rate(d, p) for d, p in docs)))

    async def _rate(self, llm: Any, query: str, doc_id: str, passage: str) -> int | None:
        """The rating, or None where upstream's `rate_doc` catches an exception (the document
        is dropped); each drop is logged as a warning here rather than passing silently."""
        messages = [{"role": "user", "content": self.prompt.format(query, passage)}]
        try:
            result = await llm.chat(messages, **self.overrides)
        except LLMError as exc:
            logger.warning("reranker call for %s failed, document dropped (as upstream): %s",
                           doc_id, exc.message)
            return None
        # The SDK's parse(): "length"/"content_filter" finishes raise; a refusal parses to
        # None, which upstream rates 0; otherwise the content must validate as the model.
        if result.finish_reason in ("length", "content_filter"):
            logger.warning("reranker answer for %s ended with %s, document dropped (as "
                           "upstream)", doc_id, result.finish_reason)
            return None
        message = (result.raw.get("choices") or [{}])[0].get("message") or {}
        if message.get("refusal") or not result.content:
            return 0
        try:
            score = RelevanceScore.model_validate_json(result.content).relevance_score
        except ValidationError as exc:
            logger.warning("reranker answer for %s is not a RelevanceScore, document dropped "
                           "(as upstream): %s", doc_id, exc.errors()[0]["msg"])
            return None
        return max(0, min(10, score))
