"""The two entry points: a synthetic org database (`generate_org`) and tasks over it
(`generate_tasks`). The service side and the CRMArena-Pro sales side are built by separate
modules (org.py and sales.py, tasks.py and tasks_sales.py); only this module names both."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Literal

from ..sandbox.schema import OrgSchema
from . import policies, vocab
from .org import (
    SCALES,
    OrgBuilder,
    build_accounts,
    build_cases,
    build_catalogue,
    build_contacts,
    build_issues,
    build_knowledge,
    build_orders,
    build_users,
    write_sqlite,
)
from .sales import build_sales
from .tasks import ORIGINAL_CATEGORIES, PRIVACY, PRO_CATEGORIES, SERVICE_GENERATORS, Ctx, OrgData
from .tasks_sales import SALES_GENERATORS


def generate_org(path: Path, *, org: Literal["b2b", "b2c", "original"], seed: int = 0,
                 scale: float | str = "small") -> OrgSchema:
    """Write a synthetic org database to `path` and return its schema.

    `scale` is "tiny" (~1k rows), "small" (~2.5k rows; tests and the demo), "large"
    (~30k rows; the benchmark) or a multiplier.
    """
    factor = SCALES[scale] if isinstance(scale, str) else float(scale)
    if factor <= 0:
        raise ValueError("scale must be positive")
    b = OrgBuilder(org, seed, factor)
    users = build_users(b)
    accounts = build_accounts(b, users)
    contacts = build_contacts(b, accounts, users)
    products, entries = build_catalogue(b)
    issues = build_issues(b)
    policies = build_knowledge(b, issues)
    pairs = build_orders(b, accounts, users, products, entries)
    build_cases(b, pairs, contacts, users, issues, products, policies)
    if org != "original":
        build_sales(b, users, accounts, contacts, products, entries)
    write_sqlite(Path(path), org, b.tables)
    return OrgSchema.builtin(org)


def generate_tasks(db_path: Path, *, org: Literal["b2b", "b2c", "original"], seed: int = 0,
                   per_category: int = 3) -> list[dict[str, Any]]:
    """Up to `per_category` tasks per category, answers computed from the org at `db_path`.

    Rows follow the Hugging Face CRMArena(-Pro) format: idx, answer (list), task, metadata
    {required, optional}, query, reward_metric, and persona for CRMArena-Pro orgs.
    """
    data = OrgData.load(Path(db_path), org)
    ctx = Ctx(data, random.Random(f"a2abench-tasks:{org}:{seed}"))
    generators = {**SERVICE_GENERATORS, **SALES_GENERATORS}
    rows: list[dict[str, Any]] = []
    for category in PRO_CATEGORIES if org != "original" else ORIGINAL_CATEGORIES:
        for query, required, answer in generators[category](ctx, per_category):
            metric = ("privacy_rejection" if category in PRIVACY else
                      "fuzzy_match" if category == "knowledge_qa" else "exact_match")
            row: dict[str, Any] = {
                "idx": len(rows), "answer": answer, "task": category,
                "metadata": {"required": required, "optional": policies.DOMAIN_DETAILS},
                "query": query, "reward_metric": metric}
            if org != "original":
                row["persona"] = ctx.rng.choice(vocab.PERSONAS)
            rows.append(row)
    return rows
