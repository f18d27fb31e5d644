"""Queries and the fake reranker rating shared by scripts/tau2_banking_dense_golden.py (run
against upstream) and tests/tau2/test_banking_dense_golden.py (run against a2abench)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tests.fakes.llm_server import completion

# Our own queries: phrases, a whole sentence, a single word, repeated words, mixed case.
QUERIES = ["annual fee", "How do I dispute a charge on my credit card?", "overdraft",
           "wire transfer limit international", "lost card replacement fee fee fee",
           "Savings ACCOUNT interest rate", "close my account", "zelle", "mortgage",
           "what documents do I need to verify my identity"]


def rating(content: str) -> int:
    return int(hashlib.sha256(content.encode()).hexdigest(), 16) % 11


def rater(documents: list[str]) -> Any:
    """A chat handler rating the longest document found in the prompt (fixed per document,
    whatever the prompt's wording)."""
    def reply(body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["messages"][0]["content"]
        found = max((d for d in documents if d and d in prompt), key=len)
        return completion(json.dumps({"relevance_score": rating(found)}))
    return reply
