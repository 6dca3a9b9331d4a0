"""World writes built from the services' schemas: what they write is what the tools read,
and a table or column a service does not have is an error that names it."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from vibelife_env.services import sql
from vibelife_env.services.banking import seed as bank
from vibelife_env.services.calendar import seed as cal
from vibelife_env.services.email import seed as mail
from vibelife_env.services.notion import seed as notion

AT = datetime(2026, 4, 16, 9, 30, tzinfo=ZoneInfo("Asia/Shanghai"))


def test_literals_quote_text_and_pass_numbers_nulls_and_raw_expressions() -> None:
    assert sql.q("O'Brien") == "'O''Brien'"
    assert (sql.q(None), sql.q(False), sql.q(7), sql.q(0.5)) == ("NULL", "0", "7", "0.5")
    assert sql.q(sql.Raw("(SELECT 1)")) == "(SELECT 1)"


def test_an_unknown_table_or_column_names_itself_and_what_exists() -> None:
    with pytest.raises(ValueError, match=r"no table 'mails'.*messages"):
        sql.insert("email", "mails", {"subject": "x"})
    with pytest.raises(ValueError, match=r"no column 'body'.*body_text"):
        sql.insert("email", "messages", {"body": "x"})
    with pytest.raises(ValueError, match=r"no column 'colour'"):
        sql.update("calendar", "events", {"event_id": "e1"}, colour="red")
    with pytest.raises(ValueError, match="unknown service 'mail'"):
        sql.insert("mail", "messages", {"subject": "x"})
    with pytest.raises(ValueError, match="different columns"):
        sql.insert("email", "folders", {"name": "A"}, {"name": "B", "delimiter": "/"})
    with pytest.raises(ValueError, match="no rows"):
        sql.insert("email", "folders")


def test_a_seeded_mailbox_and_message_read_back_through_the_tools(make_service) -> None:
    seed = "\n".join(
        [
            mail.mailbox("me@home.test", "Me", folders=("Bills",)),
            mail.message("<m1@x.test>", "Rent due", "Lord <l@x.test>", "me@home.test", AT, "Pay by Friday.", read=True),
            mail.message("<m2@x.test>", "Invoice", "shop@x.test", ["me@home.test"], AT, "Due.", folder="Bills"),
        ]
    )
    box = make_service("email", seed)
    assert sorted(f["name"] for f in box.call("get_folders")["folders"]) == [
        "Bills",
        "Drafts",
        "INBOX",
        "Sent",
        "Spam",
        "Trash",
    ]
    inbox = box.call("get_emails", {})["emails"]
    assert [(m["subject"], m["is_read"]) for m in inbox] == [("Rent due", True)]
    assert [m["subject"] for m in box.call("get_emails", {"folder": "Bills"})["emails"]] == ["Invoice"]


def test_a_seeded_calendar_event_is_listed(make_service) -> None:
    seed = (
        cal.calendar("u_me", "Me", "Asia/Shanghai")
        + "\n"
        + cal.event("evt_gym", "Gym", AT, AT.replace(hour=10, minute=30), location="Club")
    )
    events = make_service("calendar", seed).call(
        "list_events",
        {"calendar_id": "primary", "time_min": "2026-04-16T00:00:00+08:00", "time_max": "2026-04-17T00:00:00+08:00"},
    )
    rows = events["events"] if isinstance(events, dict) else events
    assert [(e["summary"], e["location"]) for e in rows] == [("Gym", "Club")]


def test_a_seeded_workspace_page_and_bank_account_read_back(make_service) -> None:
    space = make_service("notion", notion.workspace("u_me", "Me", "me@home.test", home="Trip plan"))
    page = space.call("API-retrieve-a-page", {"page_id": "pg_home"})
    assert "Trip plan" in str(page) and "error" not in page
    seed = "\n".join(
        [
            bank.account("acc_1", "u_me", "Everyday", 120_000, opened_at="2020-01-01T00:00:00Z"),
            bank.payee("pay_1", "u_me", "Landlord", "6222020200001234", "ICBC", added_at="2025-01-01T00:00:00Z"),
        ]
    )
    bankdb = make_service("banking", seed)
    account = bankdb.call("get_account", {"account_id": "acc_1"})
    assert (account["balance_minor"], account["currency"], account["type"]) == (120_000, "CNY", "checking")
    assert "****1234" in str(bankdb.call("list_payees", {"user_id": "u_me"}))
