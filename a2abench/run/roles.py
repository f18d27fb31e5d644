"""Who plays whom: participants by role, the pairings of a multi-party run, and the checks a
request's roles must pass (docs/multi-agent.md).

A *scenario* (declared by a benchmark's driver) names the roles one match seats, `agent`
first, and the pinned reference partner of each role. A *participant* fills one role: a
remote A2A agent (`agent`, `agent_2`, `user`, ...) or a partner the driver plays itself
(`reference_user`, the built-in LLM user simulator; `reference_agent`, a2abench's offline
gold-replaying agent, unless the run names a remote one). A *pairing* seats one participant
per role; the run plays every pairing on every task-trial, with the same seeds.

Pairing modes:

    face          each role's one participant faces the others' (the default)
    vs_reference  face, plus each participant against the reference partners of the other
                  roles, so scores compare across runs and ratings have an anchor
    cross         every participant of each role against every participant of the others

No pydantic here: the CLI, serve-green's request parser and the engine all read it.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

AGENT = "agent"
# AgentBeats' gateway maps at most five participant slots (purple1 ... purple5).
MAX_PARTICIPANTS = 5
PairingMode = Literal["face", "vs_reference", "cross"]
PAIRING_MODES: tuple[str, ...] = ("face", "vs_reference", "cross")
REFERENCE_PREFIX = "reference_"
_ID = re.compile(r"(?P<role>[a-z][a-z0-9]*)(?:_(?P<n>[2-9]|[1-9][0-9]+))?")


class RolesError(ValueError):
    """A participant list or pairing that cannot be played; the message names the problem."""


@dataclass(frozen=True)
class Scenario:
    """A kind of match a driver can run: its roles (`agent` first) and the built-in
    reference partners of each role, played by the driver: one (`{"user": "llm_user"}`,
    participant `reference_user`) or a panel (`{"adversary": ("polite", "escalator")}`,
    participants `reference_adversary_polite`, ...)."""

    name: str
    roles: tuple[str, ...]
    references: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    description: str = ""
    # Baselines: role -> a built-in stand-in for "nobody in this seat" (scenario team's
    # solo baseline: `no_specialist`, the front agent alone with every tool), seated
    # opposite each submitted participant of the other roles in every pairing mode.
    baselines: Mapping[str, str] = field(default_factory=dict)

    def reference_names(self, role: str) -> tuple[str, ...]:
        found = self.references.get(role, ())
        return (found,) if isinstance(found, str) else tuple(found)

    def __post_init__(self) -> None:
        if not self.roles or self.roles[0] != AGENT:
            raise ValueError(f"scenario {self.name!r}: the first role must be {AGENT!r}")


@dataclass(frozen=True)
class Participant:
    """One seat-filler. `url` for a remote A2A agent; `builtin` names a partner the driver
    plays itself. `reference` marks the pinned reference partner of its role."""

    id: str
    role: str
    url: str | None = None
    builtin: str | None = None
    reference: bool = False

    @property
    def remote(self) -> bool:
        return self.url is not None

    def describe(self) -> dict[str, Any]:
        """For the run record and Results (the URL is redacted by the caller)."""
        return {"role": self.role, "url": self.url, "builtin": self.builtin,
                "reference": self.reference}


@dataclass(frozen=True)
class Pairing:
    """One participant per role, in the scenario's role order."""

    seats: tuple[tuple[str, str], ...]  # (role, participant id)

    @property
    def id(self) -> str:
        """`agent+user`, `agent+reference_user`: stable, readable, unique within a run."""
        return "+".join(pid for _, pid in self.seats)

    def of(self, role: str) -> str:
        for seat_role, pid in self.seats:
            if seat_role == role:
                return pid
        raise KeyError(role)

    def roles(self) -> dict[str, str]:
        return dict(self.seats)


@dataclass(frozen=True)
class Lineup:
    """A multi-party run's participants and the pairings every task-trial plays; the first
    pairing is the primary one (the submitted participants facing each other), whose
    task-trials the run's headline score covers."""

    scenario: Scenario
    mode: str
    participants: tuple[Participant, ...]
    pairings: tuple[Pairing, ...]

    def participant(self, pid: str) -> Participant:
        for p in self.participants:
            if p.id == pid:
                return p
        raise KeyError(pid)

    @property
    def primary(self) -> Pairing:
        return self.pairings[0]

    def remote(self) -> list[Participant]:
        return [p for p in self.participants if p.remote]

    def builtins(self) -> set[str]:
        """The built-in partners some pairing seats (the driver must be able to play them)."""
        used = {pid for pairing in self.pairings for _, pid in pairing.seats}
        return {p.builtin for p in self.participants if p.builtin and p.id in used}

    def describe(self) -> dict[str, Any]:
        """The run record's `lineup` (URLs as given: the caller redacts)."""
        return {"scenario": self.scenario.name, "pairing": self.mode,
                "participants": {p.id: p.describe() for p in self.participants},
                "pairings": [{"id": q.id, "roles": q.roles()} for q in self.pairings],
                "primary": self.primary.id}


def role_of(pid: str) -> str | None:
    """`agent_2` -> `agent`, `user` -> `user`; None for a name that is not a role name
    (`Agent`, `user_1`, `user_02`, `x-y`)."""
    m = _ID.fullmatch(pid)
    return m.group("role") if m else None


def numbered(role: str, urls: Sequence[str]) -> list[tuple[str, str]]:
    """(id, url) for a role's URLs in order: `agent`, `agent_2`, `agent_3`, ..."""
    return [(role if i == 0 else f"{role}_{i + 1}", url) for i, url in enumerate(urls)]


def check_roles(scenario: Scenario, participants: Mapping[str, str]) -> None:
    """A request's participants (id -> URL) against a scenario: every id a role name of the
    scenario, every role filled, at most MAX_PARTICIPANTS. Raises RolesError naming the
    problem (all of them at once)."""
    problems = []
    if len(participants) > MAX_PARTICIPANTS:
        problems.append(f"{len(participants)} participants, more than {MAX_PARTICIPANTS} "
                        "(AgentBeats' gateway slots purple1..purple5)")
    unknown = sorted(p for p in participants if role_of(p) not in scenario.roles)
    if unknown:
        problems.append(f"unknown role(s) {', '.join(unknown)} for scenario "
                        f"{scenario.name!r} (its roles: {', '.join(scenario.roles)}; a second "
                        "participant of a role is named like agent_2)")
    filled = {role_of(p) for p in participants}
    missing = [r for r in scenario.roles if r not in filled]
    if missing:
        problems.append(f"missing required role(s) {', '.join(missing)} for scenario "
                        f"{scenario.name!r}")
    if problems:
        raise RolesError("; ".join(problems))


def lineup(scenario: Scenario, urls: Mapping[str, str], mode: str = "face", *,
           reference_urls: Mapping[str, str] | None = None) -> Lineup:
    """The participants and pairings of a run: `urls` maps participant ids (role names,
    `agent_2` ...) to their A2A URLs; `reference_urls` replaces a role's built-in reference
    partner with a remote one (`--reference-agent-url`). Raises RolesError."""
    if mode not in PAIRING_MODES:
        raise RolesError(f"unknown pairing {mode!r} (one of: {', '.join(PAIRING_MODES)})")
    check_roles(scenario, urls)
    by_role: dict[str, list[Participant]] = {r: [] for r in scenario.roles}
    for pid in sorted(urls, key=_order):
        by_role[str(role_of(pid))].append(Participant(pid, str(role_of(pid)), url=urls[pid]))
    references = _references(scenario, reference_urls or {})
    if mode in ("face", "vs_reference"):
        crowded = [r for r, ps in by_role.items() if len(ps) > 1]
        if crowded:
            raise RolesError(f"several participants of role {crowded[0]!r} need pairing "
                             "`cross` (pairing `face` and `vs_reference` seat one per role)")
    pairings = [Pairing(tuple(zip(scenario.roles, ids, strict=True)))
                for ids in itertools.product(*([p.id for p in by_role[r]]
                                                for r in scenario.roles))]
    baselines = [Participant(f"no_{role}", role, builtin=name)
                 for role, name in scenario.baselines.items()]
    pairings += [q for b in baselines for q in _baseline_pairings(pairings, b)]
    if mode == "vs_reference":
        pairings += _reference_pairings(scenario, by_role, references)
    used = {pid for q in pairings for _, pid in q.seats}
    members = [p for r in scenario.roles for p in by_role[r]]
    members += [p for panel in references.values() for p in panel if p.id in used]
    members += [p for p in baselines if p.id in used]
    return Lineup(scenario, mode, tuple(members), tuple(pairings))


def _order(pid: str) -> tuple[int, str]:
    m = _ID.fullmatch(pid)
    return (int(m.group("n") or 1) if m else 0, pid)


def _references(scenario: Scenario, urls: Mapping[str, str]) -> dict[str, list[Participant]]:
    """Each role's reference partners: a remote one (`reference_urls`) replaces the
    built-in panel; a panel of several is `reference_<role>_<name>`."""
    out: dict[str, list[Participant]] = {}
    for role in scenario.roles:
        pid = REFERENCE_PREFIX + role
        names = scenario.reference_names(role)
        if role in urls:
            out[role] = [Participant(pid, role, url=urls[role], reference=True)]
        elif names:
            out[role] = [Participant(pid if len(names) == 1 else f"{pid}_{name}", role,
                                     builtin=name, reference=True) for name in names]
    unknown = sorted(set(urls) - set(scenario.roles))
    if unknown:
        raise RolesError(f"a reference partner for unknown role(s) {', '.join(unknown)}")
    return out


def _baseline_pairings(pairings: Sequence[Pairing], baseline: Participant) -> list[Pairing]:
    """The submitted pairings with the baseline in its role's seat, each once."""
    out: dict[str, Pairing] = {}
    for q in pairings:
        seats = tuple((r, baseline.id if r == baseline.role else pid) for r, pid in q.seats)
        out.setdefault(Pairing(seats).id, Pairing(seats))
    return list(out.values())


def _reference_pairings(scenario: Scenario, by_role: Mapping[str, list[Participant]],
                        references: Mapping[str, list[Participant]]) -> list[Pairing]:
    """Each submitted participant against every combination of the other roles'
    reference partners."""
    missing = [r for r in scenario.roles if r not in references]
    if missing:
        raise RolesError(f"pairing `vs_reference` needs a reference partner for role(s) "
                         f"{', '.join(missing)} (scenario {scenario.name!r} has none built in)")
    out = []
    for role in scenario.roles:
        for p in by_role[role]:
            panels = [[p.id] if r == role else [q.id for q in references[r]]
                      for r in scenario.roles]
            out += [Pairing(tuple(zip(scenario.roles, ids, strict=True)))
                    for ids in itertools.product(*panels)]
    return out
