"""job_board: a job-seeker's view of a job board (search, resumes, applications, chat).

Tool surface: the public ``job_board_mock`` spec. Companies and job postings arrive
through seed SQL; the seeker manages resumes, bookmarks, applications, recruiter chat
threads and search alerts. Application status only advances through timeline
mutations (``submitted`` → ``viewed`` → ``interview`` → ``offer``/``rejected``); the
seeker cannot promote it. Recruiters never auto-reply. Salaries are integer minor units
(fen) of monthly base pay; ``posted_at`` is ``YYYY-MM-DD``; timestamps are ISO-8601 UTC
with ``Z`` on the virtual clock. Ids come from ``_counters`` (``resume_%06d``,
``app_%06d``, ``chat_%06d``, ``msg_%08d``, ``alert_%06d``).

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG``.
"""

from __future__ import annotations

from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import contains_pattern, parse_json_arg
from vibelife_env.services.job_board import _rows
from vibelife_env.services.job_board._rows import (
    APPLICATION_SELECT,
    APPLICATION_STATUSES,
    EDUCATION_LEVELS,
    EXPERIENCE_LEVELS,
    JOB_SELECT,
    SORTS,
)

_ORDER = {
    "relevance": "j.posted_at DESC, j.job_id ASC",
    "newest": "j.posted_at DESC, j.job_id ASC",
    "salary_desc": "j.salary_max_minor DESC, j.job_id ASC",
    "salary_asc": "j.salary_min_minor ASC, j.job_id ASC",
}


class JobBoardService(Service):
    """Job search, company profiles, resumes, saved jobs, applications, recruiter chat, alerts."""

    name = "job_board"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------------ catalog
    @tool(read_only=True)
    def search_jobs(
        self,
        keyword: str | None = None,
        city: str | None = None,
        category: str | None = None,
        min_salary_minor: int | None = None,
        experience: str | None = None,
        education: str | None = None,
        sort: str = "relevance",
        limit: int = 20,
    ) -> list[dict[str, Any]]:
        """Search open job postings and return compact job summaries.

        Salaries are monthly base pay in fen (minor units) over ``salary_months`` per year.
        relevance and newest both order newest posting first; salary_desc orders by
        salary ceiling, salary_asc by salary floor; ties by job_id.

        Args:
            keyword: Substring matched against title, JD, requirements and tags (stored text is Chinese, e.g. 后端 for backend).
            city: Exact city name as stored, e.g. 上海.
            category: Exact job category key, e.g. backend.
            min_salary_minor: Keep jobs whose monthly salary ceiling is at least this many fen.
            experience: One of intern, fresh_grad, 1-3, 3-5, 5-10, 10+ (years).
            education: One of unlimited, college, bachelor, master, phd.
            sort: One of relevance, salary_desc, salary_asc, newest (default relevance).
            limit: Maximum results, 1 to 100 (default 20; larger values are capped).
        """
        _check_choice("experience", experience, EXPERIENCE_LEVELS)
        _check_choice("education", education, EDUCATION_LEVELS)
        _check_choice("sort", sort, SORTS)
        _check_limit(limit)
        sql = JOB_SELECT + " WHERE j.status = 'open'"
        params: list[Any] = []
        if keyword:
            like = contains_pattern("keyword", keyword)
            sql += (
                " AND (j.title LIKE ? ESCAPE '\\' OR j.jd LIKE ? ESCAPE '\\' OR j.requirements LIKE ? ESCAPE '\\'"
                " OR IFNULL(j.tags, '') LIKE ? ESCAPE '\\')"
            )
            params += [like] * 4
        for column, value in (
            ("city", city),
            ("category", category),
            ("experience", experience),
            ("education", education),
        ):
            if value:
                sql += f" AND j.{column} = ?"
                params.append(value)
        if min_salary_minor is not None:
            sql += " AND j.salary_max_minor >= ?"
            params.append(min_salary_minor)
        sql += f" ORDER BY {_ORDER[sort]} LIMIT ?"
        params.append(min(limit, 100))
        return [_rows.job_summary(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_job(self, job_id: str) -> dict[str, Any]:
        """Return one job in full: JD, requirements, monthly salary range (fen), levels, tags, status.

        Works for closed jobs too (status ``closed``).

        Args:
            job_id: The job id, e.g. ``job_0001``.
        """
        return _rows.job_detail(self._job_row(job_id))

    @tool(read_only=True)
    def get_company(self, company_id: str) -> dict[str, Any]:
        """Return a company's profile (industry, size, funding stage, city, intro, rating) and open_job_count.

        Args:
            company_id: The company id, e.g. ``comp_pdd``.
        """
        row = self.require(
            "SELECT * FROM companies WHERE company_id = ?",
            (company_id,),
            "COMPANY_NOT_FOUND",
            f"no company {company_id!r}",
        )
        count = self.query_one("SELECT COUNT(*) AS n FROM jobs WHERE company_id = ? AND status = 'open'", (company_id,))
        return _rows.company(row, int(count["n"] if count else 0))

    @tool(read_only=True)
    def get_recommended_jobs(self, user_id: str, limit: int = 10) -> list[dict[str, Any]]:
        """Recommend open jobs for a user from their most recently updated resume.

        Each job scores one point per resume skill/headline term found in its title, tags or
        requirements (``match_score``); highest score first, ties newest posting first. Jobs
        the user already applied to are excluded; a user without a resume gets score 0 everywhere.

        Args:
            user_id: The job seeker.
            limit: Maximum results, 1 to 100 (default 10; larger values are capped).
        """
        _check_user(user_id)
        _check_limit(limit)
        latest = self.query_one(
            "SELECT * FROM resumes WHERE user_id = ? ORDER BY updated_at DESC, resume_id DESC LIMIT 1", (user_id,)
        )
        terms = [t.lower() for t in _rows.resume_terms(latest)]
        rows = self.query(
            JOB_SELECT + " WHERE j.status = 'open' AND j.job_id NOT IN "
            "(SELECT job_id FROM applications WHERE user_id = ?) ORDER BY j.posted_at DESC, j.job_id ASC",
            (user_id,),
        )
        scored = []
        for row in rows:
            haystack = " ".join([row["title"] or "", row["tags"] or "", row["requirements"] or ""]).lower()
            scored.append((sum(1 for t in terms if t in haystack), row))
        scored.sort(key=lambda pair: -pair[0])  # stable: newest-first kept within a score
        return [{**_rows.job_summary(r), "match_score": score} for score, r in scored[: min(limit, 100)]]

    # ------------------------------------------------------------------ resumes
    @tool
    def create_resume(
        self,
        user_id: str,
        name: str,
        headline: str,
        years_exp: int = 0,
        education: str = "bachelor",
        skills: str | None = None,
        summary: str | None = None,
    ) -> dict[str, Any]:
        """Create a resume for a user and return it.

        Args:
            user_id: The resume's owner.
            name: The candidate's name on the resume.
            headline: One-line title, e.g. "后端工程师" (backend engineer).
            years_exp: Whole years of experience, at least 0 (default 0).
            education: Highest education, usually one of unlimited, college, bachelor, master, phd (default bachelor).
            skills: Comma-separated skills, e.g. "Java,Go,Kafka".
            summary: Free-text profile summary.
        """
        for arg, value in (("user_id", user_id), ("name", name), ("headline", headline)):
            if not value.strip():
                raise ToolError("BAD_ARG", f"{arg} must not be empty")
        _check_years(years_exp)
        resume_id = self.mint_id("resume_{:06d}", "resume_seq", "resumes", "resume_id")
        self.execute(
            "INSERT INTO resumes (resume_id, user_id, name, headline, years_exp, education, skills, summary, updated_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (resume_id, user_id, name, headline, years_exp, education, skills, summary, self.now_utc()),
        )
        return self.get_resume(resume_id)

    @tool
    def update_resume(
        self,
        resume_id: str,
        name: str | None = None,
        headline: str | None = None,
        years_exp: int | None = None,
        education: str | None = None,
        skills: str | None = None,
        summary: str | None = None,
    ) -> dict[str, Any]:
        """Change the given fields of a resume (at least one) and bump its updated_at.

        Args:
            resume_id: The resume to change.
            name: New candidate name.
            headline: New one-line title.
            years_exp: New whole years of experience (at least 0).
            education: New highest education.
            skills: New comma-separated skills (replaces the old list).
            summary: New profile summary.
        """
        self._resume_row(resume_id)
        fields = {"name": name, "headline": headline, "years_exp": years_exp, "education": education}
        fields |= {"skills": skills, "summary": summary}
        changes = {k: v for k, v in fields.items() if v is not None}
        if not changes:
            raise ToolError("BAD_ARG", "give at least one of name, headline, years_exp, education, skills, summary")
        if years_exp is not None:
            _check_years(years_exp)
        changes["updated_at"] = self.now_utc()
        self.update_rows("resumes", changes, {"resume_id": resume_id})
        return self.get_resume(resume_id)

    @tool(read_only=True)
    def list_resumes(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's resumes, most recently updated first.

        Args:
            user_id: The resumes' owner.
        """
        _check_user(user_id)
        rows = self.query(
            "SELECT * FROM resumes WHERE user_id = ? ORDER BY updated_at DESC, resume_id DESC", (user_id,)
        )
        return [_rows.resume(r) for r in rows]

    @tool(read_only=True)
    def get_resume(self, resume_id: str) -> dict[str, Any]:
        """Return one resume in full.

        Args:
            resume_id: The resume id.
        """
        return _rows.resume(self._resume_row(resume_id))

    # --------------------------------------------------------------- saved jobs
    @tool
    def save_job(self, user_id: str, job_id: str) -> dict[str, Any]:
        """Bookmark a job for a user; saving again keeps the original saved_at.

        Args:
            user_id: The job seeker.
            job_id: The job to bookmark.
        """
        _check_user(user_id)
        self._job_row(job_id)
        self.execute(
            "INSERT OR IGNORE INTO saved_jobs (user_id, job_id, saved_at) VALUES (?, ?, ?)",
            (user_id, job_id, self.now_utc()),
        )
        row = self.query_one("SELECT saved_at FROM saved_jobs WHERE user_id = ? AND job_id = ?", (user_id, job_id))
        return {"user_id": user_id, "job_id": job_id, "saved": True, "saved_at": row["saved_at"] if row else None}

    @tool
    def unsave_job(self, user_id: str, job_id: str) -> dict[str, Any]:
        """Remove a job bookmark; ``removed`` is false when it was not saved.

        Args:
            user_id: The job seeker.
            job_id: The bookmarked job.
        """
        _check_user(user_id)
        cur = self.execute("DELETE FROM saved_jobs WHERE user_id = ? AND job_id = ?", (user_id, job_id))
        return {"user_id": user_id, "job_id": job_id, "saved": False, "removed": cur.rowcount > 0}

    @tool(read_only=True)
    def list_saved_jobs(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's bookmarked jobs (open or closed), most recently saved first, each with saved_at.

        Args:
            user_id: The job seeker.
        """
        _check_user(user_id)
        rows = self.query(
            "SELECT j.*, co.name AS company_name, s.saved_at FROM saved_jobs s JOIN jobs j ON j.job_id = s.job_id "
            "LEFT JOIN companies co ON co.company_id = j.company_id "
            "WHERE s.user_id = ? ORDER BY s.saved_at DESC, j.job_id ASC",
            (user_id,),
        )
        return [{**_rows.job_summary(r), "saved_at": r["saved_at"]} for r in rows]

    # ------------------------------------------------------------- applications
    @tool
    def apply_job(self, user_id: str, job_id: str, resume_id: str, cover_letter: str | None = None) -> dict[str, Any]:
        """Apply to an open job with one of the user's own resumes; the application starts as ``submitted``.

        One application per user and job.

        Args:
            user_id: The applicant.
            job_id: The job to apply to (must be open).
            resume_id: A resume owned by the applicant.
            cover_letter: Optional cover letter text.
        """
        _check_user(user_id)
        job = self._job_row(job_id)
        if job["status"] != "open":
            raise ToolError("JOB_CLOSED", f"job {job_id!r} is {job['status']} and not accepting applications")
        resume = self._resume_row(resume_id)
        if resume["user_id"] != user_id:
            raise ToolError("RESUME_OWNERSHIP", f"resume {resume_id!r} does not belong to user {user_id!r}")
        dup = self.query_one(
            "SELECT application_id FROM applications WHERE user_id = ? AND job_id = ?", (user_id, job_id)
        )
        if dup:
            raise ToolError(
                "ALREADY_APPLIED", f"user {user_id!r} already applied to {job_id!r} ({dup['application_id']})"
            )
        app_id = self.mint_id("app_{:06d}", "application_seq", "applications", "application_id")
        now = self.now_utc()
        self.execute(
            "INSERT INTO applications (application_id, user_id, job_id, resume_id, cover_letter, status, applied_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?, 'submitted', ?, ?)",
            (app_id, user_id, job_id, resume_id, cover_letter, now, now),
        )
        return self.get_application_status(app_id)

    @tool(read_only=True)
    def list_applications(self, user_id: str, status_filter: str | None = None) -> list[dict[str, Any]]:
        """List a user's applications, most recently applied first, with job title and company name.

        Args:
            user_id: The applicant.
            status_filter: Only this status: submitted, viewed, interview, offer or rejected.
        """
        _check_user(user_id)
        _check_choice("status_filter", status_filter, APPLICATION_STATUSES)
        sql, params = APPLICATION_SELECT + " WHERE a.user_id = ?", [user_id]
        if status_filter:
            sql += " AND a.status = ?"
            params.append(status_filter)
        sql += " ORDER BY a.applied_at DESC, a.application_id DESC"
        return [_rows.application(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_application_status(self, application_id: str) -> dict[str, Any]:
        """Return one application with its current status (submitted, viewed, interview, offer, rejected).

        Args:
            application_id: The application id.
        """
        row = self.require(
            APPLICATION_SELECT + " WHERE a.application_id = ?",
            (application_id,),
            "APPLICATION_NOT_FOUND",
            f"no application {application_id!r}",
        )
        return _rows.application(row)

    # --------------------------------------------------------------------- chat
    @tool
    def chat_with_recruiter(self, user_id: str, job_id: str, message: str) -> dict[str, Any]:
        """Send a message to the recruiter of a job, opening the user's thread for that job on first contact.

        The recruiter does not reply immediately; replies appear later in list_chats.

        Args:
            user_id: The job seeker.
            job_id: The job the conversation is about.
            message: The message text.
        """
        _check_user(user_id)
        if not message.strip():
            raise ToolError("BAD_ARG", "message must not be empty")
        job = self._job_row(job_id)
        now = self.now_utc()
        chat = self.query_one("SELECT chat_id FROM chats WHERE user_id = ? AND job_id = ?", (user_id, job_id))
        if chat is not None:
            chat_id = chat["chat_id"]
        else:
            recruiter = f"{job['company_name']}招聘" if job["company_name"] else "HR"
            chat_id = self.mint_id("chat_{:06d}", "chat_seq", "chats", "chat_id")
            self.execute(
                "INSERT INTO chats (chat_id, user_id, job_id, company_id, recruiter_name, created_at, last_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (chat_id, user_id, job_id, job["company_id"], recruiter, now, now),
            )
        msg_id = self.mint_id("msg_{:08d}", "message_seq", "chat_messages", "message_id")
        self.execute(
            "INSERT INTO chat_messages (message_id, chat_id, sender, body, sent_at) VALUES (?, ?, 'user', ?, ?)",
            (msg_id, chat_id, message, now),
        )
        self.execute("UPDATE chats SET last_at = ? WHERE chat_id = ?", (now, chat_id))
        return {
            "chat_id": chat_id,
            "message_id": msg_id,
            "job_id": job_id,
            "sender": "user",
            "body": message,
            "sent_at": now,
        }

    @tool(read_only=True)
    def list_chats(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's recruiter threads, most recently active first, each with all messages oldest first.

        Args:
            user_id: The job seeker.
        """
        _check_user(user_id)
        chats = self.query(
            "SELECT c.*, j.title AS job_title FROM chats c LEFT JOIN jobs j ON j.job_id = c.job_id "
            "WHERE c.user_id = ? ORDER BY c.last_at DESC, c.chat_id ASC",
            (user_id,),
        )
        out = []
        for c in chats:
            messages = self.query(
                "SELECT message_id, sender, body, sent_at FROM chat_messages WHERE chat_id = ? ORDER BY sent_at, message_id",
                (c["chat_id"],),
            )
            keys = ("chat_id", "job_id", "job_title", "company_id", "recruiter_name", "created_at", "last_at")
            out.append({**{k: c[k] for k in keys}, "messages": messages})
        return out

    # ------------------------------------------------------------------- alerts
    @tool
    def subscribe_job_alert(self, user_id: str, query_json: str) -> dict[str, Any]:
        """Save a job-search alert: a JSON object of search_jobs filters.

        Example: ``{"keyword": "后端", "city": "上海", "min_salary_minor": 3000000}``
        (后端 = backend, 上海 = Shanghai; salary in fen per month).

        Args:
            user_id: The job seeker.
            query_json: JSON string of filters (keyword, city, category, min_salary_minor, experience, education).
        """
        _check_user(user_id)
        if not query_json.strip():
            raise ToolError("BAD_ARG", "query_json must not be empty")
        parse_json_arg("query_json", query_json)
        alert_id = self.mint_id("alert_{:06d}", "alert_seq", "job_alerts", "alert_id")
        now = self.now_utc()
        self.execute(
            "INSERT INTO job_alerts (alert_id, user_id, query_json, created_at, active) VALUES (?, ?, ?, ?, 1)",
            (alert_id, user_id, query_json, now),
        )
        return {"alert_id": alert_id, "user_id": user_id, "query_json": query_json, "created_at": now, "active": True}

    # ------------------------------------------------------------------ helpers
    def _job_row(self, job_id: str) -> dict[str, Any]:
        return self.require(JOB_SELECT + " WHERE j.job_id = ?", (job_id,), "JOB_NOT_FOUND", f"no job {job_id!r}")

    def _resume_row(self, resume_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM resumes WHERE resume_id = ?", (resume_id,), "RESUME_NOT_FOUND", f"no resume {resume_id!r}"
        )


def _check_user(user_id: str) -> None:
    if not user_id.strip():
        raise ToolError("BAD_ARG", "user_id must not be empty")


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")


def _check_years(years_exp: int) -> None:
    if years_exp < 0:
        raise ToolError("BAD_ARG", f"years_exp must be at least 0, got {years_exp}")


def _check_choice(arg: str, value: str | None, choices: tuple[str, ...]) -> None:
    if value is not None and value not in choices:
        raise ToolError("BAD_ARG", f"{arg} must be one of {', '.join(choices)}, got {value!r}")
