"""The HTML report: nothing clipped or hidden, full width, a short title, and failed checks
that link to the transcript turn they are about."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

from vibelife_env.cli import main as cli_main
from vibelife_env.evaluation import check_turn, summarize
from vibelife_env.report import bar_chart, line_chart, render_html, render_transcript
from vibelife_env.rollout import EpisodeResult

DEMO = "VibeLife-demo-errands-v0"
LONG_ID = "s07_bilingual_letter_requested_from_the_embassy_before_the_visa_interview_" + "x" * 60


def _result(passed: bool) -> EpisodeResult:
    checks = [
        {
            "id": LONG_ID,
            "tier": "stage",
            "stage": 1,
            "weight": 2.0,
            "passed": passed,
            "error": "",
            "description": "A letter was asked for.",
            "reason": "" if passed else "no mail went to the embassy",
        },
        {"id": "f_end", "tier": "final", "stage": None, "weight": 1.0, "passed": False, "error": ""},
    ]
    return EpisodeResult("t/a", "agent", 0, 0.0, checks=checks, turn_stages=[0, 0, 1, 1, 2])


def test_long_check_ids_are_table_text_not_clipped_svg() -> None:
    page = render_html([summarize([_result(False), _result(True)])], "t", attempts=2)
    assert f'<td class="id" title="A letter was asked for.">{LONG_ID}</td>' in page  # laid out by the browser
    assert "fail because no mail went to the embassy" in page  # the reason is on the failed cell
    assert "max-width:1200px" not in page and "overflow-wrap:anywhere" in page
    cells = re.findall(r'<td class="cell (\w+)"', page)
    assert cells == ["fail", "pass", "fail", "fail"]


def test_zero_bars_show_their_value() -> None:
    chart = bar_chart("rates", ["stage", "final"], {"a": [0.0, 55.5], "b": [100.0, 0.0]})
    assert chart.count("<span>0.0</span>") == 2 and "<span>55.5</span>" in chart
    assert "* 0.0000)" in chart and "min-width:3px" not in chart  # a stub (CSS min-width), labelled 0.0
    assert "min-width:3px" in render_html([summarize([_result(False)])])


def test_stage_labels_keep_their_distance() -> None:
    xs = [f"S{i}" for i in range(24)] + ["end"]
    svg = line_chart("curve", xs, {"a": [float(i) for i in range(25)]})
    positions = [float(x) for x in re.findall(r'<text x="([\d.]+)" y="\d+" font-size="11"', svg)]
    assert len(positions) == 25
    assert min(b - a for a, b in itertools.pairwise(positions)) >= 30


def test_check_turn_points_at_the_stage_or_the_end() -> None:
    stages = [0, 0, 2, 3]
    assert check_turn(stages, {"tier": "stage", "stage": 2}) == 2
    assert check_turn(stages, {"tier": "stage", "stage": 1}) == 1  # no turn in stage 1: the last one before
    assert check_turn(stages, {"tier": "final", "stage": None}) == 3
    assert check_turn([], {"tier": "final", "stage": None}) is None


def test_transcript_page_anchors_each_turn() -> None:
    row = _result(False).to_dict()
    row["messages"] = [{"role": "system", "content": "sys"}] + [
        m for i in range(5) for m in ({"role": "user", "content": f"event {i}"}, {"role": "assistant", "content": ""})
    ]
    page = render_transcript(row, "a run")
    assert all(f'id="turn-{i}"' in page for i in range(5))
    assert 'href="#turn-2"' in page and "Turn 2 · stage 1" in page
    assert "A letter was asked for." in page and "why: no mail went to the embassy" in page


def test_eval_report_links_failed_checks_to_transcript_turns(tmp_path: Path) -> None:
    out = tmp_path / "eval"
    envs = ["--env", DEMO, "--env", "VibeLife-family-grandma-birthday-v0"]
    assert cli_main(["eval", "--agent", "stale", "--agent", "null", *envs, "--attempts", "1", "--out", str(out)]) == 0
    page = (out / "report.html").read_text()
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    assert title == "VibeLife evaluation: stale, null on 2 environments" and DEMO in page
    links = re.findall(r'<a href="(transcripts/[^"#]+)#turn-(\d+)" title="([^"]+)', page)
    assert links and all((out / href).is_file() for href, _, _ in links)
    href, turn, tip = next(x for x in links if x[2].startswith("s1_calendar_follows_silent_move / stale"))
    transcript = (out / href).read_text()
    assert f'<h2 class="turn" id="turn-{turn}">Turn {turn} · stage 1</h2>' in transcript
    assert " because " in tip  # every failed cell says why
    assert transcript.count('<span class="why">why: ') == transcript.count("<li><code>")
    report = json.loads((out / "report.json").read_text())
    assert report["agents"][0]["tasks"]["demo/errands"]["transcripts"] == [href]


# ----------------------------------------------------------------------------- the docs
ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_tool_counts_in_the_docs_match_the_registry() -> None:
    from vibelife_env.catalog import catalog
    from vibelife_env.scheduler import Scheduler
    from vibelife_env.services.registry import SERVICES

    cat = catalog()
    service_tools = sum(len(v) for k, v in cat.items() if k != "workspace")
    text = (ROOT / "docs" / "services.md").read_text(encoding="utf-8")
    assert f"{len(SERVICES)} mock services with {service_tools} tools" in text
    assert f"**workspace** ({len(cat['workspace'])} file tools" in text
    assert f"**wake-up scheduler** ({len(Scheduler.openai_tools())} tools" in text
    assert f"{len(cat)} providers, {sum(len(v) for v in cat.values())} tools" in text
    for doc in DOCS:
        for n in re.findall(r"\b(\d+) (?:in-process )?(?:mock )?services\b", doc.read_text(encoding="utf-8")):
            assert int(n) == len(SERVICES), f"{doc.name} says {n} services"


def test_classic_rl_commands_in_the_docs_match_the_example() -> None:
    import importlib.util
    import shlex

    spec = importlib.util.spec_from_file_location("classic_rl_tool_menu", ROOT / "examples" / "classic_rl_tool_menu.py")
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    parser = example.build_parser()
    assert all(a.help for a in parser._actions) and "Monte-Carlo" in parser.description
    commands = [
        m for doc in DOCS for m in re.findall(r"python examples/classic_rl_tool_menu\.py([^`\n]*)", doc.read_text())
    ]
    assert commands
    for args in commands:
        parser.parse_args(shlex.split(args))  # every flag the docs show exists


def test_cli_commands_in_docs_cli_parse() -> None:
    import shlex

    from vibelife_env.cli import COMMANDS, build_parser

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").replace("\\\n", " ")
    commands = [shlex.split(c) for c in re.findall(r"`?vibelife (\w+ [^`\n]*)", text)]
    commands = [argv for argv in commands if argv[0] in COMMANDS]
    assert len(commands) >= 3
    for argv in commands:
        build_parser(argv[0]).parse_args(argv)
