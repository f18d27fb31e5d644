"""Banking agent toolkit core: the always-visible tools and the discoverable-tool protocol.

Discoverable tools (upstream `@is_discoverable_tool`) are callable but not in the agent's
schemas: the knowledge base names them, the agent unlocks one (`unlock_discoverable_agent_tool`,
shown its description parsed from the tool's docstring), then calls it through
`call_discoverable_agent_tool`, which logs the call in `agent_discoverable_tools` (a hashed
table). User-side discoverable tools are handed over with `give_discoverable_user_tool`.

Docstrings are tool output here, so they are upstream's own text, read from upstream's source
at the pinned commit (`Docs`); without it a neutral text built from the signature is used and
the run records that (see `upstream.py`). Method names, signatures and class names mirror
upstream: Python's own `TypeError` texts ("KnowledgeTools.x() got an unexpected keyword
argument 'y'") reach the agent verbatim.
"""

from __future__ import annotations

import inspect
import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from a2abench.benchmarks.tau2.domains.banking import ids
from a2abench.benchmarks.tau2.domains.banking.state import BankingDB
from a2abench.benchmarks.tau2.toolkit import _TOOL_ATTR, Toolkit, ToolType, tool

TransferReason = Literal[
    "fraud_or_security_concern", "account_closure_request", "deceased_account_holder",
    "legal_or_regulatory_matter", "account_ownership_dispute", "complex_billing_dispute",
    "abusive_customer_behavior", "third_party_inquiry", "technical_system_error",
    "unconfirmed_external_communication", "customer_demands_after_unavailable_offer_refusal",
    "kb_search_unsuccessful_customer_requests_transfer", "specialized_department_required",
    "accessibility_or_special_needs", "customer_frustrated_demands_human",
    "supervisor_request_service_complaint", "customer_requests_human_no_specific_reason",
    "request_completed_customer_wants_human_followup", "other",
]


@dataclass(frozen=True)
class BankingTexts:
    """Upstream prose that is tool output: discoverable tools' cleaned docstrings and the
    fixed ATM deposit scans of `get_atm_deposit_images_8473` (see `upstream_text.py`)."""

    source: Literal["upstream", "fallback"]
    docs: dict[str, str] = field(default_factory=dict)
    atm_images: dict[str, dict[str, str]] = field(default_factory=dict)


class BankingToolkit(Toolkit[BankingDB]):
    """Base of the banking toolkits: upstream tool order, shared DB, discoverable docs.

    Upstream's toolkit metaclass lists a class's own tools first, then each base's along the
    MRO (retrieval mixins come before the banking tools); the schemas follow that order.
    """

    owner = "KnowledgeTools"  # the upstream class whose name Python's TypeErrors show
    owner_module = "tau2.domains.banking_knowledge.tools"  # ... and its module (`f(**x)`)

    def __init__(self, db: BankingDB, texts: BankingTexts) -> None:
        super().__init__(db)
        self.texts = texts

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name, member in cls.__dict__.items():
            if getattr(member, _TOOL_ATTR, None) is not None:
                member.__qualname__ = f"{cls.owner}.{name}"  # upstream's class, in TypeErrors
                member.__module__ = cls.owner_module
        names: list[str] = []
        for klass in cls.__mro__:
            for name, member in klass.__dict__.items():
                if getattr(member, _TOOL_ATTR, None) is not None and name not in names:
                    names.append(name)
        cls._defs = {name: cls._defs[name] for name in names}

    def discoverable(self, name: str) -> Any:
        """The bound method of `name` in upstream's `get_discoverable_tools()`, or None."""
        defn = self._defs.get(name)
        return getattr(self, name) if defn is not None and defn.discoverable else None

    def tool_info(self, name: str) -> dict[str, Any]:
        """Upstream's parsed docstring of a tool, parsed once per tool and text: shared,
        read-only."""
        kit = type(self) if name in self._defs else KNOWN_USER_TOOLS[0]
        key = (kit, name, self.texts.docs.get(name))
        info = _INFOS.get(key)
        if info is None:
            doc = key[2] if key[2] is not None else fallback_doc(getattr(kit, name))
            info = _INFOS[key] = parse_tool_doc(name, doc)
        return info


# `tool_info` by (toolkit class, tool name, upstream docstring or None): a few hundred at most.
_INFOS: dict[tuple[type[BankingToolkit], str, str | None], dict[str, Any]] = {}


# Set by user_tools.py (import cycle): the user toolkit class, for `give_discoverable_user_tool`.
KNOWN_USER_TOOLS: list[type[BankingToolkit]] = []


def parse_tool_doc(name: str, doc: str) -> dict[str, Any]:
    """Upstream `parse_discoverable_tool_docstring` over a cleaned docstring."""
    parts = re.split(r"\n\s*Args:\s*\n", doc, maxsplit=1)
    parameters: dict[str, Any] = {}
    success = "Action completed successfully."
    if len(parts) > 1:
        returns = re.split(r"\n\s*Returns:\s*\n", parts[1], maxsplit=1)
        if len(returns) > 1:
            success = returns[1].strip().split("\n")[0].strip()
        pattern = re.compile(r"^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$", re.MULTILINE)
        for match in pattern.finditer(returns[0]):
            type_info = match.group(2) or "string"
            kind = re.sub(r",?\s*optional", "", type_info, flags=re.IGNORECASE).strip()
            parameters[match.group(1)] = {"type": kind or "string",
                                          "description": match.group(3).strip(),
                                          "required": "optional" not in type_info.lower()}
    return {"name": name, "description": parts[0].strip(), "parameters": parameters,
            "success_message": success}


def fallback_doc(method: Any) -> str:
    """A neutral docstring of our own from the signature (upstream source unavailable)."""
    lines = [method.__name__.replace("_", " ").capitalize() + ".", "", "Args:"]
    for name, param in inspect.signature(method).parameters.items():
        if name == "self":
            continue
        kind = getattr(param.annotation, "__name__", str(param.annotation))
        optional = ", optional" if param.default is not inspect.Parameter.empty else ""
        lines.append(f"    {name} ({kind}{optional}): The {name.replace('_', ' ')}")
    return "\n".join(lines)


def format_for_agent(info: dict[str, Any]) -> str:
    """Upstream `format_discoverable_tool_for_agent`."""
    params = [f"  - {name}: {p.get('type', 'string')}"
              f"{' (required)' if p.get('required', True) else ' (optional)'}"
              f" - {p.get('description', '')}" for name, p in info["parameters"].items()]
    section = "\n".join(params) if params else "  (no parameters)"
    return f"Tool: {info['name']}\nDescription: {info['description']}\nParameters:\n{section}"


class KnowledgeToolsCore(BankingToolkit):
    """The tools every retrieval variant has (upstream `KnowledgeTools`' visible tools)."""

    def __init__(self, db: BankingDB, texts: BankingTexts,
                 read_log_allowlist: set[str] | None = None) -> None:
        super().__init__(db, texts)
        self.user_tools_state: dict[str, dict[str, Any]] = {}
        self.agent_tools_state: dict[str, dict[str, Any]] = {}
        # Upstream: reads via call_discoverable_agent_tool are logged (and hashed) only for
        # tools the task's gold actions call (runner/build.py _derive_read_log_allowlist).
        self.read_log_allowlist = set(read_log_allowlist or ())

    @tool(ToolType.GENERIC)
    def transfer_to_human_agents(self, summary: str, reason: TransferReason = "other") -> str:
        valid = list(get_args(TransferReason))
        if reason not in valid:
            return f"Error: Invalid transfer reason '{reason}'. Must be one of: {', '.join(valid)}"
        return f"Transfer successful (reason: {reason}). A human agent will assist you shortly."

    @tool(ToolType.READ)
    def get_current_time(self) -> str:
        return "The current time is 2025-11-14 03:40:00 EST."

    @tool(ToolType.READ)
    def get_user_information_by_id(self, user_id: str) -> str:
        return self.db.query_text("users", f'{{"user_id": "{user_id}"}}')

    @tool(ToolType.READ)
    def get_user_information_by_name(self, customer_name: str) -> str:
        return self.db.query_text("users", f'{{"name": "{customer_name}"}}')

    @tool(ToolType.READ)
    def get_user_information_by_email(self, email: str) -> str:
        return self.db.query_text("users", f'{{"email": "{email}"}}')

    @tool(ToolType.WRITE)
    def change_user_email(self, user_id: str, new_email: str) -> str:
        if not self.db.update("users", user_id, {"email": new_email}):
            return f"Error: User with ID '{user_id}' not found."
        return (f"Email updated successfully.\n  - User ID: {user_id}\n"
                f"  - New Email: {new_email}")

    @tool(ToolType.READ)
    def get_referrals_by_user(self, user_id: str) -> str:
        return self.db.query_text("referrals", f'{{"referrer_id": "{user_id}"}}')

    @tool(ToolType.READ)
    def get_credit_card_transactions_by_user(self, user_id: str) -> str:
        return self.db.query_text("credit_card_transaction_history",
                                  f'{{"user_id": "{user_id}"}}')

    @tool(ToolType.READ)
    def get_credit_card_accounts_by_user(self, user_id: str) -> str:
        return self.db.query_text("credit_card_accounts", f'{{"user_id": "{user_id}"}}')

    @tool(ToolType.WRITE)
    def log_verification(self, name: str, user_id: str, address: str, email: str,
                         phone_number: str, date_of_birth: str, time_verified: str) -> str:
        record = {"name": name, "user_id": user_id, "address": address, "email": email,
                  "phone_number": phone_number, "date_of_birth": date_of_birth,
                  "time_verified": time_verified}
        if not self.db.add("verification_history", ids.verification_id(user_id, time_verified),
                           record):
            return "Failed to log verification: Record may already exist."
        return (f"Verification logged successfully.\n  - User: {name} (ID: {user_id})\n"
                f"  - Verified at: {time_verified}")

    @tool(ToolType.GENERIC, mutates_state=True)
    def give_discoverable_user_tool(self, discoverable_tool_name: str,
                                    arguments: str = "{}") -> str:
        user_kit = KNOWN_USER_TOOLS[0]
        defn = user_kit.tool_defs().get(discoverable_tool_name)
        if defn is None or not defn.discoverable:
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            args = json.loads(arguments)
        except json.JSONDecodeError as e:
            return f"Error: Invalid JSON in arguments: {e}"
        params = inspect.signature(getattr(user_kit, discoverable_tool_name)).parameters
        for arg in args:  # upstream iterates the parsed value, whatever its type
            if arg not in params and arg != "self":
                return f"Error: Unexpected parameter: {arg}"
        info = self.tool_info(discoverable_tool_name)
        self.user_tools_state[discoverable_tool_name] = {
            "arguments": args, "given_at": ids.NOW.isoformat(), "tool_info": info}
        self.db.add("user_discoverable_tools", ids.user_tool_id(discoverable_tool_name),
                    {"tool_name": discoverable_tool_name, "status": "GIVEN"})
        shown = json.dumps(args, indent=2) if args else "(no arguments)"
        return (f"Tool given to user: {discoverable_tool_name}\n"
                f"Description: {info['description']}\nArguments: {shown}\n\n"
                "The user can now execute this action by calling `call_discoverable_user_tool` "
                f"with discoverable_tool_name='{discoverable_tool_name}' and the same arguments.")

    @tool(ToolType.GENERIC, mutates_state=True)
    def unlock_discoverable_agent_tool(self, agent_tool_name: str) -> str:
        if self.discoverable(agent_tool_name) is None:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        info = self.tool_info(agent_tool_name)
        self.agent_tools_state[agent_tool_name] = {"unlocked_at": ids.NOW.isoformat(),
                                                   "tool_info": info}
        return (f"Tool unlocked: {agent_tool_name}\nDescription: {info['description']}\n\n"
                f"{format_for_agent(info)}\n\n"
                "You can now use this tool by calling `call_discoverable_agent_tool` with "
                f"agent_tool_name='{agent_tool_name}' and the required arguments.")

    @tool(ToolType.WRITE)
    def call_discoverable_agent_tool(self, agent_tool_name: str, arguments: str = "{}") -> str:
        method = self.discoverable(agent_tool_name)
        if method is None:
            return f"Error: Unknown agent tool '{agent_tool_name}'. This tool is not available."
        if agent_tool_name not in self.agent_tools_state:
            return (f"Error: Tool '{agent_tool_name}' has not been unlocked. You must first use "
                    "`unlock_discoverable_agent_tool` to unlock this tool before calling it.")
        try:
            # Upstream: every JSON number becomes a float (ids and hashes then do not
            # depend on how the caller spelled it).
            args = json.loads(arguments, parse_int=float)
        except json.JSONDecodeError as e:
            return f"Error: Invalid JSON in arguments: {e}"
        try:
            result: str = method(**args)  # each tool returns its text
        except TypeError as e:
            return f"Error: Invalid arguments: {e}"
        defn = self._defs[agent_tool_name]
        if defn.mutates_state or agent_tool_name in self.read_log_allowlist:
            self.db.add("agent_discoverable_tools", ids.agent_tool_id(agent_tool_name),
                        {"tool_name": agent_tool_name, "status": "CALLED"})
        return result

    @tool(ToolType.READ)
    def list_discoverable_agent_tools(self) -> str:
        result = self.db.query_text("agent_discoverable_tools", "{}")
        # Upstream tests for "No results found", which the query never says: an empty table
        # is listed as "Your called agent tools:\nNo records found ...".
        if "No results found" in result:
            return ("No agent tools have been called yet. Search the knowledge base to "
                    "discover available tools.")
        return f"Your called agent tools:\n{result}"


def validate_pin(pin: Any) -> str | None:
    """Upstream `_validate_pin`: None when acceptable, else the reason."""
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in ("0123", "1234", "2345", "3456", "4567", "5678", "6789", "9876", "8765", "7654",
               "6543", "5432", "4321", "3210"):
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return ("PIN cannot be all the same digit (e.g., 1111). Please choose a more secure "
                "PIN.")
    return None


def parse_balance(value: Any) -> float:
    """Upstream `_parse_balance`: numbers, or strings like '$2,850.00'."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


def account_balance(account: dict[str, Any]) -> float:
    return parse_balance(account.get("current_holdings", account.get("balance", 0)))


def title(value: str) -> str:
    return value.replace("_", " ").title()
