"""The composed banking agent toolkits, one per retrieval capability (upstream
`retrieval_toolkits.py`): the banking tools plus `KB_search` and/or `grep` mixins."""

from __future__ import annotations

import threading

from a2abench.benchmarks.tau2.domains.banking.agent_accounts import _AccountTools
from a2abench.benchmarks.tau2.domains.banking.agent_credit import _CreditTools
from a2abench.benchmarks.tau2.domains.banking.agent_debit import _DebitTools
from a2abench.benchmarks.tau2.domains.banking.agent_limits import _LimitTools
from a2abench.benchmarks.tau2.domains.banking.llm_search import LLMReranker
from a2abench.benchmarks.tau2.domains.banking.retrieval import (
    DenseIndex,
    KnowledgeBase,
    Variant,
    format_hits,
    kb_search_text,
)
from a2abench.benchmarks.tau2.domains.banking.state import BankingDB
from a2abench.benchmarks.tau2.domains.banking.tools import (
    BankingTexts,
    BankingToolkit,
    KnowledgeToolsCore,
)
from a2abench.benchmarks.tau2.toolkit import ToolType, tool


class KnowledgeTools(KnowledgeToolsCore, _CreditTools, _LimitTools, _AccountTools, _DebitTools):
    """Upstream `KnowledgeTools` (= `KnowledgeToolsPlain`): visible tools, then discoverables."""

    kb: KnowledgeBase | None = None
    dense: DenseIndex | None = None
    reranker: LLMReranker | None = None
    cancelled: threading.Event | None = None  # the environment's: stops a running grep

    def __init__(self, db: BankingDB, texts: BankingTexts, read_log_allowlist: set[str] | None,
                 kb: KnowledgeBase | None = None, dense: DenseIndex | None = None,
                 reranker: LLMReranker | None = None) -> None:
        super().__init__(db, texts, read_log_allowlist)
        self.kb = kb
        self.dense = dense  # KB_search by embeddings instead of BM25
        self.reranker = reranker  # KB_search results rated by a chat model


class KBSearchMixin(BankingToolkit):
    owner = "KBSearchMixin"
    owner_module = "tau2.domains.banking_knowledge.retrieval_mixins"
    kb: KnowledgeBase | None
    dense: DenseIndex | None
    reranker: LLMReranker | None

    @tool(ToolType.READ)
    def KB_search(self, query: str) -> str:
        assert self.kb is not None
        return kb_search_text(self.kb, query, 10, self.dense, self.reranker)


class GrepMixin(BankingToolkit):
    owner = "GrepMixin"
    owner_module = "tau2.domains.banking_knowledge.retrieval_mixins"
    kb: KnowledgeBase | None
    cancelled: threading.Event | None

    @tool(ToolType.READ)
    def grep(self, pattern: str) -> str:
        assert self.kb is not None
        hits = self.kb.search_grep(pattern, cancel=self.cancelled)
        if not hits:
            return f"No matches found for pattern: {pattern}"
        return format_hits(self.kb, hits)


class KnowledgeToolsWithKBSearch(KBSearchMixin, KnowledgeTools):
    pass


class KnowledgeToolsWithGrep(GrepMixin, KnowledgeTools):
    pass


class KnowledgeToolsWithKBSearchAndGrep(KBSearchMixin, GrepMixin, KnowledgeTools):
    pass


def toolkit_class(variant: Variant) -> type[KnowledgeTools]:
    """Upstream `build_tools`' choice of class for a variant."""
    if variant.kb_search and variant.grep:
        return KnowledgeToolsWithKBSearchAndGrep
    if variant.kb_search:
        return KnowledgeToolsWithKBSearch
    if variant.grep:
        return KnowledgeToolsWithGrep
    return KnowledgeTools
