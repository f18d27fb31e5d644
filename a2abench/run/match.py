"""A multi-party run's matches, as the engine plays them (docs/multi-agent.md): which
scenario and lineup a run has, conversations that turn a participant's failure into its
forfeit, each participant's requests, and the `match` block of a task record.

A task record of a multi-party run carries, before its transcript:

    "match": {"pairing": "agent+user", "roles": {"agent": "agent", "user": "user"},
              "scores": {"agent": 1.0, "user": 1.0}, "forfeit": null,
              "violations": {"user": [{"kind": ..., "message": ...}]},
              "usage": {"agent": {"requests": 4, "latency_ms": ..., "input_tokens": ...,
                                  "output_tokens": ...}, "user": {...}}}

`scores` is each role's result of the match (None: not counted for that role). In a
cooperative match every role shares the reward; a participant's forfeit is 0 for its role
and not counted for the others; a driver may set its own (a competitive scenario).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from a2abench.a2a.client import Conversation
from a2abench.errors import (
    A2ABenchError,
    A2AStatusError,
    AgentHTTPError,
    ConfigError,
    Forfeit,
    JSONRPCError,
    ProtocolError,
    foreign_errors_as,
)
from a2abench.options import env_var
from a2abench.run.config import PARTICIPANT_TOKENS, redact_url
from a2abench.run.records import ErrorInfo
from a2abench.run.roles import (
    AGENT,
    Lineup,
    Pairing,
    Participant,
    RolesError,
    Scenario,
    lineup,
    role_of,
)

if TYPE_CHECKING:
    from a2abench.a2a import A2AClient, AgentReply
    from a2abench.a2a.models import Part
    from a2abench.run.config import RunConfig
    from a2abench.run.driver import TaskOutcome
    from a2abench.run.records import TaskRecord

SINGLE = "single"


def lineup_for(config: RunConfig, scenarios: Sequence[Scenario]) -> Lineup | None:
    """The run's lineup, or None for a single-agent run. Raises ConfigError (a usage error)
    for a scenario the benchmark does not offer or participants it cannot seat."""
    if not config.multi_party():
        return None
    urls = config.participant_urls()
    scenario = _scenario(config, scenarios, urls)
    references = {AGENT: config.reference_agent_url} if config.reference_agent_url else {}
    try:
        return lineup(scenario, urls, config.pairing, reference_urls=references)
    except RolesError as exc:
        raise ConfigError(f"cannot seat the participants: {exc}",
                          hint="See docs/multi-agent.md for the roles and pairings.") from None


def _scenario(config: RunConfig, scenarios: Sequence[Scenario],
              urls: Mapping[str, str]) -> Scenario:
    offered = ", ".join([SINGLE, *(s.name for s in scenarios)])
    name = config.scenario
    if name in (None, SINGLE) and not scenarios:
        raise ConfigError(f"{config.benchmark} has no multi-party scenario: it takes one agent "
                          "(--white-agent-url) and nothing else",
                          hint="Drop the other participants, --pairing and "
                               "--reference-agent-url.")
    if name is None:  # named by the roles present: --user-agent-url means a user seat
        present = {role_of(pid) for pid in urls} - {AGENT}
        fitting = [s for s in scenarios if present and present <= set(s.roles)]
        if len(fitting) != 1:
            raise ConfigError(f"which scenario? the participants ({', '.join(sorted(urls))}) "
                              f"fit {len(fitting)} of {config.benchmark}'s",
                              hint=f"Pass --scenario (one of: {offered}).")
        return fitting[0]
    found = next((s for s in scenarios if s.name == name), None)
    if found is None:
        why = ("seats only the agent: drop the other participants and --pairing"
               if name == SINGLE else f"is not a scenario of {config.benchmark}")
        raise ConfigError(f"--scenario {name!r} {why}", hint=f"Scenarios: {offered}.")
    return found


class ParticipantConversation(Conversation):
    """A conversation with a participant other than the agent under test: whatever its
    request raises (a timeout, a malformed or failed reply, an unreachable agent, the task
    deadline) is its forfeit."""

    def __init__(self, client: A2AClient, role: str, participant: str, *,
                 raise_for_state: bool = True) -> None:
        super().__init__(client, raise_for_state=raise_for_state)
        self.role = role
        self.participant = participant

    async def send(self, *content: Part | str | dict[str, Any],
                   stream: bool | None = None) -> AgentReply:
        try:
            return await super().send(*content, stream=stream)
        except Forfeit:
            raise
        except A2ABenchError as exc:
            if exc.kind not in ("agent", "infrastructure"):
                raise  # ours (records, configuration): not the participant's doing
            forfeit = Forfeit(self.role, self.participant, exc)
            if credentials_refused(exc):  # say which flag, not the agent's --auth-token
                forfeit.hint = (token_hint(self.participant, self.role)
                                + " Until then each of its matches is its forfeit.")
            raise forfeit from exc


def credentials_refused(exc: A2ABenchError) -> bool:
    """A server refused the request's credentials: HTTP 401/403 (with any body, a JSON-RPC
    error's included), or UNAUTHENTICATED / PERMISSION_DENIED over HTTP+JSON and gRPC."""
    if isinstance(exc, AgentHTTPError):
        return exc.status_code in (401, 403)
    if isinstance(exc, A2AStatusError) and exc.status in ("UNAUTHENTICATED",
                                                          "PERMISSION_DENIED"):
        return True
    return (isinstance(exc, JSONRPCError | A2AStatusError)
            and exc.http_status in (401, 403))


def refused_access(participant: Participant, exc: A2ABenchError) -> ConfigError | None:
    """A participant's card or first request refused our credentials: a usage error that
    names its role's token flag (None: another failure)."""
    if not credentials_refused(exc):
        return None
    return ConfigError(f"the {participant.role} participant {participant.id} refused "
                       f"a2abench's request (no token, or a wrong one): {exc.message}",
                       hint=token_hint(participant.id, participant.role))


def check_access(participant: Participant, security: Sequence[Mapping[str, Any]],
                 has_token: bool) -> None:
    """Refuse, before any match, a participant whose card demands credentials (security
    requirements, none of them empty: an empty one allows anonymous calls) when a2abench
    has no token for it."""
    if has_token or not security or not all(security):
        return
    schemes = ", ".join(sorted({name for requirement in security for name in requirement}))
    where = redact_url(participant.url or "")
    raise ConfigError(f"the {participant.role} participant {participant.id} ({where}) "
                      f"requires authentication (its card's security: {schemes}), and "
                      "a2abench has no token to send it",
                      hint=token_hint(participant.id, participant.role))


def token_hint(pid: str, role: str) -> str:
    """What to do when participant `pid` wants a bearer token: its role's flag. A token
    goes to a role's first participant only (run/engine.py `_client`)."""
    flag = "--auth-token" if role == AGENT else f"--{role}-auth-token"
    if role not in (AGENT, *PARTICIPANT_TOKENS):
        return (f"a2abench has no bearer token flag for role {role}; serve the participant "
                "without authentication.")
    if pid != role:
        return (f"a2abench sends {flag} to the first {role} participant only ({role}), "
                f"never to {pid}: seat the participant that needs it first, or serve it "
                "without authentication.")
    return (f"Pass {flag} (or {env_var(flag)}) with the token the {role} participant "
            "accepts (serve-green sends participants no token).")


@contextmanager
def participant_input(role: str, participant: str, what: str) -> Iterator[None]:
    """`agent_input` for another participant of a match: whatever the code processing its
    input raises (a malformed or empty reply included) is its forfeit, never a harness
    error and never the agent's failure."""
    try:
        with foreign_errors_as(lambda summary: ProtocolError(
                f"a2abench could not process the {role} participant's {what} ({summary})")):
            yield
    except Forfeit:
        raise
    except A2ABenchError as exc:
        if exc.kind != "agent":
            raise
        raise Forfeit(role, participant, exc) from exc


def forfeit_error(exc: Forfeit) -> ErrorInfo:
    """The record's error for a forfeit: the cause's class names what failed."""
    return ErrorInfo(error=type(exc.cause).__name__, kind="forfeit", message=exc.message,
                     hint=exc.hint)


@dataclass
class Usage:
    """One participant's A2A requests within one match."""

    requests: int = 0
    latency_ms: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"requests": self.requests, "latency_ms": round(self.latency_ms, 3),
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens}


def role_scores(outcome: TaskOutcome, pairing: Pairing, reward: float | None
                ) -> dict[str, float | None]:
    """Each role's result of the match: the driver's own, else the cooperative rule (every
    role shares the reward; a forfeit is 0 for its role and not counted for the others;
    nothing counts when the match could not be judged)."""
    roles = [role for role, _ in pairing.seats]
    if outcome.role_scores is not None:
        return {role: outcome.role_scores.get(role) for role in roles}
    if outcome.status in ("ok", "evaluator_error"):
        return dict.fromkeys(roles, reward)
    side = forfeited(outcome)
    return {role: (0.0 if role == side else None) for role in roles}


def forfeited(outcome: TaskOutcome) -> str | None:
    """The role that forfeited: the agent's own errors are its forfeit."""
    if outcome.status == "agent_error":
        return AGENT
    return outcome.forfeit if outcome.status == "forfeit" else None


def match_block(pairing: Pairing, outcome: TaskOutcome, reward: float | None,
                usage: Mapping[str, Usage]) -> dict[str, Any]:
    """The task record's `match` (see the module docstring)."""
    return {"pairing": pairing.id, "roles": pairing.roles(),
            "scores": role_scores(outcome, pairing, reward), "forfeit": forfeited(outcome),
            "violations": {role: list(found) for role, found in outcome.violations.items()},
            "usage": {pid: usage[pid].as_dict() for _, pid in pairing.seats if pid in usage},
            **_delegation(outcome)}


def _delegation(outcome: TaskOutcome) -> dict[str, Any]:
    """Scenario team's traffic between the agents (run/delegation.py), when there was any."""
    found = outcome.details.get("delegation")
    return {"delegation": found} if isinstance(found, dict) else {}


def record_line(record: TaskRecord) -> dict[str, Any]:
    """A multi-party task record as the writer takes it: its fields in order with `match`
    before `error` (so that `report`'s summary reader, which stops at the transcript, sees
    it)."""
    fields = dict(record.__dict__)
    extra = dict(record.__pydantic_extra__ or {})
    match = extra.pop("match", None)
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if key == "error":
            out["match"] = match
        out[key] = dict(value.__dict__) if isinstance(value, ErrorInfo) else value
    out.update(extra)
    return out


def seats(lineup_: Lineup, pairing: Pairing) -> dict[str, Any]:
    """role -> the Participant seated there in this match."""
    return {role: lineup_.participant(pid) for role, pid in pairing.seats}


def client_for(clients: Mapping[str, A2AClient], pid: str) -> A2AClient:
    try:
        return clients[pid]
    except KeyError:
        raise RuntimeError(f"participant {pid} is played by the driver, not over A2A "
                           "(ctx.seat(role).builtin names it)") from None
