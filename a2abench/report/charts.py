"""Inline SVG charts for the HTML report (no script, no library; one colour per run)."""

from __future__ import annotations

from html import escape

from a2abench.report.aggregate import GroupStats, PassK
from a2abench.report.text import pct

COLOURS = ["#2f6fde", "#e8590c", "#19a974", "#ae3ec9", "#f59f00", "#0c8599"]
_SVG = '<svg xmlns="http://www.w3.org/2000/svg"'


def _colour(index: int) -> str:
    return COLOURS[index % len(COLOURS)]


def _legend(labels: list[str], x: int, y: int) -> str:
    if len(labels) < 2:
        return ""
    return "".join(
        f'<rect x="{x}" y="{y + 16 * i}" width="10" height="10" fill="{_colour(i)}"/>'
        f'<text x="{x + 14}" y="{y + 9 + 16 * i}">{escape(label[:60])}</text>'
        for i, label in enumerate(labels))


def k_ticks(max_k: int, step_px: float, min_gap_px: float = 22.0) -> list[int]:
    """The k labelled on the x axis: every k while they fit, else 1, 2, 4, 8, … and the
    last, dropping a power of two too close to the last (64 trials stay legible)."""
    if step_px * 1 >= min_gap_px:
        return list(range(1, max_k + 1))
    ticks = [k for k in (2 ** i for i in range(max_k.bit_length())) if k <= max_k]
    kept = [k for k in ticks if k == max_k or (max_k - k) * step_px >= min_gap_px]
    out: list[int] = []
    for k in kept:
        if not out or (k - out[-1]) * step_px >= min_gap_px:
            out.append(k)
    return out + ([max_k] if out[-1] != max_k else [])


def pass_k_curve(series: list[list[PassK]], labels: list[str]) -> str:
    """pass^k against k, one line per run, with the 95% CI as a band."""
    if not any(series):
        return "<p>No scored task-trials.</p>"
    width, height, pad = 360, 200, 34
    max_k = max(len(s) for s in series)
    legend_h = 16 * len(labels) if len(labels) > 1 else 0
    parts = [f'{_SVG} width="{width}" height="{height + 30 + legend_h}" role="img" '
             'aria-label="pass^k curve">',
             f'<line x1="{pad}" y1="{height}" x2="{width - 10}" y2="{height}" stroke="#999"/>',
             f'<line x1="{pad}" y1="10" x2="{pad}" y2="{height}" stroke="#999"/>']

    def xy(k: int, value: float) -> tuple[float, float]:
        span = max(max_k - 1, 1)
        return (pad + (width - pad - 20) * (k - 1) / span, height - (height - 20) * value)

    for tick in (0.0, 0.5, 1.0):
        _, y = xy(1, tick)
        parts.append(f'<text x="{pad - 4}" y="{y + 4:.1f}" text-anchor="end">{tick:.1f}</text>')
    for k in k_ticks(max_k, (width - pad - 20) / max(max_k - 1, 1)):
        x, _ = xy(k, 0)
        parts.append(f'<text x="{x:.1f}" y="{height + 14}" text-anchor="middle">{k}</text>')
    for index, points in enumerate(series):
        colour = _colour(index)
        band = [xy(p.k, p.ci_high) for p in points if p.ci_high is not None] + \
            [xy(p.k, p.ci_low) for p in reversed(points) if p.ci_low is not None]
        if len(band) > 2:
            parts.append('<polygon fill="' + colour + '" fill-opacity="0.12" points="'
                         + " ".join(f"{x:.1f},{y:.1f}" for x, y in band) + '"/>')
        line = [xy(p.k, p.value) for p in points]
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="'
                     + " ".join(f"{x:.1f},{y:.1f}" for x, y in line) + '"/>')
        for p, (x, y) in zip(points, line, strict=True):
            if p.ci_low is not None and p.ci_high is not None:  # the 95% CI as an error bar
                _, low = xy(p.k, p.ci_low)
                _, high = xy(p.k, p.ci_high)
                parts.append(f'<line x1="{x:.1f}" y1="{low:.1f}" x2="{x:.1f}" y2="{high:.1f}" '
                             f'stroke="{colour}" stroke-opacity="0.5"/>')
            parts.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{colour}">'
                         f'<title>pass^{p.k} = {p.value:.3f}</title></circle>')
    parts.append(f'<text x="{width - 10}" y="{height + 28}" text-anchor="end">k</text>')
    parts.append(_legend(labels, pad, height + 34))
    return "".join(parts) + "</svg>"


def group_bars(runs: list[list[GroupStats]], labels: list[str]) -> str:
    """Pass rate per category (or domain), one bar per run in each group."""
    names = sorted({g.name for groups in runs for g in groups if g.pass_rate is not None})
    if not names:
        return "<p>No scored task-trials.</p>"
    # Room for the longest name (about 7 px a character at the page's font): never cut.
    label_w, bar_w, bar_h = max(200, 7 * max(len(n) for n in names) + 12), 300, 14
    row_h = bar_h * len(runs) + 8
    legend_h = 16 * len(labels) if len(labels) > 1 else 0
    height = row_h * len(names) + 10
    parts = [f'{_SVG} width="{label_w + bar_w + 60}" height="{height + legend_h}" role="img" '
             'aria-label="pass rate by category">']
    for i, name in enumerate(names):
        y0 = 5 + i * row_h
        parts.append(f'<text x="{label_w - 6}" y="{y0 + row_h / 2 + 3:.1f}" text-anchor="end">'
                     f'{escape(name)}</text>')
        for j, groups in enumerate(runs):
            g = next((g for g in groups if g.name == name), None)
            y = y0 + j * bar_h
            rate = g.pass_rate if g is not None else None
            parts.append(f'<rect x="{label_w}" y="{y}" width="{bar_w}" height="{bar_h - 2}" '
                         'fill="#eef0f3"/>')
            parts.append(f'<rect x="{label_w}" y="{y}" width="{bar_w * (rate or 0.0):.1f}" '
                         f'height="{bar_h - 2}" fill="{_colour(j)}"><title>'
                         f'{escape(name)}: {pct(rate)}</title></rect>')
            parts.append(f'<text x="{label_w + bar_w + 6}" y="{y + bar_h - 4}">'
                         f'{pct(rate)}</text>')
    parts.append(_legend(labels, label_w, height))
    return "".join(parts) + "</svg>"


def histogram(bins: list[tuple[float, float, int]]) -> str:
    if not bins:
        return "<p>No task-trials.</p>"
    width, height, pad = 360, 170, 20
    top = max(n for _, _, n in bins) or 1
    bar = (width - 2 * pad) / len(bins)
    parts = [f'{_SVG} width="{width}" height="{height + 30}" role="img" '
             'aria-label="task latency histogram">']
    for i, (low, high, n) in enumerate(bins):
        h = (height - pad) * n / top
        x = pad + i * bar
        parts.append(f'<rect x="{x:.1f}" y="{height - h:.1f}" width="{max(bar - 2, 1):.1f}" '
                     f'height="{h:.1f}" fill="#19a974"><title>{low / 1000:.2f}–'
                     f'{high / 1000:.2f} s: {n}</title></rect>')
    parts.append(f'<text x="{pad}" y="{height + 16}">{bins[0][0] / 1000:.2f} s</text>')
    parts.append(f'<text x="{width - pad}" y="{height + 16}" text-anchor="end">'
                 f'{bins[-1][1] / 1000:.2f} s (log scale)</text>')
    return "".join(parts) + "</svg>"
