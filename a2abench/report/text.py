"""Report renderers: json, markdown, junit (text) — html lives in `html.py`, the Rich table in
the CLI layer (`a2abench.render.display`), since the core never imports Rich."""

from __future__ import annotations

import re

from a2abench.report.aggregate import GroupStats, PassK, Report, TaskLine
from a2abench.report.wording import passed_over
from a2abench.run.status import SCORED_STATUSES


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def num(value: float | None, digits: int = 1) -> str:
    return "n/a" if value is None else f"{value:,.{digits}f}"


def shown_pass_k(pass_k: list[PassK]) -> list[PassK]:
    """The rows a table for people shows: k = 1, 2, 4, 8, … and the last k (JSON and HTML
    keep every k; 64 trials would otherwise be a 64-row table)."""
    last = pass_k[-1].k if pass_k else 0
    return [p for p in pass_k if p.k & (p.k - 1) == 0 or p.k == last]


def pass_k_note(pass_k: list[PassK]) -> str | None:
    """Says which rows were left out, or None when every k is shown."""
    shown = len(shown_pass_k(pass_k))
    if shown == len(pass_k):
        return None
    return (f"showing {shown} of {len(pass_k)} k (1, 2, 4, … and {pass_k[-1].k}); every k is "
            "in --format json and html")


def adaptive_lines(report: Report) -> list[str]:
    """An adaptive run's mode, confidence, n of N, half-width, stop reason, errors, an A/B
    run's difference and flips, and the cost view (nothing for a full run): the same lines
    in every format."""
    from a2abench.run.adaptive import wording

    adaptive = report.adaptive
    if not adaptive or not adaptive.get("summary"):
        return []
    out = [f"Adaptive: {wording.headline_text(adaptive)}"]
    summary = adaptive["summary"]
    extra = [("A/B", wording.paired_text(adaptive)), ("Flipped", wording.flips_text(adaptive)),
             ("Errors", wording.errors_text(summary))]
    out += [f"{name}: {text}" for name, text in extra if text]
    decision = summary.get("decision")
    if decision:
        settings = adaptive["header"].get("settings") or {}
        when = (f"decided when the run stopped, after {summary.get('decided_at')} task-trials"
                if str(summary.get("stop_reason")).startswith("gate_")
                else f"from the bounds after {summary['n']} task-trials")
        what = (f"Gate against the baseline (margin {settings.get('target_ci') or 0:g})"
                if settings.get("paired") and settings.get("gate")
                else f"Gate --fail-under {settings.get('fail_under'):g}")
        out.append(f"{what}: {decision} ({when})")
    if adaptive.get("cost"):
        out.append(f"Cost: {wording.cost_text(adaptive['cost'])}")
    return out


def to_json(report: Report) -> str:
    if report.roles is None:
        return report.model_dump_json(indent=2)
    import json

    return json.dumps({**report.model_dump(mode="json"), "roles": report.roles}, indent=2,
                      ensure_ascii=False)


def headline(report: Report) -> str:
    score = "n/a" if report.score is None else f"{report.score:.4f}"
    method = {"macro_category_mean": "macro average over categories",
              "mean_reward": "mean reward"}.get(report.score_method, report.score_method)
    incomplete = incomplete_note(report)
    summary = (report.adaptive or {}).get("summary")
    if summary and summary["n"] < summary["N"]:
        method = (f"adaptive stratified estimate after {summary['n']} of {summary['N']} "
                  f"task-trials, ±{summary['half_width']:.3f}")
        incomplete = ""
    return (f"{report.benchmark or '?'} {', '.join(report.domains)}: score {score} "
            f"({method}{incomplete}); "
            + passed_over(report.passed, report.scored, tasks=report.tasks,
                          task_trials=report.task_trials, trials=report.trials))


def incomplete_note(report: Report) -> str:
    """`, incomplete: 2 of 10 task-trials not scored, counted 0; 0.5000 over the 8 scored`,
    or "" for a complete score: the score never reads as over fewer than were planned."""
    if report.score_complete:
        return ""
    return (f", incomplete: {report.planned - report.scored} of {report.planned} task-trials "
            f"not scored, counted 0; {num(report.score_scored_only, 4)} over the "
            f"{report.scored} scored")


_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|~])")
# `_` inside a word never starts emphasis (GFM): `handle_time` stays readable.
_MD_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def md(text: object) -> str:
    """Agent-controlled text as inert Markdown: one line, markup and HTML escaped."""
    flat = _CONTROL.sub(" ", str(text))
    escaped = _MD_UNDERSCORE.sub(r"\\_", _MD_SPECIAL.sub(r"\\\1", flat))
    return escaped.replace("&", "&amp;")


def interfaces(report: Report) -> str:
    """The A2A interfaces the runs used, e.g. `HTTP+JSON A2A 1.0 http://a/rest (streaming)`,
    and `, tools over MCP` for runs with `--tool-channel mcp`."""
    seen: list[str] = []
    for run in report.runs:
        i = run.get("interface") or {}
        if i:
            mcp = run.get("tool_channel") == "mcp"
            text = (f"{i.get('binding')} A2A {i.get('dialect')} {i.get('url')}"
                    f"{' (streaming)' if i.get('streaming') else ''}"
                    f"{', tools over MCP' if mcp else ''}")
            if text not in seen:
                seen.append(text)
    return "; ".join(seen) or "n/a"


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return [*out, ""]


def _group_rows(groups: list[GroupStats]) -> list[list[str]]:
    return [[md(g.name), str(g.task_trials), num(g.mean_reward, 3), pct(g.pass_rate),
             str(g.agent_errors), str(g.infra_errors)] for g in groups]


def _task_rows(lines: list[TaskLine]) -> list[list[str]]:
    return [[md(line.task_id), str(line.trial), md(line.category or line.domain or "-"),
             md(line.status), num(line.reward, 2), md(line.termination or "-"),
             f"{line.latency_ms / 1000:.1f} s", md((line.error or "")[:80])] for line in lines]


def to_markdown(report: Report) -> str:
    domains = ", ".join(report.domains)
    out = [f"## a2abench report: {md(report.benchmark or '?')} {md(domains)}", "",
           f"**Score: {num(report.score, 4)}"
           f"{'' if report.score_complete else ' (incomplete)'}** — {md(headline(report))}",
           ""]
    for name, value in report.group_scores.items():
        out += [f"**{md(name.capitalize())} (scored apart): {num(value, 4)}**", ""]
    for line in adaptive_lines(report):
        out += [md(line), ""]
    for warning in report.warnings:
        out.append(f"> ⚠️ {md(warning)}")
    if report.warnings:
        out.append("")
    if report.pass_k:
        out += ["### pass^k (95% CI: " + report.ci_method + ")", ""]
        out += _md_table(["k", "pass^k", "95% CI"],
                         [[str(p.k), num(p.value, 3),
                           f"{num(p.ci_low, 3)} – {num(p.ci_high, 3)}"]
                          for p in shown_pass_k(report.pass_k)])
        note = pass_k_note(report.pass_k)
        out += [f"_{note}_", ""] if note else []
    head = ["name", "task-trials", "mean reward", "pass rate", "agent errors", "infra errors"]
    if len(report.by_domain) > 1 or (report.by_domain and report.by_domain[0].name != "-"):
        out += ["### By domain / org", "", *_md_table(head, _group_rows(report.by_domain))]
    if any(g.name != "-" for g in report.by_category):
        out += ["### By category", "", *_md_table(head, _group_rows(report.by_category))]
    if report.roles is not None:  # a multi-party run: its scores per role
        from a2abench.report.roles_text import markdown

        out += [*markdown(report.roles), ""]
    out += ["### Run", ""]
    out += _md_table(["metric", "value"], [
        ["A2A interface", md(interfaces(report))],
        ["terminations", md(", ".join(f"{k}: {v}" for k, v in report.terminations.items()))],
        ["errors", ", ".join(f"{k}: {v}" for k, v in report.errors.items())],
        ["request latency p50 / p90 / p99",
         " / ".join(f"{num(v, 0)} ms" for v in (report.request_latency_ms.p50,
                                               report.request_latency_ms.p90,
                                               report.request_latency_ms.p99))],
        ["task latency p50 / p90 / p99",
         " / ".join(f"{num((v or 0) / 1000)} s" if v is not None else "n/a"
                    for v in (report.task_latency_ms.p50, report.task_latency_ms.p90,
                              report.task_latency_ms.p99))],
        ["turns p50 / p90", f"{num(report.turns.p50, 0)} / {num(report.turns.p90, 0)}"],
        ["A2A requests (errors)", f"{report.requests} ({report.request_errors})"],
        ["tokens (A2A est. in/out, LLM prompt/completion)",
         " / ".join(str(report.tokens[k]) for k in ("a2a_input", "a2a_output", "llm_prompt",
                                                     "llm_completion"))],
        ["cost", "n/a" if report.cost_usd is None else f"${report.cost_usd:.4f}"],
    ])
    cols = ["task", "trial", "group", "status", "reward", "termination", "time", "error"]
    if report.failed_total:
        shown = report.failed[:50]
        out += [f"### Failed task-trials ({report.failed_total}"
                + (f", showing {len(shown)} of {report.failed_total})" if len(shown)
                   < report.failed_total else ")"), ""]
        out += _md_table(cols, _task_rows(shown))
    out += ["### Slowest task-trials", "", *_md_table(cols, _task_rows(report.slowest[:5]))]
    return "\n".join(out)


_XML_INVALID = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: object) -> str:
    """Text XML 1.0 can hold: characters it forbids (NUL, ESC, lone surrogates) become U+FFFD."""
    return _XML_INVALID.sub("\ufffd", str(text))


def to_junit(report: Report) -> str:
    """One testcase per task-trial: failures for the agent's misses, errors for ours."""
    # here: the module loads urllib and http with it, for every other format too
    from xml.sax.saxutils import escape, quoteattr

    lines = report.lines
    failures = sum(1 for t in lines if t.status in SCORED_STATUSES and not t.success)
    # Task-trials the run planned but never recorded are one error testcase together.
    tests = len(lines) + bool(report.missing)
    errors = tests - sum(1 for t in lines if t.status in SCORED_STATUSES)
    total_s = sum(t.latency_ms for t in lines) / 1000
    suite = _xml(f"a2abench.{report.benchmark or 'run'}")
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           f'<testsuites name="a2abench" tests="{tests}" failures="{failures}" '
           f'errors="{errors}" time="{total_s:.3f}">',
           f'  <testsuite name={quoteattr(suite)} tests="{tests}" failures="{failures}" '
           f'errors="{errors}" time="{total_s:.3f}">']
    adaptive = adaptive_lines(report)
    if adaptive:
        out.append("    <properties>")
        out += [f"      <property name=\"a2abench.adaptive.{i}\" value={quoteattr(_xml(text))}/>"
                for i, text in enumerate(adaptive)]
        out.append("    </properties>")
    for t in lines:
        classname = _xml(".".join(p for p in (suite, t.domain, t.category) if p))
        name = _xml(f"{t.task_id} [trial {t.trial}]")
        out.append(f"    <testcase classname={quoteattr(classname)} name={quoteattr(name)} "
                   f'time="{t.latency_ms / 1000:.3f}">')
        detail = _xml(f"reward={t.reward} termination={t.termination} "
                      f"labels={','.join(t.labels) or '-'}")
        if t.status not in SCORED_STATUSES:
            out.append(f"      <error type={quoteattr(_xml(t.status))} "
                       f"message={quoteattr(_xml(t.error or t.status))}>{escape(detail)}"
                       "</error>")
        elif not t.success:
            message = _xml(t.error or f"reward {t.reward}")
            out.append(f"      <failure type={quoteattr(t.status)} "
                       f"message={quoteattr(message)}>{escape(detail)}</failure>")
        out.append("    </testcase>")
    if report.missing:
        text = (f"{report.missing} of the {report.planned} planned task-trials were never "
                "recorded")
        out += [f"    <testcase classname={quoteattr(suite)} name=\"not recorded\" time=\"0\">",
                f"      <error type=\"not_recorded\" message={quoteattr(text)}/>",
                "    </testcase>"]
    out += ["  </testsuite>", "</testsuites>", ""]
    return "\n".join(out)
