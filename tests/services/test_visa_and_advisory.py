"""visa_and_advisory through its tools: entry rules, application lifecycle, advisories."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO entry_requirements VALUES ('CN', 'JP', 'tourism', 1, 15, 6, '["passport", "photo"]', 'Single-entry eVisa', '2026-01-01');
INSERT INTO entry_requirements VALUES ('CN', 'SG', 'transit', 0, 4, 6, '[]', '96h visa-free transit', '2026-01-01');
INSERT INTO entry_requirements VALUES ('CN', 'TH', 'tourism', 0, 30, 6, '[]', 'Visa-free', '2026-01-01');
INSERT INTO visa_products VALUES ('p_slow', 'JP', 'CN', 'Paper visa', 10, 300, 'CNY', 'paper', '{}');
INSERT INTO visa_products VALUES ('p_evisa', 'JP', 'CN', 'Japan eVisa', 5, 250, 'CNY', 'evisa',
  '{"fields": [{"name": "travel_start", "required": true}, {"name": "hotel", "required": false}], "required_fields": ["purpose"], "required_docs": ["passport", "photo"]}');
INSERT INTO visa_applications (application_id, user_id, product_id, status, created_at, updated_at)
  VALUES ('va_seed', 'u1', 'p_slow', 'approved', '2026-03-01T00:00:00+08:00', '2026-03-05T00:00:00+08:00');
INSERT INTO advisories VALUES ('JP', 2, 'Exercise increased caution', '2026-04-01T00:00:00+08:00');
"""

PROFILE = {"user_id": "u1", "name": "Li", "nationality": "CN", "passport_expiry": "2026-09-01"}


@pytest.fixture
def visa(make_service):
    return make_service("visa_and_advisory", SEED)


def test_entry_requirements_with_fallbacks(visa):
    r = visa.call("check_entry_requirements", {"nationality": "cn", "destination": "JP", "purpose": "tourism"})
    assert r["visa_required"] is True and r["allowed_stay_days"] == 15 and r["source"] == "seeded_matrix"
    biz = visa.call(
        "check_entry_requirements",
        {"nationality": "CN", "destination": "TH", "purpose": "business", "transit_countries": ["SG", "KR"]},
    )
    assert biz["fallback"] is True and biz["visa_required"] is False
    assert [(t["country"], t["visa_required"], t["max_hours"]) for t in biz["transit_advice"]] == [
        ("SG", False, 96),
        ("KR", True, 0),
    ]
    unknown = visa.call("check_entry_requirements", {"nationality": "CN", "destination": "US", "purpose": "tourism"})
    assert unknown["source"] == "default_fallback" and unknown["visa_required"] is True


def test_products_sorted_by_processing_time(visa):
    assert [p["product_id"] for p in visa.call("list_visa_products", {"nationality": "CN", "destination": "JP"})] == [
        "p_evisa",
        "p_slow",
    ]
    detail = visa.call("get_visa_product", {"product_id": "p_evisa"})
    assert detail["form_schema"]["required_docs"] == ["passport", "photo"] and detail["destination"] == "JP"


def test_application_lifecycle(visa):
    started = visa.call("start_visa_application", {"product_id": "p_evisa", "applicant_profile": PROFILE})
    assert started == {
        "application_id": "va_0001",
        "status": "draft",
        "form_fields_required": ["travel_start", "purpose"],
        "required_docs": ["passport", "photo"],
    }
    answers = {"travel_start": "2026-05-01", "purpose": "tourism"}
    submit = {"application_id": "va_0001", "answers": answers, "docs_refs": [], "payment_method_id": "pm_1"}
    assert visa.call("submit_visa_application", submit)["code"] == "MISSING_DOCUMENTS"
    doc = visa.call("upload_document", {"application_id": "va_0001", "kind": "passport", "doc_ref": "ws:passport.pdf"})
    assert doc["doc_id"] == "doc_0001"
    visa.call("upload_document", {"application_id": "va_0001", "kind": "photo", "doc_ref": "ws:photo.jpg"})
    # passport expires 2026-09-01, less than 6 months after 2026-05-01
    assert visa.call("submit_visa_application", submit)["code"] == "PASSPORT_VALIDITY_INSUFFICIENT"
    ok = visa.call("submit_visa_application", {**submit, "answers": {**answers, "passport_expiry": "2030-01-01"}})
    assert ok == {"application_id": "va_0001", "status": "submitted", "processing_time_days": 5}
    app = visa.call("get_visa_application", {"application_id": "va_0001"})
    assert app["status"] == "processing" and app["answers"]["payment"] == {"payment_method_id": "pm_1"}
    assert [h["to"] for h in app["history"]] == ["draft", "processing"] and len(app["documents"]) == 2
    assert visa.call("submit_visa_application", submit)["code"] == "BAD_STATE"
    # an RFI (timeline mutation) reopens submission
    visa.load_sql("UPDATE visa_applications SET status = 'rfi' WHERE application_id = 'va_0001'")
    assert (
        visa.call("submit_visa_application", {**submit, "answers": {**answers, "passport_expiry": "2030-01-01"}})[
            "status"
        ]
        == "submitted"
    )
    listed = visa.call("list_visa_applications", {"user_id": "u1"})
    assert [a["application_id"] for a in listed] == ["va_0001", "va_seed"]


def test_advisories(visa):
    assert visa.call("get_advisory", {"country_code": "jp"})["level"] == 2
    assert visa.call("get_advisory", {"country_code": "FR"}) == {
        "country_code": "FR",
        "level": 1,
        "text": "No advisory on file.",
        "last_updated": None,
    }
    assert (
        visa.call("subscribe_advisory", {"country_code": "JP", "sink": "memory://trip"})["subscription_id"]
        == "sub_0001"
    )


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        (
            "check_entry_requirements",
            {"nationality": "China", "destination": "JP", "purpose": "tourism"},
            "BAD_ARG",
        ),
        ("check_entry_requirements", {"nationality": "CN", "destination": "JP", "purpose": "study"}, "BAD_ARG"),
        ("get_visa_product", {"product_id": "nope"}, "PRODUCT_NOT_FOUND"),
        ("start_visa_application", {"product_id": "nope", "applicant_profile": {}}, "PRODUCT_NOT_FOUND"),
        ("get_visa_application", {"application_id": "va_404"}, "NOT_FOUND"),
        ("upload_document", {"application_id": "va_seed", "kind": "selfie", "doc_ref": "x"}, "BAD_ARG"),
        ("upload_document", {"application_id": "va_seed", "kind": "photo", "doc_ref": "x"}, "BAD_STATE"),
        (
            "submit_visa_application",
            {"application_id": "va_seed", "answers": {}, "docs_refs": [], "payment_method_id": "pm"},
            "BAD_STATE",
        ),
        ("subscribe_advisory", {"country_code": "JP", "sink": " "}, "BAD_ARG"),
        ("start_visa_application", {"product_id": "p_evisa", "applicant_profile": "me"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(visa, tool, args, code):
    before = table_dump(visa)
    result = visa.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(visa) == before


def test_missing_fields_rolls_back(visa):
    visa.call("start_visa_application", {"product_id": "p_evisa", "applicant_profile": PROFILE})
    before = table_dump(visa)
    args = {"application_id": "va_0001", "answers": {"purpose": "x"}, "docs_refs": [], "payment_method_id": "pm"}
    result = visa.call("submit_visa_application", args)
    assert result["code"] == "MISSING_FIELDS" and "travel_start" in result["error"]
    assert table_dump(visa) == before
