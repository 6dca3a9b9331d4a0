"""legal_search through its tools: search, detail, citations, library, errors, atomicity."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO courts VALUES ('ct_a', '滨海市东区人民法院', '基层法院', '滨海市东区');
INSERT INTO courts VALUES ('ct_b', '滨海市中级人民法院', '中级法院', '滨海市');
INSERT INTO cases VALUES ('c1', '(2025)东民初1号', '甲诉乙借款纠纷', 'ct_a', '合同纠纷', '借款合同纠纷', '2025-03-01',
  '甲某;乙某', '借款本金认定', '事实1', '理由1', '按实际交付认定本金', '判决1', '部分支持', '借款,利息,本金');
INSERT INTO cases VALUES ('c2', '(2025)东民初2号', '丙诉丁借款纠纷', 'ct_a', '合同纠纷', '借款合同纠纷', '2025-06-01',
  '丙某;丁某', '利息上限', '事实2', '理由2', '利息不超过LPR四倍', '判决2', '支持', '借款,利息');
INSERT INTO cases VALUES ('c3', '(2024)中民终3号', '戊诉己买卖纠纷', 'ct_b', '合同纠纷', '买卖合同纠纷', '2024-12-01',
  '戊某;己某', '货款', '事实3', '理由3', '货款应付', '判决3', '驳回', '买卖,借款');
INSERT INTO cases VALUES ('c4', '(2025)东劳1号', '庚诉辛劳动争议', 'ct_a', '劳动争议', '解除劳动合同', '2025-05-01',
  '庚某;辛某', '违法解除', '事实4', '理由4', '赔偿金', '判决4', '支持', '解除,借款,利息');
INSERT INTO statutes VALUES ('st_cc', '中华人民共和国民法典', '民法典', '全国人大', '2021-01-01', '现行有效', '民事基本法');
INSERT INTO statutes VALUES ('st_old', '旧合同法', '合同法', '全国人大', '1999-10-01', '已废止', '合同');
INSERT INTO statute_articles VALUES ('art_2', 'st_cc', '第六百八十条', 2, '利息', '禁止高利放贷');
INSERT INTO statute_articles VALUES ('art_1', 'st_cc', '第六百六十七条', 1, '借款合同', '借款合同定义');
INSERT INTO citations VALUES ('cit_1', 'c2', 'article', 'art_2', '利率上限');
INSERT INTO citations VALUES ('cit_2', 'c2', 'case', 'c1', '本金认定参照');
INSERT INTO citations VALUES ('cit_3', 'c2', 'article', 'art_missing', '缺失');
INSERT INTO saved_cases VALUES ('saved_seed_1', 'u1', 'c3', '旧笔记', '2026-04-01T00:00:00Z');
INSERT INTO _counters VALUES ('saved_seq', 1);
"""


@pytest.fixture
def legal(make_service):
    return make_service("legal_search", SEED)


def test_search_cases_filters_and_order(legal):
    assert [c["case_id"] for c in legal.call("search_cases", {"keyword": "借款"})] == ["c2", "c4", "c1", "c3"]
    rows = legal.call("search_cases", {"court": "中级", "case_type": "合同纠纷"})
    assert [c["case_id"] for c in rows] == ["c3"] and rows[0]["court_name"] == "滨海市中级人民法院"
    assert [
        c["case_id"] for c in legal.call("search_cases", {"court": "ct_a", "date_from": "2025-04-01", "limit": 1})
    ] == ["c2"]
    assert set(rows[0]) == {
        "case_id",
        "case_number",
        "title",
        "court_id",
        "court_name",
        "case_type",
        "cause",
        "judgment_date",
        "outcome",
        "summary",
    }


def test_case_detail_similar_and_citations(legal):
    case = legal.call("get_case", {"case_id": "c1"})
    assert case["keywords"] == ["借款", "利息", "本金"] and case["parties"] == "甲某;乙某"
    similar = legal.call("get_similar_cases", {"case_id": "c1"})
    assert [(c["case_id"], c["shared_keyword_count"]) for c in similar] == [("c2", 2), ("c3", 1)]
    cites = legal.call("get_case_citations", {"case_id": "c2"})
    assert [a["article_id"] for a in cites["statutes_cited"]] == ["art_2"]
    assert cites["statutes_cited"][0]["statute_name"] == "中华人民共和国民法典"
    assert cites["cases_cited"] == [
        {
            "citation_id": "cit_2",
            "case_id": "c1",
            "case_number": "(2025)东民初1号",
            "title": "甲诉乙借款纠纷",
            "label": "本金认定参照",
        }
    ]


def test_statutes_articles_courts(legal):
    assert [s["statute_id"] for s in legal.call("search_statutes", {})] == ["st_cc", "st_old"]
    assert [s["statute_id"] for s in legal.call("search_statutes", {"keyword": "合同"})] == ["st_old"]
    assert legal.call("get_statute", {"statute_id": "st_cc"})["article_count"] == 2
    assert [a["article_id"] for a in legal.call("list_statute_articles", {"statute_id": "st_cc"})] == ["art_1", "art_2"]
    assert legal.call("get_article", {"article_id": "art_2"})["text"] == "禁止高利放贷"
    assert [c["court_id"] for c in legal.call("list_courts")] == ["ct_a", "ct_b"]
    assert legal.call("get_court", {"court_id": "ct_a"})["case_count"] == 3


def test_library_save_note_list(legal):
    saved = legal.call("save_case", {"user_id": "u1", "case_id": "c1"})
    assert saved["saved_id"] == "saved_000002" and saved["note"] is None
    assert saved["saved_at"] == "2026-04-17T01:00:00Z"
    assert legal.call("save_case", {"user_id": "u1", "case_id": "c1"}) == saved
    noted = legal.call("add_note_to_case", {"user_id": "u1", "case_id": "c1", "note": "关键"})
    assert noted["note"] == "关键" and noted["saved_id"] == "saved_000002"
    auto = legal.call("add_note_to_case", {"user_id": "u2", "case_id": "c4", "note": "自动收藏"})
    assert auto["saved_id"] == "saved_000003"
    listed = legal.call("list_saved", {"user_id": "u1"})
    assert [s["case_id"] for s in listed] == ["c3", "c1"]
    assert listed[0]["note"] == "旧笔记" and listed[1]["case"]["title"] == "甲诉乙借款纠纷"


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_case", {"case_id": "nope"}, "CASE_NOT_FOUND"),
        ("get_similar_cases", {"case_id": "nope"}, "CASE_NOT_FOUND"),
        ("get_similar_cases", {"case_id": "c1", "limit": 0}, "BAD_ARG"),
        ("search_cases", {"case_type": "刑事"}, "BAD_ARG"),
        ("search_cases", {"date_from": "2025/01/01"}, "BAD_ARG"),
        ("search_statutes", {"limit": 0}, "BAD_ARG"),
        ("get_statute", {"statute_id": "nope"}, "STATUTE_NOT_FOUND"),
        ("list_statute_articles", {"statute_id": "nope"}, "STATUTE_NOT_FOUND"),
        ("get_article", {"article_id": "nope"}, "ARTICLE_NOT_FOUND"),
        ("get_court", {"court_id": "nope"}, "COURT_NOT_FOUND"),
        ("save_case", {"user_id": "u1", "case_id": "nope"}, "CASE_NOT_FOUND"),
        ("save_case", {"user_id": " ", "case_id": "c1"}, "BAD_ARG"),
        ("add_note_to_case", {"user_id": "u1", "case_id": "nope", "note": "x"}, "CASE_NOT_FOUND"),
        ("add_note_to_case", {"user_id": "u1", "case_id": "c1"}, "BAD_ARG"),
        ("search_cases", {"limit": "many"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(legal, tool, args, code):
    before = table_dump(legal)
    result = legal.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(legal) == before
