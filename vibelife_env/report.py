"""A self-contained HTML evaluation report, and a page per episode transcript.

The input is what :func:`vibelife_env.evaluation.summarize` returns, one summary per
agent. The page needs no network, JavaScript or external CSS: open it from disk, attach it
to an issue, or screenshot it in a headless browser. It uses the whole window width; text
is laid out by the browser (HTML tables), so no label is clipped however long it is.

Sections: overall avg@k / max@k / min@k / σ per agent; pass-rate bars by tier, capability
axis, domain and timeline position (every bar has its value printed, so 0 % shows); per
task, the cumulative score after each stage (one line per agent, an SVG) and the
pass/fail grid of every check (rows, in timeline order) for every run (columns). When a
task's summary carries ``transcripts`` (one page per run, see :func:`render_transcript`),
each failed cell links to the turn of that run's transcript the check is about.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f")
PASS, FAIL, MISSING = "#3fa34d", "#d64545", "#dddddd"

_CSS = f"""
body{{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:16px 24px;color:#222}}
h1{{font-size:22px;margin:4px 0 8px}}h2{{font-size:18px;margin-top:28px;border-bottom:1px solid #ccc}}
h3{{font-size:15px;margin:18px 0 6px}}h4{{font-size:13px;margin:4px 0 6px}}
table{{border-collapse:collapse;margin:8px 0}}td,th{{border:1px solid #ccc;padding:3px 8px;font-size:13px;text-align:right}}
th{{background:#f3f3f3}}td.l,th.l{{text-align:left}}.note{{color:#555;font-size:12px;max-width:110ch}}
.legend span{{display:inline-block;margin-right:14px;font-size:13px}}
.sw{{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:middle}}
.charts{{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:12px 40px;align-items:start}}
table.bars{{width:100%;margin:0}}table.bars td{{border:0;padding:1px 4px;font-size:12px}}
table.bars tr.first td{{border-top:1px solid #eee}}td.group{{text-align:right;white-space:nowrap;width:1%}}
td.track{{width:100%}}.track div{{display:flex;align-items:center}}.track i{{display:block;height:13px;min-width:3px}}
.track span{{padding-left:4px;color:#444;white-space:nowrap}}
.scroll{{overflow-x:auto}}
table.grid td,table.grid th{{font-size:12px;padding:1px 6px}}
table.grid td.id{{text-align:left;overflow-wrap:anywhere;min-width:16ch}}table.grid td.where{{white-space:nowrap}}
table.grid th.run{{writing-mode:vertical-rl;transform:rotate(180deg);font-weight:normal;white-space:nowrap;
padding:4px 1px;text-align:left}}
table.grid td.cell{{width:18px;min-width:18px;padding:0;text-align:center;color:#fff;font-size:11px}}
td.pass{{background:{PASS}}}td.fail{{background:{FAIL}}}td.absent{{background:{MISSING};color:#777}}
td.cell a{{display:block;color:#fff;text-decoration:none;font-weight:bold}}td.cell a:hover{{background:#0003}}
details{{margin:6px 0}}summary{{cursor:pointer;font-size:13px}}
"""


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _color(i: int) -> str:
    return PALETTE[i % len(PALETTE)]


def _clamp(value: float) -> float:
    return max(0.0, min(100.0, float(value)))


def bar_chart(title: str, groups: Sequence[str], series: Mapping[str, Sequence[float]]) -> str:
    """Horizontal bars (values 0-100), one row per group and series, as an HTML table.

    Labels take the width they need; each bar has its value right after it, and a 0 still
    draws a stub, so a zero is never mistaken for a missing bar.
    """
    n = max(len(series), 1)
    rows = []
    for gi, group in enumerate(groups):
        for si, (name, values) in enumerate(series.items()):
            v = _clamp(values[gi])
            label = f'<td class="group" rowspan="{n}">{_e(group)}</td>' if si == 0 else ""
            rows.append(
                f'<tr{" class=first" if si == 0 else ""}>{label}<td class="track" title="{_e(name)} / {_e(group)}: '
                f'{v:.1f}%"><div><i style="width:calc((100% - 3.5em) * {v / 100:.4f});background:{_color(si)}"></i>'
                f"<span>{v:.1f}</span></div></td></tr>"
            )
    return f'<div class="chart"><h4>{_e(title)}</h4><table class="bars">{"".join(rows)}</table></div>'


def line_chart(title: str, xs: Sequence[str], series: Mapping[str, Sequence[float]]) -> str:
    """Lines over categorical x positions (values 0-100), one colour per series, as SVG.

    The chart widens with the number of positions (at least 34 px each), up to the width
    of the page (then it scales down, and scrolls below 480 px); labels are thinned only if
    they would still touch.
    """
    left, right, top, bottom, plot_h = 40, 24, 30, 30, 180
    longest = max((len(x) for x in xs), default=1)
    step = max(34.0, 7.0 * longest + 8)
    plot_w = max(step * max(len(xs) - 1, 1), 480)
    step = plot_w / max(len(xs) - 1, 1)
    width, height = int(left + plot_w + right), top + plot_h + bottom
    every = max(1, math.ceil((7.0 * longest + 8) / step))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="100%" '
        f'style="max-width:{width}px;min-width:480px" role="img">'
    ]
    parts.append(f'<text x="{left}" y="16" font-size="13" font-weight="bold">{_e(title)}</text>')
    for tick in (0, 25, 50, 75, 100):
        y = top + plot_h * (1 - tick / 100)
        parts.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w:.1f}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        parts.append(f'<text x="{left - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{tick}</text>')
    for i, label in enumerate(xs):
        if i % every and i != len(xs) - 1:
            continue
        parts.append(
            f'<text x="{left + i * step:.1f}" y="{top + plot_h + 16}" font-size="11" '
            f'text-anchor="middle">{_e(label)}</text>'
        )
    for si, (name, values) in enumerate(series.items()):
        pts = [(left + i * step, top + plot_h * (1 - _clamp(v) / 100)) for i, v in enumerate(values)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{_color(si)}" stroke-width="2"/>')
        parts.extend(
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{_color(si)}"><title>{_e(name)} {_e(xs[i])}: '
            f"{v:.1f}</title></circle>"
            for i, ((x, y), v) in enumerate(zip(pts, values, strict=True))
        )
    parts.append("</svg>")
    return f'<div class="scroll">{"".join(parts)}</div>'


def check_grid_table(rows: Sequence[Mapping[str, Any]], columns: Sequence[str], links: Sequence[str | None]) -> str:
    """Pass / fail / absent cells: checks as rows (id, where, weight), runs as columns.

    ``links[j]`` is the transcript page of run ``j`` (or ``None``); a failed cell with a
    turn (``row["turns"][j]``) links to ``links[j]#turn-<turn>``.
    """
    head = '<tr><th class="l">check</th><th class="l">where</th><th>weight</th>'
    head += "".join(f'<th class="run">{_e(c)}</th>' for c in columns) + "</tr>"
    body = []
    for row in rows:
        where = f"stage {row['stage']}" if row["tier"] == "stage" else row["tier"]
        cells = []
        turns = row.get("turns") or [None] * len(row["runs"])
        reasons = row.get("reasons") or [None] * len(row["runs"])
        for j, ok in enumerate(row["runs"]):
            tip = f"{row['id']} / {columns[j]}"
            why = f" because {reasons[j]}" if reasons[j] else ""
            if ok is None:
                cells.append(f'<td class="cell absent" title="{_e(tip)}: absent">–</td>')
            elif ok:
                cells.append(f'<td class="cell pass" title="{_e(tip)}: pass">✓</td>')
            elif links[j] is not None and turns[j] is not None:
                href = f"{links[j]}#turn-{turns[j]}"
                cells.append(
                    f'<td class="cell fail"><a href="{_e(href)}" title="{_e(tip)}: fail{_e(why)}; '
                    f'read turn {turns[j]}">✗</a></td>'
                )
            else:
                cells.append(f'<td class="cell fail" title="{_e(tip)}: fail{_e(why)}">✗</td>')
        desc = row.get("description", "")
        body.append(
            f'<tr><td class="id" title="{_e(desc)}">{_e(row["id"])}</td><td class="where l">{_e(where)}</td>'
            f"<td>{row['weight']:g}</td>{''.join(cells)}</tr>"
        )
    return f'<div class="scroll"><table class="grid">{head}{"".join(body)}</table></div>'


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
        f"<tr><td class=l>{_e(label)}</td><td>{o['avg']:.2f}</td><td>{o['max']:.2f}</td>"
        f"<td>{o['min']:.2f}</td><td>{o['std']:.2f}</td><td>{o['tasks']}</td></tr>"
        for s in summaries
        for label, o in [
            (s["agent"], s["overall"]),
            *((f"{s['agent']}: {group}", g) for group, g in s.get("by_family_split", {}).items()),
        ]
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
        "Cumulative score after each stage closes (mean over attempts)",
        xs,
        {s["agent"]: [p["score"] for p in s["tasks"][task_id]["stage_curve"]] for s in present},
    )
    grid_rows: dict[str, dict[str, Any]] = {}
    columns: list[str] = []
    links: list[str | None] = []
    for s in present:
        t = s["tasks"][task_id]
        offset = len(columns)
        seeds = t.get("seeds") or [None] * len(t["scores"])
        columns += [
            f"{s['agent']} #{k + 1}" + (f" (seed {seed})" if seed is not None else "") for k, seed in enumerate(seeds)
        ]
        links += list(t.get("transcripts") or [None] * len(t["scores"]))
        for row in t["grid"]:
            entry = grid_rows.setdefault(row["id"], {**row, "runs": [], "turns": [], "reasons": []})
            pad = [None] * (offset - len(entry["runs"]))
            entry["runs"] += pad + list(row["runs"])
            entry["turns"] += pad + list(row.get("turns") or [None] * len(row["runs"]))
            entry["reasons"] += pad + list(row.get("reasons") or [None] * len(row["runs"]))
    for entry in grid_rows.values():
        pad = [None] * (len(columns) - len(entry["runs"]))
        entry["runs"] += pad
        entry["turns"] += pad
        entry["reasons"] += pad
    grid = check_grid_table(list(grid_rows.values()), columns, links)
    errors = sorted({e for s in present for e in s["tasks"][task_id]["errors"]})
    err_html = "".join(f"<li>{_e(e)}</li>" for e in errors)
    hint = " A failed cell links to the transcript turn to read." if any(links) else ""
    return (
        f'<h2 id="task-{_e(task_id)}">Task {_e(task_id)}</h2>{table}{_legend([s["agent"] for s in present])}'
        f"{curve}<h3>Checks in timeline order: pass (✓) / fail (✗) per run</h3>"
        f'<p class="note">Stage checks are scored when their stage closes; cross-stage, final and tool-quality '
        f"checks at the end.{hint}</p>{grid}" + (f"<h3>Warnings</h3><ul>{err_html}</ul>" if errors else "")
    )


def render_html(
    summaries: Sequence[Mapping[str, Any]],
    title: str = "VibeLife evaluation",
    attempts: int = 3,
    envs: Sequence[str] = (),
) -> str:
    """The whole report page for one or more agents' summaries.

    Args:
        summaries: One :func:`~vibelife_env.evaluation.summarize` result per agent.
        title: Page heading (keep it short; ``envs`` are listed under it).
        attempts: Runs per task and agent (the ``k`` of avg@k).
        envs: Env ids evaluated, listed in a collapsible line under the heading.
    """
    return "".join(iter_html(summaries, title, attempts, envs))


def iter_html(
    summaries: Sequence[Mapping[str, Any]],
    title: str = "VibeLife evaluation",
    attempts: int = 3,
    envs: Sequence[str] = (),
) -> Iterator[str]:
    """:func:`render_html` in pieces (a task's section at a time), to write a big report to a
    file without holding the page in memory."""
    if not summaries:
        raise ValueError("render_html needs at least one agent summary")
    tasks: list[str] = []
    for s in summaries:
        tasks += [t for t in s["tasks"] if t not in tasks]
    env_list = (
        f"<details><summary>{len(envs)} environment(s)</summary><p class=note>{_e(', '.join(envs))}</p></details>"
        if envs
        else ""
    )
    toc = " · ".join(f'<a href="#task-{_e(t)}">{_e(t)}</a>' for t in tasks)
    yield (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f'<meta name="viewport" content="width=device-width"><style>{_CSS}</style></head><body>'
    )
    yield from (
        f"<h1>{_e(title)}</h1>",
        env_list,
        f'<p class="note">{len(summaries)} agent(s), {len(tasks)} task(s), {attempts} attempt(s) per task. '
        "Scores are 0-100 (earned check weight / total weight); avg/max/min are per-task statistics over "
        "attempts averaged equally across tasks; σ is the within-task standard deviation averaged across tasks. "
        "Capability axes are assigned by keyword over check ids and tags and are indicative.</p>",
        "<h2>Overall</h2>",
        _overall_table(summaries, attempts),
        f'<p class="note">Tasks: {toc}</p>',
        "<h2>Pass rates</h2>",
        _legend([s["agent"] for s in summaries]),
        _rate_charts(summaries),
    )
    for t in tasks:
        yield _task_section(t, summaries)
    yield "</body></html>"


_TRANSCRIPT_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:16px 24px;color:#222}
h1{font-size:20px}.msg{border-left:4px solid #ccc;margin:6px 0;padding:2px 10px}
.msg pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:4px 0;font-size:12px}
.role{font-size:12px;color:#555;font-weight:bold}.user{border-color:#1f77b4;background:#f3f8fc}
.assistant{border-color:#2ca02c}.tool{border-color:#bbb;color:#444}.system{border-color:#888}
h2.turn{font-size:15px;margin:22px 0 4px;border-bottom:1px solid #ddd}:target{outline:3px solid #ff7f0e}
ul.fails li{font-size:13px;margin-bottom:6px}.why{color:#a33}
"""


def render_transcript(result: Mapping[str, Any], title: str) -> str:
    """One episode as an HTML page: each turn anchored as ``#turn-<n>`` (n from 0, one per
    turn-opening event, the transcript's ``user`` messages), tool calls and results inline,
    and the failed checks listed first with a link to their turn.

    Args:
        result: An :class:`~vibelife_env.rollout.EpisodeResult` as a dict (``to_dict()``).
        title: Page heading.
    """
    from vibelife_env.evaluation import check_turn

    stages = list(result.get("turn_stages") or [])
    fails = [c for c in result.get("checks", []) if not c["passed"]]
    items = []
    for c in fails:
        turn = check_turn(stages, c)
        where = f"stage {c['stage']}" if c["tier"] == "stage" else c["tier"]
        link = f' → <a href="#turn-{turn}">turn {turn}</a>' if turn is not None else ""
        desc = f"<br>{_e(c['description'])}" if c.get("description") else ""
        why = c.get("reason") or c.get("error") or ""
        reason = f'<br><span class="why">why: {_e(why)}</span>' if why else ""
        items.append(f"<li><code>{_e(c['id'])}</code> [{_e(where)}, w={c['weight']:g}]{link}{desc}{reason}</li>")
    parts = [
        f"<h1>{_e(title)}</h1>",
        f"<p>score {float(result.get('score', 0.0)):.2f}/100 · {result.get('steps', 0)} steps · "
        f"{result.get('tool_calls', 0)} tool calls · {len(fails)} failed check(s)</p>",
        f'<ul class="fails">{"".join(items)}</ul>' if items else "",
    ]
    turn = 0
    for m in result.get("messages", []):
        role = m.get("role", "")
        if role == "user":
            stage = f" · stage {stages[turn]}" if turn < len(stages) else ""
            parts.append(f'<h2 class="turn" id="turn-{turn}">Turn {turn}{stage}</h2>')
            turn += 1
        label = role if role != "tool" else f"tool result: {m.get('name', '')}"
        body = _e(m.get("content") or "")
        calls = "".join(
            f"<pre>→ {_e(c['function']['name'])}({_e(_args(c['function'].get('arguments')))})</pre>"
            for c in m.get("tool_calls") or ()
        )
        parts.append(f'<div class="msg {_e(role)}"><div class="role">{_e(label)}</div><pre>{body}</pre>{calls}</div>')
    if not result.get("messages"):
        parts.append("<p>No transcript was recorded for this run.</p>")
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
        f"<style>{_TRANSCRIPT_CSS}</style></head><body>{''.join(parts)}</body></html>"
    )


def _args(raw: Any) -> str:
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return raw
    return json.dumps(raw, ensure_ascii=False)
