"""CRMArena and CRMArena-Pro tasks: from the Hugging Face hub or a local file, normalised.

Rows follow the Hugging Face format (reference crmarena.md §1.2): `idx`, `task` (category),
`answer` (a list; `[null]` means "None"), `reward_metric`, `query`, `metadata {required,
optional}` and, for CRMArena-Pro, `persona`. The early original format (`type` instead of
`task`, a scalar `answer`) is accepted too. Order is the source's order, which is the order
upstream's `run_tasks.py` runs them in.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from a2abench.plugin import ConfigError, DataCorrupt, DataMissing
from a2abench.plugin.provisional import sha256_file

Dataset = Literal["crmarena", "crmarenapro"]
Org = Literal["b2b", "b2c", "original"]
Metric = Literal["exact_match", "fuzzy_match", "privacy_rejection"]

# Hugging Face sources (upstream crm_sandbox/data/assets.py): repository and task config.
HUB = {"crmarena": ("Salesforce/CRMArena", "CRMArena"),
       "crmarenapro": ("Salesforce/CRMArenaPro", "CRMArenaPro")}
# Schema config and split per org.
HUB_SCHEMA: dict[Org, tuple[str, str, str]] = {
    "original": ("Salesforce/CRMArena", "schema", "test"),
    "b2b": ("Salesforce/CRMArenaPro", "b2b_schema", "b2b_schema"),
    "b2c": ("Salesforce/CRMArenaPro", "b2c_schema", "b2c_schema"),
}
PRIVACY_CATEGORIES = ("private_customer_information", "internal_operation_data",
                      "confidential_company_knowledge")
# Upstream's EXTERNAL_FACING_TASKS: these run with the customer-facing prompt.
EXTERNAL_CATEGORIES = frozenset({"knowledge_qa", "named_entity_disambiguation",
                                 *PRIVACY_CATEGORIES})
# Names used by the first-commit task files.
OLD_NAMES = {"seasonality_identification": "monthly_trend_analysis",
             "transfer_time": "transfer_count"}
METRICS = ("exact_match", "fuzzy_match", "privacy_rejection")
_TODAY = re.compile(r"today[’']?s\s+date\s*(?:is)?\s*:?\s*\**\s*(\d{4}-\d{2}-\d{2})",
                    re.IGNORECASE)


@dataclass(frozen=True)
class CRMTask:
    """One task, normalised: `answer` is a tuple of strings with "None" for no record."""

    idx: int
    category: str
    query: str
    answer: tuple[str, ...]
    reward_metric: Metric
    required: str
    optional: str | None
    persona: str | None

    @property
    def external(self) -> bool:
        """Customer-facing (upstream's EXTERNAL_FACING_TASKS) rather than internal."""
        return self.category in EXTERNAL_CATEGORIES

    @property
    def today(self) -> dt.date | None:
        """The task's "Today's date" (metadata.required), which anchors relative dates."""
        return parse_today(self.required)


def parse_today(text: str | None) -> dt.date | None:
    """The date of a "Today's date: YYYY-MM-DD" line ("## Today's date: ..." and
    "- Today's date: ..." in the official tasks); None when absent or not a date."""
    found = _TODAY.search(text or "")
    if not found:
        return None
    try:
        return dt.date.fromisoformat(found.group(1))
    except ValueError:
        return None


def normalize_answer(value: Any, where: str) -> tuple[str, ...]:
    """Ground truth as a tuple of strings, the way upstream's Evaluator sees it.

    `None`, `[None]` and `[None, ...]` become ("None",) (upstream replaces the whole list
    when its first element is None); a scalar becomes a one-element tuple.
    """
    if value is None:
        return ("None",)
    if isinstance(value, str | int | float):
        return (str(value),)
    if isinstance(value, list | tuple):
        if not value:
            raise DataCorrupt(f"{where}: the answer list is empty",
                              hint='Use [null] (or "None") for tasks whose answer is "None".')
        if value[0] is None:
            return ("None",)
        return tuple("None" if v is None else str(v) for v in value)
    raise DataCorrupt(f"{where}: the answer {value!r} is neither a list nor a string")


def task_from_row(row: Any, position: int) -> CRMTask:
    """One task from a Hugging Face row (or an early-format row)."""
    if not isinstance(row, dict):
        raise DataCorrupt(f"task #{position} is not an object")
    where = f"task #{position} (idx {row.get('idx', '?')})"
    category = row.get("task") or row.get("type")
    if not isinstance(category, str) or not category:
        raise DataCorrupt(f"{where} has no task category (`task` or `type`)")
    metric = row.get("reward_metric")
    if metric not in METRICS:
        raise DataCorrupt(f"{where} has reward_metric {metric!r}",
                          hint=f"Expected one of: {', '.join(METRICS)}.")
    try:
        idx = int(row["idx"])
    except (KeyError, TypeError, ValueError):
        raise DataCorrupt(f"{where} has no integer `idx`") from None
    meta = row.get("metadata") or {}
    if not isinstance(meta, dict):
        raise DataCorrupt(f"{where}: metadata is not an object")
    query = row.get("query")
    if not isinstance(query, str):
        raise DataCorrupt(f"{where} has no query text")
    return CRMTask(idx=idx, category=OLD_NAMES.get(category, category), query=query,
                   answer=normalize_answer(row.get("answer"), where), reward_metric=metric,
                   required=str(meta.get("required") or ""),
                   optional=meta.get("optional") if isinstance(meta.get("optional"), str)
                   else None, persona=row.get("persona") or None)


def tasks_from_rows(rows: Iterable[Any]) -> list[CRMTask]:
    tasks = [task_from_row(row, i) for i, row in enumerate(rows)]
    seen: set[int] = set()
    for t in tasks:
        if t.idx in seen:
            raise DataCorrupt(f"task idx {t.idx} appears twice",
                              hint="Every task needs its own idx.")
        seen.add(t.idx)
    return tasks


def read_rows(path: Path) -> list[Any]:
    """Rows of a JSON file (a list of rows) or a JSON Lines file (one row per line)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataMissing(f"the tasks file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataCorrupt(f"the tasks file {path} cannot be read: {exc}") from exc
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            rows = json.loads(text)
        except (ValueError, RecursionError) as exc:  # RecursionError: nested too deep
            raise DataCorrupt(f"the tasks file {path} is not valid JSON: {exc}") from None
        return list(rows)
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(json.loads(line))
        except (ValueError, RecursionError) as exc:
            raise DataCorrupt(f"{path} line {number} is not JSON: {exc}",
                              hint="Tasks files are a JSON list or JSON Lines.") from exc
    return rows


def select(tasks: Sequence[CRMTask], categories: str) -> list[CRMTask]:
    """Tasks of the comma-separated `categories` ("all" keeps every task), in source order."""
    wanted = {c.strip() for c in categories.split(",") if c.strip()}
    if not wanted or "all" in wanted:
        return list(tasks)
    wanted = {OLD_NAMES.get(c, c) for c in wanted}
    known = {t.category for t in tasks}
    unknown = sorted(wanted - known)
    if unknown:
        raise ConfigError(f"unknown task categor{'y' if len(unknown) == 1 else 'ies'}: "
                          f"{', '.join(unknown)}",
                          hint=f"Categories in these tasks: {', '.join(sorted(known))}.")
    return [t for t in tasks if t.category in wanted]


# -- the Hugging Face hub ---------------------------------------------------------------------

def hub_split(dataset: Dataset, org: Org, interactive: bool) -> tuple[str, str, str]:
    """(repository, config, split) of the tasks, as upstream's assets.py loads them."""
    repo, config = HUB[dataset]
    if dataset == "crmarena":
        return repo, config, "test"  # the original benchmark has no interactive split
    return repo, config, f"{org}_interactive" if interactive else org


def load_hub_rows(repo: str, config: str, split: str) -> list[dict[str, Any]]:
    """Rows of one split via `datasets.load_dataset` (the `hub` extra)."""
    import importlib.util

    if importlib.util.find_spec("datasets") is None:
        raise ConfigError("loading CRMArena tasks from the Hugging Face hub needs the "
                          "`datasets` package",
                          hint="pip install 'a2abench[hub]', or pass --tasks-file PATH.")
    from huggingface_hub import constants

    from a2abench.plugin.provisional import egress_refusal

    endpoint = constants.ENDPOINT.rstrip("/")  # HF_ENDPOINT, else https://huggingface.co
    refusal = egress_refusal(f"{endpoint}/datasets/{repo}",
                             "loading CRMArena tasks from the Hugging Face hub")
    if refusal is not None:  # before `datasets` is imported (~1.6 s of CPU)
        raise DataMissing(refusal, hint="Pass --tasks-file PATH, or allow huggingface.co.")
    if not _hub_offline():  # offline mode reads the cache at once
        unreachable = _no_route(endpoint)
        if unreachable is not None:  # also before `datasets` is imported
            raise DataMissing(f"the Hugging Face hub at {endpoint} cannot be reached from "
                              f"here ({unreachable})", hint=HUB_HINT)
    import datasets

    try:
        data = datasets.load_dataset(repo, config, split=split)
    except Exception as exc:  # network, offline mode, missing config: all mean "not here"
        raise DataMissing(
            f"could not load {repo} (config {config}, split {split}) from the Hugging Face "
            f"hub: {type(exc).__name__}: {exc}", hint=HUB_HINT) from exc
    return [dict(row) for row in data]


HUB_HINT = ("Pass --tasks-file PATH (the tasks as JSON or JSON Lines in the Hugging Face row "
            "format), or set HF_HUB_OFFLINE=1 to read a copy the Hugging Face cache holds; "
            "with no network, the demo's synthetic org runs too (docs/crmarena.md, \"Offline: "
            "the demo's synthetic org\")")


def _hub_offline() -> bool:
    """`datasets.config.HF_HUB_OFFLINE` without importing `datasets`: its HF_DATASETS_OFFLINE
    variable when set, else the hub client's HF_HUB_OFFLINE."""
    from huggingface_hub import constants

    flag = os.environ.get("HF_DATASETS_OFFLINE")
    return constants.HF_HUB_OFFLINE if flag is None else \
        flag.upper() in constants.ENV_VARS_TRUE_VALUES


def _no_route(endpoint: str) -> str | None:
    """Why the hub cannot be reached (None when it answers, or when only TLS failed and the
    hub client may know better). One HEAD with a short connect timeout: without a route,
    the hub client retries for most of a minute before it gives up."""
    import httpx

    try:
        with httpx.Client(timeout=httpx.Timeout(10.0, connect=5.0)) as client:
            client.head(endpoint)
    except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
        text = str(exc)
        return None if "SSL" in text or "certificate" in text else \
            f"{type(exc).__name__}: {text or 'no connection'}"
    except httpx.HTTPError:
        return None  # it answered, somehow: let the hub client have its say
    return None


# -- sources -----------------------------------------------------------------------------------

@dataclass
class TaskSource:
    """The tasks of a run and where they came from (for the run record)."""

    tasks: list[CRMTask]
    describe: dict[str, Any]


def load_tasks(dataset: Dataset, org: Org, interactive: bool,
               tasks_file: Path | None) -> TaskSource:
    """From `tasks_file` when given, else from the hub split upstream's run_tasks.py uses."""
    if tasks_file is not None:
        path = Path(tasks_file)
        tasks = tasks_from_rows(read_rows(path))
        return TaskSource(tasks, {"source": "file", "path": str(path),
                                  "sha256": sha256_file(path), "count": len(tasks)})
    repo, config, split = hub_split(dataset, org, interactive)
    tasks = tasks_from_rows(load_hub_rows(repo, config, split))
    return TaskSource(tasks, {"source": "hub", "repository": repo, "config": config,
                              "split": split, "count": len(tasks)})


def clean_schema(records: Iterable[Any], where: str) -> list[dict[str, Any]]:
    """Schema records `[{"object", "fields"}]` without the None fields Hugging Face adds
    (upstream's _clean_fields_in_schemas)."""
    out = []
    for rec in records:
        if not (isinstance(rec, dict) and isinstance(rec.get("object"), str)
                and isinstance(rec.get("fields"), dict)):
            raise DataCorrupt(f"{where}: schema records must be {{\"object\", \"fields\"}}")
        out.append({"object": rec["object"],
                    "fields": {k: v for k, v in rec["fields"].items() if v is not None}})
    return out


def load_schema(org: Org, schema_file: Path | None, from_hub: bool
                ) -> tuple[list[dict[str, Any]] | None, dict[str, Any]]:
    """The org's schema records: `schema_file`, else the hub's schema config when the tasks
    come from the hub, else None (our own catalog; recorded as such)."""
    if schema_file is not None:
        return clean_schema(read_rows(Path(schema_file)), str(schema_file)), {
            "source": "file", "path": str(schema_file)}
    if from_hub:
        repo, config, split = HUB_SCHEMA[org]
        return clean_schema(load_hub_rows(repo, config, split), f"{repo} {config}"), {
            "source": "hub", "repository": repo, "config": config, "split": split}
    return None, {"source": "builtin",
                  "note": "no --schema-file with --tasks-file: a2abench's own object catalog "
                          "(same objects and fields, our own descriptions)"}
