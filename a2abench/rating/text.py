"""`a2abench rate` output: plain table, Markdown, JSON (the same figures in each)."""

from __future__ import annotations

import json
from typing import Any


def to_json(rated: dict[str, Any]) -> str:
    return json.dumps(rated, indent=2, sort_keys=True, ensure_ascii=False)


def _rows(rated: dict[str, Any]) -> list[tuple[str, list[list[str]], list[list[str]]]]:
    """(role, rating rows, pair rows) per role."""
    out = []
    for role, r in sorted(rated["roles"].items()):
        players = [[p["participant"] + (" (anchor)" if p["participant"] == r["anchor"] else ""),
                    f"{p['rating']:.1f}", f"[{p['ci_low']:.1f}, {p['ci_high']:.1f}]",
                    f"{100 * p['win_vs_anchor']:.1f}%", str(p["games"])]
                   for p in sorted(r["players"], key=lambda p: (-p["rating"], p["participant"]))]
        players += [[p, "-", "not connected to the anchor", "-", "-"] for p in r["unrated"]]
        pairs = [[q["a"], q["b"], str(q["n"]), f"{q['a_wins']}-{q['draws']}-{q['b_wins']}",
                  _p(q) + (" (few)" if q["few"] else "")] for q in r["pairs"]]
        out.append((role, players, pairs))
    return out


def _p(q: dict[str, Any]) -> str:
    if "p_a" not in q:
        return "-"
    ci = f" [{100 * q['ci_low']:.1f}, {100 * q['ci_high']:.1f}]" if "ci_low" in q else ""
    return f"{100 * q['p_a']:.1f}%{ci}"


RATING_HEAD = ["participant", "rating", "95% CI", "win vs anchor", "games"]
PAIR_HEAD = ["a", "b", "n", "a wins-draws-b wins", "P(a beats b)"]


def _footer(rated: dict[str, Any]) -> list[str]:
    lines = [f"{rated['matches']} match(es) from {len(rated['sources'])} source(s); "
             f"bootstrap {rated['bootstrap']} resamples of tasks, seed {rated['seed']}; "
             f"(few): fewer than {rated['few']} comparisons"]
    return lines + [f"warning: {w}" for w in rated["warnings"]]


def to_table(rated: dict[str, Any]) -> str:
    """Fixed-width columns, one block per role."""
    lines: list[str] = []
    for role, players, pairs in _rows(rated):
        lines += [f"Role {role} (Bradley–Terry, anchor = 1000)", *_grid(RATING_HEAD, players),
                  "", *_grid(PAIR_HEAD, pairs), ""]
    if not rated["roles"]:
        lines.append("No two participants of a role faced the same partner: nothing to rate.")
    return "\n".join(lines + _footer(rated))


def _grid(head: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(x) for x in col) for col in zip(head, *rows, strict=True)]
    return ["  ".join(x.ljust(w) for x, w in zip(row, widths, strict=True)).rstrip()
            for row in [head, *rows]]


def to_markdown(rated: dict[str, Any]) -> str:
    lines: list[str] = ["# Ratings", ""]
    for role, players, pairs in _rows(rated):
        lines += [f"## Role `{role}`", "", *_md(RATING_HEAD, players), "", *_md(PAIR_HEAD, pairs),
                  ""]
    return "\n".join(lines + [f"_{x}_" for x in _footer(rated)]) + "\n"


def _md(head: list[str], rows: list[list[str]]) -> list[str]:
    def cell(x: str) -> str:
        return x.replace("|", "\\|")

    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head),
            *("| " + " | ".join(cell(x) for x in row) + " |" for row in rows)]
