"""A small synthetic b2b org with one task per category, for end-to-end CRMArena runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from a2abench.benchmarks.crmarena.synthetic import generate_org, generate_tasks
from a2abench.benchmarks.crmarena.tasks import tasks_from_rows
from tests.crmarena import upstream_shaped


def small_b2b(root: Path) -> dict[str, Any]:
    """The org's DB, its tasks as a JSONL file and as `CRMTask`s, and upstream-shaped texts."""
    db = root / "b2b.db"
    generate_org(db, org="b2b", seed=0, scale="small")
    rows = generate_tasks(db, org="b2b", seed=0, per_category=1)
    tasks_file = root / "tasks.jsonl"
    tasks_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return {"db": db, "file": tasks_file, "tasks": tasks_from_rows(rows),
            "texts": upstream_shaped.texts(root / "upstream")}
