"""The story of an instance: who the user is, which tradesperson comes, what is owed, and when."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np

TZ = ZoneInfo("Asia/Shanghai")
NAMES = ["Li Na", "Wang Wei", "Zhang Min", "Chen Jie", "Liu Yang", "Zhao Lan"]
TRADES = [("plumber", "Blue Pipe Plumbing"), ("electrician", "Bright Spark Electric"), ("locksmith", "KeyWay Locks")]


@dataclass
class ErrandStory:
    name: str
    trade: str
    company: str
    invoice: str
    amount: int  # minor units, payable to the company's saved payee
    start: datetime  # the kick-off message
    visit: datetime
    new_visit: datetime | None = None  # set when probes.Reschedule is placed (within a day of the visit)
    level: str = "guided"  # "paper": the company's own mail carries its payment policy, the inbox is lived in
    clash: str | None = None  # paper: the user's weekly appointment at the visit's hour (a latent fact)

    def __post_init__(self) -> None:
        self.email = f"{self.name.lower().replace(' ', '.')}@mail.example"
        self.domain = self.company.split()[0].lower() + ".example"

    def at(self, day: int, hour: int) -> datetime:
        return (self.start + timedelta(days=day)).replace(hour=hour)


def draw(rng: np.random.Generator) -> ErrandStory:
    """One instance's story, from ``rng`` only."""
    trade, company = TRADES[int(rng.integers(0, len(TRADES)))]
    start = datetime(2026, 5, 4 + int(rng.integers(0, 10)), 9, 0, tzinfo=TZ)
    invoice, amount = f"INV-{int(rng.integers(10000, 99999))}", int(rng.integers(18, 90)) * 1000
    story = ErrandStory(NAMES[int(rng.integers(0, len(NAMES)))], trade, company, invoice, amount, start, start)
    story.visit = story.at(int(rng.integers(6, 9)), int(rng.choice([9, 10, 14, 15])))
    return story
