"""probes.ledger.consistent, the trip ledger's reconciliation: what counts as a booked thing, and
costs a careful ledger may carry (the visa-trip audit: a round-trip booking and the visa fees)."""

from __future__ import annotations

import json
from typing import Any

from vibelife_env.checks import state
from vibelife_env.checks.verdict import reason_of
from vibelife_env.probes import ledger


class Ctx:
    def __init__(self, doc: str) -> None:
        self.doc = doc

    def file(self, path: str) -> str:
        assert path == "ledger.md"
        return self.doc


def charge(ref: str, amount: float, kind: str, legs: int = 1, live: bool = True) -> state.Charge:
    row: dict[str, Any] = {"segments_json": json.dumps([{"flight_no": f"MU{i}"} for i in range(legs)])}
    return state.Charge("svc", ref, amount, "CNY", None, live, False, kind, row if kind == "flight" else {})


def doc(*rows: tuple[str, float], total: float) -> str:
    lines = ["| date | item | reference | amount (CNY) | status |", "|---|---|---|---|---|"]
    lines += [f"| 2026-08-19 | item | {ref} | {amount:.2f} | committed |" for ref, amount in rows]
    return "\n".join([*lines, "", f"**Total committed: {total:.2f} CNY**"])


HOTEL, ROUND_TRIP = charge("res_1", 5500, "hotel"), charge("LZFKFH", 14400, "flight", legs=2)


def test_a_round_trip_booking_is_two_of_the_things_a_ledger_must_carry():
    ctx = Ctx(doc(("res_1", 5500), ("PNR LZFKFH", 14400), total=19900))
    assert ledger.consistent(ctx, [HOTEL, ROUND_TRIP], minimum=3)  # two flights and a stay, in two bookings
    one_way = charge("LZFKFH", 14400, "flight", legs=1)
    verdict = ledger.consistent(ctx, [HOTEL, one_way], minimum=3)
    assert not verdict and "fewer than the 3" in reason_of(verdict)


def test_an_optional_cost_counts_when_the_ledger_carries_it_and_only_then():
    visa = [charge("va_0001", 1100, "visa"), charge("va_0002", 1100, "visa")]
    without = Ctx(doc(("res_1", 5500), total=5500))
    assert ledger.consistent(without, [HOTEL], optional=visa)
    carried = Ctx(doc(("res_1", 5500), ("va_0001", 1100), ("va_0002", 1100), total=7700))
    assert ledger.consistent(carried, [HOTEL], optional=visa)
    assert not ledger.consistent(carried, [HOTEL])  # without them the services say 5,500
    wrong = Ctx(doc(("res_1", 5500), ("va_0001", 900), total=6400))
    verdict = ledger.consistent(wrong, [HOTEL], optional=visa)
    assert not verdict and "va_0001" in reason_of(verdict)
