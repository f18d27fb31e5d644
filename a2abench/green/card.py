"""The green agent's card: what it is, one skill per benchmark it can run, how to reach it."""

from __future__ import annotations

import json

from a2a.types import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    SecurityRequirement,
    SecurityScheme,
    StringList,
)

from a2abench._version import __version__

DESCRIPTION = (
    "a2abench assessor (green agent): runs tau2-bench and CRMArena against the A2A agent you "
    "name, scores it the way the official benchmark does, streams progress, and returns a "
    "Result artifact (a text summary and a JSON DataPart of scores). Send one message: a JSON "
    '{"participants": {"agent": URL}, "config": {"benchmark": ..., ...}}.'
)

def _skill(name: str) -> AgentSkill:
    """The benchmark's own skill (`Driver.skill`), or a generic one when it has none or its
    driver cannot be loaded (the run itself reports that)."""
    from a2abench.run.driver import Skill
    from a2abench.run.registry import get_driver

    try:
        skill = get_driver(name).skill
    except Exception:  # a broken plugin must not take the card (and the server) down
        skill = None
    if skill is None:
        skill = Skill(f"{name} assessment", f"Runs the {name} benchmark (an a2abench plug-in) "
                      "against the named agent.", ("benchmark", name))
    examples = [json.dumps({"participants": {"agent": "http://purple-agent:9019"},
                            "config": {"benchmark": name, **config}})
                for config in skill.examples]
    return AgentSkill(id=name, name=skill.title, description=skill.description,
                      tags=list(skill.tags), examples=examples,
                      input_modes=["text/plain", "application/json"],
                      output_modes=["text/plain", "application/json"])


def build_card(url: str, benchmarks: list[str], *, auth: bool, tck: bool = False,
               rest_url: str | None = None, grpc_url: str | None = None,
               a2a_03: bool = True) -> AgentCard:
    """The card for a server whose JSON-RPC endpoint is `url`. It declares each binding twice,
    A2A 1.0 and 0.3, JSON-RPC first (a2a-sdk then also writes the 0.3 top-level `url` and
    `preferredTransport: JSONRPC` that 0.3 clients need); with `a2a_03=False` only 1.0, and
    the card has no legacy fields."""
    versions = ("1.0", "0.3") if a2a_03 else ("1.0",)
    card = AgentCard(
        name="a2abench green agent", description=DESCRIPTION, version=__version__,
        capabilities=AgentCapabilities(streaming=True, push_notifications=False),
        default_input_modes=["text/plain", "application/json"],
        default_output_modes=["text/plain", "application/json"],
        skills=[_skill(name) for name in benchmarks],
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version=version)
            for version in versions])
    for binding, extra in (("HTTP+JSON", rest_url), ("GRPC", grpc_url)):
        if extra is not None:
            card.supported_interfaces.extend([
                AgentInterface(url=extra, protocol_binding=binding, protocol_version=version)
                for version in versions])
    if tck:
        card.skills.append(AgentSkill(
            id="tck", name="A2A TCK scenarios (test mode)",
            description="messageId prefixes tck-* and test-resubscribe-* run the A2A TCK "
                        "scenario behaviours instead of an assessment.", tags=["test"]))
    if auth:
        card.security_schemes["bearer"].CopyFrom(SecurityScheme(
            http_auth_security_scheme=HTTPAuthSecurityScheme(
                scheme="Bearer", description="The token the operator passed to serve-green "
                                             "--auth-token.")))
        card.security_requirements.append(
            SecurityRequirement(schemes={"bearer": StringList(list=[])}))
    return card
