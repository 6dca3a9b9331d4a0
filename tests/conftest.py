"""Shared fixtures."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from vibelife_env.clock import VirtualClock
from vibelife_env.services.base import Service, ServiceContext
from vibelife_env.services.registry import service_class

SHANGHAI = ZoneInfo("Asia/Shanghai")


@pytest.fixture
def make_service() -> Callable[..., Service]:
    """Build a fresh service: ``make_service("email", seed_sql, now=datetime(...))``."""

    def build(name: str, seed_sql: str = "", now: datetime | None = None) -> Service:
        clock = VirtualClock(now or datetime(2026, 4, 17, 9, 0, tzinfo=SHANGHAI))
        svc = service_class(name)(ServiceContext(clock, np.random.default_rng(0)))
        if seed_sql:
            svc.load_sql(seed_sql)
        svc.after_seed()
        return svc

    return build


def table_dump(svc: Service) -> dict[str, list[tuple]]:
    """Every table's rows, for asserting that a failed call changed nothing."""
    tables = [r["name"] for r in svc.query("SELECT name FROM sqlite_master WHERE type='table'")]
    return {t: [tuple(r.values()) for r in svc.query(f'SELECT * FROM "{t}" ORDER BY rowid')] for t in tables}
