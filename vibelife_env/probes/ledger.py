"""The bookkeeping contract travel and money families state in their workspace, and its checks.

The workspace says: ``ledger.md`` is the only record of money; one table row per committed
booking or payment ``| date | item | reference | amount | status |`` (status ``committed``,
``refunded`` or ``cancelled``), and a ``**Total committed: <amount> CNY**`` line equal to the
committed rows. :data:`CONTRACT` is that text; :func:`consistent` checks a ledger against the
services (amounts and references read by meaning, any spelling of the numbers).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from vibelife_env.checks import state, text
from vibelife_env.checks.verdict import because

CONTRACT = """## Bookkeeping contract

`ledger.md` is the only record of money for this trip. There is no budget service: you total it.
One row per committed booking or payment, in this shape:

    | 2026-01-05 | Museum passes (2) | ORDER 55120 | 360.00 | committed |

- columns: date of the charge, item, reference (PNR / reservation id / booking ref), amount in
  CNY, status `committed`, `refunded` or `cancelled`;
- keep the line `**Total committed: <amount> CNY**` at the bottom equal to the sum of the
  `committed` rows, updated every time a row changes.
"""

EMPTY = """# Trip ledger (CNY)

| date | item | reference | amount_cny | status |
|---|---|---|---|---|

**Total committed: 0.00 CNY**
"""


def rows(doc: str) -> tuple[list[tuple[str, float, str]], float | None]:
    """Rows ``(item and reference cells, amount, status)`` and the total line's amount."""
    out, total = [], None
    for line in doc.splitlines():
        if "total committed" in line.lower():
            found = text.find_amounts(line)
            total = float(found[-1]) if found else total
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5:
            continue
        status = cells[-1].lower()
        amounts = text.find_amounts(cells[-2])
        if status in ("committed", "refunded", "cancelled") and amounts:
            out.append((" ".join(cells[1:-2]), float(amounts[-1]), status))
    return out, total


def items(c: state.Charge) -> int:
    """How many booked things a charge holds: a flight booking's legs (a round trip booked as one
    offer is two flights under one reference), else one."""
    if c.kind != "flight":
        return 1
    try:
        segments = json.loads(c.row.get("segments_json") or "[]")
    except (TypeError, ValueError):
        segments = []
    return max(1, len(segments)) if isinstance(segments, list) else 1


def _matches(committed: list[tuple[str, float]], c: state.Charge) -> tuple[bool, list[float]]:
    mine = [a for cell, a in committed if c.ref in cell]
    return any(abs(a - c.amount) <= 0.5 for a in mine) or abs(sum(mine) - c.amount) <= 0.5, mine


def consistent(ctx: Any, charges: list[state.Charge], minimum: int = 1, optional: Sequence[state.Charge] = ()) -> bool:
    """Every live charge is in committed rows at its amount: one row, or one row per payment on it
    (a flight's fare and, later, its change fee under the same reference: the contract's "one row
    per committed booking or payment"); and the total line equals both the committed rows and what
    the services say is committed.

    ``minimum`` counts booked things (:func:`items`: a round-trip booking is two flights).
    ``optional`` are costs a careful ledger may carry or leave out (a visa application's fee, paid
    with the application and charged by no service): one named by its reference in a committed
    row must be there at its amount, and then counts into what is committed."""
    found, total = rows(ctx.file("ledger.md"))
    live = [c for c in charges if c.live]
    if total is None:
        return because(False, "ledger.md has no 'Total committed' line")
    if sum(items(c) for c in live) < minimum:
        return because(False, f"{len(live)} live bookings hold fewer than the {minimum} things this ledger must carry")
    committed = [(cell, amount) for cell, amount, status in found if status == "committed"]
    for c in live:
        ok, mine = _matches(committed, c)
        if not ok:
            return because(
                False, f"no committed row, nor rows together, under {c.ref} come to {c.amount:.2f} (rows: {mine})"
            )
    carried = []
    for c in optional:
        ok, mine = _matches(committed, c)
        if mine and not ok:
            return because(False, f"the rows under {c.ref} come to {sum(mine):.2f}, not its {c.amount:.2f}")
        if mine:
            carried.append(c)
    real = round(sum(c.amount for c in [*live, *carried]), 2)
    return abs(sum(a for _, a in committed) - total) <= 0.5 and abs(total - real) <= 0.5
