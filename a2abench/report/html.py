"""The HTML report: one self-contained file (inline CSS, SVG and vanilla JS, no CDN) with a
trajectory viewer. The summary (score, pass^k, charts) is static HTML; the task-trial table,
filters and the per-trial view are drawn by `viewer.js` from data embedded in the page
(summary rows as JSON, transcripts as compressed blobs inflated on demand; see viewer_data).
"""

from __future__ import annotations

from html import escape
from importlib import resources
from pathlib import Path

from a2abench.report import charts
from a2abench.report.aggregate import GroupStats, Report, build_report
from a2abench.report.compare import Comparison, compare
from a2abench.report.text import adaptive_lines, headline, num, pct
from a2abench.report.viewer_data import (
    COLUMNS,
    REQUEST_FIELDS,
    Viewer,
    ViewerData,
    collect,
    strict_json,
)


def _asset(name: str) -> str:
    return resources.files("a2abench.report").joinpath(name).read_text(encoding="utf-8")


def _table(header: list[str], rows: list[list[str]], cls: str = "") -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _groups(report: Report) -> list[GroupStats]:
    return report.by_category if any(g.name != "-" for g in report.by_category) \
        else report.by_domain


def _script_json(value: object) -> bytes:
    """JSON safe inside <script>: with every `<` escaped nothing can close the element or
    switch the parser into its script-escape states. A forged name with a lone surrogate
    (orjson refuses it: the page ended in a traceback) is written escaped."""
    return strict_json(value).replace(b"<", b"\\u003c")


def user_of(report: Report) -> str:
    """What played the user, for labels: the user simulator's model (the demo's is
    `scripted-user`, no LLM), or none in solo runs and benchmarks without a user."""
    models = (report.runs[0].get("models") or {}) if report.runs else {}
    entry = models.get("user_simulator") if isinstance(models, dict) else None
    model = entry.get("model") if isinstance(entry, dict) else None
    return str(model) if model else "none"


def _page(title: str, summary: list[str], data: ViewerData, runs: list[str],
          users: list[str]) -> bytes:
    """The page as UTF-8: assembled as bytes, the blobs (most of it) are never decoded."""
    meta = {"runs": runs, "users": users, "columns": data.columns,
            "request_fields": REQUEST_FIELDS, "rows": data.rows, "blobs": data.refs}
    head = "".join([
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(title)}</title><style>{_asset('viewer.css')}</style></head><body>",
        f'<header><h1>{escape(title)}</h1></header><main id="summary">',
        "\n".join(summary),
        '</main><section id="viewer"><h2>Task-trials</h2>',
        "<noscript><p class=\"warn\">The task-trial viewer needs JavaScript.</p></noscript>",
        '<div id="app"></div></section><script type="application/json" id="a2ab-data">'])
    blobs = [b"\n"] * (2 * len(data.blobs) - 1) if data.blobs else []
    blobs[::2] = data.blobs  # the chunks, one a line: joined once with the rest of the page
    return b"".join([
        head.encode(), _script_json(meta),
        b'</script><script type="text/plain" id="a2ab-blobs">', *blobs,
        f"</script><script>{_asset('viewer.js')}</script></body></html>\n".encode()])


def to_html(report: Report, paths: list[Path]) -> str:
    """The report of one run (shards and resumes merged) with its trajectory viewer."""
    return _run_page(report, collect(paths)).decode()


def report_page(paths: list[Path]) -> tuple[Report, bytes]:
    """`build_report` and `to_html` in one pass over the files (reading them was a third of
    the page's time); the page as UTF-8."""
    viewer = Viewer()
    report = build_report(paths, tap=viewer)
    return report, _run_page(report, viewer.finish())


def _run_page(report: Report, data: ViewerData) -> bytes:
    groups = _groups(report)
    group_rows = [[g.name, str(g.task_trials), num(g.mean_reward, 3), pct(g.pass_rate),
                   str(g.agent_errors), str(g.infra_errors)] for g in groups]
    summary = [
        f'<p class="score">{num(report.score, 4)}</p><p>{escape(headline(report))}</p>',
        *[f"<p><b>{escape(name)} (scored apart): {num(value, 4)}</b></p>"
          for name, value in report.group_scores.items()],
        *[f"<p class=\"adaptive\">{escape(line)}</p>" for line in adaptive_lines(report)],
        *_flip_links(report, data),
        *[f'<p class="warn">{escape(w)}</p>' for w in report.warnings],
        '<div class="cards">',
        "<div><h2>pass^k</h2>" + charts.pass_k_curve([report.pass_k], ["run"])
        + _table(["k", "pass^k", "95% CI"], [
            [str(p.k), num(p.value, 3), f"{num(p.ci_low, 3)} – {num(p.ci_high, 3)}"]
            for p in report.pass_k]) + "</div>",
        "<div><h2>Pass rate by group</h2>" + charts.group_bars([groups], ["run"]) + "</div>",
        "<div><h2>Task latency</h2>" + charts.histogram(report.latency_bins) + "</div>",
        "</div>",
        "<details><summary>Groups, terminations and errors</summary>"
        + _table(["group", "task-trials", "mean reward", "pass rate", "agent errors",
                  "infra errors"], group_rows)
        + _table(["what", "count"], [[k, str(v)] for k, v in
                                     {**report.terminations, **report.error_classes}.items()])
        + _tokens(report) + "</details>",
        *_roles(report),
    ]
    title = f"a2abench report — {report.benchmark or ''} {', '.join(report.domains)}".strip()
    return _page(title, summary, data, [title], [user_of(report)])


def _roles(report: Report) -> list[str]:
    """A multi-party run's per-role table, pairing matrix, comparisons and violations."""
    if report.roles is None:
        return []
    from a2abench.report.roles_text import tables

    return ['<section id="roles">'] + [
        f"<h2>{escape(title)}</h2>" + _table(head, rows, "roles")
        for title, head, rows in tables(report.roles)] + ["</section>"]


def _flip_links(report: Report, data: ViewerData) -> list[str]:
    """An A/B run's task-trials that flipped against the baseline, each a link to its
    trajectory in the viewer below (`#trial=<row>`)."""
    paired = ((report.adaptive or {}).get("summary") or {}).get("paired") or {}
    flipped = paired.get("flipped") or {}
    if not flipped:
        return []
    task, trial = COLUMNS.index("task_id"), COLUMNS.index("trial")
    rows = {(row[task], row[trial]): i for i, row in enumerate(data.rows)}
    out = []
    for key, label in (("to_pass", "Fail → pass"), ("to_fail", "Pass → fail")):
        group = flipped.get(key) or {}
        links = [f'<a href="#trial={rows[(t, k)]}">{escape(f"{t} #{k}")}</a>'
                 if (t, k) in rows else escape(f"{t} #{k}")
                 for t, k in group.get("task_trials") or []]
        if links:
            more = group.get("count", 0) - len(links)
            tail = f" and {more} more" if more > 0 else ""
            out.append(f'<p class="adaptive flips">{label} against the baseline: '
                       f'{", ".join(links)}{tail}</p>')
    return out


def _tokens(report: Report) -> str:
    rows = [[k, f"{v:,}"] for k, v in report.tokens.items()]
    rows.append(["cost (USD)", "n/a" if report.cost_usd is None else f"{report.cost_usd:.4f}"])
    return _table(["tokens", "total"], rows)


def compare_page(paths: list[Path]) -> tuple[Comparison, bytes]:
    """Different runs side by side: metrics per run, and per task which runs pass it. The
    reports and the viewer's data in one pass over the files; the page as UTF-8."""
    viewers: list[Viewer] = []

    def tap_for(index: int) -> Viewer:
        viewers.append(Viewer(index))
        return viewers[-1]

    comparison = compare(paths, tap_for)
    data = ViewerData()
    for viewer in viewers:
        viewer.finish(into=data)
    return comparison, _compare_page(comparison, data)


def _compare_page(comparison: Comparison, data: ViewerData) -> bytes:
    def cell(value: float | None) -> str:
        return "—" if value is None else f"{value:.3f}"

    summary = [
        _table(["", *comparison.columns],
               [[name, *(cell(v) for v in values)] for name, values in comparison.rows],
               cls="compare"),
        '<div class="cards">',
        "<div><h2>pass^k</h2>" + charts.pass_k_curve([r.pass_k for r in comparison.reports],
                                                      comparison.columns) + "</div>",
        "<div><h2>Pass rate by group</h2>" + charts.group_bars(
            [_groups(r) for r in comparison.reports], comparison.columns) + "</div>",
        "</div>",
    ]
    return _page("a2abench comparison", summary, data, comparison.columns,
                 [user_of(r) for r in comparison.reports])
