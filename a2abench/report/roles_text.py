"""The per-role view (roles.py) as tables of strings: one set of rows for every format (the
Rich table, Markdown, HTML)."""

from __future__ import annotations

from typing import Any

Table = tuple[str, list[str], list[list[str]]]  # title, header, rows


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _ci(entry: dict[str, Any]) -> str:
    if entry.get("ci_low") is None:
        return _pct(entry.get("rate"))
    return f"{_pct(entry['rate'])} [{_pct(entry['ci_low'])}, {_pct(entry['ci_high'])}]"


def _count(value: float) -> str:
    return f"{value / 1000:.1f}k" if value >= 10_000 else f"{int(value)}"


def role_table(view: dict[str, Any]) -> Table:
    rows = []
    for role, entries in sorted(view["roles"].items()):
        for e in entries:
            versus = e.get("vs_reference")
            usage = e["usage"]
            rows.append([
                role, e["participant"] + (" (ref)" if e.get("reference") else ""),
                f"{e['counted']}/{e['matches']}", str(e["forfeits"]), _ci(e),
                _pct(e["pass_rate"]), _ci(versus) if versus else "-",
                ", ".join(f"{k} {v}" for k, v in e["violations"].items()) or "-",
                f"{_count(usage['requests'])} req, {_count(usage['input_tokens'])}+"
                f"{_count(usage['output_tokens'])} tok, {usage['latency_ms'] / 1000:.1f} s"])
    return ("Scores per role (95% CI clustered by task)",
            ["role", "participant", "counted", "forfeits", "mean score [CI]", "pass rate",
             "vs reference (user: fidelity)", "violations", "A2A cost"], rows)


def pairing_matrix(view: dict[str, Any]) -> Table | None:
    """Agents down, the other role across, mean reward and matches in each cell (two-role
    scenarios)."""
    pairings = view["pairings"]
    roles = sorted({r for p in pairings for r in p["roles"]})
    if len(roles) != 2 or "agent" not in roles:
        return None
    other = next(r for r in roles if r != "agent")
    agents = sorted({p["roles"]["agent"] for p in pairings})
    others = sorted({p["roles"][other] for p in pairings})
    cells = {(p["roles"]["agent"], p["roles"][other]): p for p in pairings}
    rows = []
    for agent in agents:
        row = [agent]
        for who in others:
            p = cells.get((agent, who))
            row.append("-" if p is None else f"{_pct(p['mean_reward'])} ({p['matches']}"
                       + (f", {sum(p['forfeits'].values())} forfeit" if p["forfeits"] else "")
                       + ")")
        rows.append(row)
    return (f"Pairings: mean reward (matches), agent × {other}", [f"agent \\ {other}", *others],
            rows)


def comparison_table(view: dict[str, Any]) -> Table | None:
    rows = [[c["role"], c["a"], c["b"], str(c["units"]),
             f"{c['a_better']}-{c['ties']}-{c['b_better']}",
             f"{c['mean_diff']:+.3f}" + (f" [{c['ci_low']:+.3f}, {c['ci_high']:+.3f}]"
                                          if c.get("ci_low") is not None else "")]
            for c in view["comparisons"]]
    if not rows:
        return None
    return ("Paired comparisons (same partner, same task-trials)",
            ["role", "a", "b", "task-trials", "a better-ties-b better", "mean a − b [95% CI]"],
            rows)


def violation_table(view: dict[str, Any]) -> Table | None:
    kinds = view.get("violation_kinds") or {}
    if not kinds:
        return None
    return ("Violations", ["kind", "for example"], [[k, v] for k, v in kinds.items()])


def delegation_table(view: dict[str, Any]) -> Table | None:
    """Scenario team: the traffic between the agents per match, by pairing."""
    rows = [[p["id"], str(d["matches"]), f"{d['delegations']:g}", f"{d['refused']:g}",
             f"{d['messages']:g}", f"{d['specialist_tool_calls']:g}",
             f"{_count(d['bytes_to_specialist'])}/{_count(d['bytes_from_specialist'])}",
             f"{d['time_ms'] / 1000:.2f} s", _count(d["specialist_tokens"])]
            for p in view["pairings"] if (d := p.get("delegation"))]
    if not rows:
        return None
    return ("Delegation overhead (mean per match)",
            ["pairing", "matches", "delegations", "refused", "messages", "specialist calls",
             "bytes to/from specialist", "time", "specialist tokens"], rows)


def tables(view: dict[str, Any]) -> list[Table]:
    found = [role_table(view), pairing_matrix(view), comparison_table(view),
             delegation_table(view), violation_table(view)]
    return [t for t in found if t is not None]


def markdown(view: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    for title, head, rows in tables(view):
        lines += ["", f"### {title}", "", "| " + " | ".join(head) + " |",
                  "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines
