"""A self-contained HTML report: inline CSS and SVG charts, no scripts, no CDN."""

from __future__ import annotations

from html import escape

from a2abench.report.aggregate import GroupStats, Report, TaskLine
from a2abench.report.text import headline, num, pct

_CSS = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#1b1f24}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0}td,th{padding:.25rem .6rem;border-bottom:1px solid
#ddd;text-align:left}th{background:#f5f6f8}.score{font-size:2rem;font-weight:600}
.warn{background:#fff4d6;padding:.4rem .8rem;border-left:4px solid #e0a800}
svg text{font:11px system-ui,sans-serif}
"""


def _bar_chart(groups: list[GroupStats]) -> str:
    rows = [g for g in groups if g.pass_rate is not None]
    if not rows:
        return "<p>No scored task-trials.</p>"
    label_w, bar_w, row_h = 240, 420, 22
    height = row_h * len(rows) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 70}" '
             f'height="{height}" role="img" aria-label="pass rate by category">']
    for i, g in enumerate(rows):
        y = 5 + i * row_h
        w = bar_w * (g.pass_rate or 0.0)
        parts.append(f'<text x="{label_w - 6}" y="{y + 14}" text-anchor="end">'
                     f'{escape(g.name[:38])}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 2}" width="{bar_w}" height="{row_h - 6}" '
                     'fill="#eef0f3"/>')
        parts.append(f'<rect x="{label_w}" y="{y + 2}" width="{w:.1f}" height="{row_h - 6}" '
                     'fill="#2f6fde"/>')
        parts.append(f'<text x="{label_w + bar_w + 6}" y="{y + 14}">{pct(g.pass_rate)}</text>')
    return "".join(parts) + "</svg>"


def _histogram(bins: list[tuple[float, float, int]]) -> str:
    if not bins:
        return "<p>No task-trials.</p>"
    width, height, pad = 640, 180, 30
    top = max(n for _, _, n in bins) or 1
    bar = (width - 2 * pad) / len(bins)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 40}" '
             'role="img" aria-label="task latency histogram">']
    for i, (low, high, n) in enumerate(bins):
        h = (height - pad) * n / top
        x = pad + i * bar
        parts.append(f'<rect x="{x:.1f}" y="{height - h:.1f}" width="{bar - 2:.1f}" '
                     f'height="{h:.1f}" fill="#19a974"><title>{low / 1000:.2f}–'
                     f'{high / 1000:.2f} s: {n}</title></rect>')
    parts.append(f'<text x="{pad}" y="{height + 16}">{bins[0][0] / 1000:.2f} s</text>')
    parts.append(f'<text x="{width - pad}" y="{height + 16}" text-anchor="end">'
                 f'{bins[-1][1] / 1000:.2f} s (log scale)</text>')
    return "".join(parts) + "</svg>"


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _task_rows(lines: list[TaskLine]) -> list[list[str]]:
    return [[t.task_id, str(t.trial), t.category or t.domain or "-", t.status, num(t.reward, 2),
             t.termination or "-", f"{t.latency_ms / 1000:.1f} s", t.error or ""]
            for t in lines]


def to_html(report: Report) -> str:
    groups = report.by_category if any(g.name != "-" for g in report.by_category) \
        else report.by_domain
    group_rows = [[g.name, str(g.task_trials), num(g.mean_reward, 3), pct(g.pass_rate),
                   str(g.agent_errors), str(g.infra_errors)] for g in groups]
    sections = [
        f"<h1>a2abench report — {escape(report.benchmark or '')} "
        f"{escape(', '.join(report.domains))}</h1>",
        f'<p class="score">{num(report.score, 4)}</p><p>{escape(headline(report))}</p>',
        *[f'<p class="warn">{escape(w)}</p>' for w in report.warnings],
        "<h2>pass^k</h2>" + _table(["k", "pass^k", "95% CI"], [
            [str(p.k), num(p.value, 3), f"{num(p.ci_low, 3)} – {num(p.ci_high, 3)}"]
            for p in report.pass_k]),
        "<h2>Pass rate by group</h2>" + _bar_chart(groups),
        _table(["group", "task-trials", "mean reward", "pass rate", "agent errors",
                "infra errors"], group_rows),
        "<h2>Task latency</h2>" + _histogram(report.latency_bins),
        "<h2>Terminations and errors</h2>" + _table(
            ["what", "count"], [[k, str(v)] for k, v in {**report.terminations,
                                                         **report.error_classes}.items()]),
        f"<h2>Failed task-trials ({len(report.failed)})</h2>" + _table(
            ["task", "trial", "group", "status", "reward", "termination", "time", "error"],
            _task_rows(report.failed)),
    ]
    return ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>a2abench report</title><style>{_CSS}</style></head><body>"
            + "\n".join(sections) + "</body></html>\n")
