"""Turn a release bundle's raw ``event.yaml`` into the timeline its runner replays.

The release runner, per stage ``0..N-1`` (``N`` = highest stage key + 1, or the highest
rubric stage + 1 for the handbook runtime), sorts the stage's events by
``(str(time), id)`` (two runners parse the time first), then walks them:
mutations apply; ``silent`` events and kinds its dispatcher does not handle are skipped;
every other event opens one agent turn with its rendered text. One runner merges
consecutive visible events into a single turn and first copies inbound-email world
events into the mailbox. :func:`prepare_stages` produces exactly that sequence as raw
event mappings for our loader, with

- ``time`` made explicit (naive times are in the task's zone; ``HH:MM`` times sit on
  day ``start_date + stage`` as that runner places them),
- ``rendered``: the text the agent sees, made by the runner's own template,
- mutation ``server`` aliases resolved (``lp`` → ``listing_platform``).
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
from datetime import date, datetime
from typing import Any

from vibelife_env.clock import get_zone
from vibelife_env.release.profile import ReleaseProfile
from vibelife_env.release.templates import inbound_email, stage_day_time

_TIME_ONLY = re.compile(r"^\d{1,2}:\d{2}$")


def _kind(event: dict[str, Any]) -> str:
    return str(event.get("type") or event.get("kind") or "")


def _aware_time(value: Any, stage: int, start: date, timezone: str, offset: str) -> str:
    """An ISO time with an explicit offset, following the release's reading of ``value``."""
    zone = get_zone(timezone)
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        text = str(value or "").strip()
        if _TIME_ONLY.match(text) or not text:
            text = stage_day_time({"time": text}, stage, start, offset)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    return moment.isoformat()


def _sort_key(profile: ReleaseProfile, event: dict[str, Any]) -> tuple[Any, str]:
    raw = event.get("time", "")
    if profile.sort_parsed:
        moment = raw if isinstance(raw, datetime) else datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
        return (moment, str(event.get("id", "")))
    return (str(raw), str(event.get("id", "")))


def _alias(profile: ReleaseProfile, spec: Any) -> Any:
    if isinstance(spec, dict) and isinstance(spec.get("server"), str):
        server = spec["server"]
        return {**spec, "server": profile.server_aliases.get(server, server)}
    return spec


def email_row_id(event_id: str) -> int:
    """A deterministic negative row id for a scenario email (never collides with seeds)."""
    digest = hashlib.sha256(event_id.encode("utf-8")).digest()
    positive = int.from_bytes(digest[:8], "big") & 0x7FFF_FFFF_FFFF_FFFF
    return -(positive or 1)


def email_row(profile: ReleaseProfile, event: dict[str, Any], when: str) -> dict[str, Any] | None:
    """The mailbox row an inbound-email world event becomes (``None`` for other events)."""
    parsed = inbound_email(event)
    if parsed is None or not profile.email_row:
        return None
    event_id = str(event.get("id") or "unknown")
    computed: dict[str, Any] = {
        "id": email_row_id(event_id),
        "subject": parsed["subject"],
        "from_addr": parsed["from_addr"],
        "body_text": parsed["body_text"],
        "date": when,
        "created_at": when,
        "size": len(parsed["body_text"]),
        "headers_json": json.dumps({"X-Scenario-Event": event_id}, ensure_ascii=False),
    }
    row: dict[str, Any] = {}
    for key, value in profile.email_row.items():
        if key in computed:
            row[key] = computed[key]
        elif isinstance(value, ast.JoinedStr):
            row[key] = "".join(str(part.value) if isinstance(part, ast.Constant) else event_id for part in value.values)
        elif isinstance(value, ast.AST):
            row[key] = None
        else:
            row[key] = value
    return row


def prepare_stages(
    profile: ReleaseProfile,
    raw_stages: dict[Any, Any],
    start_date: str | None,
    timezone: str,
    min_stages: int = 0,
) -> dict[int, list[dict[str, Any]]]:
    """The replayed timeline per stage, as raw event mappings (see the module docstring)."""
    start = date.fromisoformat(start_date) if start_date else date(2026, 1, 1)
    offset = datetime(start.year, start.month, start.day, 9, tzinfo=get_zone(timezone)).isoformat()[-6:]
    by_stage = {int(k): [dict(e) for e in (v or [])] for k, v in raw_stages.items()}
    count = max([*(s + 1 for s in by_stage), min_stages])
    out: dict[int, list[dict[str, Any]]] = {}
    for stage in range(count):
        events = sorted(by_stage.get(stage, []), key=lambda e: _sort_key(profile, e))
        timeline: list[dict[str, Any]] = []
        batch: dict[str, Any] | None = None
        for event in events:
            kind = _kind(event)
            when = _aware_time(event.get("time"), stage, start, timezone, offset)
            if kind == "mutation":
                batch = None
                item = {k: v for k, v in event.items() if k != "type"}
                item.update(kind=kind, time=when)
                item["apply"] = [_alias(profile, s) for s in event.get("apply") or []]
                item["postconditions"] = [_alias(profile, s) for s in event.get("postconditions") or []]
                timeline.append(item)
                continue
            if event.get("silent") or ("*" not in profile.turn_kinds and kind not in profile.turn_kinds):
                continue
            rendered = profile.render(event, stage)
            if profile.materialize_email:
                shown = stage_day_time(event, stage, start, offset)
                row = email_row(profile, event, shown)
                if row is not None:  # copied into the mailbox before the (batched) turn opens
                    if batch is not None and profile.batch_separator is not None:
                        timeline.insert(timeline.index(batch), _email_mutation(event, batch["time"], row))
                    else:
                        timeline.append(_email_mutation(event, when, row))
            if profile.batch_separator is not None and batch is not None:
                batch["rendered"] = f"{batch['rendered']}{profile.batch_separator}{rendered}"
                batch.setdefault("merged", []).append(str(event.get("id")))
                continue
            item = {k: v for k, v in event.items() if k != "type"}
            item.update(kind=kind, time=when, rendered=rendered, stage=stage)
            timeline.append(item)
            batch = item if profile.batch_separator is not None else None
        out[stage] = timeline
    return out


def _email_mutation(event: dict[str, Any], when: str, row: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"{event.get('id')}__mailbox",
        "kind": "mutation",
        "time": when,
        "apply": [{"server": "email", "table": "messages", "op": "upsert", "conflict_keys": ["id"], "values": row}],
    }
