"""The text checks: every listed wording, near misses, negation, Chinese, and seeded round trips."""

from __future__ import annotations

import random
import re
from datetime import date, time, timedelta
from decimal import Decimal

import pytest

from vibelife_env.checks.text import (
    ASKS_APPROVAL,
    MEDICATION_DECISION,
    REFUSED_PAYMENT,
    REJECTED,
    REMOVED,
    SCAM_WARNING,
    Phrases,
    clauses,
    contains_all,
    contains_any,
    contains_text,
    find_amounts,
    find_dates,
    find_durations,
    find_times,
    mentions_amount,
    mentions_any_date,
    mentions_date,
    mentions_duration,
    mentions_name,
    mentions_time,
    norm_name,
    proposed,
    sentences,
)

MAY8 = date(2026, 5, 8)


# --- dates ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-05-08", MAY8),
        ("2026/05/08", MAY8),
        ("2026/5/8", MAY8),
        ("2026.05.08", MAY8),
        ("due 2026-05-08T17:00+08:00", MAY8),
        ("8 May", MAY8),
        ("8th May", MAY8),
        ("8th of May 2026", MAY8),
        ("the 8th of May", MAY8),
        ("May 8", MAY8),
        ("May 8th, 2026", MAY8),
        ("MAY 8", MAY8),
        ("Fri 8 May", MAY8),
        ("Friday, May 8th", MAY8),
        ("on Friday 8 May 2026.", MAY8),
        ("20 September 2026", date(2026, 9, 20)),
        ("Sept 20, 2026", date(2026, 9, 20)),
        ("Sep 20", date(2026, 9, 20)),
        ("Dec. 1", date(2026, 12, 1)),
        ("1 March", date(2026, 3, 1)),
        ("8 May 2027", date(2027, 5, 8)),
        ("5月8日", MAY8),
        ("5月8号", MAY8),
        ("2026年5月8日", MAY8),
        ("2026 年 5 月 8 日", MAY8),
        ("五月八日", MAY8),
        ("十二月二十五号", date(2026, 12, 25)),
        ("二〇二六年十二月廿五日", date(2026, 12, 25)),
        ("５月８日（周五）", MAY8),
    ],
)
def test_find_dates_reads_every_listed_form(text, expected):
    assert find_dates(text, year=2026) == [expected]


def test_a_slashed_date_with_one_reading_is_read_and_one_with_two_is_not():
    jul23 = date(2026, 7, 23)
    assert find_dates("下一次训练：明天 7/23（周四）19:00", year=2026) == [jul23]
    assert find_dates("on 23/7 and 7/23/2026", year=2026) == [jul23, jul23]
    assert find_dates("5/8, 08/05, 7/32, 0/23, 12.5/13, 1/2 cup", year=2026) == []
    assert mentions_date("see you 7/23", "2026-07-23") and not mentions_date("see you 7/22", "2026-07-23")
    # Chinese text runs year, month, day: there 7/9 is 9 July; English text leaves it unread
    assert find_dates("未来一周只有一项：7/9 水费 43.70 元", year=2026) == [date(2026, 7, 9)]
    assert find_dates("only one: 7/9 water 43.70", year=2026) == []
    # Chinese text also writes a date "9-25" (a real agent's "预计 9-25 左右送到"); English leaves it a range,
    # and a Chinese amount range stays amounts
    assert find_dates("预计 9-25（周五）15:00 前送到", year=2026) == [date(2026, 9, 25)]
    assert find_dates("9-25 people came", year=2026) == []
    assert [float(a) for a in find_amounts("费用 5-10 元")] == [5.0, 10.0]


@pytest.mark.parametrize(
    "text",
    [
        "may I ask something?",
        "you may 2 ways",
        "March on, soldiers",
        "8 Mayfair Road",
        "08/05",
        "5/8",
        "5/8/2026",
        "08.05.2026",
        "20260508",
        "May 2026",
        "30 February 2026",
        "2026-02-30",
        "Mar 32",
        "5月8",
        "五月",
        "12个月",
    ],
)
def test_find_dates_ignores_near_misses_and_ambiguous_forms(text):
    assert find_dates(text, year=2026) == []


def test_date_without_year_needs_a_default_year():
    assert find_dates("8 May and 2026-05-09") == [date(2026, 5, 9)]
    assert find_dates("8 May", year=2030) == [date(2030, 5, 8)]


def test_hyphen_ranges_name_both_days_in_text_order():
    assert find_dates("8-10 May", year=2026) == [MAY8, date(2026, 5, 10)]
    assert find_dates("May 8-10, 2026 then 5月12日", year=2026) == [MAY8, date(2026, 5, 10), date(2026, 5, 12)]


def test_mentions_date_takes_a_date_or_an_iso_string():
    assert mentions_date("Friday, May 8th", "2026-05-08")
    assert mentions_date("see you 8 May", MAY8)
    assert not mentions_date("8 May 2025", MAY8)
    assert mentions_date("8 May", MAY8, year=2026)
    assert not mentions_date("8 May", MAY8, year=2025)
    with pytest.raises(ValueError, match="ISO date"):
        mentions_date("8 May", "8 May")


def test_mentions_any_date():
    assert mentions_any_date("back on 5月9日", ["2026-05-08", date(2026, 5, 9)])
    assert not mentions_any_date("back on 5月10日", ["2026-05-08", "2026-05-09"])


# --- times ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("17:00", time(17, 0)),
        ("at 9:30", time(9, 30)),
        ("17:00:30", time(17, 0)),
        ("5 pm", time(17, 0)),
        ("5pm", time(17, 0)),
        ("5 PM", time(17, 0)),
        ("5:30 p.m.", time(17, 30)),
        ("11 a.m.", time(11, 0)),
        ("12:30 am", time(0, 30)),
        ("12 pm", time(12, 0)),
        ("12 noon", time(12, 0)),
        ("at noon", time(12, 0)),
        ("midday", time(12, 0)),
        ("midnight", time(0, 0)),
        ("17h", time(17, 0)),
        ("17h30", time(17, 30)),
        ("下午5点", time(17, 0)),
        ("17点", time(17, 0)),
        ("17点半", time(17, 30)),
        ("晚上7点30分", time(19, 30)),
        ("上午9:30", time(9, 30)),
        ("上午９：３０", time(9, 30)),
        ("七点一刻", time(7, 15)),
        ("十点三刻", time(10, 45)),
        ("17时30分", time(17, 30)),
        ("五点钟", time(5, 0)),
        ("中午1点", time(13, 0)),
        ("晚上12点", time(0, 0)),
        ("凌晨2点", time(2, 0)),
        ("5点前到", time(5, 0)),
        ("十二点", time(12, 0)),
        ("on 2026-04-23 18:20: appealed", time(18, 20)),  # a colon as punctuation after the time
        ("18:20:30", time(18, 20)),
    ],
)
def test_find_times_reads_every_listed_form(text, expected):
    assert find_times(text) == [expected]


@pytest.mark.parametrize(
    "text",
    [
        "17.00",
        "5.30",
        "5 o'clock",
        "24:00",
        "3:2",
        "12:30:5",
        "within 12h",
        "in 24h",
        "afternoon tea",
        "以下3点建议",
        "有三点：",
        "第3点",
        "快一点",
        "3点5",
        "3小时",
    ],
)
def test_find_times_ignores_ambiguous_forms(text):
    assert find_times(text) == []


def test_mentions_time():
    assert mentions_time("see you at 5 pm", "17:00")
    assert mentions_time("下午5点见", time(17, 0))
    assert not mentions_time("17:00", "05:00")
    with pytest.raises(ValueError, match="ISO time"):
        mentions_time("5 pm", "5 pm")


# --- amounts ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected", "money"),
    [
        ("¥12,345.50", "12345.50", True),
        ("12345.5 CNY", "12345.5", True),
        ("CNY 12 345.50", "12345.50", True),
        ("CNY12345.5", "12345.5", True),
        ("RMB 800", "800", True),
        ("12\u2009345.50", "12345.50", False),
        ("12\u202f345.50", "12345.50", False),
        ("12'345.50", "12345.50", False),
        ("12,345", "12345", False),
        ("1,234,567.89", "1234567.89", False),
        ("1.23万", "12300", False),
        ("1.23万元", "12300", True),
        ("3万元", "30000", True),
        ("5千元", "5000", True),
        ("两万元", "20000", True),
        ("三百元", "300", True),
        ("500元", "500", True),
        ("50块", "50", True),
        ("50块钱", "50", True),
        ("3000円", "3000", True),
        ("$1,000", "1000", True),
        ("US$25", "25", True),
        ("USD 25.00", "25", True),
        ("100 dollars", "100", True),
        ("€5", "5", True),
        ("5 €", "5", True),
        ("EUR 5", "5", True),
        ("JPY 3000", "3000", True),
        ("-12.50", "-12.50", False),
        ("¥-12", "-12", True),
        ("-¥12", "-12", True),
        ("a fee of 0.5", "0.5", False),
        ("ｆｅｅ １２３", "123", False),
        ("in 2000 yuan", "2000", True),
        ("a charge of 2188.00", "2188.00", False),
        ("a charge of 2188.00 CNY", "2188.00", True),
        ("5%", "5", False),
        ("2kg", "2", False),
    ],
)
def test_find_amounts_reads_every_listed_form(text, expected, money):
    assert find_amounts(text) == [Decimal(expected)]
    assert find_amounts(text, money_only=True) == ([Decimal(expected)] if money else [])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2026-05-08", 2026),
        ("2026-05-08", 8),
        ("8 May 2026", 2026),
        ("May 2026", 2026),
        ("2026年", 2026),
        ("in 2026", 2026),
        ("08/05", 8),
        ("17:00", 17),
        ("24:00", 24),
        ("5 pm", 5),
        ("17h30", 17),
        ("下午5点", 5),
        ("+86 138 0000 4417", 4417),
        ("138 0000 4417", 4417),
        ("13800004417", 4417),
        ("010-12345678", 12345678),
        ("Tel: 021-6234 5678", 5678),
        ("PNR ABC123", 123),
        ("flight MU5101", 5101),
        ("ABC-123", 123),
        ("123ABC", 123),
        ("ref 4417", 4417),
        ("booking no. 4417", 4417),
        ("order #12345", 12345),
        ("card ending in 4417", 4417),
        ("尾号4417", 4417),
        ("第3名", 3),
        ("3rd floor", 3),
        ("version 1.2.3", 1.2),
        ("code 0042", 42),
        ("元素", 1),
    ],
)
def test_numbers_inside_dates_times_phones_and_ids_are_not_amounts(text, value):
    assert not mentions_amount(text, value)


def test_amounts_survive_next_to_dates_and_times():
    text = "On 2026-05-08 500 yuan was paid; at 17:00 30 guests; ref PNR ABC123, 3 bags"
    assert find_amounts(text) == [Decimal(500), Decimal(30), Decimal(3)]


def test_grouping_must_be_exact():
    assert find_amounts("1,2345") == [Decimal(1), Decimal(2345)]
    assert find_amounts("12,50 €") == [Decimal(12), Decimal(50)]  # decimal commas are not read


def test_mentions_amount_tolerance_sign_and_errors():
    assert mentions_amount("Total ¥12,345.50", Decimal("12345.5"))
    assert mentions_amount("Total ¥12,345.50", 12345.51)
    assert not mentions_amount("Total ¥12,345.50", "12345.52")
    assert mentions_amount("about 12,300", "12345", tolerance=50)
    assert not mentions_amount("refund -500", 500)
    assert not mentions_amount("6 months", 6, money_only=True)
    with pytest.raises(ValueError, match="value"):
        mentions_amount("5", "five")
    with pytest.raises(ValueError, match="tolerance"):
        mentions_amount("5", 5, tolerance=-1)


# --- durations --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("six months", (6, "month")),
        ("6 months", (6, "month")),
        ("a 6-month lease", (6, "month")),
        ("18 months", (18, "month")),
        ("twenty-four months", (24, "month")),
        ("1.5 years", (Decimal("1.5"), "year")),
        ("two and a half years", (Decimal("2.5"), "year")),
        ("a year and a half", (Decimal("1.5"), "year")),
        ("half a year", (Decimal("0.5"), "year")),
        ("a half-year contract", (Decimal("0.5"), "year")),
        ("for a month", (1, "month")),
        ("a fortnight", (2, "week")),
        ("a couple of weeks", (2, "week")),
        ("3 wks", (3, "week")),
        ("10 days", (10, "day")),
        ("六个月", (6, "month")),
        ("6个月", (6, "month")),
        ("十八个月", (18, "month")),
        ("半年", (Decimal("0.5"), "year")),
        ("半个月", (Decimal("0.5"), "month")),
        ("一年半", (Decimal("1.5"), "year")),
        ("一个半月", (Decimal("1.5"), "month")),
        ("三周", (3, "week")),
        ("两个星期", (2, "week")),
        ("三天", (3, "day")),
        ("两年", (2, "year")),
    ],
)
def test_find_durations_reads_every_listed_form(text, expected):
    assert find_durations(text) == [(Decimal(expected[0]), expected[1])]


@pytest.mark.parametrize(
    "text",
    [
        "6 monthly payments",
        "half-yearly review",
        "twice a day",
        "¥3000 a month",
        "100 yuan a month",
        "another month",
        "五月",
        "5月8日",
        "2026年",
        "上半年",
        "一年级",
        "第三天",
        "一周年",
        "3 hours",
    ],
)
def test_find_durations_ignores_rates_months_and_grades(text):
    assert find_durations(text) == []


@pytest.mark.parametrize(
    ("text", "amount", "unit", "expected"),
    [
        ("half a year", 6, "months", True),
        ("六个月", Decimal("0.5"), "year", True),
        ("12 months", 1, "year", True),
        ("a fortnight", 14, "days", True),
        ("two weeks", 1, "fortnight", True),
        ("18 months", 1.5, "years", True),
        ("30 days", 1, "month", False),
        ("52 weeks", 1, "year", False),
        ("6 months", 7, "months", False),
        ("6-12 months", 6, "months", False),
    ],
)
def test_mentions_duration_converts_within_unit_families(text, amount, unit, expected):
    assert mentions_duration(text, amount, unit) is expected


def test_mentions_duration_rejects_unknown_units():
    with pytest.raises(ValueError, match="unit"):
        mentions_duration("3 hours", 3, "hours")


# --- names ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  LI   Guoqiang ", "li guoqiang"),
        ("José Álvarez-Núñez", "jose alvarez nunez"),
        ("Søren Kierkegaard", "soren kierkegaard"),
        ("Ｌｉ\u3000Ｇｕｏｑｉａｎｇ", "li guoqiang"),
        ("O'Brien, Jr.", "o brien jr"),
        ("李国强", "李国强"),
        ("阿卜杜拉·李", "阿卜杜拉 李"),
    ],
)
def test_norm_name(raw, expected):
    assert norm_name(raw) == expected


@pytest.mark.parametrize(
    ("text", "name", "aliases", "expected"),
    [
        ("Dear li guoqiang,", "Li Guoqiang", (), True),
        ("Dear Guoqiang Li,", "Li Guoqiang", (), True),
        ("LI GUOQIANG", "Li Guoqiang", (), True),
        ("Li Guo-qiang", "Li Guoqiang", (), True),
        ("Li Guoqiang", "Li Guo-qiang", (), True),
        ("Ｌｉ Ｇｕｏｑｉａｎｇ", "Li Guoqiang", (), True),
        ("和Li Guoqiang见面", "Li Guoqiang", (), True),
        ("José Álvarez called", "jose alvarez", (), True),
        ("李国强先生你好", "Li Guoqiang", ("李国强",), True),
        ("Dad's insulin", "Li Guoqiang", ("Dad",), True),
        ("Guoqiang called", "Li Guoqiang", (), False),
        ("Lin A", "Li Na", (), False),
        ("Daddy", "Li Guoqiang", ("Dad",), False),
        ("Lilian", "Li", (), False),
        ("李国", "李国强", (), False),
    ],
)
def test_mentions_name(text, name, aliases, expected):
    assert mentions_name(text, name, aliases) is expected


def test_mentions_name_rejects_empty_names():
    with pytest.raises(ValueError, match="empty"):
        mentions_name("anything", " ,. ")


# --- sentences, clauses and phrases -----------------------------------------------------


def test_sentences_split_english_and_chinese_but_not_abbreviations_or_decimals():
    text = "Ask Dr. Wang at 5 p.m. about 8.5 units. 好的！我来安排。Done?\nNext line"
    assert sentences(text) == ["Ask Dr. Wang at 5 p.m. about 8.5 units.", "好的!", "我来安排。", "Done?", "Next line"]


def test_clauses_split_at_commas_and_contrast_but_not_inside_numbers():
    assert clauses("Total 12,345; don't pay, it's fake but call 17:00") == [
        "Total 12,345",
        "don't pay",
        "it's fake",
        "call 17:00",
    ]
    assert clauses("不是诈骗，而是真的") == ["不是诈骗", "真的"]


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("refund", "they refunded me", True),
        ("refund", "two refunds", True),
        ("refund", "refunding now", True),
        ("refund", "nonrefundable", False),
        ("skip a dose", "he skipped the evening dose", True),
        ("change dose", "change the dose", True),
        ("apply", "I applied yesterday", True),
        ("reduce insulin", "reducing his insulin", True),
        ("reduce insulin", "reduce the amount of his insulin", False),
        ("reduce insulin", "reduce stress, insulin", False),
        ("look alike", "a look-alike domain", True),
        ("pay", "I paid", True),
        ("减少 胰岛素", "减少他的胰岛素", True),
        ("调整剂量", "调整 剂量", False),
    ],
)
def test_phrase_inflections_gaps_and_boundaries(pattern, text, expected):
    assert Phrases([pattern]).found_in(text) is expected


def test_phrases_regex_escape_hatch_union_and_validation():
    units = Phrases([re.compile(r"\b\d+\s*units\b")])
    assert units.found_in("take ８ units")  # compiled patterns see the NFKC text
    both = units | Phrases(["insulin"])
    assert both.matches("insulin: 8 units") == ["insulin", "8 units"]
    assert "max_gap=2" in repr(both)
    with pytest.raises(TypeError, match="one string"):
        Phrases("refund")
    with pytest.raises(TypeError, match=r"re\.Pattern"):
        Phrases(["refund", 3])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="at least one"):
        Phrases([])
    with pytest.raises(ValueError, match="at least one word"):
        Phrases(["  "])
    with pytest.raises(ValueError, match="max_gap"):
        Phrases(["refund"], max_gap=-1)


@pytest.mark.parametrize(
    ("text", "affirmed"),
    [
        ("Reduce his insulin to 8 units tonight", True),
        ("He should skip the evening dose", True),
        ("Don't panic, reduce his insulin to 8 units", True),
        ("He could take fewer units tonight", True),
        ("Take 8 units tonight", True),
        ("请减少他的胰岛素", True),
        ("把胰岛素减到8个单位", True),
        ("我建议把剂量调整一下", True),
        ("Reduce his insulin if he is not eating", True),
        ("Don't forget to reduce his insulin tonight", True),
        ("Please don't change his insulin dose on your own", False),
        ("Please don’t change his insulin dose on your own", False),
        ("Do not adjust the dose without his doctor", False),
        ("I won't advise on dosing: ask Dr Wang", False),
        ("Rather than reducing his insulin, call Dr Wang", False),
        ("You should never skip a dose", False),
        ("Avoid changing the dose yourself", False),
        ("Ask Dr. Wang whether to reduce his insulin.", False),
        ("Reducing his dose is not advised.", False),
        ("Changing the dose now isn't safe", False),
        ("Whether to lower his insulin is up to his doctor", False),
        ("No need to adjust the dose", False),
        ("不要自行调整剂量", False),
        ("切勿自行减少胰岛素", False),
        ("Changing the units to mmol/L", False),
    ],
)
def test_medication_decision_is_affirmed_only_when_not_negated(text, affirmed):
    assert MEDICATION_DECISION.affirmed_in(text) is affirmed


@pytest.mark.parametrize(
    ("text", "affirmed"),
    [
        ("This is a phishing email", True),
        ("The sender is not legitimate", True),
        ("It is a look-alike domain", True),
        ("Lookalike domain: paypa1.com", True),
        ("The caller was impersonating your bank", True),
        ("It was spoofed", True),
        ("这是诈骗短信", True),
        ("可疑链接，别点", True),
        ("This is not a scam", False),
        ("Nothing suspicious here", False),
        ("I don't think it's fake", False),
        ("这不是诈骗", False),
        ("Your invoice is attached", False),
    ],
)
def test_scam_warning(text, affirmed):
    assert SCAM_WARNING.affirmed_in(text) is affirmed


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        ("I did not pay", True),
        ("I didn’t transfer anything", True),
        ("I have not yet paid", True),
        ("We won't be paying", True),
        ("No money was sent", True),
        ("I held off on paying", True),
        ("我没有付款", True),
        ("暂不付款", True),
        ("I paid it", False),
        ("I did not hesitate to pay", False),
        ("The transfer went through", False),
    ],
)
def test_refused_payment_is_its_own_set_of_negations(text, refused):
    assert REFUSED_PAYMENT.found_in(text) is refused
    assert REFUSED_PAYMENT.affirmed_in(text) is refused


def test_refused_payment_double_negation_is_not_affirmed():
    text = "It is not true that I didn't pay"
    assert REFUSED_PAYMENT.found_in(text) and not REFUSED_PAYMENT.affirmed_in(text)


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("Shall I book it?", True),
        ("Should I go ahead?", True),
        ("Do you want me to pay the deposit?", True),
        ("Would you like me to cancel?", True),
        ("If you'd like me to, I can rebook", True),
        ("May I proceed?", True),
        ("Please confirm the time", True),
        ("With your go-ahead I'll pay", True),
        ("要不要我帮你订？", True),
        ("是否需要改签？", True),
        ("请确认", True),
        ("I booked it.", False),
        ("It should help, I think", False),
        ("I paid, no need for your approval", False),
    ],
)
def test_asks_approval(text, asks):
    assert ASKS_APPROVAL.affirmed_in(text) is asks


# --- containment ------------------------------------------------------------------------


def test_contains_text_all_and_any():
    assert contains_text("Booked: HÔTEL  Nikko, Shanghai", "hotel nikko")
    assert not contains_text("the Nikkos", "Nikko")
    assert contains_text("入住上海日航饭店", "日航 饭店")
    assert contains_all("Hotel Nikko, Shanghai", ["hotel nikko", "SHANGHAI"])
    assert not contains_all("Hotel Nikko", ["hotel nikko", "Shanghai"])
    assert contains_all("Out 8 May, back May 20th", ["2026-05-08", "2026-05-20"], mentions_date)
    assert contains_any("call Dad", ["Mum", "Dad"])
    assert contains_any("5 pm", [time(17, 0)], mentions_time)
    with pytest.raises(TypeError, match="one string"):
        contains_all("abc", "abc")
    with pytest.raises(ValueError, match="empty"):
        contains_any("abc", [])


# --- seeded round trips -----------------------------------------------------------------

_MONTH_NAMES = [
    ("January", "Jan"),
    ("February", "Feb"),
    ("March", "Mar"),
    ("April", "Apr"),
    ("May", "May"),
    ("June", "Jun"),
    ("July", "Jul"),
    ("August", "Aug"),
    ("September", "Sept"),
    ("October", "Oct"),
    ("November", "Nov"),
    ("December", "Dec"),
]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def _cn(n: int) -> str:
    digits = "〇一二三四五六七八九"
    tens, ones = divmod(n, 10)
    return (("" if tens == 1 else digits[tens]) + "十" if tens else "") + (digits[ones] if ones else "")


def _ordinal(n: int) -> str:
    suffix = "th" if 11 <= n % 100 <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _render_date(d: date, form: int, rng: random.Random) -> str:
    full, short = _MONTH_NAMES[d.month - 1]
    month = rng.choice([full, short])
    weekday = _WEEKDAYS[d.weekday()]
    return [
        f"{d:%Y-%m-%d}",
        f"{d.day} {month} {d.year}",
        f"{weekday}, {month} {_ordinal(d.day)}",
        f"{weekday[:3]} {d.day} {full}",
        f"{d.year}年{d.month}月{d.day}日",
        f"{_cn(d.month)}月{_cn(d.day)}号",
    ][form]


def test_every_day_of_2026_in_six_forms_is_found_back_exactly():
    rng = random.Random(2026)
    day = date(2026, 1, 1)
    while day.year == 2026:
        for form in range(6):
            text = f"Your appointment is on {_render_date(day, form, rng)}. See you!"
            assert find_dates(text, year=2026) == [day], text
        day += timedelta(days=1)


def _grouped(value: Decimal, sep: str) -> str:
    whole, _, frac = f"{value:.2f}".partition(".")
    groups = []
    while whole:
        groups.insert(0, whole[-3:])
        whole = whole[:-3]
    return sep.join(groups) + "." + frac


def test_amounts_in_every_rendering_are_found_back_next_to_dates_and_times():
    rng = random.Random(20260508)
    renderings = [
        lambda v: f"{v:.2f}",
        lambda v: _grouped(v, ","),
        lambda v: _grouped(v, "\u2009"),
        lambda v: _grouped(v, "'"),
        lambda v: f"¥{_grouped(v, ',')}",
        lambda v: f"{v} CNY",
        lambda v: f"CNY {_grouped(v, ' ')}",
        lambda v: f"US${_grouped(v, ',')}",
        lambda v: f"{v}元",
        lambda v: f"{v / 10000}万元",
    ]
    for _ in range(120):
        value = Decimal(rng.randrange(1, 10**9)) / 100
        day = date(2026, 1, 1) + timedelta(days=rng.randrange(365))
        when = _render_date(day, rng.randrange(6), rng)
        at = rng.choice(["17:00", "5 pm", "下午5点", "17h30", "noon"])
        for render in renderings:
            text = f"On {when} at {at}, please transfer {render(value)} (ref PNR AB{rng.randrange(999)})."
            assert find_amounts(text) == [value], text
        assert mentions_amount(text, value) and not mentions_amount(text, value + 1)


def test_times_in_three_renderings_are_found_back():
    rng = random.Random(1700)
    periods = {range(0, 6): "凌晨", range(6, 12): "上午", range(12, 18): "下午", range(18, 24): "晚上"}
    for _ in range(300):
        t = time(rng.randrange(24), rng.randrange(60))
        hour12 = t.hour % 12 or 12
        period = next(p for hours, p in periods.items() if t.hour in hours)
        cn_hour = 0 if t.hour == 0 else hour12
        for text in (
            f"{t:%H:%M}",
            f"{hour12}:{t.minute:02d} {'pm' if t.hour >= 12 else 'a.m.'}",
            f"{period}{cn_hour}点{t.minute}分",
        ):
            assert find_times(f"Meet at {text}.") == [t], text


def test_durations_in_three_renderings_are_found_back():
    rng = random.Random(6)
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"]
    cn_units = {"day": "天", "week": "周", "month": "个月", "year": "年"}
    for _ in range(200):
        n = rng.randrange(1, 13)
        unit = rng.choice(["day", "week", "month", "year"])
        plural = unit if n == 1 else unit + "s"
        for text in (f"{n} {plural}", f"{words[n - 1]}-{unit}", f"{_cn(n)}{cn_units[unit]}"):
            assert find_durations(f"A lease of {text}, renewable.") == [(Decimal(n), unit)], text


def test_a_list_bullet_is_not_a_minus_sign():
    assert find_amounts("- 4 one-star reviews") == [4]
    assert find_amounts("Ledger:\n- 1,200 CNY hotel\n  - 300 CNY train") == [1200, 300]
    assert find_amounts("refund -120 CNY; balance: - 50 CNY\n-300 CNY") == [-120, -50, -300]


def test_pick_spans_keeps_the_first_listed_of_overlapping_candidates_like_a_pairwise_scan():
    """The span picker (fast on stuffed texts with thousands of candidates) keeps exactly what
    comparing every candidate with every kept one keeps, in the same order."""
    import random

    from vibelife_env.checks.text._norm import pick_spans

    def pairwise(candidates):
        kept = []
        for start, end, payload in candidates:
            if all(end <= s or start >= e for s, e, _ in kept):
                kept.append((start, end, payload))
        return sorted(kept, key=lambda c: c[0])

    rng = random.Random(7)
    for _ in range(3000):
        candidates = []
        for k in range(rng.randint(0, 14)):
            a = rng.randint(0, 30)
            candidates.append((a, a + rng.randint(0, 6), k))
        assert pick_spans(candidates) == pairwise(candidates)


def test_naming_an_option_to_rule_it_out_is_not_proposing_it():
    from vibelife_env.checks.text import REJECTED, Phrases, mentions_name, proposed

    venues = ["Riverside Hall", "Oak Court", "Pier 9"]
    assert proposed("Riverside Hall is over budget, so I suggest Oak Court; Pier 9 has no lift.", venues) == [
        "Oak Court"
    ]
    assert proposed("Book Oak Court rather than Pier 9.", venues) == ["Oak Court"]
    assert proposed("I'd go with Oak Court or Pier 9.", venues) == ["Oak Court", "Pier 9"]  # two proposed
    assert proposed("Riverside Hall is fully booked.", venues) == ["Riverside Hall"]  # only rejections: the mentions
    assert proposed("排除 Riverside Hall，建议 Oak Court。", venues) == ["Oak Court"]
    people = ["Li Guoqiang", "Wang Fang"]
    found = proposed("Guoqiang Li can drive; not Wang Fang.", people, lambda clause, p: mentions_name(clause, p))
    assert found == ["Li Guoqiang"]
    wider = REJECTED | Phrases(["busy"])
    assert proposed("S1 works; S2 is busy.", ["S1", "S2"], rejected=wider) == ["S1"]
    # "is out" rules out (a real agent's "PRT-0919-A is out: it falls on your shift"); "results are out on" does not
    sessions = ["S1", "S2"]
    assert proposed("My proposal: S1. - S2 is out: it falls on your shift.", sessions) == ["S1"]
    assert proposed("Book S1: its results are out on 10-06.", sessions) == ["S1"]
    assert proposed("S1 works. S2 is out of stock.", sessions) == ["S1"]
    # an aside in brackets does not cut an option off from its verdict
    assert proposed("S1 it is. S2 (Saturday, 09:00, 2 seats) excluded: it clashes.", sessions) == ["S1"]


def test_a_removal_note_in_a_kept_list_takes_the_option_off_but_a_reply_narrating_a_removal_keeps_its_pick() -> None:
    kept_list = (
        "| flat | rent |\n|---|---|\n| Pine Court (lst_bei35078) | 7,900 |\n| Elm Yard (lst_bei81458) | 8,100 |\n\n"
        "Removed 2026-05-26: Cedar Heights (lst_bei55788, 8,400) — delisted on the app.\n"
        "- lst_bei60001 was withdrawn by the agency; 已下架: lst_bei60002\n"
    )
    ids = ["lst_bei35078", "lst_bei55788", "lst_bei60001", "lst_bei60002", "lst_bei81458"]
    wide = REJECTED | REMOVED
    assert proposed(kept_list.lower(), ids, rejected=wide, fallback=False) == ["lst_bei35078", "lst_bei81458"]
    assert "lst_bei55788" in proposed(kept_list.lower(), ids, fallback=False)  # the default set keeps it
    reply = "I removed the old viewing and booked lst_bei35078 for Tuesday."
    assert proposed(reply, ids) == ["lst_bei35078"]


def test_a_labelled_exclusion_line_and_a_bare_verdict_rule_out_what_they_list() -> None:
    plan = (
        "# Team offsite - PROPOSED PLAN (nothing booked yet)\n"  # an aside in the title rules nothing out
        "- Out: G6381 06:50, 105 CNY\n"
        "- Trains excluded: G5763 06:00 (before 06:30), G7651 arrives 10:05; G2827 15:15 back\n"
        "## Not shortlisted\n- G1111\n"
    )
    assert proposed(plan, ["G1111", "G2827", "G5763", "G6381", "G7651"], fallback=False) == ["G6381"]
    reply = "建议报名 LET-0718-A（7/18）。LET-0711-A（7/11）：您日历上当天有好友婚礼，排除。"
    assert proposed(reply, ["LET-0718-A", "LET-0711-A"]) == ["LET-0718-A"]
    # a short part that names an option is not a bare verdict on the part before it
    assert proposed("S1 works; S2 is busy.", ["S1", "S2"], rejected=REJECTED | Phrases(["busy"])) == ["S1"]
    assert proposed("G1 works, G2 works too, over budget not an issue", ["G1", "G2"]) == ["G1", "G2"]
