"""legal_search: offline Chinese legal research (case judgments, statutes, citations).

Tool surface: the public ``legal_search_mock`` spec. The corpus (courts, anonymized
judgments, statutes with their articles, citation links) arrives only through seed SQL
and is read-only to the agent; the only writable state is each user's saved-case
library with free-text notes. Saved ids come from ``_counters`` (``saved_%06d``);
``saved_at`` is ISO-8601 UTC with ``Z`` on the virtual clock. Stored labels (case
types, court levels, outcomes, statute statuses) are Chinese strings.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_DATE``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import contains_pattern

CASE_TYPES = ("劳动争议", "合同纠纷", "侵权责任", "婚姻家庭", "劳动仲裁", "其他")
_SUMMARY_FIELDS = (
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
)
_DETAIL_FIELDS = (
    "case_id", "case_number", "title", "court_id", "court_name", "case_type", "cause", "judgment_date",
    "parties", "summary", "facts", "reasoning", "holding", "ruling", "outcome",
)  # fmt: skip
_STATUTE_FIELDS = ("statute_id", "name", "short_name", "issuer", "effective_date", "status", "summary")
_CASE_SELECT = "SELECT c.*, COALESCE(ct.name, c.court_id) AS court_name FROM cases c LEFT JOIN courts ct ON ct.court_id = c.court_id"


class LegalSearchService(Service):
    """Case judgments, statutes and articles, courts, citations and a saved-case library."""

    name = "legal_search"
    SCHEMA = schema_from(__file__)

    # -------------------------------------------------------------------- cases
    @tool(read_only=True)
    def search_cases(
        self,
        keyword: str | None = None,
        court: str | None = None,
        case_type: str | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        limit: int = 20,
    ) -> list[dict[str, Any]]:
        """Search anonymized case judgments, newest judgment first (ties by case_id).

        Returns compact summaries (case_id, case_number, title, court_id, court_name,
        case_type, cause, judgment_date, outcome, summary); use get_case for the full text.

        Args:
            keyword: Substring matched against title, cause of action, summary, keywords and holding.
            court: A court_id, or a substring of the court's name.
            case_type: One of the stored Chinese labels 劳动争议 (labor dispute), 合同纠纷 (contract), 侵权责任 (tort), 婚姻家庭 (marriage & family), 劳动仲裁 (labor arbitration), 其他 (other).
            date_from: Earliest judgment_date, YYYY-MM-DD (inclusive).
            date_to: Latest judgment_date, YYYY-MM-DD (inclusive).
            limit: Maximum results, 1 to 100 (default 20; larger values are capped).
        """
        _check_limit(limit)
        if case_type is not None and case_type not in CASE_TYPES:
            raise ToolError("BAD_ARG", f"case_type must be one of {', '.join(CASE_TYPES)}, got {case_type!r}")
        for arg, value in (("date_from", date_from), ("date_to", date_to)):
            if value:
                _check_date(arg, value)
        sql = _CASE_SELECT + " WHERE 1=1"
        params: list[Any] = []
        if keyword:
            like = contains_pattern("keyword", keyword)
            sql += (
                " AND (c.title LIKE ? ESCAPE '\\' OR c.cause LIKE ? ESCAPE '\\' OR c.summary LIKE ? ESCAPE '\\'"
                " OR c.keywords LIKE ? ESCAPE '\\' OR c.holding LIKE ? ESCAPE '\\')"
            )
            params += [like] * 5
        if court:
            sql += " AND (c.court_id = ? OR c.court_id IN (SELECT court_id FROM courts WHERE name LIKE ? ESCAPE '\\'))"
            params += [court, contains_pattern("court", court)]
        if case_type:
            sql += " AND c.case_type = ?"
            params.append(case_type)
        if date_from:
            sql += " AND c.judgment_date >= ?"
            params.append(date_from)
        if date_to:
            sql += " AND c.judgment_date <= ?"
            params.append(date_to)
        sql += " ORDER BY c.judgment_date DESC, c.case_id ASC LIMIT ?"
        params.append(min(limit, 100))
        return [_case_summary(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_case(self, case_id: str) -> dict[str, Any]:
        """Return a full judgment: parties (anonymized), cause, facts, reasoning, holding, ruling, outcome, keywords.

        Args:
            case_id: The case id, e.g. ``case_001``.
        """
        row = self._case_row(case_id)
        out = {k: row[k] for k in _DETAIL_FIELDS}
        out["keywords"] = _keywords(row["keywords"])
        return out

    @tool(read_only=True)
    def get_similar_cases(self, case_id: str, limit: int = 5) -> list[dict[str, Any]]:
        """Find cases of the same case_type, most shared keywords first, then most recent.

        Each result is a case summary plus ``shared_keyword_count``.

        Args:
            case_id: The case to compare against (itself excluded).
            limit: Maximum results, 1 to 50 (default 5; larger values are capped).
        """
        base = self._case_row(case_id)
        _check_limit(limit)
        base_kw = set(_keywords(base["keywords"]))
        rows = self.query(
            _CASE_SELECT + " WHERE c.case_id != ? AND c.case_type = ? ORDER BY c.judgment_date DESC, c.case_id ASC",
            (case_id, base["case_type"]),
        )
        scored = [(len(base_kw & set(_keywords(r["keywords"]))), r) for r in rows]
        scored.sort(key=lambda pair: -pair[0])  # stable: recency order kept within a score
        return [{**_case_summary(r), "shared_keyword_count": n} for n, r in scored[: min(limit, 50)]]

    @tool(read_only=True)
    def get_case_citations(self, case_id: str) -> dict[str, Any]:
        """List what a case cites: statute articles (statutes_cited) and earlier judgments (cases_cited).

        Citations whose target is missing from the corpus are skipped.

        Args:
            case_id: The citing case.
        """
        self._case_row(case_id)
        statutes_cited = self.query(
            "SELECT ci.citation_id, a.article_id, a.article_no, s.statute_id, s.name AS statute_name, ci.label "
            "FROM citations ci JOIN statute_articles a ON a.article_id = ci.target_id "
            "JOIN statutes s ON s.statute_id = a.statute_id "
            "WHERE ci.case_id = ? AND ci.target_type = 'article' ORDER BY ci.citation_id",
            (case_id,),
        )
        cases_cited = self.query(
            "SELECT ci.citation_id, c.case_id, c.case_number, c.title, ci.label "
            "FROM citations ci JOIN cases c ON c.case_id = ci.target_id "
            "WHERE ci.case_id = ? AND ci.target_type = 'case' ORDER BY ci.citation_id",
            (case_id,),
        )
        return {"case_id": case_id, "statutes_cited": statutes_cited, "cases_cited": cases_cited}

    # ----------------------------------------------------------------- statutes
    @tool(read_only=True)
    def search_statutes(self, keyword: str | None = None, limit: int = 20) -> list[dict[str, Any]]:
        """Search laws and regulations, newest effective_date first.

        Args:
            keyword: Substring matched against name, short name and summary; omitted lists all.
            limit: Maximum results, 1 to 100 (default 20; larger values are capped).
        """
        _check_limit(limit)
        sql = "SELECT * FROM statutes"
        params: list[Any] = []
        if keyword:
            like = contains_pattern("keyword", keyword)
            sql += " WHERE name LIKE ? ESCAPE '\\' OR short_name LIKE ? ESCAPE '\\' OR summary LIKE ? ESCAPE '\\'"
            params += [like] * 3
        sql += " ORDER BY effective_date DESC, statute_id ASC LIMIT ?"
        params.append(min(limit, 100))
        return [_statute(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_statute(self, statute_id: str) -> dict[str, Any]:
        """Return a statute's metadata plus article_count.

        status is one of 现行有效 (in force), 已修订 (amended), 已废止 (repealed).

        Args:
            statute_id: The statute id.
        """
        row = self._statute_row(statute_id)
        count = self.query_one("SELECT COUNT(*) AS n FROM statute_articles WHERE statute_id = ?", (statute_id,))
        return {**_statute(row), "article_count": int(count["n"] if count else 0)}

    @tool(read_only=True)
    def list_statute_articles(self, statute_id: str) -> list[dict[str, Any]]:
        """List a statute's articles (article_id, article_no, heading) in document order.

        Use get_article for an article's full text.

        Args:
            statute_id: The statute id.
        """
        self._statute_row(statute_id)
        return self.query(
            "SELECT article_id, statute_id, article_no, heading FROM statute_articles "
            "WHERE statute_id = ? ORDER BY seq, article_id",
            (statute_id,),
        )

    @tool(read_only=True)
    def get_article(self, article_id: str) -> dict[str, Any]:
        """Return one statute article's full text with its statute_name and article_no.

        Args:
            article_id: The article id, e.g. ``art_cc_509``.
        """
        row = self.require(
            "SELECT * FROM statute_articles WHERE article_id = ?",
            (article_id,),
            "ARTICLE_NOT_FOUND",
            f"no statute article {article_id!r}",
        )
        statute = self._statute_row(row["statute_id"])
        return {
            "article_id": row["article_id"],
            "statute_id": row["statute_id"],
            "statute_name": statute["name"],
            "article_no": row["article_no"],
            "heading": row["heading"],
            "text": row["text"],
        }

    # ------------------------------------------------------------------- courts
    @tool(read_only=True)
    def list_courts(self) -> list[dict[str, Any]]:
        """List every court and arbitration commission in the corpus, by court_id.

        level is one of 基层法院 (basic), 中级法院 (intermediate), 高级法院 (high),
        最高法院 (supreme), 仲裁委员会 (arbitration commission).
        """
        return self.query("SELECT court_id, name, level, region FROM courts ORDER BY court_id")

    @tool(read_only=True)
    def get_court(self, court_id: str) -> dict[str, Any]:
        """Return one court plus case_count (its judgments in the corpus).

        Args:
            court_id: The court id.
        """
        row = self.require(
            "SELECT court_id, name, level, region FROM courts WHERE court_id = ?",
            (court_id,),
            "COURT_NOT_FOUND",
            f"no court {court_id!r}",
        )
        count = self.query_one("SELECT COUNT(*) AS n FROM cases WHERE court_id = ?", (court_id,))
        return {**row, "case_count": int(count["n"] if count else 0)}

    # ------------------------------------------------------------------ library
    @tool
    def save_case(self, user_id: str, case_id: str) -> dict[str, Any]:
        """Save a case to a user's library; re-saving returns the existing entry unchanged.

        Args:
            user_id: The user saving the case.
            case_id: The case to save.
        """
        _check_user(user_id)
        self._case_row(case_id)
        existing = self._saved_row(user_id, case_id)
        if existing is not None:
            return existing
        saved_id = f"saved_{self.next_seq('saved_seq'):06d}"
        while self.query_one("SELECT 1 FROM saved_cases WHERE saved_id = ?", (saved_id,)):
            saved_id = f"saved_{self.next_seq('saved_seq'):06d}"
        self.execute(
            "INSERT INTO saved_cases (saved_id, user_id, case_id, note, saved_at) VALUES (?, ?, ?, NULL, ?)",
            (saved_id, user_id, case_id, self.now_utc()),
        )
        return self._saved_row(user_id, case_id) or {}

    @tool(read_only=True)
    def list_saved(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's saved cases, oldest first, each with its note and a compact ``case`` summary.

        Args:
            user_id: The user whose library to list.
        """
        _check_user(user_id)
        out = []
        for row in self.query(
            "SELECT saved_id, user_id, case_id, note, saved_at FROM saved_cases WHERE user_id = ? ORDER BY saved_at, saved_id",
            (user_id,),
        ):
            case = self.query_one(_CASE_SELECT + " WHERE c.case_id = ?", (row["case_id"],))
            if case is not None:
                row["case"] = _case_summary(case)
            out.append(row)
        return out

    @tool
    def add_note_to_case(self, user_id: str, case_id: str, note: str) -> dict[str, Any]:
        """Attach or replace the free-text note on a user's saved case, saving the case first if needed.

        Args:
            user_id: The user owning the library.
            case_id: The case to annotate.
            note: The note text; replaces any previous note.
        """
        saved = self.save_case(user_id, case_id)
        self.execute("UPDATE saved_cases SET note = ? WHERE saved_id = ?", (note, saved["saved_id"]))
        return self._saved_row(user_id, case_id) or {}

    # ------------------------------------------------------------------ helpers
    def _case_row(self, case_id: str) -> dict[str, Any]:
        return self.require(_CASE_SELECT + " WHERE c.case_id = ?", (case_id,), "CASE_NOT_FOUND", f"no case {case_id!r}")

    def _statute_row(self, statute_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM statutes WHERE statute_id = ?",
            (statute_id,),
            "STATUTE_NOT_FOUND",
            f"no statute {statute_id!r}",
        )

    def _saved_row(self, user_id: str, case_id: str) -> dict[str, Any] | None:
        return self.query_one(
            "SELECT saved_id, user_id, case_id, note, saved_at FROM saved_cases WHERE user_id = ? AND case_id = ?",
            (user_id, case_id),
        )


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")


def _check_user(user_id: str) -> None:
    if not user_id.strip():
        raise ToolError("BAD_ARG", "user_id is required")


def _check_date(arg: str, value: str) -> None:
    try:
        datetime.strptime(value, "%Y-%m-%d")
    except ValueError:
        raise ToolError("BAD_ARG", f"{arg} must be a YYYY-MM-DD date, got {value!r}") from None


def _keywords(raw: str | None) -> list[str]:
    return [k for k in (raw or "").split(",") if k]


def _case_summary(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in _SUMMARY_FIELDS}


def _statute(row: dict[str, Any]) -> dict[str, Any]:
    return {k: row[k] for k in _STATUTE_FIELDS}
