"""Every Amber manifest and scenario under examples/agentbeats/ against the rules Amber and
AgentBeats state, since the Amber compiler cannot run here (docs/serve-green.md).

Where each rule comes from (RDI-Foundation/amber, agentbeats-gateway v0.3,
agentbeats-leaderboard-template; read, not copied):
- amber compiler/manifest/README.md, "Parse-time validation", "Linting" and
  "Link-time": versions, names, endpoints, export targets, bindings, config_schema profile,
  `${config.*}` / `${slots.*}` references, unused slots, provides and config.
- amber compiler/src/mir (dead-code elimination): a binding into a slot that no live program
  references (`${slots.<name>...}` in its entrypoint or env) is dropped, so a green agent
  that never references its `proxy` slot has no route to the gateway's proxy.
- the template's quick-submit-runner.yml: a scenario must export an `http` capability named
  `results`; Quick Submit's scenario gives a green agent only its secrets (every other config
  key needs a default) and takes the assessment from the green manifest's metadata.
- agentbeats-gateway's amber-manifest.json5: its config keys, slots and exports (GATEWAY).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.agentbeats.image import argv_of, image_entrypoint, start
from tests.agentbeats.test_kit import load

ROOT = Path(__file__).parents[2]
KIT = ROOT / "examples/agentbeats"
FILES = sorted(KIT.rglob("*.json5"))
SCENARIOS = [p for p in FILES if "components" in load(p)]
GATEWAY_URL = ("https://raw.githubusercontent.com/RDI-Foundation/agentbeats-gateway/refs/tags/"
               "v0.3/amber-manifest.json5")
# The gateway's manifest as its repository states it (v0.3): what a scenario may bind and read.
GATEWAY: dict[str, Any] = {
    "manifest_version": "0.1.0",
    "program": {"image": "ghcr.io/rdi-foundation/agentbeats-gateway:v0.3",
                "env": {"SERVICE_URLS": "${slots}",
                        "PARTICIPANT_ROLES": "${config.participant_roles}",
                        "ASSESSMENT_CONFIG": "${config.assessment_config}"},
                "network": {"endpoints": [{"name": "proxy", "port": 8080},
                                          {"name": "results", "port": 8081}]}},
    "config_schema": {"type": "object",
                      "properties": {"assessment_config": {"type": "object"},
                                     "participant_roles": {"type": "object"}},
                      "required": ["assessment_config", "participant_roles"],
                      "additionalProperties": True},
    "slots": {"green": {"kind": "a2a"}, "green_mcp": {"kind": "mcp", "optional": True},
              "purple1": {"kind": "a2a"},
              **{f"purple{i}": {"kind": "a2a", "optional": True} for i in range(2, 6)}},
    "provides": {"proxy": {"kind": "a2a", "endpoint": "proxy"},
                 "results": {"kind": "http", "endpoint": "results"}},
    "exports": {"proxy": "proxy", "results": "results"},
}
CONFIG_KEY = re.compile(r"^(?!.*__)[a-z][a-z0-9_]*$")
SEMVER = re.compile(r"^0\.(\d+)\.(\d+)$")  # >=0.1.0, <1.0.0
PLACEHOLDER = re.compile(r"\$\{([a-z_]+)((?:\.[a-zA-Z0-9_]+)*)\}")


def child(scenario: Path, ref: Any) -> dict[str, Any]:
    url = ref if isinstance(ref, str) else ref["manifest"]
    return GATEWAY if url == GATEWAY_URL else load((scenario.parent / url).resolve())


def strings(value: Any) -> list[str]:
    """Every string inside a JSON value (for `${...}` references)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def refs(value: Any, source: str) -> set[str]:
    """The first path segment of every `${source.<name>...}` (a bare `${source}` is "*")."""
    found = set()
    for text in strings(value):
        for head, rest in PLACEHOLDER.findall(text):
            if head == source:
                found.add(rest.split(".")[1] if rest else "*")
    return found


def program_text(manifest: dict[str, Any]) -> list[Any]:
    program = manifest.get("program") or {}
    return [program.get("entrypoint"), program.get("env"), program.get("image")]


def export_target(manifest: dict[str, Any], target: str) -> tuple[str, str]:
    """("provides"|"slots"|"#child", name) of an export target (bare = provide or slot)."""
    if target.startswith("#"):
        name, _, export = target[1:].partition(".")
        return "#" + name, export
    kind, dot, name = target.partition(".")
    if dot and kind in ("provides", "slots"):
        return kind, name
    return ("provides" if target in manifest.get("provides", {}) else "slots"), target


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(KIT)))
def test_each_manifest_parses_validates_and_lints_clean(path: Path) -> None:
    m = load(path)
    assert SEMVER.match(m["manifest_version"]), m["manifest_version"]
    slots, provides = m.get("slots", {}), m.get("provides", {})
    names = [*m.get("components", {}), *slots, *provides, *m.get("exports", {})]
    assert not [n for n in names if "." in n]
    assert not set(slots) & set(provides)
    endpoints = [e["name"] for e in ((m.get("program") or {}).get("network") or {})
                 .get("endpoints", [])]
    assert len(endpoints) == len(set(endpoints))
    assert all(p["endpoint"] in endpoints for p in provides.values()), path
    for name, target in m.get("exports", {}).items():
        kind, what = export_target(m, target)
        if kind.startswith("#"):
            assert kind[1:] in m.get("components", {}), (name, target)
        else:
            assert what in (provides if kind == "provides" else slots), (name, target)
    _config_schema(m, path)
    used_slots = refs(program_text(m), "slots")
    assert used_slots - {"*"} <= set(slots), path
    exported = {export_target(m, t) for t in m.get("exports", {}).values()}
    from_slots = {b["from"].split(".", 1)[1] for b in m.get("bindings", [])
                  if b["from"].startswith("slots.")}
    for slot in slots:  # Amber prunes a binding into a slot nothing uses: no route there
        assert slot in used_slots or "*" in used_slots or ("slots", slot) in exported \
            or slot in from_slots, f"{path.name}: slot {slot!r} is never referenced"
    for provide in provides:
        assert ("provides", provide) in exported, f"{path.name}: provide {provide!r} unused"
    if m.get("program"):
        assert m.get("exports"), f"{path.name}: its program is referenced by no export"


def _config_schema(m: dict[str, Any], path: Path) -> None:
    schema = m.get("config_schema")
    used = refs(program_text(m), "config") | refs(
        [c.get("config") for c in m.get("components", {}).values() if isinstance(c, dict)],
        "config")
    if schema is None:
        assert not used, path
        return
    assert schema["type"] == "object" and isinstance(schema.get("additionalProperties"), bool)
    props = schema.get("properties", {})
    assert all(CONFIG_KEY.match(k) for k in props), path
    assert set(schema.get("required", [])) <= set(props)
    assert used - {"*"} <= set(props), f"{path.name}: {used - set(props)} not in its schema"
    assert set(props) <= used, f"{path.name}: config {set(props) - used} is never used"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(KIT)))
def test_each_scenario_links(path: Path) -> None:
    m = load(path)
    children = {name: child(path, ref) for name, ref in m["components"].items()}
    bound: dict[tuple[str, str], int] = {}
    for binding in m["bindings"]:
        to_child, slot = binding["to"][1:].split(".")
        assert slot in children[to_child].get("slots", {}), binding
        bound[(to_child, slot)] = bound.get((to_child, slot), 0) + 1
        source, capability = binding["from"].split(".")
        if source == "slots":
            kind = m["slots"][capability]["kind"]
        else:
            provider = children[source[1:]]
            _, provide = export_target(provider, provider["exports"][capability])
            kind = provider["provides"][provide]["kind"]
        assert kind == children[to_child]["slots"][slot]["kind"], binding
    for name, manifest in children.items():
        for slot, spec in manifest.get("slots", {}).items():
            assert bound.get((name, slot), 0) <= 1 or spec.get("multiple"), (name, slot)
            assert (name, slot) in bound or spec.get("optional"), f"{name}.{slot} unbound"
        _child_config(m, name, manifest)


def _child_config(scenario: dict[str, Any], name: str, manifest: dict[str, Any]) -> None:
    ref = scenario["components"][name]
    given = ref.get("config", {}) if isinstance(ref, dict) else {}
    schema = manifest.get("config_schema", {"properties": {}, "required": []})
    props = schema.get("properties", {})
    if schema.get("additionalProperties") is False:
        assert set(given) <= set(props), (name, set(given) - set(props))
    needed = {k for k in schema.get("required", []) if "default" not in props.get(k, {})}
    assert needed <= set(given), f"{name} needs {needed - set(given)}"


def _green(scenario: dict[str, Any]) -> str:
    return next(b["from"][1:].split(".")[0] for b in scenario["bindings"]
                if b["to"] == "#gateway.green")


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: str(p.relative_to(KIT)))
def test_each_scenario_runs_in_the_leaderboard_workflow_and_quick_submit(path: Path) -> None:
    m = load(path)
    gateway = m["components"]["gateway"]
    assert gateway["manifest"] == GATEWAY_URL
    # The workflow requires an `http` export named `results` and polls it.
    assert m["exports"] == {"results": "#gateway.results"}
    roles = gateway["config"]["participant_roles"]
    green_name = _green(m)
    assert roles["green"] == green_name and set(roles.values()) == set(m["components"]) - {
        "gateway"}
    assert set(m["metadata"]["agentbeats_ids"]) == set(m["components"]) - {"gateway"}
    green = child(path, m["components"][green_name])
    # The image's own entrypoint, never a bare serve-green (test_every_green_...).
    assert argv_of(green["program"])[:2] == image_entrypoint()
    # The green agent reaches participants through the gateway's proxy, and references it.
    assert {"to": f"#{green_name}.proxy", "from": "#gateway.proxy", "weak": True} \
        in m["bindings"]
    assert "${slots.proxy.url}" in green["program"]["env"].values()
    # Quick Submit: only secrets reach the green agent; the assessment is its metadata's.
    props = green["config_schema"]["properties"]
    for key, spec in props.items():
        assert spec.get("secret") or "default" in spec, f"{green_name}.{key} has no default"
    meta = green["metadata"]
    assert meta["participant_roles"] == [r for s, r in roles.items() if s != "green"]
    for key in ("benchmark", "tool_channel", "scenario", "pairing"):  # never another assessment
        assert meta["assessment_config"].get(key) == gateway["config"][
            "assessment_config"].get(key), key


def test_every_image_is_the_one_the_workflow_pushes() -> None:
    workflow = yaml.safe_load((ROOT / ".github/workflows/image.yml").read_text())
    push = workflow["jobs"]["push"]
    steps = {s.get("id"): s for s in push["steps"] if s.get("id")}
    assert "ghcr.io/${GITHUB_REPOSITORY,,}" in steps["name"]["run"]  # owner/repo, lowercase
    # `latest` exists only once a v* tag was pushed: the push job runs for those alone.
    assert "startsWith(github.ref, 'refs/tags/v')" in push["if"]
    assert "type=raw,value=latest" in steps["meta"]["with"]["tags"]
    images = {str(p.relative_to(KIT)): load(p)["program"]["image"] for p in FILES
              if "program" in load(p)}
    assert images
    for name, image in images.items():
        assert re.fullmatch(r"ghcr\.io/owner/a2abench:latest", image), (name, image)


def _programs() -> dict[str, dict[str, Any]]:
    return {str(p.relative_to(KIT)): load(p)["program"] for p in FILES if "program" in load(p)}


GREENS = [name for name, program in _programs().items()
          if argv_of(program)[0] != "a2abench-example-agent"]


def test_no_manifest_bypasses_the_image_entrypoint() -> None:
    """`a2abench serve-green --host 0.0.0.0` as a manifest's entrypoint would skip the image's
    check that refuses an open bind (examples/agentbeats/entrypoint.py)."""
    assert {"leaderboard/a2abench.json5", "leaderboard/crmarena/a2abench.json5",
            "mcp-green.json5", "dual-green.json5"} <= set(GREENS)
    for name, program in _programs().items():
        argv = argv_of(program)
        assert "serve-green" not in argv and argv[0] != "a2abench", (name, argv)


@pytest.mark.parametrize("name", GREENS)
def test_every_green_starts_through_the_image_entrypoint_open_only_on_agentbeats(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    program = _programs()[name]
    env = {k: str(v) for k, v in program["env"].items()}
    # On AgentBeats only the gateway reaches the container: the manifest says so, and no
    # token (which the gateway would not send) is configured.
    assert env.get("A2ABENCH_ALLOW_OPEN") == "1" and "A2ABENCH_AUTH_TOKEN" not in env
    code, execed = start(argv_of(program), env, tmp_path / "port", monkeypatch)
    assert execed[:2] == ["a2abench", "serve-green"], code
    assert (tmp_path / "port").read_text() == "9009"  # the health check's port
    assert program["network"]["endpoints"][0]["port"] == 9009
    # Without the manifest's word the same command refuses to serve 0.0.0.0 open.
    closed = {k: v for k, v in env.items() if k != "A2ABENCH_ALLOW_OPEN"}
    code, execed = start(argv_of(program), closed, tmp_path / "port2", monkeypatch)
    assert (code, execed) == (2, [])
