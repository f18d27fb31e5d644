"""`load_domain`: one tau2 domain's tasks, policy, tool schemas and shared base DBs.

    domain = load_domain("airline", data_dir=Path("../shared/data"))
    task = domain.tasks(max_tasks=1)[0]
    env = domain.new_environment(task)          # cheap: copy-on-write views of the base DB
    env.execute(ToolCall(id="1", name="get_user_details", arguments={"user_id": "x"}))

Domains are cached per process (by domain, data location, split and policy); base DBs are
parsed once per process and shared by every environment.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from a2abench.benchmarks.tau2 import data
from a2abench.benchmarks.tau2.db import BaseDB, ModelBase
from a2abench.benchmarks.tau2.domain_core import DomainSpec, Tau2Domain, _task
from a2abench.plugin import ConfigError, DataCorrupt
from a2abench.plugin.provisional import gc_paused

_COMMON = {
    "calculate": "Evaluate an arithmetic expression (digits, + - * / and parentheses).",
    "transfer_to_human_agents": "Hand the conversation over to a human agent, with a summary.",
}
_AIRLINE = {
    "book_reservation": "Create a new flight reservation for a user.",
    "cancel_reservation": "Cancel an entire reservation.",
    "get_reservation_details": "Look up a reservation by its id.",
    "get_user_details": "Look up a user's profile and reservations.",
    "list_all_airports": "List the airports served.",
    "search_direct_flight": "Find direct flights between two airports on a date.",
    "search_onestop_flight": "Find one-stop connections between two airports on a date.",
    "send_certificate": "Issue a travel certificate to a user.",
    "update_reservation_baggages": "Change the baggage counts of a reservation.",
    "update_reservation_flights": "Replace the flights (whole itinerary) of a reservation.",
    "update_reservation_passengers": "Replace the passenger details of a reservation.",
    "get_flight_status": "Get the status of a flight on a date.",
}
_RETAIL = {
    "cancel_pending_order": "Cancel an order that is still pending.",
    "exchange_delivered_order_items": "Request an exchange of items of a delivered order.",
    "find_user_id_by_name_zip": "Find a user id from first name, last name and zip code.",
    "find_user_id_by_email": "Find a user id from an email address.",
    "get_order_details": "Look up an order by its id.",
    "get_product_details": "Look up a product and its variants.",
    "get_item_details": "Look up one product variant by item id.",
    "get_user_details": "Look up a user's profile and orders.",
    "list_all_product_types": "List product names with their product ids.",
    "modify_pending_order_address": "Change the shipping address of a pending order.",
    "modify_pending_order_items": "Swap items of a pending order for other variants.",
    "modify_pending_order_payment": "Change the payment method of a pending order.",
    "modify_user_address": "Change a user's default address.",
    "return_delivered_order_items": "Request a return of items of a delivered order.",
}
_TELECOM = {
    "get_customer_by_phone": "Find a customer by a phone number.",
    "get_customer_by_id": "Find a customer by customer id.",
    "get_customer_by_name": "Find customers by full name and date of birth.",
    "get_details_by_id": "Look up a line, device, bill, customer or plan by its id.",
    "suspend_line": "Suspend an active line.",
    "resume_line": "Resume a suspended line.",
    "get_bills_for_customer": "List a customer's most recent bills.",
    "send_payment_request": "Ask the customer to pay a bill.",
    "get_data_usage": "Get a line's data usage for the current cycle.",
    "enable_roaming": "Enable international roaming on a line.",
    "disable_roaming": "Disable international roaming on a line.",
    "refuel_data": "Add data to a line for a one-time charge.",
}
_MOCK = {
    "create_task": "Create a task for a user.",
    "get_users": "List all users.",
    "update_task_status": "Set the status of a task.",
    "check_notifications": "List the notifications in the inbox.",
    "dismiss_notification": "Mark a notification as read.",
}

DOMAINS = ("airline", "retail", "mock", "telecom")  # and banking_knowledge, see _load_banking


@cache
def spec(name: str) -> DomainSpec:
    """One of `DOMAINS`; its modules are imported on first use (a run of one domain skips the
    others' ~20 ms each)."""
    if name == "airline":
        from a2abench.benchmarks.tau2.domains import airline

        return DomainSpec("airline", airline.AirlineTools, airline.FlightDB, "db.json",
                          _COMMON | _AIRLINE)
    if name == "retail":
        from a2abench.benchmarks.tau2.domains import retail

        return DomainSpec("retail", retail.RetailTools, retail.RetailDB, "db.json",
                          _COMMON | _RETAIL)
    if name == "mock":
        from a2abench.benchmarks.tau2.domains import mock

        return DomainSpec("mock", mock.MockTools, mock.MockDB, "db.json", _COMMON | _MOCK,
                          mock.MockUserTools, mock.MockUserDB, "user_db.json",
                          solo_policies={"manual": ("policy_solo.md",)})
    if name != "telecom":
        raise KeyError(name)
    from a2abench.benchmarks.tau2.domains import telecom, telecom_user, telecom_user_models

    phone = {name: f"Phone: {name.replace('_', ' ')}." for name in
             telecom_user.TelecomUserTools.tool_defs()}
    return DomainSpec(
        "telecom", telecom.TelecomTools, telecom.TelecomDB, "db.toml",
        _COMMON | _TELECOM | phone, telecom_user.TelecomUserTools,
        telecom_user_models.TelecomUserDB,
        "user_db.toml", telecom.sync_tools,
        {"manual": ("main_policy.md", "tech_support_manual.md"),
         "workflow": ("main_policy.md", "tech_support_workflow.md")}, model_db=True,
        # upstream: solo mode keeps the manual (no solo variant) but not the workflow
        solo_policies={"manual": ("main_policy_solo.md", "tech_support_manual.md"),
                       "workflow": ("main_policy_solo.md", "tech_support_workflow_solo.md")})


# --------------------------------------------------------------------------- loading

_LOCK = threading.Lock()
_DOMAINS: dict[tuple[str, str, str, str, bool], Tau2Domain] = {}
_BASES: dict[tuple[str, str], BaseDB | ModelBase] = {}


def load_domain(domain: str, *, data_dir: Path | None = None, split: str = "base",
                policy: str = "manual", solo: bool = False,
                retrieval_variant: str | None = None, embedding: Any = None,
                reranker: Any = None,
                progress: Callable[[int, int], None] | None = None) -> Tau2Domain:
    """Load (once per process) a domain: `airline`, `retail`, `mock`, `telecom` or
    `banking_knowledge`.

    `policy` is "manual" or, for telecom, "workflow" (the flow-chart tech-support text).
    `solo` also loads the solo-mode policy (mock and telecom only, as upstream).
    `retrieval_variant` (banking_knowledge only) names a retrieval variant; None takes our
    default (see `domains/banking/retrieval.py`); `embedding` (an `LLMConfig` of an
    OpenAI-compatible embeddings endpoint) enables its dense variants, `reranker` (an
    `LLMConfig` of a chat model) its reranker variants.
    `progress(done, total)` reports a download of the data files (never called when cached).
    `data_dir` is a folder laid out like upstream's `data/`; without it the pinned files are
    downloaded into the cache. Raises `ConfigError` (unknown domain/split/policy/ids),
    `DataMissing` / `DataCorrupt` (naming the file and the fix).
    """
    if domain == "banking_knowledge":
        if solo:  # upstream get_environment: "banking_knowledge domain does not support solo"
            raise ConfigError("tau2 banking_knowledge has no solo mode (upstream refuses it too)",
                              hint="Use --solo with --domain mock or --domain telecom.")
        return _load_banking(data_dir, split, retrieval_variant, embedding, reranker, progress)
    if domain not in DOMAINS:
        raise ConfigError(f"unknown tau2 domain {domain!r}",
                          hint=f"Choose one of: {', '.join(DOMAINS)}, banking_knowledge")
    if retrieval_variant is not None:
        raise ConfigError("--retrieval-variant applies to banking_knowledge only",
                          hint=f"Drop it for {domain}")
    if solo and not spec(domain).solo_policies:
        raise ConfigError(f"tau2 {domain} has no solo mode (upstream refuses it too)",
                          hint="Use --solo with --domain mock or --domain telecom.")
    key = (domain, str(Path(data_dir).absolute()) if data_dir else "", split, policy, solo)
    with _LOCK:
        if key not in _DOMAINS:
            _DOMAINS[key] = _build(spec(domain), data_dir, split, policy, solo, progress)
        return _DOMAINS[key]


def _load_banking(data_dir: Path | None, split: str, variant_name: str | None,
                  embedding: Any, reranker: Any = None,
                  progress: Callable[[int, int], None] | None = None) -> Tau2Domain:
    from a2abench.benchmarks.tau2.domains.banking import llm_search
    from a2abench.benchmarks.tau2.domains.banking.domain import BankingDomain
    from a2abench.benchmarks.tau2.domains.banking.retrieval import resolve_variant

    variant = resolve_variant(variant_name, embeddings=embedding is not None,
                              reranker=reranker is not None)
    if split != "base":  # upstream has no split file for banking: every task is "base"
        raise ConfigError(f"unknown split {split!r} for banking_knowledge",
                          hint="banking_knowledge has one split: base (all 97 tasks)")
    embedding = embedding if variant.dense else None
    reranker = reranker if variant.reranker else None
    key = ("banking_knowledge", str(Path(data_dir).absolute()) if data_dir else "", split,
           "|".join([variant.name, *(f"{c.model}@{c.base_url}" for c in (embedding, reranker)
                                     if c is not None)]), False)
    with _LOCK:
        if key not in _DOMAINS:
            instruction = prompt = None
            if embedding is not None and variant.embedder == "openrouter":
                _, needs_instruction = llm_search.openrouter_model(embedding.model)
                if needs_instruction:
                    instruction = llm_search.load_qwen_instruction(data_dir)
            if reranker is not None:
                prompt = llm_search.load_reranker_prompt(data_dir)
            files = data.resolve("banking_knowledge", data_dir, progress=progress)
            _DOMAINS[key] = BankingDomain(files, split, variant, embedding, reranker,
                                          query_instruction=instruction,
                                          reranker_prompt=prompt)
        return _DOMAINS[key]


def _build(spec: DomainSpec, data_dir: Path | None, split: str, policy: str,
           solo: bool = False, progress: Callable[[int, int], None] | None = None
           ) -> Tau2Domain:
    files = data.resolve(spec.name, data_dir, solo=solo, progress=progress)
    with gc_paused():  # the tasks file and the DBs: large trees of new, acyclic objects
        ids = set(data.split_ids(files.data["split_tasks.json"], split))
        # Parse and validate only the split's tasks: telecom's file holds 2,285 of them.
        tasks = [_task(raw, files.data["tasks.json"])
                 for raw in data.read_tasks(files, spec.name, ids)]
        base = _base(spec.db_model, files.data[spec.db_file], spec.model_db)
        user_base = None
        if spec.user_db_model is not None and spec.user_db_file is not None:
            user_base = _base(spec.user_db_model, files.data[spec.user_db_file], spec.model_db)
    return Tau2Domain(spec, files, split, policy, tasks, base, user_base, solo)


def _base(model: type[BaseModel], path: Path, model_db: bool) -> BaseDB | ModelBase:
    cache_key = (model.__module__ + "." + model.__name__, str(path.resolve()))
    if cache_key not in _BASES:
        raw = data.read_toml(path) if path.suffix == ".toml" else data.read_json(path)
        try:
            _BASES[cache_key] = ModelBase(model, raw) if model_db else BaseDB(model, raw)
        except ValidationError as exc:
            raise DataCorrupt(f"tau2 DB {path} does not validate: {exc}",
                              hint="Replace it with the file from the pinned commit") from exc
    return _BASES[cache_key]
