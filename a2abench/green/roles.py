"""Participants by role in assessment requests (docs/multi-agent.md, "serve-green").

A request names its participants by role: `agent` (the agent under test), `user` (tau2's
scenario dual), and a second participant of a role as `agent_2`, `user_2` (pairing
`cross`). A single-agent request keeps today's contract: `agent` is assessed and other
entries are not contacted. A multi-party request (a `config.scenario` other than single,
a `config.pairing`, or a role of one of the benchmark's scenarios) must name exactly the
scenario's roles: unknown roles, a missing role, or more than five participants are
refused at once, with every problem named.
"""

from __future__ import annotations

from typing import Any

from a2abench.errors import ConfigError
from a2abench.green.guard import HostPolicy
from a2abench.green.settings import GreenSettings, check_http_url
from a2abench.net.egress import PARTICIPANTS
from a2abench.run.config import RunConfig
from a2abench.run.driver import Driver
from a2abench.run.match import lineup_for
from a2abench.run.roles import AGENT, MAX_PARTICIPANTS, Lineup, role_of


class RolesRejected(ConfigError):
    """The request's participants cannot be seated; the message names every problem."""


def other_participants(participants: dict[str, str], config: dict[str, Any],
                       driver: type[Driver], settings: GreenSettings) -> list[str]:
    """The participants besides `agent` as RunConfig `participant` items (ID=URL); [] for a
    single-agent request. Raises RolesRejected."""
    if len(participants) > MAX_PARTICIPANTS:
        raise RolesRejected(f"{len(participants)} participants, more than {MAX_PARTICIPANTS} "
                            "(AgentBeats' gateway slots purple1..purple5): "
                            + ", ".join(sorted(participants)))
    roles = {r for s in driver.scenarios for r in s.roles} - {AGENT}
    multi = (config.get("scenario") not in (None, "single") or "pairing" in config
             or any(role_of(pid) in roles for pid in participants))
    if not multi:
        return []
    if AGENT not in participants:
        raise RolesRejected("missing required role agent (the agent under test) among the "
                            f"participants ({', '.join(sorted(participants))})")
    # @participants allows every participant's host: only the operator's own patterns bind.
    explicit = [p for p in settings.allow_hosts if p != PARTICIPANTS]
    out = []
    for pid, url in sorted(participants.items()):
        if pid == AGENT:
            continue
        try:
            check_http_url(url, f"participant {pid}'s URL")
        except ConfigError as exc:
            raise RolesRejected(exc.message) from None
        if not HostPolicy(explicit).allows(url):
            raise RolesRejected(f"participant {pid} ({url!r}) is not on this server's "
                                "allowed hosts (serve-green --allow-host)")
        out.append(f"{pid}={url}")
    return out


def seat(config: RunConfig, driver: Driver) -> Lineup | None:
    """The lineup the request asks for, checked against the benchmark's scenarios before the
    assessment starts. Raises RolesRejected."""
    try:
        return lineup_for(config, driver.scenarios)
    except ConfigError as exc:
        raise RolesRejected(exc.message.replace("cannot seat the participants: ", "")) from None


def pairings(config: RunConfig, driver: Driver) -> int:
    """How many matches every task-trial plays (1 for a single agent)."""
    found = seat(config, driver)
    return 1 if found is None else len(found.pairings)


def result_fields(roles: dict[str, Any], output: Any) -> dict[str, Any]:
    """What a multi-party Result adds (docs/serve-green.md, "The Result"): the scenario and
    pairing, the lineup without URLs (participant id -> role, reference, built-in), each
    participant's scores keyed by its id, the pairings, the paired comparisons and one row
    per match (`matches`, what `a2abench rate` reads and the leaderboard's per-role query
    adds up across shards)."""
    from a2abench.report.matches import from_records

    people = roles.get("participants") or {}
    lineup = {pid: {k: p.get(k) for k in ("role", "reference", "builtin")}
              for pid, p in people.items() if isinstance(p, dict)}
    scores = {e["participant"]: {"role": role, "metric": "score", "value": e["rate"],
                                 **{k: e[k] for k in (
                                     "ci_low", "ci_high", "ci_method", "tasks", "matches",
                                     "counted", "forfeits", "pass_rate", "violations",
                                     "usage")},
                                 **{k: e[k] for k in ("pass_ci_low", "pass_ci_high",
                                                      "by_category") if k in e},
                                 "vs_reference": e.get("vs_reference"),
                                 **({"fidelity": e["fidelity"]} if "fidelity" in e else {})}
              for role, entries in roles["roles"].items() for e in entries}
    rows = from_records([output]).rows if output is not None else []
    return {"scenario": roles.get("scenario"), "pairing": roles.get("pairing"),
            "primary": roles.get("primary"), "lineup": lineup, "roles": scores,
            "pairings": roles["pairings"], "comparisons": roles["comparisons"],
            "violation_kinds": roles.get("violation_kinds", {}),
            "matches": [r.as_dict() for r in rows]}
