"""job_board through its tools: search, recommendations, resumes, applications, chat, errors."""

from __future__ import annotations

import pytest

from tests.conftest import table_dump

SEED = """
INSERT INTO companies VALUES ('co_a', '星河科技', '互联网', '1000-9999人', 'C轮', '上海', '做云服务', 4.2);
INSERT INTO companies VALUES ('co_b', '蓝湾银行', '金融', '10000人以上', '上市', '杭州', '城商行', 3.8);
INSERT INTO jobs VALUES ('job_1', 'co_a', '后端工程师', '上海', 'backend', 3000000, 5000000, 14, '3-5', 'bachelor',
  '负责交易系统', 'Java,微服务', 'Java,Kafka', 'open', '2026-04-10');
INSERT INTO jobs VALUES ('job_2', 'co_a', '数据工程师', '上海', 'data', 2500000, 4000000, 13, '1-3', 'bachelor',
  '数仓建设', 'Spark,SQL', 'Spark', 'open', '2026-04-12');
INSERT INTO jobs VALUES ('job_3', 'co_b', '后端开发(Go)', '杭州', 'backend', 3500000, 6000000, 15, '5-10', 'master',
  '核心系统', 'Go,Kafka,分布式', 'Go,Kafka', 'open', '2026-04-01');
INSERT INTO jobs VALUES ('job_4', 'co_b', '后端架构师', '杭州', 'backend', 6000000, 9000000, 15, '10+', 'master',
  '架构', 'Java', 'Java', 'closed', '2026-04-15');
INSERT INTO resumes VALUES ('resume_u1', 'u1', '林一', '后端工程师', 5, 'master', 'Go,Kafka,分布式', '五年后端', '2026-04-01T00:00:00Z');
INSERT INTO resumes VALUES ('resume_u2', 'u2', '周二', '数据分析', 2, 'bachelor', 'SQL', NULL, '2026-04-01T00:00:00Z');
INSERT INTO applications VALUES ('app_seed', 'u1', 'job_2', 'resume_u1', NULL, 'viewed', '2026-04-13T00:00:00Z', '2026-04-14T00:00:00Z');
INSERT INTO chats VALUES ('chat_old', 'u1', 'job_2', 'co_a', '星河HR', '2026-04-13T00:00:00Z', '2026-04-13T02:00:00Z');
INSERT INTO chat_messages VALUES ('m1', 'chat_old', 'user', '你好', '2026-04-13T00:00:00Z');
INSERT INTO chat_messages VALUES ('m2', 'chat_old', 'recruiter', '请周五面试', '2026-04-13T02:00:00Z');
INSERT INTO _counters VALUES ('resume_seq', 0);
"""


@pytest.fixture
def board(make_service):
    return make_service("job_board", SEED)


def ids(rows, key="job_id"):
    return [r[key] for r in rows]


def test_search_filters_and_sorts(board):
    assert ids(board.call("search_jobs", {})) == ["job_2", "job_1", "job_3"]  # open only, newest first
    assert ids(board.call("search_jobs", {"keyword": "Kafka"})) == ["job_1", "job_3"]
    assert ids(board.call("search_jobs", {"city": "上海", "sort": "salary_desc"})) == ["job_1", "job_2"]
    assert ids(board.call("search_jobs", {"min_salary_minor": 4500000, "sort": "salary_asc"})) == ["job_1", "job_3"]
    assert ids(board.call("search_jobs", {"experience": "5-10", "education": "master"})) == ["job_3"]
    hit = board.call("search_jobs", {"limit": 1})[0]
    assert hit["company_name"] == "星河科技" and hit["salary_months"] == 13 and "jd" not in hit
    job = board.call("get_job", {"job_id": "job_4"})
    assert job["status"] == "closed" and job["requirements"] == "Java"
    assert board.call("get_company", {"company_id": "co_b"})["open_job_count"] == 1


def test_recommendations_use_latest_resume_and_skip_applied(board):
    recs = board.call("get_recommended_jobs", {"user_id": "u1"})
    assert [(r["job_id"], r["match_score"]) for r in recs] == [("job_3", 3), ("job_1", 2)]
    board.call("update_resume", {"resume_id": "resume_u1", "skills": "Java", "headline": "架构"})
    assert board.call("get_recommended_jobs", {"user_id": "u1", "limit": 1})[0]["job_id"] == "job_1"
    assert [r["match_score"] for r in board.call("get_recommended_jobs", {"user_id": "nobody"})] == [0, 0, 0]


def test_resume_crud(board):
    created = board.call("create_resume", {"user_id": "u1", "name": "林一", "headline": "Go 工程师", "skills": "Go"})
    assert created["resume_id"] == "resume_000001" and created["education"] == "bachelor"
    assert created["updated_at"] == "2026-04-17T01:00:00Z"
    assert ids(board.call("list_resumes", {"user_id": "u1"}), "resume_id") == ["resume_000001", "resume_u1"]
    updated = board.call("update_resume", {"resume_id": "resume_u1", "years_exp": 6})
    assert updated["years_exp"] == 6 and updated["name"] == "林一"


def test_save_apply_and_status(board):
    first = board.call("save_job", {"user_id": "u1", "job_id": "job_1"})
    assert first["saved"] is True and board.call("save_job", {"user_id": "u1", "job_id": "job_1"}) == first
    assert ids(board.call("list_saved_jobs", {"user_id": "u1"})) == ["job_1"]
    assert board.call("unsave_job", {"user_id": "u1", "job_id": "job_1"})["removed"] is True
    assert board.call("unsave_job", {"user_id": "u1", "job_id": "job_1"})["removed"] is False
    app = board.call(
        "apply_job", {"user_id": "u1", "job_id": "job_3", "resume_id": "resume_u1", "cover_letter": "您好"}
    )
    assert app["application_id"] == "app_000001" and app["status"] == "submitted"
    assert app["job_title"] == "后端开发(Go)" and app["company_name"] == "蓝湾银行"
    assert ids(board.call("list_applications", {"user_id": "u1"}), "application_id") == ["app_000001", "app_seed"]
    assert ids(board.call("list_applications", {"user_id": "u1", "status_filter": "viewed"}), "application_id") == [
        "app_seed"
    ]
    board.load_sql("UPDATE applications SET status = 'interview' WHERE application_id = 'app_000001';")
    assert board.call("get_application_status", {"application_id": "app_000001"})["status"] == "interview"


def test_chat_threads_and_alerts(board):
    sent = board.call("chat_with_recruiter", {"user_id": "u1", "job_id": "job_1", "message": "请问还招吗"})
    assert sent["chat_id"] == "chat_000001" and sent["message_id"] == "msg_00000001"
    again = board.call("chat_with_recruiter", {"user_id": "u1", "job_id": "job_1", "message": "补充简历"})
    assert again["chat_id"] == "chat_000001"
    chats = board.call("list_chats", {"user_id": "u1"})
    assert ids(chats, "chat_id") == ["chat_000001", "chat_old"]
    assert chats[0]["recruiter_name"] == "星河科技招聘" and len(chats[0]["messages"]) == 2
    assert [m["sender"] for m in chats[1]["messages"]] == ["user", "recruiter"]
    alert = board.call("subscribe_job_alert", {"user_id": "u1", "query_json": '{"city": "上海"}'})
    assert alert["alert_id"] == "alert_000001" and alert["active"] is True


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("get_job", {"job_id": "nope"}, "JOB_NOT_FOUND"),
        ("get_company", {"company_id": "nope"}, "COMPANY_NOT_FOUND"),
        ("get_resume", {"resume_id": "nope"}, "RESUME_NOT_FOUND"),
        ("get_application_status", {"application_id": "nope"}, "APPLICATION_NOT_FOUND"),
        ("search_jobs", {"sort": "cheapest"}, "BAD_ARG"),
        ("search_jobs", {"experience": "2-4"}, "BAD_ARG"),
        ("search_jobs", {"limit": 0}, "BAD_ARG"),
        ("apply_job", {"user_id": "u1", "job_id": "job_4", "resume_id": "resume_u1"}, "JOB_CLOSED"),
        ("apply_job", {"user_id": "u1", "job_id": "job_1", "resume_id": "resume_u2"}, "RESUME_OWNERSHIP"),
        ("apply_job", {"user_id": "u1", "job_id": "job_2", "resume_id": "resume_u1"}, "ALREADY_APPLIED"),
        ("apply_job", {"user_id": "u1", "job_id": "nope", "resume_id": "resume_u1"}, "JOB_NOT_FOUND"),
        ("update_resume", {"resume_id": "resume_u1"}, "BAD_ARG"),
        ("update_resume", {"resume_id": "resume_u1", "name": "x", "years_exp": -1}, "BAD_ARG"),
        ("create_resume", {"user_id": "u1", "name": "", "headline": "h"}, "BAD_ARG"),
        ("save_job", {"user_id": "u1", "job_id": "nope"}, "JOB_NOT_FOUND"),
        ("chat_with_recruiter", {"user_id": "u1", "job_id": "nope", "message": "hi"}, "JOB_NOT_FOUND"),
        ("list_applications", {"user_id": "u1", "status_filter": "hired"}, "BAD_ARG"),
        ("subscribe_job_alert", {"user_id": "u1", "query_json": "{city"}, "BAD_ARG"),
        ("search_jobs", {"min_salary_minor": "lots"}, "BAD_ARG"),
    ],
)
def test_errors_leave_tables_unchanged(board, tool, args, code):
    before = table_dump(board)
    result = board.call(tool, args)
    assert result["code"] == code and result["error"]
    assert table_dump(board) == before
