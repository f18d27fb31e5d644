"""`a2abench run tau2`'s options (each field a flag) and the LLM endpoints they name; read by
the driver and by the `results.json` exporter without either importing the other."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import SecretStr, model_validator

from a2abench.benchmarks.tau2.profiles import PromptStyle
from a2abench.plugin import ConfigError, LLMOptions, option
from a2abench.plugin.provisional import (
    DelegationOptions,
    LLMConfig,
    ToolChannelOptions,
    api_key_from_env,
)


class Tau2Options(LLMOptions, ToolChannelOptions, DelegationOptions):
    """Options of `run tau2`: each field is a flag (`--max-steps` for `max_steps`)."""

    domain: Literal["airline", "retail", "mock", "telecom", "banking_knowledge"] = option(
        "airline", "airline | retail | mock | telecom | banking_knowledge.")
    split: str = option("base", "Task split: base | train | test (telecom also small | full).")
    data_dir: Path | None = option(None, "Local data directory laid out like upstream's data/.")
    max_steps: int = option(200, "Max conversation hops.", ge=1)
    max_errors: int = option(10, "Max tool errors per task.", ge=1)
    reward_basis: Literal["official", "classic"] = option(
        "official", "official | classic (retail scored DB+COMMUNICATE as in v0.2).")
    policy: Literal["manual", "workflow"] = option("manual", "Telecom policy: manual | workflow.")
    tool_call_format: Literal["any", "datapart", "tags"] = option(
        "any", "Where tool calls are read: any (DataParts, or a text reply that is one whole "
               "call) | datapart (DataParts only; text goes to the user) | tags (<json> tags, "
               "as tau2's agentify example).")
    # upstream's solo mode: no user simulator (a2abench/benchmarks/tau2/solo.py)
    solo: bool = option(False, "Solo mode (mock, telecom): no user simulator; the agent gets "
                               "the ticket and the user's tools, and calls `done` when finished.")
    retrieval_variant: str | None = option(
        None, "banking_knowledge retrieval: bm25_grep (default) | bm25 | grep_only | full_kb | "
              "golden_retrieval | no_knowledge; with --embedding-llm: openai_embeddings[_grep] "
              "| qwen_embeddings[_grep]; add _reranker (bm25_reranker[_grep] too) with "
              "--reranker-llm.")
    embedding_llm: str | None = option(
        None, "Embedding model for the *_embeddings variants [default: "
              "text-embedding-3-large; qwen_*: qwen/qwen3-embedding-8b].")
    embedding_llm_base_url: str | None = option(
        None, "OpenAI-compatible endpoint serving /embeddings (key from OPENAI_API_KEY; qwen_*: "
              "OpenRouter, OPENROUTER_API_KEY).")
    reranker_llm: str | None = option(
        None, "Chat model rating documents for the *_reranker variants [default: gpt-5.2].")
    reranker_llm_base_url: str | None = option(
        None, "OpenAI-compatible chat endpoint of --reranker-llm (key from OPENAI_API_KEY).")
    prompt_style: PromptStyle = option(  # message format (profiles.py)
        "a2abench", "Message format: a2abench | agentbeats (the stock AgentBeats tau2 green) | "
                    "agentify (tau2's agentify example).")

    @model_validator(mode="after")
    def _one_format(self) -> Tau2Options:
        if self.prompt_style != "a2abench" and (self.solo or self.tool_call_format != "any"):
            raise ValueError("--prompt-style agentbeats|agentify sets the whole message format; "
                             "--tool-call-format and --solo go with --prompt-style a2abench")
        if self.tool_channel == "mcp" and (self.prompt_style != "a2abench"
                                           or self.tool_call_format != "any"):
            raise ValueError("--tool-channel mcp serves the tools over MCP: --prompt-style and "
                             "--tool-call-format describe the A2A channel; leave them unset")
        return self


def embedding_config(opts: Tau2Options) -> LLMConfig | None:
    """The embeddings endpoint of banking's dense variants (None unless a flag names it).
    Qwen variants default to upstream's OpenRouter model and URL (key from
    OPENROUTER_API_KEY only; with --embedding-llm-base-url the usual key), send short model
    names as upstream's API strings and ask for float vectors, as upstream's embedder does."""
    if not (opts.embedding_llm or opts.embedding_llm_base_url):
        return None
    from a2abench.benchmarks.tau2.domains.banking import llm_search
    from a2abench.benchmarks.tau2.domains.banking.retrieval import (
        DEFAULT_EMBEDDING_MODEL,
        VARIANTS,
    )

    variant = VARIANTS.get(opts.retrieval_variant or "")
    kwargs: dict[str, Any] = {"model": opts.embedding_llm or DEFAULT_EMBEDDING_MODEL,
                              "cache": opts.llm_cache}
    if variant is not None and variant.embedder == "openrouter":
        model, _ = llm_search.openrouter_model(opts.embedding_llm
                                               or llm_search.DEFAULT_QWEN_MODEL)
        kwargs.update(model=model, args={"encoding_format": "float"})
        if not opts.embedding_llm_base_url:
            # Upstream's OpenRouter URL gets OPENROUTER_API_KEY only, never the OpenAI key.
            key = os.environ.get("OPENROUTER_API_KEY", "").strip()
            kwargs.update(base_url=llm_search.OPENROUTER_BASE_URL,
                          api_key=SecretStr(key) if key else None)
    if opts.embedding_llm_base_url:
        kwargs["base_url"] = opts.embedding_llm_base_url
    return LLMConfig(**kwargs)


def reranker_config(opts: Tau2Options, *,
                    max_reply_bytes: int | None = None) -> LLMConfig | None:
    """The chat model of banking's reranker variants (None unless a flag names it), capped at
    `max_reply_bytes` (default: 16 MB)."""
    if not (opts.reranker_llm or opts.reranker_llm_base_url):
        return None
    from a2abench.benchmarks.tau2.domains.banking.llm_search import DEFAULT_RERANKER_MODEL

    model = opts.reranker_llm or DEFAULT_RERANKER_MODEL
    kwargs: dict[str, Any] = {"model": model, "cache": opts.llm_cache}
    if max_reply_bytes is not None:  # the run's --max-reply-bytes (the driver's)
        kwargs["max_reply_bytes"] = max_reply_bytes
    if opts.reranker_llm_base_url:
        kwargs["base_url"] = opts.reranker_llm_base_url
    elif api_key_from_env() is None:  # as build_llm: fail now, not as dropped documents
        raise ConfigError(f"--reranker-llm {model} needs an API key: set OPENAI_API_KEY (or "
                          "A2ABENCH_LLM_API_KEY)",
                          hint="Or point --reranker-llm-base-url at another OpenAI-compatible "
                               "server.")
    return LLMConfig(**kwargs)
