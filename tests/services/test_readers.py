"""The service readers (``services.<name>.read``) on small seeded services: the rows they return,
in their stated order, and that they match the SELECT text they replaced in checks and probes.

Rows are seeded out of id order (and with tied timestamps) so an order by id, by time or by
storage can be told apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from vibelife_env.services import read
from vibelife_env.services.banking import read as bank_read
from vibelife_env.services.brokerage import read as broker_read
from vibelife_env.services.calendar import read as cal_read
from vibelife_env.services.car_rental import read as car_read
from vibelife_env.services.content_platform import read as content_read
from vibelife_env.services.credit_card import read as card_read
from vibelife_env.services.delivery_logistics import read as parcel_read
from vibelife_env.services.ecommerce import read as shop_read
from vibelife_env.services.email import read as mail_read
from vibelife_env.services.flight_booking import read as flight_read
from vibelife_env.services.health_tracker import read as health_read
from vibelife_env.services.hotel_booking import read as hotel_read
from vibelife_env.services.job_board import read as job_read
from vibelife_env.services.legal_search import read as legal_read
from vibelife_env.services.listing_platform import read as listing_read
from vibelife_env.services.maps import read as maps_read
from vibelife_env.services.notification_hub import read as hub_read
from vibelife_env.services.notion import read as notion_read
from vibelife_env.services.rail_booking import read as rail_read
from vibelife_env.services.review_platform import read as review_read
from vibelife_env.services.sql import insert
from vibelife_env.services.visa_and_advisory import read as visa_read
from vibelife_env.services.weather import read as weather_read

T0 = "2026-04-10T10:00:00+08:00"  # a time several rows share


def rows(cols: str, *values: Sequence[Any]) -> list[dict[str, Any]]:
    """Row dicts from a column list and value tuples."""
    names = cols.split()
    return [dict(zip(names, v, strict=True)) for v in values]


def seed(service: str, tables: Iterable[tuple[str, list[dict[str, Any]]]]) -> str:
    return "\n".join(insert(service, table, *rs) for table, rs in tables)


class Db:
    """A :class:`~vibelife_env.services.read.Reader` over seeded services (as a check context is)."""

    def __init__(self, **services: Any) -> None:
        self.services = services

    def sql(self, service: str, query: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
        return self.services[service].query(query, params)


def ids(found: Iterable[dict[str, Any]], key: str) -> list[Any]:
    return [r[key] for r in found]


# ============================================================================ shared
def test_where_builds_optional_filters():
    assert read.where(a=None) == ([], [])
    assert read.where(a="x", b=3, c=("p", "q")) == (["a = ?", "b = ?", "c IN (?, ?)"], ["x", 3, "p", "q"])
    assert read.select("t", ["a = ?"], "rowid") == "SELECT * FROM t WHERE a = ? ORDER BY rowid"
    assert read.select("t", [], "x, y") == "SELECT * FROM t ORDER BY x, y"


def test_world_and_initial_readers_face_the_reader_protocol(make_service):
    bank = make_service("banking", BANK_SEED)

    class World:
        def __init__(self) -> None:
            self.services = {"banking": bank}

    assert bank_read.balance(read.world(World()), "acc_a") == 500_000

    class Ctx:
        def initial_sql(self, service: str, query: str, params: Sequence[Any] = ()) -> list[dict[str, Any]]:
            assert service == "banking"
            return bank.query(query, params)

    assert ids(bank_read.payees(read.initial(Ctx())), "payee_id") == ["p_z", "p_a", "p_u2"]


# =========================================================================== banking
BANK_SEED = seed(
    "banking",
    [
        (
            "accounts",
            rows(
                "account_id user_id type name balance_minor currency opened_at",
                ("acc_a", "u1", "checking", "Everyday", 500_000, "CNY", "2020-01-01"),
                ("acc_s", "u1", "savings", "Savings", 900_000, "EUR", "2020-01-01"),
            ),
        ),
        (
            "payees",
            rows(
                "payee_id user_id name account_no account_no_masked bank_name added_at",
                ("p_z", "u1", "Zed Water", "6222 0000 1111", "****1111", "ICBC", "2026-01-02"),
                ("p_a", "u1", "Ann", "6222-0000-9999", "****9999", "BOC", "2026-01-01"),
                ("p_u2", "u2", "Zed Water", "6222000011 11", "****1111", "ICBC", "2026-01-03"),
            ),
        ),
        (
            "transactions",
            rows(
                "tx_id account_id posted_at amount_minor kind counterparty memo balance_after_minor",
                ("t3", "acc_a", T0, -10_000, "payment", "Zed Water", "Water bill", 490_000),
                ("t1", "acc_a", "2026-04-09T09:00:00+08:00", 50_000, "deposit", "Boss", "Subsidy", 500_000),
                ("t2", "acc_a", T0, -20_000, "transfer_out", "Ann", None, 470_000),
                ("t4", "acc_s", "2026-04-11T08:00:00+08:00", -30_000, "transfer_out", "Everyday", None, 870_000),
                ("t5", "acc_a", "2026-04-12T08:00:00+08:00", -500, "fee", None, "Fee", 469_500),
                ("t6", "acc_a", "2026-04-13T08:00:00+08:00", 0, "interest", None, None, 469_500),
            ),
        ),
        (
            "pending_payments",
            rows(
                "pending_id account_id payee_id amount_minor memo scheduled_for status",
                ("pp2", "acc_a", "p_z", 12_000, None, "2026-04-20", "pending"),
                ("pp1", "acc_a", "p_a", 3_000, "rent", "2026-04-15", "cancelled"),
                ("pp3", "acc_s", "p_z", 4_000, None, "2026-04-21", "posted"),
            ),
        ),
        (
            "recurring_payments",
            rows(
                "schedule_id user_id account_id payee_id amount_minor freq start_date next_run_date status",
                ("rec_b", "u1", "acc_a", "p_a", 1_000, "monthly", "2026-01-01", "2026-05-01", "active"),
                ("rec_a", "u1", "acc_a", "p_z", 2_000, "monthly", "2026-01-01", "2026-05-02", "paused"),
            ),
        ),
    ],
)


@pytest.fixture
def bank(make_service):
    return Db(banking=make_service("banking", BANK_SEED))


def test_banking_accounts(bank):
    assert bank_read.balance(bank, "acc_a") == 500_000
    assert bank_read.balance(bank, "acc_none") is None
    acct = bank_read.account(bank, "acc_s")
    assert acct is not None and acct["currency"] == "EUR" and acct["frozen"] == 0
    assert bank_read.account(bank, "acc_none") is None


def test_banking_transactions_filter_and_order(bank):
    assert ids(bank_read.transactions(bank), "tx_id") == [
        "t1",
        "t2",
        "t3",
        "t4",
        "t5",
        "t6",
    ]  # t2 < t3 at the same time
    assert ids(bank_read.transactions(bank, out=True), "tx_id") == ["t2", "t3", "t4", "t5"]
    assert ids(bank_read.transactions(bank, out=False), "tx_id") == ["t1"]
    assert ids(bank_read.transactions(bank, kind="payment"), "tx_id") == ["t3"]
    assert ids(bank_read.transactions(bank, kind=("payment", "transfer_out")), "tx_id") == ["t2", "t3", "t4"]
    assert ids(bank_read.transactions(bank, account="acc_a", kind="transfer_out"), "tx_id") == ["t2"]
    assert ids(bank_read.transactions(bank, counterparty="Ann"), "tx_id") == ["t2"]
    assert ids(bank_read.transactions(bank, since="2026-04-11"), "tx_id") == ["t4", "t5", "t6"]
    assert bank_read.transactions(bank, account="acc_s", out=False) == []
    tx = bank_read.transaction(bank, "t1")
    assert tx is not None and tx["memo"] == "Subsidy"
    assert bank_read.transaction(bank, "t9") is None


def test_banking_transactions_match_the_sql_they_replace(bank):
    sql = "SELECT * FROM transactions WHERE amount_minor < 0 AND kind = 'payment' ORDER BY posted_at, tx_id"
    assert bank_read.transactions(bank, kind="payment", out=True) == bank.sql("banking", sql)
    assert bank_read.transactions(bank, kind="payment") == bank.sql(
        "banking", "SELECT * FROM transactions WHERE kind = 'payment' ORDER BY posted_at, tx_id"
    )


def test_banking_debits_carry_the_account_currency(bank):
    got = bank_read.debits(bank)
    assert [(r["tx_id"], r["acct_currency"]) for r in got] == [("t2", "CNY"), ("t3", "CNY"), ("t4", "EUR")]


def test_banking_payees(bank):
    assert ids(bank_read.payees(bank), "payee_id") == ["p_z", "p_a", "p_u2"]  # stored order, not id order
    assert bank_read.payees(bank) == bank.sql("banking", "SELECT * FROM payees")
    assert ids(bank_read.payees(bank, user="u2"), "payee_id") == ["p_u2"]
    assert ids(bank_read.payees_to(bank, "622200001111"), "payee_id") == ["p_z", "p_u2"]  # however spaced
    assert bank_read.payees_to(bank, "6222 0000 0000") == []


def test_banking_scheduled_and_standing_orders(bank):
    assert ids(bank_read.scheduled(bank), "pending_id") == ["pp2", "pp1", "pp3"]
    assert ids(bank_read.scheduled(bank, status="pending"), "pending_id") == ["pp2"]
    assert ids(bank_read.scheduled(bank, status=("pending", "posted")), "pending_id") == ["pp2", "pp3"]
    assert ids(bank_read.scheduled(bank, payee_id="p_z", account="acc_s"), "pending_id") == ["pp3"]
    assert ids(bank_read.standing_orders(bank), "schedule_id") == ["rec_b", "rec_a"]
    assert ids(bank_read.standing_orders(bank, account="acc_a", status="active"), "schedule_id") == ["rec_b"]


def test_banking_payments_to_a_payee(bank):
    assert bank_read.payments(bank, "Zed Water") == [
        {"ref": "t3", "at": T0, "amount": 10_000},
        {"ref": "pp2", "at": "2026-04-20", "amount": 12_000},
    ]
    assert bank_read.payments(bank, account="6222 0000 9999") == [{"ref": "t2", "at": T0, "amount": 20_000}]


# ============================================================================= email
MAIL_SEED = seed(
    "email",
    [
        ("folders", rows("id name", (1, "INBOX"), (2, "Sent"), (3, "Spam"))),
        (
            "messages",
            rows(
                "id folder_id message_id subject from_addr date body_text created_at",
                (5, 1, "<b@x>", "B", "b@x.test", "2026-04-09", "second", "2026-04-09"),
                (2, 3, "<a@x>", "A", "scam@x.test", "2026-04-10", "first", "2026-04-10"),
                (7, 2, "<c@x>", "C", "me@home.test", "2026-04-08", "sent", "2026-04-08"),
                (9, 1, "<a@x>", "A again", "a@x.test", "2026-04-11", "copy", "2026-04-11"),
            ),
        ),
    ],
)


@pytest.fixture
def mail(make_service):
    return Db(email=make_service("email", MAIL_SEED))


def test_email_messages_in_id_order(mail):
    assert [(m["id"], m["folder"]) for m in mail_read.messages(mail)] == [
        (2, "Spam"),
        (5, "INBOX"),
        (7, "Sent"),
        (9, "INBOX"),
    ]
    assert ids(mail_read.messages(mail, "inbox"), "id") == [5, 9]  # any case
    assert ids(mail_read.messages(mail, "SENT"), "subject") == ["C"]
    assert mail_read.message_ids(mail) == ["<a@x>", "<b@x>", "<c@x>", "<a@x>"]


def test_email_one_message_and_its_folder(mail):
    first = mail_read.message(mail, "<a@x>")
    assert first is not None and first["id"] == 2 and first["from_addr"] == "scam@x.test"
    assert mail_read.message(mail, "<none@x>") is None
    assert mail_read.folder_of(mail, "<a@x>") == "Spam"  # the first copy
    assert mail_read.folder_of(mail, "<b@x>") == "INBOX"
    assert mail_read.folder_of(mail, "<none@x>") is None


# ========================================================================== calendar
CAL_SEED = seed(
    "calendar",
    [
        ("calendars", rows("calendar_id user_id name created_at", ("cal", "u1", "Main", "2026-01-01"))),
        (
            "events",
            rows(
                "event_id calendar_id summary start_dt end_dt status created_at updated_at",
                (
                    "evt_b",
                    "cal",
                    "Later",
                    "2026-04-12T09:00:00+08:00",
                    "2026-04-12T10:00:00+08:00",
                    "confirmed",
                    T0,
                    T0,
                ),
                ("evt_c", "cal", "Gone", "2026-04-10T09:00:00+08:00", "2026-04-10T10:00:00+08:00", "cancelled", T0, T0),
                ("evt_a", "cal", "Tie", "2026-04-12T09:00:00+08:00", "2026-04-12T11:00:00+08:00", "tentative", T0, T0),
            ),
        ),
    ],
)


def test_calendar_events(make_service):
    cal = Db(calendar=make_service("calendar", CAL_SEED))
    assert ids(cal_read.events(cal), "event_id") == ["evt_a", "evt_b"]
    assert ids(cal_read.events(cal, cancelled=True), "event_id") == ["evt_c", "evt_a", "evt_b"]
    gone = cal_read.event(cal, "evt_c")
    assert gone is not None and gone["status"] == "cancelled"
    assert cal_read.event(cal, "evt_z") is None


# ============================================================================ notion
NOTION_SEED = seed(
    "notion",
    [
        (
            "pages",
            rows(
                "page_id parent_type parent_id title created_time last_edited_time",
                ("pg_b", "workspace", "ws", "B", T0, T0),
                ("pg_a", "workspace", "ws", "A", T0, T0),
                ("pg_0", "workspace", "ws", "Old", "2026-01-01", T0),
            ),
        ),
        (
            "blocks",
            rows(
                "block_id parent_page_id type content_json archived position created_time last_edited_time",
                ("b3", "pg_a", "paragraph", '{"text": "3"}', 0, 2, T0, T0),
                ("b1", "pg_a", "paragraph", '{"text": "1"}', 0, 1, T0, T0),
                ("b0", "pg_a", "paragraph", '{"text": "0"}', 0, 1, T0, T0),
                ("bx", "pg_a", "paragraph", '{"text": "x"}', 1, 0, T0, T0),
                ("b9", "pg_b", "paragraph", "{}", 0, 0, T0, T0),
            ),
        ),
    ],
)


def test_notion_pages_and_blocks(make_service):
    db = Db(notion=make_service("notion", NOTION_SEED))
    assert ids(notion_read.pages(db), "page_id") == ["pg_0", "pg_a", "pg_b"]
    assert ids(notion_read.blocks(db, "pg_a"), "block_id") == ["b1", "b0", "b3"]  # position, then stored order
    assert ids(notion_read.blocks(db, "pg_a", archived=True), "block_id") == ["bx", "b1", "b0", "b3"]
    assert notion_read.blocks(db, "pg_none") == []


# ============================================================================== maps
def test_maps_places(make_service):
    cols = "place_id name category lat lng country city"
    db = Db(
        maps=make_service(
            "maps",
            seed(
                "maps",
                [
                    (
                        "places",
                        rows(
                            cols,
                            ("pl_z", "Zoo", "park", 1.0, 2.0, "CN", "Hangzhou"),
                            ("pl_h", "City Hospital", "hospital", 1.1, 2.1, "CN", "Hangzhou"),
                            ("pl_d", "Dr Lin", "doctor", 1.2, 2.2, "CN", "Hangzhou"),
                        ),
                    )
                ],
            ),
        )
    )
    assert ids(maps_read.places(db), "place_id") == ["pl_z", "pl_h", "pl_d"]
    assert ids(maps_read.places(db, category=("doctor", "hospital")), "name") == ["City Hospital", "Dr Lin"]
    assert ids(maps_read.places(db, ids=("pl_d", "pl_z")), "place_id") == ["pl_z", "pl_d"]
    place = maps_read.place(db, "pl_h")
    assert place is not None and place["lat"] == 1.1
    assert maps_read.place(db, "pl_none") is None


# ========================================================================= ecommerce
SHOP_SEED = seed(
    "ecommerce",
    [
        (
            "products",
            rows(
                "product_id title brand category description",
                ("prd_b", "Bar", "B", "aid", "Grab bar"),
                ("prd_a", "Ramp", "A", "aid", "RECALL notice"),
            ),
        ),
        (
            "skus",
            rows(
                "sku_id product_id price_minor attrs_json",
                ("sku_b2", "prd_b", 2_000, '{"size": "L"}'),
                ("sku_a1", "prd_a", 9_000, "{}"),
                ("sku_b1", "prd_b", 1_500, '{"size": "M"}'),
            ),
        ),
        ("stocks", rows("sku_id quantity", ("sku_b2", 0), ("sku_a1", 4), ("sku_b1", 0))),
        (
            "cart_items",
            rows(
                "cart_item_id user_id product_id sku_id qty unit_price_minor added_at",
                ("ci_2", "u1", "prd_b", "sku_b2", 1, 2_000, T0),
                ("ci_1", "u1", "prd_a", "sku_a1", 1, 9_000, T0),
                ("ci_3", "u2", "prd_a", "sku_a1", 2, 9_000, T0),
            ),
        ),
        (
            "orders",
            rows(
                "order_id user_id address_id payment_method subtotal_minor total_minor status placed_at",
                ("ord_2", "u1", "adr", "card", 2_000, 2_000, "paid", T0),
                ("ord_1", "u1", "adr", "card", 9_000, 9_000, "cancelled", T0),
                ("ord_0", "u2", "adr", "card", 1_500, 1_500, "paid", "2026-04-01"),
            ),
        ),
        (
            "order_items",
            rows(
                "item_id order_id product_id sku_id qty unit_price_minor line_total_minor",
                ("it_9", "ord_2", "prd_b", "sku_b2", 1, 2_000, 2_000),
                ("it_1", "ord_2", "prd_a", "sku_a1", 1, 9_000, 9_000),
                ("it_5", "ord_0", "prd_b", "sku_b1", 1, 1_500, 1_500),
            ),
        ),
        (
            "refunds",
            rows(
                "refund_id order_id item_id qty reason status opened_at refund_amount_minor",
                ("rf_2", "ord_2", "it_9", 1, "damaged", "submitted", T0, 2_000),
                ("rf_1", "ord_2", "it_1", 1, "late", "submitted", T0, 9_000),
            ),
        ),
    ],
)


@pytest.fixture
def shop(make_service):
    svc = make_service("ecommerce", "")
    svc.conn.execute("PRAGMA foreign_keys = OFF")  # the address and the cart header are beside the point
    svc.load_sql(SHOP_SEED)
    return Db(ecommerce=svc)


def test_ecommerce_orders_and_lines(shop):
    assert ids(shop_read.orders(shop), "order_id") == ["ord_0", "ord_1", "ord_2"]
    assert ids(shop_read.orders(shop, "u1"), "order_id") == ["ord_1", "ord_2"]  # tied placed_at: by id
    got = shop_read.order(shop, "ord_1")
    assert got is not None and got["status"] == "cancelled"
    assert shop_read.order(shop, "ord_9") is None
    assert ids(shop_read.items(shop, "ord_2"), "item_id") == ["it_9", "it_1"]  # stored order
    assert ids(shop_read.items(shop), "item_id") == ["it_9", "it_1", "it_5"]
    assert shop_read.items(shop, "ord_2") == shop.sql("ecommerce", "SELECT * FROM order_items WHERE order_id = 'ord_2'")
    assert ids(shop_read.refunds(shop, "ord_2"), "refund_id") == ["rf_2", "rf_1"]
    assert shop_read.refunds(shop, "ord_0") == []


def test_ecommerce_cart_and_catalogue(shop):
    assert ids(shop_read.cart(shop, "u1"), "cart_item_id") == ["ci_2", "ci_1"]
    assert ids(shop_read.products(shop), "product_id") == ["prd_b", "prd_a"]
    assert ids(shop_read.skus(shop), "sku_id") == ["sku_b2", "sku_a1", "sku_b1"]
    assert ids(shop_read.skus(shop, "prd_b"), "sku_id") == ["sku_b2", "sku_b1"]
    sku = shop_read.sku(shop, "sku_b1")
    assert sku is not None and sku["price_minor"] == 1_500
    assert shop_read.sku(shop, "sku_none") is None
    assert shop_read.sold_out(shop) == {"sku_b2", "sku_b1"}


# ======================================================================= credit card
CARD_SEED = seed(
    "credit_card",
    [
        (
            "cards",
            rows(
                "card_id user_id issuer product_name masked_no type credit_limit_minor available_credit_minor status",
                ("card_main", "u1", "CMB", "Gold", "****1234", "credit", 100_000, 80_000, "active"),
            ),
        ),
        (
            "unbilled_transactions",
            rows(
                "tx_id card_id posted_at amount_minor kind merchant_name",
                ("tx_c", "card_main", T0, 5_000, "purchase", "Rail"),
                ("tx_a", "card_main", T0, 5_000, "purchase", "Rail"),
                ("tx_r", "card_main", "2026-04-09", -1_000, "refund", "Shop"),
            ),
        ),
        (
            "disputes",
            rows(
                "dispute_id card_id tx_id opened_at expected_resolution_date status",
                ("dsp_2", "card_main", "tx_c", "2026-04-11", "2026-05-11", "under_review"),
                ("dsp_1", "card_main", "tx_a", "2026-04-11", "2026-05-11", "withdrawn"),
                ("dsp_0", "card_main", "tx_r", "2026-04-12", "2026-05-12", "approved"),
            ),
        ),
        (
            "payments",
            rows(
                "payment_id card_id posted_at amount_minor",
                ("pay_2", "card_main", "2026-04-12", 300),
                ("pay_1", "card_main", "2026-04-12", 200),
            ),
        ),
        ("rewards_balances", rows("card_id points_balance updated_at", ("card_main", 4_200, T0))),
        (
            "rewards_ledger",
            rows(
                "ledger_id card_id posted_at kind delta balance_after note",
                ("led_2", "card_main", T0, "redeem", -5_000, 4_200, "redeem:credit"),
                ("led_1", "card_main", "2026-04-01", "earn", 9_200, 9_200, None),
            ),
        ),
    ],
)


def test_credit_card_readers(make_service):
    db = Db(credit_card=make_service("credit_card", CARD_SEED))
    card = card_read.card(db, "card_main")
    assert card is not None and card["status"] == "active"
    assert card_read.card(db, "card_x") is None
    assert ids(card_read.unbilled(db), "tx_id") == ["tx_r", "tx_a", "tx_c"]
    assert ids(card_read.unbilled(db, kind="purchase"), "tx_id") == ["tx_a", "tx_c"]
    assert ids(card_read.unbilled(db, merchant="Shop"), "tx_id") == ["tx_r"]
    line = card_read.charge(db, "tx_r")
    assert line is not None and line["amount_minor"] == -1_000
    assert card_read.charge(db, "tx_x") is None
    assert ids(card_read.disputes(db), "dispute_id") == ["dsp_1", "dsp_2", "dsp_0"]
    assert card_read.disputed(db) == {"tx_c", "tx_r"}
    assert ids(card_read.repayments(db, "card_main"), "payment_id") == ["pay_1", "pay_2"]
    assert card_read.points(db, "card_main") == 4_200
    assert card_read.points(db, "card_x") is None
    assert ids(card_read.rewards(db, "card_main"), "ledger_id") == ["led_1", "led_2"]


# ===================================================================== hotel booking
HOTEL_SEED = seed(
    "hotel_booking",
    [
        (
            "hotels",
            rows(
                "hotel_id name city geo_lat geo_lng star_rating user_rating amenities_json address_json policies_json",
                ("h_b", "Bay Inn", "Osaka", 1.0, 2.0, 3, 4.0, '["lift"]', "{}", "{}"),
                ("h_a", "Alp Hotel", "Kyoto", 1.0, 2.0, 4, 4.5, "[]", "{}", "{}"),
                ("h_c", "Cove", "Osaka", 1.0, 2.0, 2, 3.5, "[]", "{}", "{}"),
            ),
        ),
        (
            "rate_plans",
            rows(
                "hotel_id date room_type flavor nightly_price inventory_remaining inventory_capacity "
                "cancellation_policy max_occupancy",
                ("h_b", "2026-05-02", "twin", "flex", 900, 1, 1, "free", 2),
                ("h_b", "2026-05-01", "family", "flex", 1500, 1, 1, "free", 4),
                ("h_b", "2026-05-01", "twin", "prepaid", 800, 1, 1, "none", 2),
            ),
        ),
        (
            "reservations",
            rows(
                "reservation_id confirmation_code user_id hotel_id check_in check_out room_type flavor status "
                "total_charged created_at updated_at guest_profile_json payment_method_id",
                (
                    "res_2",
                    "C2",
                    "u1",
                    "h_b",
                    "2026-05-01",
                    "2026-05-02",
                    "twin",
                    "flex",
                    "confirmed",
                    900,
                    T0,
                    T0,
                    "{}",
                    "pm",
                ),
                (
                    "res_1",
                    "C1",
                    "u1",
                    "h_a",
                    "2026-05-01",
                    "2026-05-02",
                    "twin",
                    "flex",
                    "cancelled",
                    0,
                    T0,
                    T0,
                    "{}",
                    "pm",
                ),
                (
                    "res_0",
                    "C0",
                    "u2",
                    "h_c",
                    "2026-05-01",
                    "2026-05-02",
                    "twin",
                    "flex",
                    "confirmed",
                    700,
                    "2026-04-01",
                    T0,
                    "{}",
                    "pm",
                ),
            ),
        ),
        (
            "special_requests",
            rows(
                "ticket_id reservation_id text status created_at updated_at",
                ("sr_2", "res_2", "late arrival", "open", T0, T0),
                ("sr_1", "res_1", "vegan", "open", T0, T0),
            ),
        ),
    ],
)


def test_hotel_booking_readers(make_service):
    db = Db(hotel_booking=make_service("hotel_booking", HOTEL_SEED))
    hotel = hotel_read.hotel(db, "h_a")
    assert hotel is not None and hotel["name"] == "Alp Hotel"
    assert hotel_read.hotel(db, "h_none") is None
    assert ids(hotel_read.hotels(db), "hotel_id") == ["h_b", "h_a", "h_c"]
    assert ids(hotel_read.hotels(db, "Osaka"), "hotel_id") == ["h_b", "h_c"]
    assert hotel_read.max_occupancy(db, "h_b") == 4
    assert hotel_read.max_occupancy(db, "h_b", date="2026-05-02") == 2
    assert hotel_read.max_occupancy(db, "h_b", room_type="twin") == 2
    assert hotel_read.max_occupancy(db, "h_a") == 0
    assert [(p["date"], p["room_type"]) for p in hotel_read.rate_plans(db, "h_b")] == [
        ("2026-05-01", "family"),
        ("2026-05-01", "twin"),
        ("2026-05-02", "twin"),
    ]
    assert len(hotel_read.rate_plans(db, "h_b", date="2026-05-02")) == 1
    assert ids(hotel_read.reservations(db), "reservation_id") == ["res_0", "res_1", "res_2"]
    assert ids(hotel_read.reservations(db, "u1"), "reservation_id") == ["res_1", "res_2"]
    assert ids(hotel_read.requests(db), "ticket_id") == ["sr_2", "sr_1"]
    assert ids(hotel_read.requests(db, "res_1"), "text") == ["vegan"]


# ==================================================================== flight booking
def test_flight_booking_readers(make_service):
    cols = "flight_no origin dest depart_dt arrive_dt equipment base_price carrier"
    svc = make_service("flight_booking", "")
    svc.conn.execute("PRAGMA foreign_keys = OFF")  # seats without their booking
    svc.load_sql(
        seed(
            "flight_booking",
            [
                (
                    "flights",
                    rows(
                        cols,
                        (
                            "MU1",
                            "PVG",
                            "NRT",
                            "2026-05-02T09:00:00+08:00",
                            "2026-05-02T13:00:00+09:00",
                            "A320",
                            900,
                            "MU",
                        ),
                        (
                            "MU1",
                            "PVG",
                            "NRT",
                            "2026-05-01T09:00:00+08:00",
                            "2026-05-01T13:00:00+09:00",
                            "A320",
                            900,
                            "MU",
                        ),
                        (
                            "NH2",
                            "NRT",
                            "PVG",
                            "2026-05-05T10:00:00+09:00",
                            "2026-05-05T12:00:00+08:00",
                            "B787",
                            1200,
                            "NH",
                        ),
                    ),
                ),
                (
                    "flight_status",
                    rows(
                        "flight_no date status gate delay_min last_updated",
                        ("MU1", "2026-05-02", "delayed", "B2", 40, T0),
                        ("MU1", "2026-05-01", "scheduled", "A1", 0, T0),
                    ),
                ),
                (
                    "seat_assignments",
                    rows(
                        "pnr segment_idx pax_idx seat checked_in",
                        ("PNR1", 0, 1, "12B", 1),
                        ("PNR1", 0, 0, "12A", 0),
                        ("PNR1", 1, 0, "30C", 0),
                    ),
                ),
            ],
        ),
    )
    db = Db(flight_booking=svc)
    assert [(f["flight_no"], f["depart_dt"][:10]) for f in flight_read.flights(db)] == [
        ("MU1", "2026-05-02"),
        ("MU1", "2026-05-01"),
        ("NH2", "2026-05-05"),
    ]
    first = flight_read.flight(db, "MU1")
    assert first is not None and first["depart_dt"].startswith("2026-05-01")
    assert flight_read.flight(db, "XX9") is None
    assert (flight_read.status(db, "MU1") or {})["gate"] == "A1"  # its first day
    assert (flight_read.status(db, "MU1", "2026-05-02") or {})["delay_min"] == 40
    assert flight_read.status(db, "MU1", "2026-05-09") is None
    assert ids(flight_read.seats(db, "PNR1", 0), "seat") == ["12A", "12B"]
    assert flight_read.bookings(db) == []


# ====================================================================== rail booking
def test_rail_booking_readers(make_service):
    cols = (
        "offer_id train_no date train_type origin_city dest_city origin_station dest_station depart_at arrive_at "
        "seat_class adult_fare student_fare adult_seats_remaining ordinary_student_seats_remaining "
        "graduation_student_seats_remaining refundability route_notes"
    )
    offers = [
        (
            "of_2",
            "G2",
            "2026-05-01",
            "G",
            "Hangzhou",
            "Shanghai",
            "HZ",
            "SH",
            "08:00",
            "09:00",
            "2nd",
            73,
            50,
            9,
            9,
            9,
            "yes",
            "",
        ),
        (
            "of_1",
            "G1",
            "2026-05-01",
            "G",
            "Hangzhou",
            "Beijing",
            "HZ",
            "BJ",
            "07:00",
            "12:00",
            "2nd",
            600,
            400,
            9,
            9,
            9,
            "yes",
            "Retimed",
        ),
        (
            "of_3",
            "G2",
            "2026-05-02",
            "G",
            "Hangzhou",
            "Shanghai",
            "HZ",
            "SH",
            "08:00",
            "09:00",
            "2nd",
            73,
            50,
            9,
            9,
            9,
            "yes",
            "",
        ),
    ]
    bookings = rows(
        "booking_ref offer_id status total_paid created_at contact_json passengers_json tickets_json",
        ("RB2", "of_2", "ticketed", 73, T0, "{}", "[]", "[]"),
        ("RB1", "of_1", "cancelled", 600, T0, "{}", "[]", "[]"),
    )
    db = Db(
        rail_booking=make_service(
            "rail_booking", seed("rail_booking", [("train_offers", rows(cols, *offers)), ("train_bookings", bookings)])
        )
    )
    offer = rail_read.offer(db, "of_1")
    assert offer is not None and offer["dest_city"] == "Beijing"
    assert rail_read.offer(db, "of_9") is None
    assert ids(rail_read.offers(db), "offer_id") == ["of_2", "of_1", "of_3"]
    assert ids(rail_read.offers(db, train_no="G2", date="2026-05-01"), "offer_id") == ["of_2"]
    assert ids(rail_read.offers(db, date="2026-05-01", origin="Hangzhou", dest="Shanghai"), "offer_id") == ["of_2"]
    assert ids(rail_read.bookings(db), "booking_ref") == ["RB1", "RB2"]


# ======================================================================== car rental
def test_car_rental_readers(make_service):
    db = Db(
        car_rental=make_service(
            "car_rental",
            seed(
                "car_rental",
                [
                    (
                        "rental_locations",
                        rows(
                            "location_id name city address lat lng hours_json",
                            ("loc_a", "Airport", "Kunming", "A1", 1.0, 2.0, "{}"),
                        ),
                    ),
                    (
                        "vehicles",
                        rows(
                            "vehicle_id model class energy_type seats energy_unit",
                            ("veh_a", "Van", "van", "gasoline", 7, "L"),
                        ),
                    ),
                    (
                        "insurance_plans",
                        rows(
                            "plan_id name daily_price coverage_json",
                            ("ins_full", "Full", 80, '{"excess": 0}'),
                            ("ins_basic", "Basic", 30, '{"excess": 5000}'),
                        ),
                    ),
                    (
                        "rental_offers",
                        rows(
                            "offer_id vehicle_id pickup_location_id return_location_id pickup_at return_at daily_price "
                            "deposit_amount energy_policy_json return_requirements_json cancellation_policy",
                            ("of_b", "veh_a", "loc_a", "loc_a", T0, T0, 300, 2000, "{}", "{}", "free"),
                            ("of_a", "veh_a", "loc_a", "loc_a", T0, T0, 280, 2000, "{}", "{}", "free"),
                        ),
                    ),
                    (
                        "bookings",
                        rows(
                            "booking_ref user_id offer_id insurance_plan_id status estimated_total created_at "
                            "drivers_json contact_json payment_json",
                            ("CR2", "u1", "of_b", "ins_full", "confirmed", 1000, T0, "[]", "{}", "{}"),
                            ("CR1", "u1", "of_a", "ins_basic", "cancelled", 900, T0, "[]", "{}", "{}"),
                        ),
                    ),
                    (
                        "incident_reports",
                        rows(
                            "incident_id booking_ref incident_type occurred_at location description platform_case_ref "
                            "created_at status safe_to_drive",
                            ("inc_2", "CR2", "breakdown", T0, "road", "engine", "CASE-2", T0, "open", 0),
                            ("inc_1", "CR2", "scratch", T0, "lot", "door", "CASE-1", T0, "open", 1),
                        ),
                    ),
                    ("road_policy", rows("policy_id name applies_to detail_json", ("pol_toll", "Toll", "all", "{}"))),
                ],
            ),
        )
    )
    assert ids(car_read.bookings(db), "booking_ref") == ["CR1", "CR2"]
    assert (car_read.booking(db, "CR2") or {})["status"] == "confirmed"
    assert car_read.booking(db, "CR9") is None
    assert ids(car_read.offers(db), "offer_id") == ["of_b", "of_a"]
    assert (car_read.offer(db, "of_a") or {})["daily_price"] == 280
    assert (car_read.vehicle(db, "veh_a") or {})["seats"] == 7
    assert (car_read.location(db, "loc_a") or {})["city"] == "Kunming"
    assert ids(car_read.plans(db), "plan_id") == ["ins_full", "ins_basic"]
    assert (car_read.plan(db, "ins_basic") or {})["daily_price"] == 30
    assert (car_read.policy(db, "pol_toll") or {})["name"] == "Toll"
    assert car_read.policy(db, "pol_none") is None
    assert ids(car_read.incidents(db, "CR2"), "incident_id") == ["inc_2", "inc_1"]
    assert car_read.incidents(db, "CR1") == []


# =================================================================== review platform
def test_review_platform_readers(make_service):
    merchants = rows(
        "merchant_id name category city area address price_band rating_tenths",
        ("mer_b", "Bistro", "restaurant", "Hangzhou", "West", "1 Rd", "$$", 45),
        ("mer_v", "Hall", "venue", "Hangzhou", "East", "2 Rd", "$$$", 40),
        ("mer_a", "Atelier", "restaurant", "Hangzhou", "East", "3 Rd", "$", 38),
    )
    reservations = rows(
        "reservation_id user_id merchant_id datetime party_size status created_at",
        ("rv_3", "u1", "mer_b", "2026-05-02T12:30:00", 4, "confirmed", T0),
        ("rv_1", "u1", "mer_a", "2026-05-01T19:00:00", 2, "cancelled", T0),
        ("rv_2", "u2", "mer_b", "2026-05-01T19:00:00", 6, "confirmed", T0),
        ("rv_0", "u1", "mer_b", "2026-05-02T12:30:00", 2, "confirmed", T0),
    )
    reviews = rows(
        "review_id merchant_id user_id rating body created_at",
        ("rw_2", "mer_b", "u1", 2, "cold food", "2026-04-12"),
        ("rw_1", "mer_a", "u1", 5, "great", "2026-04-11"),
        ("rw_3", "mer_b", "u2", 1, "rude", "2026-04-12"),
    )
    qa = rows(
        "qa_id merchant_id user_id question answer created_at",
        ("qa_2", "mer_b", "u1", "Vegan?", "Yes", "2026-04-02"),
        ("qa_1", "mer_b", "u2", "Parking?", None, "2026-04-01"),
    )
    db = Db(
        review_platform=make_service(
            "review_platform",
            seed(
                "review_platform",
                [("merchants", merchants), ("reservations", reservations), ("reviews", reviews), ("merchant_qa", qa)],
            ),
        )
    )
    assert (review_read.merchant(db, "mer_v") or {})["name"] == "Hall"
    assert review_read.merchant(db, "mer_x") is None
    assert ids(review_read.merchants(db), "merchant_id") == ["mer_b", "mer_v", "mer_a"]
    assert ids(review_read.merchants(db, category="restaurant", city="Hangzhou"), "merchant_id") == ["mer_b", "mer_a"]
    assert ids(review_read.merchants(db, category="restaurant", area="East"), "merchant_id") == ["mer_a"]
    assert ids(review_read.reservations(db), "reservation_id") == ["rv_1", "rv_2", "rv_3", "rv_0"]
    mine = review_read.reservations(db, user="u1", status="confirmed")
    assert ids(mine, "reservation_id") == ["rv_3", "rv_0"]  # same time: in the order made
    assert mine == db.sql(
        "review_platform", "SELECT * FROM reservations WHERE user_id = 'u1' AND status = 'confirmed'"
    )  # the user index's order
    assert ids(review_read.reservations(db, merchant="mer_b", status="confirmed"), "reservation_id") == [
        "rv_2",
        "rv_3",
        "rv_0",
    ]
    assert ids(review_read.reviews(db), "review_id") == ["rw_1", "rw_2", "rw_3"]
    assert ids(review_read.reviews(db, user="u1"), "review_id") == ["rw_1", "rw_2"]
    assert ids(review_read.reviews(db, user="u1", merchant="mer_b"), "review_id") == ["rw_2"]
    assert ids(review_read.questions(db, "mer_b"), "qa_id") == ["qa_1", "qa_2"]


# ================================================================ delivery logistics
def test_delivery_logistics_readers(make_service):
    cols = (
        "shipment_id user_id tracking_no carrier service_level status sender_json recipient_json weight_kg fee_minor "
        "created_at eta_date updated_at"
    )
    ships = rows(
        cols,
        ("ship_b", "u1", "SF2", "SF", "standard", "in_transit", "{}", "{}", 1.0, 100, T0, "2026-05-02", T0),
        ("ship_a", "u1", "SF1", "SF", "standard", "cancelled", "{}", "{}", 1.0, 100, T0, "2026-05-01", T0),
        ("ship_c", "u2", "SF3", "SF", "standard", "in_transit", "{}", "{}", 1.0, 100, T0, "2026-05-03", T0),
    )
    db = Db(
        delivery_logistics=make_service(
            "delivery_logistics",
            seed(
                "delivery_logistics",
                [
                    ("shipments", ships),
                    ("_courier_plan", rows("shipment_id pickup_at time_window", ("ship_b", T0, "evening"))),
                    (
                        "issue_tickets",
                        rows(
                            "ticket_id shipment_id issue_type description status opened_at expected_response_date",
                            ("tk_2", "ship_b", "damaged", "box crushed", "open", T0, "2026-05-05"),
                            ("tk_1", "ship_c", "missing_item", "one short", "open", T0, "2026-05-05"),
                        ),
                    ),
                ],
            ),
        )
    )
    assert ids(parcel_read.shipments(db, "u1"), "shipment_id") == ["ship_b", "ship_a"]
    assert [(s["shipment_id"], s["time_window"]) for s in parcel_read.live_shipments(db, "u1")] == [
        ("ship_b", "evening")
    ]
    assert [s["time_window"] for s in parcel_read.live_shipments(db, "u2")] == [None]
    assert (parcel_read.parcel(db, tracking_no="SF1") or {})["shipment_id"] == "ship_a"
    assert (parcel_read.parcel(db, shipment_id="ship_c") or {})["tracking_no"] == "SF3"
    assert parcel_read.parcel(db, tracking_no="XX") is None
    assert parcel_read.window(db, "ship_b") == "evening"
    assert parcel_read.window(db, "ship_a") is None
    assert ids(parcel_read.tickets(db), "ticket_id") == ["tk_2", "tk_1"]
    assert ids(parcel_read.tickets(db, "SF3"), "issue_type") == ["missing_item"]


# ================================================================== listing platform
def test_listing_platform_readers(make_service):
    listings = rows(
        "listing_id category title city price_minor status agent_id listed_at",
        ("ls_b", "rent", "Flat B", "Hangzhou", 300_000, "active", "ag_1", T0),
        ("ls_a", "rent", "Flat A", "Hangzhou", 250_000, "delisted", "ag_2", T0),
        ("ls_c", "rent", "Flat C", "Hangzhou", 300_000, "active", "ag_1", T0),
        ("ls_s", "sale_house", "House", "Hangzhou", 9_000_000, "active", "ag_1", T0),
    )
    db = Db(
        listing_platform=make_service(
            "listing_platform",
            seed(
                "listing_platform",
                [
                    (
                        "agents",
                        rows(
                            "agent_id name agency phone", ("ag_1", "Li", "Home Co", "1"), ("ag_2", "Wu", "Flat Co", "2")
                        ),
                    ),
                    ("listings", listings),
                    ("saved_listings", rows("user_id listing_id saved_at", ("u1", "ls_c", T0), ("u1", "ls_a", T0))),
                    (
                        "viewings",
                        rows(
                            "viewing_id user_id listing_id scheduled_at status created_at",
                            ("vw_2", "u1", "ls_c", "2026-05-02T19:00", "scheduled", T0),
                            ("vw_1", "u1", "ls_a", "2026-05-01T19:00", "cancelled", T0),
                            ("vw_3", "u1", "ls_b", "2026-05-03T19:00", "scheduled", T0),
                        ),
                    ),
                    (
                        "contacts",
                        rows(
                            "contact_id user_id listing_id message created_at",
                            ("ct_1", "u1", "ls_b", "hi", "2026-04-10"),
                            ("ct_2", "u1", "ls_a", "hello", "2026-04-11"),
                            ("ct_0", "u1", "ls_c", "again", "2026-04-11"),
                        ),
                    ),
                ],
            ),
        )
    )
    rent = listing_read.listings(db, category="rent", city="Hangzhou")
    assert ids(rent, "listing_id") == ["ls_a", "ls_b", "ls_c"]  # cheapest first, then stored order
    assert rent == db.sql("listing_platform", "SELECT * FROM listings WHERE category = 'rent' AND city = 'Hangzhou'")
    assert ids(listing_read.listings(db, category="rent", status="active"), "listing_id") == ["ls_b", "ls_c"]
    assert (listing_read.listing(db, "ls_s") or {})["category"] == "sale_house"
    assert listing_read.listing(db, "ls_x") is None
    assert listing_read.saved(db, "u1") == {"ls_a", "ls_c"}
    assert ids(listing_read.viewings(db, "u1"), "viewing_id") == ["vw_2", "vw_1", "vw_3"]
    assert ids(listing_read.viewings(db, "u1", status="scheduled"), "viewing_id") == ["vw_2", "vw_3"]
    last = listing_read.last_contacted(db, "u1")
    assert last is not None and last["listing_id"] == "ls_a"  # the latest contact, the higher id on a tie
    assert listing_read.last_contacted(db, "u2") is None


# ================================================================== content platform
def test_content_platform_readers(make_service):
    db = Db(
        content_platform=make_service(
            "content_platform",
            seed(
                "content_platform",
                [
                    (
                        "users",
                        rows("user_id handle nickname joined_at", ("u1", "me", "Me", T0), ("u2", "you", "You", T0)),
                    ),
                    (
                        "notes",
                        rows(
                            "note_id author_id title body category published_at",
                            ("n_b", "u1", "Run", "Join us", "健身", "2026-04-12"),
                            ("n_a", "u1", "Tips", "Stretch", "健身", "2026-04-11"),
                            ("n_x", "u2", "Other", "Hi", "其他", "2026-04-11"),
                        ),
                    ),
                    (
                        "comments",
                        rows(
                            "comment_id note_id user_id body created_at",
                            ("cm_ask", "n_x", "u2", "Link?", T0),
                            ("cm_2", "n_x", "u1", "Here", T0),
                            ("cm_1", "n_b", "u1", "Thanks", T0),
                        ),
                    ),
                ],
            ),
        )
    )
    assert ids(content_read.notes(db, "u1"), "note_id") == ["n_b", "n_a"]
    assert ids(content_read.comments(db, "u1"), "comment_id") == ["cm_2", "cm_1"]
    assert (content_read.comment(db, "cm_ask") or {})["note_id"] == "n_x"
    assert content_read.comment(db, "cm_none") is None


# ====================================================================== legal search
def test_legal_search_readers(make_service):
    case_cols = (
        "case_id case_number title court_id case_type cause judgment_date parties summary facts reasoning holding "
        "ruling outcome keywords"
    )
    case = ("x",) * 6 + ("2025-01-01",) + ("x",) * 6

    def case_row(case_id: str, court: str, kind: str, outcome: str) -> tuple[Any, ...]:
        return (case_id, "No. 1", "T", court, kind, *case[5:13], outcome, "住宅,押金")

    db = Db(
        legal_search=make_service(
            "legal_search",
            seed(
                "legal_search",
                [
                    (
                        "courts",
                        rows(
                            "court_id name level region",
                            ("ct_hz", "HZ court", "基层法院", "杭州"),
                            ("ct_sh", "SH", "中级法院", "上海"),
                        ),
                    ),
                    (
                        "cases",
                        rows(
                            case_cols,
                            case_row("case_b", "ct_sh", "合同纠纷", "支持"),
                            case_row("case_a", "ct_hz", "侵权责任", "驳回"),
                        ),
                    ),
                    (
                        "statutes",
                        rows(
                            "statute_id name issuer effective_date status",
                            ("st_b", "B law", "全国人大", "2020-01-01", "现行有效"),
                            ("st_a", "A law", "杭州市", "2010-01-01", "已废止"),
                        ),
                    ),
                    (
                        "statute_articles",
                        rows(
                            "article_id statute_id article_no seq heading text",
                            ("art_b1", "st_b", "1", 1, "服务不符合约定", "..."),
                            ("art_a1", "st_a", "1", 1, "核定赔付期限", "..."),
                        ),
                    ),
                    ("saved_cases", rows("saved_id user_id case_id saved_at", ("sv_1", "u1", "case_a", T0))),
                ],
            ),
        )
    )
    assert ids(legal_read.statutes(db), "statute_id") == ["st_b", "st_a"]
    assert ids(legal_read.articles(db), "article_id") == ["art_b1", "art_a1"]
    assert ids(legal_read.cases(db), "case_id") == ["case_b", "case_a"]
    assert [(c["case_id"], c["region"]) for c in legal_read.judgments(db)] == [("case_b", "上海"), ("case_a", "杭州")]
    assert legal_read.saved_cases(db) == {"case_a"}


# ========================================================================= brokerage
def test_brokerage_readers(make_service):
    db = Db(
        brokerage=make_service(
            "brokerage",
            seed(
                "brokerage",
                [
                    (
                        "accounts",
                        rows(
                            "account_id user_id broker account_type cash_minor opened_at",
                            ("brk_1", "u1", "Huatai", "cash", 80_000, "2020-01-01"),
                            ("brk_2", "u1", "Huatai", "cash", 0, "2020-01-01"),
                        ),
                    ),
                    (
                        "positions",
                        rows(
                            "account_id symbol kind qty_milli avg_cost_minor",
                            ("brk_1", "600519", "stock", 2_000, 150_000),
                            ("brk_1", "000001", "fund", 0, 100),
                            ("brk_2", "600519", "stock", 1_000, 150_000),
                        ),
                    ),
                    (
                        "orders",
                        rows(
                            "order_id account_id symbol side qty_milli order_type status placed_at",
                            ("ord_b", "brk_1", "600519", "sell", 1_000, "market", "filled", T0),
                            ("ord_a", "brk_1", "600519", "buy", 1_000, "market", "filled", T0),
                            ("ord_c", "brk_2", "600519", "buy", 1_000, "market", "pending", "2026-04-01"),
                        ),
                    ),
                    (
                        "funds",
                        rows(
                            "fund_code fund_name category current_nav_minor",
                            ("000002", "Bond", "bond", 100),
                            ("000001", "Money", "money_market", 100),
                        ),
                    ),
                ],
            ),
        )
    )
    assert broker_read.cash(db, "brk_1") == 80_000
    assert broker_read.cash(db, "brk_9") is None
    assert (broker_read.position(db, "brk_1", "600519") or {})["qty_milli"] == 2_000
    assert broker_read.position(db, "brk_1", "XXX") is None
    assert ids(broker_read.positions(db, "brk_1"), "symbol") == ["600519", "000001"]
    assert ids(broker_read.orders(db), "order_id") == ["ord_c", "ord_a", "ord_b"]
    assert ids(broker_read.orders(db, "brk_1"), "order_id") == ["ord_a", "ord_b"]
    assert ids(broker_read.funds(db), "fund_code") == ["000002", "000001"]


# ================================================================= visa and advisory
def test_visa_and_advisory_readers(make_service):
    db = Db(
        visa_and_advisory=make_service(
            "visa_and_advisory",
            seed(
                "visa_and_advisory",
                [
                    (
                        "visa_products",
                        rows(
                            "product_id destination nationality name processing_time_days fee_amount fee_currency delivery",
                            ("vp_jp", "JP", "CN", "Tourist", 5, 300, "CNY", "evisa"),
                        ),
                    ),
                    (
                        "visa_applications",
                        rows(
                            "application_id user_id product_id status created_at updated_at",
                            ("app_2", "u1", "vp_jp", "draft", T0, T0),
                            ("app_1", "u1", "vp_jp", "submitted", T0, T0),
                            ("app_3", "u2", "vp_jp", "draft", T0, T0),
                        ),
                    ),
                    (
                        "application_documents",
                        rows(
                            "doc_id application_id kind ref uploaded_at",
                            ("doc_b", "app_1", "photo", "p.jpg", T0),
                            ("doc_a", "app_1", "passport", "pp.pdf", T0),
                        ),
                    ),
                    ("advisories", rows("country_code level text updated_at", ("JP", 2, "Caution", T0))),
                    (
                        "advisory_subscriptions",
                        rows("sub_id country_code sink created_at", ("sub_1", "JP", "email", T0)),
                    ),
                ],
            ),
        )
    )
    assert (visa_read.product(db, "vp_jp") or {})["processing_time_days"] == 5
    assert visa_read.product(db, "vp_xx") is None
    assert ids(visa_read.applications(db, "u1"), "application_id") == ["app_1", "app_2"]
    assert ids(visa_read.documents(db, "app_1"), "doc_id") == ["doc_a", "doc_b"]
    assert (visa_read.advisory(db, "JP") or {})["level"] == 2
    assert visa_read.advisory(db, "TH") is None
    assert visa_read.advisory_followed(db, "JP") is True
    assert visa_read.advisory_followed(db, "TH") is False


# =========================================================================== weather
def test_weather_readers(make_service):
    cols = "geo_key date tmin tmax condition precip_mm precip_prob wind_kmh"
    db = Db(
        weather=make_service(
            "weather",
            seed(
                "weather",
                [
                    (
                        "climate_profiles",
                        rows(
                            "profile_id seasonal_temp_means_json precip_freq_json wind_baseline_kmh humidity_baseline_pct "
                            "aqi_baseline_json",
                            ("cp", "{}", "{}", 10, 60, "{}"),
                        ),
                    ),
                    (
                        "locations",
                        rows(
                            "geo_key city country lat lng timezone climate_profile_id",
                            ("resort", "Chongli", "CN", 1.0, 2.0, "Asia/Shanghai", "cp"),
                        ),
                    ),
                    (
                        "daily_weather",
                        rows(
                            cols,
                            ("resort", "2026-01-03", -10, -2, "snow", 5, 0.8, 20),
                            ("resort", "2026-01-02", -9, -1, "storm", 9, 0.9, 60),
                        ),
                    ),
                ],
            ),
        )
    )
    assert [(d["date"], d["condition"]) for d in weather_read.daily(db, "resort")] == [
        ("2026-01-02", "storm"),
        ("2026-01-03", "snow"),
    ]
    assert (weather_read.day(db, "resort", "2026-01-03") or {})["tmax"] == -2
    assert weather_read.day(db, "resort", "2026-01-09") is None
    assert weather_read.daily(db, "nowhere") == []


# ========================================================================= job board
def test_job_board_readers(make_service):
    job_cols = (
        "job_id company_id title city category salary_min_minor salary_max_minor experience education jd requirements "
        "posted_at"
    )
    db = Db(
        job_board=make_service(
            "job_board",
            seed(
                "job_board",
                [
                    (
                        "companies",
                        rows("company_id name industry size city intro", ("co_1", "Acme", "IT", "100", "HZ", ".")),
                    ),
                    (
                        "jobs",
                        rows(
                            job_cols,
                            ("job_b", "co_1", "Dev", "HZ", "it", 1, 2, "1-3", "bachelor", ".", ".", T0),
                            ("job_a", "co_1", "QA", "HZ", "it", 1, 2, "1-3", "bachelor", ".", ".", T0),
                        ),
                    ),
                    (
                        "resumes",
                        rows(
                            "resume_id user_id name headline education updated_at", ("cv", "u1", "Me", "Dev", "BSc", T0)
                        ),
                    ),
                    (
                        "applications",
                        rows(
                            "application_id user_id job_id resume_id applied_at updated_at",
                            ("ap_2", "u1", "job_b", "cv", T0, T0),
                            ("ap_1", "u1", "job_a", "cv", T0, T0),
                        ),
                    ),
                    ("saved_jobs", rows("user_id job_id saved_at", ("u1", "job_a", T0))),
                    (
                        "chats",
                        rows(
                            "chat_id user_id job_id company_id recruiter_name created_at last_at",
                            ("ch", "u1", "job_b", "co_1", "Wang", T0, T0),
                        ),
                    ),
                    (
                        "chat_messages",
                        rows(
                            "message_id chat_id sender body sent_at",
                            ("m3", "ch", "user", "second", "2026-04-11"),
                            ("m1", "ch", "recruiter", "hello", "2026-04-10"),
                            ("m2", "ch", "user", "first", "2026-04-12"),
                        ),
                    ),
                ],
            ),
        )
    )
    assert ids(job_read.jobs(db), "job_id") == ["job_b", "job_a"]
    assert ids(job_read.applications(db), "application_id") == ["ap_2", "ap_1"]
    assert job_read.saved_jobs(db) == {"job_a"}
    assert job_read.user_chat(db) == ["second", "first"]  # the order stored


# ================================================================== notification hub
def test_notification_hub_readers(make_service):
    db = Db(
        notification_hub=make_service(
            "notification_hub",
            seed(
                "notification_hub",
                [
                    (
                        "subscriptions",
                        rows(
                            "subscription_id user_id source type target status created_at updated_at",
                            ("sub_2", "u1", "gov", "policy_update", "JP", "active", T0, T0),
                            ("sub_1", "u1", "gov", "policy_update", "TH", "paused", T0, T0),
                            ("sub_3", "u1", "shop", "price_drop", "sku", "active", T0, T0),
                        ),
                    ),
                    ("official_accounts", rows("account_id name", ("oa_building", "Building"))),
                    (
                        "official_account_subscriptions",
                        rows("user_id account_id subscribed_at", ("u1", "oa_building", T0)),
                    ),
                    (
                        "official_account_posts",
                        rows(
                            "post_id account_id title summary published_at",
                            ("post_move", "oa_building", "Moved", "Now B2", T0),
                        ),
                    ),
                ],
            ),
        )
    )
    assert (hub_read.post(db, "post_move") or {})["summary"] == "Now B2"
    assert hub_read.post(db, "post_none") is None
    assert hub_read.follows(db, "u1", "oa_building") is True
    assert hub_read.follows(db, "u2", "oa_building") is False
    assert ids(hub_read.subscriptions(db), "subscription_id") == ["sub_2", "sub_1", "sub_3"]
    assert ids(hub_read.subscriptions(db, status="active", type="policy_update"), "target") == ["JP"]


# ==================================================================== health tracker
def test_health_tracker_readers(make_service):
    db = Db(
        health_tracker=make_service(
            "health_tracker",
            seed(
                "health_tracker",
                [
                    (
                        "metrics",
                        rows(
                            "metric_id user_id type value value_text unit recorded_at",
                            ("m_2", "mum", "blood_pressure", 150, "150/95", "mmHg", "2026-04-12T08:00:00+08:00"),
                            ("m_1", "mum", "blood_pressure", 130, "130/85", "mmHg", "2026-04-11T08:00:00+08:00"),
                            ("m_3", "mum", "weight", 60, None, "kg", "2026-04-10T08:00:00+08:00"),
                        ),
                    )
                ],
            ),
        )
    )
    assert ids(health_read.metrics(db, "mum", "blood_pressure"), "metric_id") == ["m_1", "m_2"]
    assert health_read.metrics(db, "dad", "blood_pressure") == []
