"""The template service: what every service's test file checks, on the smallest service.

Copy this file to ``test_<name>.py`` together with the template folder.
"""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from tests.conftest import SHANGHAI, table_dump
from vibelife_env.clock import VirtualClock
from vibelife_env.services._template import TemplateService
from vibelife_env.services.base import ServiceContext
from vibelife_env.services.registry import SERVICES

SEED = """
INSERT INTO items VALUES ('item_000001', 'Book the ryokan', 1, '2026-04-16T01:00:00Z');
INSERT INTO _counters VALUES ('item_seq', 1);
"""


@pytest.fixture
def todo() -> TemplateService:
    # a registered service would use the make_service fixture: make_service("<name>", SEED)
    svc = TemplateService(
        ServiceContext(VirtualClock(datetime(2026, 4, 17, 9, 0, tzinfo=SHANGHAI)), np.random.default_rng(0))
    )
    svc.load_sql(SEED)
    svc.after_seed()
    return svc


def test_the_template_is_not_registered():
    assert "template" not in SERVICES and not any("_template" in target for target in SERVICES.values())


def test_add_and_list(todo):
    added = todo.call("add_item", {"title": "  Buy a rail pass "})
    assert added == {
        "item_id": "item_000002",
        "title": "Buy a rail pass",
        "done": False,
        "created_at": "2026-04-17T01:00:00Z",
    }
    assert [i["item_id"] for i in todo.call("list_items", {})["items"]] == ["item_000001", "item_000002"]
    assert todo.call("list_items", {"done": False})["count"] == 1


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("add_item", {"title": "   "}, "BAD_ARG"),
        ("add_item", {"title": "x" * 201}, "BAD_ARG"),
        ("add_item", {}, "BAD_ARG"),
        ("list_items", {"limit": 0}, "BAD_ARG"),
        ("list_items", {"done": "maybe"}, "BAD_ARG"),
        ("no_such_tool", {}, "UNKNOWN_TOOL"),
    ],
)
def test_errors_leave_tables_unchanged(todo, tool, args, code):
    before = table_dump(todo)
    result = todo.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(todo) == before
