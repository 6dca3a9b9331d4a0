"""The city-break reference policy: the plan agent plus the family's own hooks, and the variants
that must differ through them.

- :meth:`CityAgent.check_in`: online check-in (``OtherPath`` checks each traveller in separately);
- :meth:`CityAgent.remind`: a reminder (``OtherPath`` schedules a wake-up instead of a calendar event);
- :meth:`CityAgent.mail_user`: a summary mail to the user.

For a Chinese-speaking persona the ``paraphrase`` variant writes dates, times and amounts the
Chinese way (``2026年5月8日``, ``15点30分``, ``12345.00元``): the checks read both.
"""

from __future__ import annotations

import re
from typing import Any

from vibelife_env.probes.agent import PlanAgent, oracle_family, reword


class CityAgent(PlanAgent):
    """See the module docstring."""

    def check_in(self, pnr: str, size: int):
        """Check every traveller in on the first segment; returns the boarding details."""
        out = yield self.call("flight_booking__check_in", pnr=pnr, segment_idx=0)
        return out

    def remind(self, at: str, end: str, what: str):
        """A reminder at ``at`` (ISO with offset): a calendar event."""
        yield self.call("calendar__create_event", summary=self.t(what), start=at, end=end)

    def mail_user(self, subject: str, body: str):
        """Mail the user (their own address)."""
        yield self.call("email__send_email", to=self.story.user.email, subject=self.t(subject), body=self.t(body))


class OtherPathHooks(CityAgent):
    """``OtherPath`` through the family's hooks: one check-in per traveller, a wake-up as reminder."""

    def check_in(self, pnr: str, size: int):
        outs = yield self.calls(
            [("flight_booking__check_in", {"pnr": pnr, "segment_idx": 0, "pax_indices": [i]}) for i in range(size)]
        )
        first = dict(outs[0])
        first["checked_in"] = [x for o in outs for x in o.get("checked_in", [])]
        return first

    def remind(self, at: str, end: str, what: str):
        yield self.call("assistant__schedule_wakeup", at=at, note=self.t(what))


_ZH_CLOCK = re.compile(r"(?<![\d:])([01]\d|2[0-3]):([0-5]\d)(?![\d:])")


def reword_zh(text: str) -> str:
    """Dates, times and amounts the Chinese way, same facts."""
    out = re.sub(r"\b(20\d\d)-(\d\d)-(\d\d)\b", lambda m: f"{m[1]}年{int(m[2])}月{int(m[3])}日", text)
    out = _ZH_CLOCK.sub(lambda m: f"{int(m[1])}点{m[2]}分", out)
    out = re.sub(
        r"\b(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)? CNY\b", lambda m: m[1].replace(",", "") + (m[2] or "") + "元", out
    )
    return out


class ParaphraseZh(CityAgent):
    """The paraphrase variant for a Chinese-speaking persona."""

    def t(self, text: str) -> str:
        return reword_zh(text)


def family_of(steps: dict[str, list[Any]], story: Any) -> tuple[type, dict[str, type], dict[str, type]]:
    """``(Oracle, ABLATIONS, VARIANTS)`` for one instance, with the family's variant hooks."""
    oracle, ablations, variants = oracle_family(steps, story, CityAgent)
    variants["other_path"] = type("OtherPath", (OtherPathHooks, variants["other_path"]), {})
    if story.extras["lang"] == "zh":
        variants["paraphrase"] = type("Paraphrase", (ParaphraseZh, variants["paraphrase"]), {})
    return oracle, ablations, variants


__all__ = ["CityAgent", "family_of", "reword", "reword_zh"]
