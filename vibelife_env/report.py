"""A self-contained HTML evaluation report: tables and hand-written inline SVG charts.

The input is what :func:`vibelife_env.evaluation.summarize` returns, one summary per
agent. The page needs no network, JavaScript or external CSS: open it from disk, attach it
to an issue, or screenshot it in a headless browser.

Sections: overall avg@k / max@k / min@k / σ per agent; per-task scores; pass-rate bar
charts by tier, capability axis, domain and timeline position; per task, the cumulative
score after each stage (one line per agent) and the pass/fail grid of every check
(rows, in timeline order) for every run (columns).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
PASS, FAIL, MISSING = "#3fa34d", "#d64545", "#dddddd"

_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1200px}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}h3{font-size:15px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:16px}
.legend span{display:inline-block;margin-right:14px;font-size:13px}.sw{display:inline-block;width:12px;height:12px;
margin-right:4px;vertical-align:middle}.note{color:#666;font-size:12px}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def bar_chart(title: str, groups: Sequence[str], series: Mapping[str, Sequence[float]], width: int = 560) -> str:
    """Grouped vertical bars (values 0-100), one colour per series, as an SVG string."""
    height, left, bottom, top = 240, 40, 60, 28
    plot_w, plot_h = width - left - 10, height - bottom - top
    n = max(len(series), 1)
    slot = plot_w / max(len(groups), 1)
    bar = max(min(slot * 0.8 / n, 40), 2)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
    parts.append(f'<text x="{left}" y="16" font-size="13" font-weight="bold">{_e(title)}</text>')
    for tick in (0, 25, 50, 75, 100):
        y = top + plot_h * (1 - tick / 100)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{width - 10}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{tick}</text>')
    for gi, group in enumerate(groups):
        x0 = left + gi * slot + (slot - bar * n) / 2
        for si, (name, values) in enumerate(series.items()):
            v = max(0.0, min(100.0, float(values[gi])))
            h = max(plot_h * v / 100, 1.5)  # a zero still shows as a stub
            x, y = x0 + si * bar, top + plot_h - h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar - 1:.1f}" height="{h:.1f}" fill="{_color(si)}">'
                f"<title>{_e(name)} {_e(group)}: {v:.1f}</title></rect>"
            )
        cx = left + gi * slot + slot / 2
        parts.append(
            f'<text x="{cx:.1f}" y="{top + plot_h + 14}" font-size="10" text-anchor="end" '
            f'transform="rotate(-30 {cx:.1f} {top + plot_h + 14})">{_e(group)}</text>'
        )
    parts.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{width - 10}" y2="{top + plot_h}" stroke="#888"/>')
    parts.append("</svg>")
    return "".join(parts)


def line_chart(title: str, xs: Sequence[str], series: Mapping[str, Sequence[float]], width: int = 560) -> str:
    """Lines over categorical x positions (values 0-100), one colour per series, as SVG."""
    height, left, bottom, top = 240, 40, 36, 28
    plot_w, plot_h = width - left - 20, height - bottom - top
    step = plot_w / max(len(xs) - 1, 1)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
    parts.append(f'<text x="{left}" y="16" font-size="13" font-weight="bold">{_e(title)}</text>')
    for tick in (0, 25, 50, 75, 100):
        y = top + plot_h * (1 - tick / 100)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{tick}</text>')
    for i, label in enumerate(xs):
        parts.append(
            f'<text x="{left + i * step:.1f}" y="{top + plot_h + 16}" font-size="10" '
            f'text-anchor="middle">{_e(label)}</text>'
        )
    for si, (name, values) in enumerate(series.items()):
        pts = [(left + i * step, top + plot_h * (1 - max(0.0, min(100.0, v)) / 100)) for i, v in enumerate(values)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{_color(si)}" stroke-width="2"/>')
        parts.extend(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{_color(si)}"><title>{_e(name)}: {v:.1f}</title></circle>'
            for (x, y), v in zip(pts, values, strict=True)
        )
    parts.append("</svg>")
    return "".join(parts)


def check_grid_svg(rows: Sequence[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """Pass (green) / fail (red) / absent (grey) cells: checks as rows, runs as columns."""
    cell, label_w, head = 16, 300, 90
    width = label_w + cell * len(columns) + 70
    height = head + cell * len(rows) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
    for j, col in enumerate(columns):
        x = label_w + j * cell + cell / 2
        parts.append(
            f'<text x="{x:.1f}" y="{head - 4}" font-size="10" transform="rotate(-60 {x:.1f} {head - 4})">{_e(col)}</text>'
        )
    for i, row in enumerate(rows):
        y = head + i * cell
        where = f"stage {row['stage']}" if row["tier"] == "stage" else row["tier"]
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 12}" font-size="10" text-anchor="end">'
            f"{_e(row['id'])} [{_e(where)}, w={row['weight']:g}]</text>"
        )
        for j, ok in enumerate(row["runs"]):
            fill = MISSING if ok is None else PASS if ok else FAIL
            state = "absent" if ok is None else "pass" if ok else "fail"
            parts.append(
                f'<rect x="{label_w + j * cell}" y="{y}" width="{cell - 2}" height="{cell - 2}" fill="{fill}">'
                f"<title>{_e(row['id'])} / {_e(columns[j])}: {state}</title></rect>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _legend(names: Sequence[str]) -> str:
    items = "".join(
        f'<span><i class="sw" style="background:{_color(i)}"></i>{_e(n)}</span>' for i, n in enumerate(names)
    )
    return f'<div class="legend">{items}</div>'


def _rate_charts(summaries: Sequence[Mapping[str, Any]]) -> str:
    out = []
    for key, title in (
        ("by_tier", "Check pass rate by tier (%)"),
        ("by_axis", "Check pass rate by capability axis (%)"),
        ("by_domain", "Check pass rate by domain (%)"),
        ("by_position", "Stage-check pass rate by timeline position (%)"),
    ):
        groups: list[str] = []
        for s in summaries:
            groups += [g for g in s[key] if g not in groups]
        series = {s["agent"]: [s[key].get(g, {}).get("pass_rate", 0.0) for g in groups] for s in summaries}
        out.append(bar_chart(title, groups, series))
    return f'<div class="charts">{"".join(out)}</div>'


def _overall_table(summaries: Sequence[Mapping[str, Any]], attempts: int) -> str:
    head = f"<tr><th class=l>agent</th><th>avg@{attempts}</th><th>max@{attempts}</th><th>min@{attempts}</th>"
    head += "<th>within-task σ</th><th>tasks</th></tr>"
    rows = "".join(
        f"<tr><td class=l>{_e(s['agent'])}</td><td>{s['overall']['avg']:.2f}</td><td>{s['overall']['max']:.2f}</td>"
        f"<td>{s['overall']['min']:.2f}</td><td>{s['overall']['std']:.2f}</td><td>{s['overall']['tasks']}</td></tr>"
        for s in summaries
    )
    return f"<table>{head}{rows}</table>"


def _task_section(task_id: str, summaries: Sequence[Mapping[str, Any]]) -> str:
    present = [s for s in summaries if task_id in s["tasks"]]
    rows = "".join(
        f"<tr><td class=l>{_e(s['agent'])}</td><td class=l>{_e(', '.join(f'{x:.1f}' for x in t['scores']))}</td>"
        f"<td>{t['avg']:.2f}</td><td>{t['max']:.2f}</td><td>{t['min']:.2f}</td><td>{t['std']:.2f}</td>"
        f"<td>{t['tool_calls']:.1f}</td><td>{t['truncated']}</td></tr>"
        for s in present
        for t in [s["tasks"][task_id]]
    )
    table = (
        "<table><tr><th class=l>agent</th><th class=l>scores</th><th>avg</th><th>max</th><th>min</th><th>σ</th>"
        f"<th>tool calls</th><th>truncated</th></tr>{rows}</table>"
    )
    first = present[0]["tasks"][task_id]["stage_curve"]
    xs = [f"S{p['stage']}" if p["stage"] != "end" else "end" for p in first]
    curve = line_chart(
        "Cumulative score after each stage (mean over attempts)",
        xs,
        {s["agent"]: [p["score"] for p in s["tasks"][task_id]["stage_curve"]] for s in present},
    )
    grid_rows: dict[str, dict[str, Any]] = {}
    columns: list[str] = []
    for s in present:
        t = s["tasks"][task_id]
        offset = len(columns)
        columns += [f"{s['agent']} #{k + 1}" for k in range(len(t["scores"]))]
        for row in t["grid"]:
            entry = grid_rows.setdefault(row["id"], {**row, "runs": []})
            entry["runs"] += [None] * (offset - len(entry["runs"])) + list(row["runs"])
    for entry in grid_rows.values():
        entry["runs"] += [None] * (len(columns) - len(entry["runs"]))
    grid = check_grid_svg(list(grid_rows.values()), columns)
    errors = sorted({e for s in present for e in s["tasks"][task_id]["errors"]})
    err_html = "".join(f"<li>{_e(e)}</li>" for e in errors)
    return (
        f"<h2>Task {_e(task_id)}</h2>{table}{_legend([s['agent'] for s in present])}"
        f'<div class="charts">{curve}</div><h3>Checks by stage: pass (green) / fail (red)</h3>{grid}'
        + (f"<h3>Warnings</h3><ul>{err_html}</ul>" if errors else "")
    )


def render_html(summaries: Sequence[Mapping[str, Any]], title: str = "VibeLife evaluation", attempts: int = 3) -> str:
    """The whole report page for one or more agents' summaries."""
    if not summaries:
        raise ValueError("render_html needs at least one agent summary")
    tasks: list[str] = []
    for s in summaries:
        tasks += [t for t in s["tasks"] if t not in tasks]
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="note">{len(summaries)} agent(s), {len(tasks)} task(s), {attempts} attempt(s) per task. '
        "Scores are 0-100 (earned check weight / total weight); avg/max/min are per-task statistics over "
        "attempts averaged equally across tasks; σ is the within-task standard deviation averaged across tasks. "
        "Capability axes are assigned by keyword over check ids and tags and are indicative.</p>",
        "<h2>Overall</h2>",
        _overall_table(summaries, attempts),
        "<h2>Pass rates</h2>",
        _legend([s["agent"] for s in summaries]),
        _rate_charts(summaries),
        *(_task_section(t, summaries) for t in tasks),
    ]
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>"
    )
