"""Deterministic record ids and the domain's fixed clock (upstream `banking_knowledge/utils.py`).

Ids are prefixes of SHA-256 hex digests of seed strings; the seeds must match upstream byte for
byte, since the ids end up in the hashed DB and in tool outputs.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

TODAY = "11/14/2025"  # upstream get_today_str(): every scenario is set on this day
NOW = datetime(2025, 11, 14, 3, 40, 0)  # upstream get_now()


def digest_id(seed: str, length: int = 16) -> str:
    return hashlib.sha256(seed.encode()).digest()[: length // 2].hex()


def transaction_id(user_id: str, card_type: str, merchant: str, amount: float,
                   category: str) -> str:
    seed = ":".join(["transaction", user_id, card_type, merchant, f"{amount:.2f}", category])
    return f"txn_{digest_id(seed, 12)}"


def referral_id(referrer_id: str, account_type: str) -> str:
    return digest_id(f"referral:{referrer_id}:{account_type}")


def application_id(card_type: str, name: str, income: float, subscription: bool) -> str:
    return digest_id(f"credit_card:{card_type}:{name}:{income}:{subscription}")


def verification_id(user_id: str, time_verified: str) -> str:
    return f"{user_id}_" + time_verified.replace(" ", "_").replace(":", "").replace("-", "")


def user_tool_id(name: str) -> str:
    return digest_id(f"user_discoverable_tool:{name}")


def user_tool_call_id(name: str, arguments: dict[str, Any]) -> str:
    return digest_id(f"user_discoverable_tool_call:{name}:"
                     f"{json.dumps(arguments, sort_keys=True)}")


def agent_tool_id(name: str) -> str:
    return digest_id(f"agent_discoverable_tool:{name}")


def dispute_id(user_id: str, txn_id: str) -> str:
    return f"dsp_{digest_id(f'dispute:{user_id}:{txn_id}', 12)}"


def referral_link_id(user_id: str, card_name: str) -> str:
    return digest_id(f"referral_link:{user_id}:{card_name}")


def card_order_id(account_id: str, user_id: str, reason: str) -> str:
    return f"ccord_{digest_id(f'credit_card_order:{account_id}:{user_id}:{reason}', 12)}"


def closure_reason_id(account_id: str, user_id: str) -> str:
    return f"clsr_{digest_id(f'closure_reason:{account_id}:{user_id}', 12)}"


def account_flag_id(account_id: str, flag_type: str, expiration: str) -> str:
    return f"ccflag_{digest_id(f'account_flag:{account_id}:{flag_type}:{expiration}', 12)}"


def cli_request_id(account_id: str, user_id: str, amount: float) -> str:
    return f"cli_{digest_id(f'cli_request:{account_id}:{user_id}:{amount:.2f}', 12)}"


def debit_card_order_id(account_id: str, user_id: str, delivery: str) -> str:
    return f"dcord_{digest_id(f'debit_card_order:{account_id}:{user_id}:{delivery}', 12)}"


def debit_card_id(account_id: str, user_id: str, issue_date: str) -> str:
    return f"dbc_{digest_id(f'debit_card:{account_id}:{user_id}:{issue_date}', 12)}"
