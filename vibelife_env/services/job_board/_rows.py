"""Row-to-dict helpers and shared SQL for the job_board service."""

from __future__ import annotations

from typing import Any

EXPERIENCE_LEVELS = ("intern", "fresh_grad", "1-3", "3-5", "5-10", "10+")
EDUCATION_LEVELS = ("unlimited", "college", "bachelor", "master", "phd")
SORTS = ("relevance", "salary_desc", "salary_asc", "newest")
APPLICATION_STATUSES = ("submitted", "viewed", "interview", "offer", "rejected")

#: Jobs joined with their company's name (``company_name`` is NULL for an unknown company).
JOB_SELECT = "SELECT j.*, co.name AS company_name FROM jobs j LEFT JOIN companies co ON co.company_id = j.company_id"

#: Applications joined with the job title and company name.
APPLICATION_SELECT = (
    "SELECT a.*, j.title AS job_title, co.name AS company_name FROM applications a "
    "LEFT JOIN jobs j ON j.job_id = a.job_id LEFT JOIN companies co ON co.company_id = j.company_id"
)

_SUMMARY_KEYS = ("job_id", "title", "company_id", "company_name", "city", "category")
_LEVEL_KEYS = ("experience", "education")


def job_summary(row: dict[str, Any]) -> dict[str, Any]:
    """Compact job shape used by search, recommendations and saved jobs."""
    out = {k: row[k] for k in _SUMMARY_KEYS}
    out.update(_salary(row))
    out.update({k: row[k] for k in _LEVEL_KEYS})
    out.update(tags=row["tags"], status=row["status"], posted_at=row["posted_at"])
    return out


def job_detail(row: dict[str, Any]) -> dict[str, Any]:
    """Full job shape: the summary plus ``jd`` and ``requirements``."""
    out = {k: row[k] for k in _SUMMARY_KEYS}
    out.update(_salary(row))
    out.update({k: row[k] for k in _LEVEL_KEYS})
    out.update(jd=row["jd"], requirements=row["requirements"])
    out.update(tags=row["tags"], status=row["status"], posted_at=row["posted_at"])
    return out


def resume(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "resume_id": row["resume_id"],
        "user_id": row["user_id"],
        "name": row["name"],
        "headline": row["headline"],
        "years_exp": int(row["years_exp"]),
        "education": row["education"],
        "skills": row["skills"],
        "summary": row["summary"],
        "updated_at": row["updated_at"],
    }


def application(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "application_id": row["application_id"],
        "user_id": row["user_id"],
        "job_id": row["job_id"],
        "job_title": row["job_title"],
        "company_name": row["company_name"],
        "resume_id": row["resume_id"],
        "cover_letter": row["cover_letter"],
        "status": row["status"],
        "applied_at": row["applied_at"],
        "updated_at": row["updated_at"],
    }


def company(row: dict[str, Any], open_job_count: int) -> dict[str, Any]:
    out = {k: row[k] for k in ("company_id", "name", "industry", "size", "stage", "city", "intro")}
    out["rating"] = float(row["rating"])
    out["open_job_count"] = open_job_count
    return out


def resume_terms(row: dict[str, Any] | None) -> list[str]:
    """Match terms from a resume's skills and headline (separators , 、 / space; 2+ chars)."""
    if row is None:
        return []
    terms = []
    for field in ("skills", "headline"):
        text = (row[field] or "").replace("、", ",").replace("/", ",").replace(" ", ",")
        terms += [t.strip() for t in text.split(",") if len(t.strip()) >= 2]
    return terms


def _salary(row: dict[str, Any]) -> dict[str, int]:
    return {
        "salary_min_minor": int(row["salary_min_minor"]),
        "salary_max_minor": int(row["salary_max_minor"]),
        "salary_months": int(row["salary_months"]),
    }
