"""`BankingDomain`: tau2 `banking_knowledge` loaded for one retrieval variant.

Differences from the other domains, all upstream's: tasks come from `tasks/task_*.json` (sorted
by file name; there is no split file, every split is all 97 tasks); agent and user toolkits
share one DB; the agent toolkit depends on the retrieval variant; `golden_retrieval` builds the
policy per task; reads through `call_discoverable_agent_tool` are logged (and so hashed) only
for the discoverable tools the task's gold actions call.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from a2abench.benchmarks.tau2 import data, upstream
from a2abench.benchmarks.tau2.domain_core import DomainSpec, Tau2Domain, _task
from a2abench.benchmarks.tau2.domains.banking.llm_search import LLMReranker
from a2abench.benchmarks.tau2.domains.banking.retrieval import (
    DEFAULT_UPSTREAM,
    DenseIndex,
    KnowledgeBase,
    Variant,
    build_policy,
)
from a2abench.benchmarks.tau2.domains.banking.state import BankingBase, BankingDB
from a2abench.benchmarks.tau2.domains.banking.toolkits import KnowledgeTools, toolkit_class
from a2abench.benchmarks.tau2.domains.banking.tools import BankingTexts
from a2abench.benchmarks.tau2.domains.banking.upstream_text import load_banking_texts
from a2abench.benchmarks.tau2.domains.banking.user_tools import KnowledgeUserTools
from a2abench.benchmarks.tau2.environment import Tau2Environment
from a2abench.benchmarks.tau2.models import Task

NAME = "banking_knowledge"
SPEC = DomainSpec(NAME, KnowledgeTools, BaseModel, "db.json", {}, KnowledgeUserTools)


def read_log_allowlist(task: Task | None) -> set[str]:
    """Upstream `_derive_read_log_allowlist`: tools named by gold discoverable calls."""
    out: set[str] = set()
    criteria = task.evaluation_criteria if task is not None else None
    for action in (criteria.actions if criteria else None) or []:
        if action.name == "call_discoverable_agent_tool":
            name = (action.arguments or {}).get("agent_tool_name")
            if name:
                out.add(name)
    return out


class BankingDomain(Tau2Domain):
    """A loaded banking_knowledge domain; `variant` is the retrieval variant that runs."""

    def __init__(self, files: data.DomainFiles, split: str, variant: Variant,
                 embedding: Any = None, reranker: Any = None, *,
                 query_instruction: str | None = None, reranker_prompt: str | None = None
                 ) -> None:
        folder = files.data["db.json"].parent
        self.spec = SPEC
        self.name = NAME
        self.files = files
        self.split = split
        self.variant = variant
        self.policy_kind = variant.name
        self.solo_policy = None  # upstream refuses solo mode for banking_knowledge
        self._tool_types: dict[str, str] | None = None
        self.prompts = folder / "prompts"
        shared = _shared(files)
        self.kb = shared.kb
        self.embedding = embedding  # LLMConfig of the embeddings endpoint (dense variants)
        self.reranker_llm = reranker  # LLMConfig of the reranker's chat model
        self.query_instruction = query_instruction
        self.dense = None
        if variant.dense:
            from a2abench.plugin.provisional import EmbeddingClient

            # Upstream's OpenAI embedder lets the SDK ask for base64 (float32 vectors); its
            # OpenRouter embedder asks for floats. Same request, same numbers.
            fmt = "float" if variant.embedder == "openrouter" else "base64"
            embedding = replace(embedding, args={"encoding_format": fmt, **embedding.args})
            self.embedding = embedding
            self.dense = DenseIndex(self.kb, EmbeddingClient(embedding), query_instruction)
        self.reranker = None
        if variant.reranker:
            assert reranker is not None and reranker_prompt is not None
            self.reranker = LLMReranker(reranker, reranker_prompt)
        self._tasks = shared.tasks
        # Banking's own base DB (tables and a read log), neither of the shared base types.
        self.base_db = shared.base_db  # type: ignore[assignment]
        self.user_base_db = None
        guidelines = [data.read_text(files.data[g]) for g in data.GUIDELINES]
        self.user_guidelines, self.user_guidelines_tools = guidelines
        self.kit = toolkit_class(variant)
        self.banking_texts, self.texts, self.judge_prompt, self.agent_instruction = (
            _texts(files, self.kit))
        self.tool_text_source = self.texts.source
        self._agent_schemas = self.kit.openai_schemas(self.texts)
        self._user_schemas = KnowledgeUserTools.openai_schemas(self.texts)
        self.policy = (build_policy(variant, self.prompts, self.kb)
                       if variant.prompt != "golden" else
                       "(Policy is task-specific - see 'policy' field in each simulation)")

    def policy_for(self, task: Task) -> str:
        if self.variant.prompt == "golden":
            return build_policy(self.variant, self.prompts, self.kb, task.required_documents)
        return self.policy

    def guidelines_for(self, env: Tau2Environment) -> str:
        # Upstream gives the tools guidelines only when the task leaves the user some tools.
        return self.user_guidelines_tools if env.user_tool_schemas() else self.user_guidelines

    def tool_types(self) -> dict[str, str]:
        # Built once, as Tau2Domain's: the evaluator asks for every scored task-trial.
        if self._tool_types is None:
            self._tool_types = {name: d.tool_type.value for kit in (self.kit, KnowledgeUserTools)
                                for name, d in kit.tool_defs().items()}
        return dict(self._tool_types)

    def fresh_environment(self, task: Task | None = None) -> Tau2Environment:
        assert isinstance(self.base_db, BankingBase)  # set in __init__
        db = BankingDB(self.base_db)
        tools = self.kit(db, self.banking_texts, read_log_allowlist(task), self.kb, self.dense,
                         self.reranker)
        user_tools = KnowledgeUserTools(db, self.banking_texts)
        env = Tau2Environment(self, tools, user_tools, None)
        env.task = task
        tools.cancelled = env.cancelled
        # KB_search may call the embeddings or reranker endpoint or score a long query, grep
        # waits for its worker process: run them off the event loop.
        env.blocking = self.variant.kb_search is not None or self.variant.grep
        return env

    def describe(self) -> dict[str, Any]:
        return {"retrieval_variant": self.variant.name,
                "upstream_default_variant": DEFAULT_UPSTREAM,
                **({"embedding_model": self.embedding.model,
                    "embedding_base_url": self.embedding.base_url,
                    "embedding_query_instruction": self.query_instruction is not None}
                   if self.dense else {}),
                **({"reranker_model": self.reranker_llm.model,
                    "reranker_base_url": self.reranker_llm.base_url,
                    "reranker_min_score": self.reranker.min_score} if self.reranker else {}),
                "documents": len(self.kb.documents),
                "tool_output_text": self.banking_texts.source}


@dataclass(frozen=True)
class _Shared:
    """What every retrieval variant of one data folder reads alike (~0.1 s to load)."""

    kb: KnowledgeBase
    tasks: list[Task]
    base_db: BankingBase


# By the resolved files, when each matched its pinned digest (then equal paths hold equal
# bytes); the process's variants share one KB (so one BM25 index and one grep pool), one DB.
_SHARED: dict[tuple[str, ...], _Shared] = {}
_SHARED_LOCK = threading.Lock()


def _shared(files: data.DomainFiles) -> _Shared:
    key = (files.commit, *(f"{k}={p}" for k, p in sorted(files.data.items())))
    with _SHARED_LOCK:
        if files.unverified or key not in _SHARED:
            loaded = _load_shared(files)
            if files.unverified:
                return loaded
            _SHARED[key] = loaded
        return _SHARED[key]


def _load_shared(files: data.DomainFiles) -> _Shared:
    task_keys = sorted(k for k in files.data if k.startswith("tasks/task_"))
    db = files.data["db.json"]
    return _Shared(KnowledgeBase.load(db.parent / "documents"),
                   [_task(data.read_json(files.data[k]), files.data[k]) for k in task_keys],
                   BankingBase(data.read_json(db), str(db)))


def _texts(files: data.DomainFiles, kit: type[KnowledgeTools]
           ) -> tuple[BankingTexts, Any, upstream.JudgePrompt | None, str | None]:
    if files.sources is None:
        return (BankingTexts("fallback"),
                upstream.fallback_texts(kit, KnowledgeUserTools, summaries={}), None, None)
    base = f"src/tau2/domains/{NAME}/"
    src = files.sources
    tools_py: Path = src[base + "tools.py"]
    texts = upstream.load_tool_texts([tools_py, src[base + "retrieval_mixins.py"]], [])
    judge = upstream.extract_judge_prompt(src[data.COMMON_SOURCES[0]])
    instruction = upstream.extract_string_constant(src[data.COMMON_SOURCES[1]],
                                                   "AGENT_INSTRUCTION")
    return load_banking_texts(tools_py), texts, judge, instruction
