"""content_platform: a Xiaohongshu-style UGC community.

Tool surface: the public ``content_platform_mock`` spec (16 tools): note search and
reading, comments, trending, publishing, user profiles, the follow graph, likes,
collections (收藏) and topics (话题).

Counters stay consistent with the edge tables: liking, collecting, commenting and
following adjust ``like_count`` / ``collect_count`` / ``comment_count`` /
``follower_count`` in the same atomic call; ``following_count`` is derived from
``follows`` at read time. Publishing a note whose tag names an existing topic files the
note under that topic (``note_topics``) and bumps the topic's ``note_count``.

"hot" ranking is ``likes + 2*collects + 3*comments`` (ties by note id). Ids come from
``_counters`` (``note_%08d``, ``cmt_%08d``); new edges and comments are stamped ISO-8601
UTC with ``Z`` and new notes carry the local publication date ``YYYY-MM-DD``, all from the
virtual clock. Seeds may mix dates and offset timestamps; time orderings compare instants.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG``.
"""

from __future__ import annotations

import json
from datetime import datetime, tzinfo
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool

CATEGORIES = ("备考", "装修", "健身", "旅行", "母婴", "其他")
SORTS = ("hot", "latest", "most_collected")
DEFAULT_LIMIT = 20
MAX_LIMIT = 100
_NOTES = "SELECT n.*, u.nickname AS author_nickname FROM notes n LEFT JOIN users u ON u.user_id = n.author_id"


class ContentPlatformService(Service):
    """Notes, comments, users and follows, likes, collections and topics of a UGC community."""

    name = "content_platform"
    SCHEMA = schema_from(__file__)

    # -------------------------------------------------------------------- notes
    @tool(read_only=True)
    def search_notes(
        self, keyword: str, category: str | None = None, sort: str = "hot", limit: int | None = None
    ) -> list[dict[str, Any]]:
        """Search notes (笔记) whose title, body or tags contain the keyword.

        Several space-separated words must all match. Returns compact summaries with the
        author's nickname, tags and like/collect/comment counts.

        Args:
            keyword: Text to look for (case-insensitive for Latin letters).
            category: Only this category: 备考, 装修, 健身, 旅行, 母婴 or 其他.
            sort: hot (likes + 2*collects + 3*comments, default), latest (newest first) or most_collected.
            limit: Maximum results (default 20, capped at 100).
        """
        terms = keyword.split()
        if not terms:
            raise ToolError("BAD_ARG", "keyword must not be empty")
        _check_category(category)
        if sort not in SORTS:
            raise ToolError("BAD_ARG", f"sort must be one of {', '.join(SORTS)}, got {sort!r}")
        lim = _limit(limit)
        sql, params = _NOTES + " WHERE 1 = 1", []
        for term in terms:
            sql += " AND (instr(lower(n.title), lower(?)) OR instr(lower(n.body), lower(?)) OR instr(lower(n.tags), lower(?)))"
            params += [term, term, term]
        if category:
            sql += " AND n.category = ?"
            params.append(category)
        rows = self._sorted(self.query(sql, params), sort)
        return [_note_summary(r) for r in rows[:lim]]

    @tool(read_only=True)
    def get_note(self, note_id: str) -> dict[str, Any]:
        """Return a note in full: body, tags, image captions (text descriptions), author and counts.

        Args:
            note_id: The note id, e.g. ``note_00000001``.
        """
        row = self._note_row(note_id)
        author = self.query_one("SELECT * FROM users WHERE user_id = ?", (row["author_id"],))
        if author is None:
            raise ToolError("USER_NOT_FOUND", f"author {row['author_id']!r} of note {note_id!r} does not exist")
        return {
            "note_id": row["note_id"],
            "title": row["title"],
            "body": row["body"],
            "category": row["category"],
            "tags": _json_list(row["tags"]),
            "image_captions": _json_list(row["image_captions"]),
            "author": {**_user_brief(author), "follower_count": int(author["follower_count"])},
            "like_count": int(row["like_count"]),
            "collect_count": int(row["collect_count"]),
            "comment_count": int(row["comment_count"]),
            "view_count": int(row["view_count"]),
            "published_at": row["published_at"],
        }

    @tool(read_only=True)
    def get_trending(self, category: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """The hottest notes by likes + 2*collects + 3*comments, each with a 1-based rank and view_count.

        Args:
            category: Only this category: 备考, 装修, 健身, 旅行, 母婴 or 其他.
            limit: Maximum results (default 20, capped at 100).
        """
        _check_category(category)
        lim = _limit(limit)
        sql, params = _NOTES, []
        if category:
            sql += " WHERE n.category = ?"
            params.append(category)
        rows = self._sorted(self.query(sql, params), "hot")[:lim]
        return [{**_note_summary(r), "rank": i, "view_count": int(r["view_count"])} for i, r in enumerate(rows, 1)]

    @tool
    def publish_note(
        self,
        user_id: str,
        title: str,
        body: str,
        tags: list[str] | None = None,
        category: str | None = None,
        image_captions: list[str] | None = None,
    ) -> dict[str, Any]:
        """Publish a new note as a user; increments the author's note_count.

        A tag equal to an existing topic name files the note under that topic.

        Args:
            user_id: The author.
            title: Note title (required).
            body: Note text (required).
            tags: Tag strings, e.g. ["考研", "时间规划"].
            category: 备考, 装修, 健身, 旅行, 母婴 or 其他 (default 其他).
            image_captions: Text descriptions of the attached images.
        """
        self._user_row(user_id)
        _require_text("title", title)
        _require_text("body", body)
        category = category or "其他"
        _check_category(category)
        tag_list = list(dict.fromkeys(t.strip() for t in tags or [] if t.strip()))
        captions = [c for c in image_captions or [] if c.strip()]
        note_id = self.mint_id("note_{:08d}", "note_seq", "notes", "note_id", alias="note")
        published_at = self.ctx.clock.today()
        self.execute(
            "INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0, ?)",
            (
                note_id,
                user_id,
                title.strip(),
                body.strip(),
                category,
                json.dumps(tag_list, ensure_ascii=False),
                json.dumps(captions, ensure_ascii=False),
                published_at,
            ),
        )
        self.execute("UPDATE users SET note_count = note_count + 1 WHERE user_id = ?", (user_id,))
        for tag in tag_list:
            topic = self.query_one("SELECT topic_id FROM topics WHERE name = ?", (tag.lstrip("#"),))
            if (
                topic
                and self.execute(
                    "INSERT OR IGNORE INTO note_topics VALUES (?, ?)", (note_id, topic["topic_id"])
                ).rowcount
            ):
                self.execute("UPDATE topics SET note_count = note_count + 1 WHERE topic_id = ?", (topic["topic_id"],))
        return {
            "note_id": note_id,
            "author_id": user_id,
            "title": title.strip(),
            "category": category,
            "tags": tag_list,
            "image_captions": captions,
            "published_at": published_at,
        }

    # ----------------------------------------------------------------- comments
    @tool(read_only=True)
    def get_note_comments(self, note_id: str, limit: int | None = None) -> list[dict[str, Any]]:
        """List a note's comments, oldest first, with the commenter's nickname.

        Args:
            note_id: The note whose comments to read.
            limit: Maximum results (default 20, capped at 100).
        """
        self._note_row(note_id)
        lim = _limit(limit)
        rows = self.query(
            "SELECT c.comment_id, c.note_id, c.user_id, COALESCE(u.nickname, c.user_id) AS nickname, c.body, "
            "c.like_count, c.created_at FROM comments c LEFT JOIN users u ON u.user_id = c.user_id "
            "WHERE c.note_id = ?",
            (note_id,),
        )
        tz = self._tz()
        rows.sort(key=lambda r: (_instant(r["created_at"], tz), r["comment_id"]))
        return rows[:lim]

    @tool
    def post_comment(self, note_id: str, user_id: str, body: str) -> dict[str, Any]:
        """Comment on a note as a user; increments the note's comment_count.

        Args:
            note_id: The note to comment on.
            user_id: The commenting user.
            body: Comment text (required).
        """
        self._note_row(note_id)
        self._user_row(user_id)
        _require_text("body", body)
        comment_id = self.mint_id("cmt_{:08d}", "comment_seq", "comments", "comment_id", alias="comment")
        created_at = self.now_utc()
        self.execute(
            "INSERT INTO comments VALUES (?, ?, ?, ?, 0, ?)", (comment_id, note_id, user_id, body.strip(), created_at)
        )
        self.execute("UPDATE notes SET comment_count = comment_count + 1 WHERE note_id = ?", (note_id,))
        return {
            "comment_id": comment_id,
            "note_id": note_id,
            "user_id": user_id,
            "body": body.strip(),
            "created_at": created_at,
        }

    # -------------------------------------------------------------------- users
    @tool(read_only=True)
    def get_user_profile(self, user_id: str) -> dict[str, Any]:
        """Return a user's profile: handle, nickname, bio, official flag, follower/following/note counts.

        Args:
            user_id: The user id.
        """
        row = self._user_row(user_id)
        following = self.query_one("SELECT COUNT(*) AS c FROM follows WHERE follower_id = ?", (user_id,)) or {"c": 0}
        return {
            **_user_brief(row),
            "bio": row["bio"],
            "follower_count": int(row["follower_count"]),
            "following_count": int(following["c"]),
            "note_count": int(row["note_count"]),
            "joined_at": row["joined_at"],
        }

    @tool(read_only=True)
    def list_user_notes(self, user_id: str) -> list[dict[str, Any]]:
        """List every note a user authored, newest first, as compact summaries.

        Args:
            user_id: The author.
        """
        self._user_row(user_id)
        rows = self.query(_NOTES + " WHERE n.author_id = ?", (user_id,))
        return [_note_summary(r) for r in self._sorted(rows, "latest")]

    @tool
    def follow_user(self, user_id: str, target_user_id: str) -> dict[str, Any]:
        """Make a user follow another; increments the target's follower_count.

        Args:
            user_id: The follower.
            target_user_id: The user to follow.
        """
        if user_id == target_user_id:
            raise ToolError("SELF_FOLLOW", f"{user_id!r} cannot follow themselves")
        self._user_row(user_id)
        self._user_row(target_user_id)
        if self._has_edge("follows", "follower_id", user_id, "followee_id", target_user_id):
            raise ToolError("ALREADY_EXISTS", f"{user_id!r} already follows {target_user_id!r}")
        self.execute("INSERT INTO follows VALUES (?, ?, ?)", (user_id, target_user_id, self.now_utc()))
        self.execute("UPDATE users SET follower_count = follower_count + 1 WHERE user_id = ?", (target_user_id,))
        return self._follow_result(user_id, target_user_id, True)

    @tool
    def unfollow_user(self, user_id: str, target_user_id: str) -> dict[str, Any]:
        """Make a user stop following another; decrements the target's follower_count.

        Args:
            user_id: The follower.
            target_user_id: The user to unfollow.
        """
        self._user_row(user_id)
        self._user_row(target_user_id)
        if not self._has_edge("follows", "follower_id", user_id, "followee_id", target_user_id):
            raise ToolError("NOT_FOLLOWING", f"{user_id!r} does not follow {target_user_id!r}")
        self.execute("DELETE FROM follows WHERE follower_id = ? AND followee_id = ?", (user_id, target_user_id))
        self.execute(
            "UPDATE users SET follower_count = MAX(follower_count - 1, 0) WHERE user_id = ?", (target_user_id,)
        )
        return self._follow_result(user_id, target_user_id, False)

    # --------------------------------------------------------------- engagement
    @tool
    def like_note(self, user_id: str, note_id: str) -> dict[str, Any]:
        """Like a note as a user; increments its like_count.

        Args:
            user_id: The liking user.
            note_id: The note to like.
        """
        self._user_row(user_id)
        self._note_row(note_id)
        if self._has_edge("likes", "user_id", user_id, "note_id", note_id):
            raise ToolError("ALREADY_EXISTS", f"{user_id!r} already liked {note_id!r}")
        self.execute("INSERT INTO likes VALUES (?, ?, ?)", (user_id, note_id, self.now_utc()))
        self.execute("UPDATE notes SET like_count = like_count + 1 WHERE note_id = ?", (note_id,))
        count = self._note_row(note_id)["like_count"]
        return {"user_id": user_id, "note_id": note_id, "liked": True, "like_count": int(count)}

    @tool
    def collect_note(self, user_id: str, note_id: str) -> dict[str, Any]:
        """Save (收藏) a note into a user's collection; increments its collect_count.

        Args:
            user_id: The collecting user.
            note_id: The note to collect.
        """
        self._user_row(user_id)
        self._note_row(note_id)
        if self._has_edge("collections", "user_id", user_id, "note_id", note_id):
            raise ToolError("ALREADY_EXISTS", f"{user_id!r} already collected {note_id!r}")
        self.execute("INSERT INTO collections VALUES (?, ?, ?)", (user_id, note_id, self.now_utc()))
        self.execute("UPDATE notes SET collect_count = collect_count + 1 WHERE note_id = ?", (note_id,))
        count = self._note_row(note_id)["collect_count"]
        return {"user_id": user_id, "note_id": note_id, "collected": True, "collect_count": int(count)}

    @tool
    def uncollect_note(self, user_id: str, note_id: str) -> dict[str, Any]:
        """Remove a note from a user's collection; decrements its collect_count.

        Args:
            user_id: The collecting user.
            note_id: The note to remove.
        """
        self._user_row(user_id)
        self._note_row(note_id)
        if not self._has_edge("collections", "user_id", user_id, "note_id", note_id):
            raise ToolError("NOT_COLLECTED", f"{user_id!r} has not collected {note_id!r}")
        self.execute("DELETE FROM collections WHERE user_id = ? AND note_id = ?", (user_id, note_id))
        self.execute("UPDATE notes SET collect_count = MAX(collect_count - 1, 0) WHERE note_id = ?", (note_id,))
        count = self._note_row(note_id)["collect_count"]
        return {"user_id": user_id, "note_id": note_id, "collected": False, "collect_count": int(count)}

    @tool(read_only=True)
    def list_collections(self, user_id: str) -> list[dict[str, Any]]:
        """List the notes a user collected, most recently collected first, each with collected_at.

        Args:
            user_id: The collecting user.
        """
        self._user_row(user_id)
        rows = self.query(
            "SELECT n.*, u.nickname AS author_nickname, c.created_at AS collected_at FROM collections c "
            "JOIN notes n ON n.note_id = c.note_id LEFT JOIN users u ON u.user_id = n.author_id WHERE c.user_id = ?",
            (user_id,),
        )
        tz = self._tz()
        rows.sort(key=lambda r: (_instant(r["collected_at"], tz), r["note_id"]), reverse=True)
        return [{**_note_summary(r), "collected_at": r["collected_at"]} for r in rows]

    # ------------------------------------------------------------------- topics
    @tool(read_only=True)
    def search_topics(self, keyword: str) -> list[dict[str, Any]]:
        """Search topics (话题) whose name or description contains the keyword, most viewed first.

        Args:
            keyword: Text to look for.
        """
        _require_text("keyword", keyword)
        term = keyword.strip()
        rows = self.query(
            "SELECT * FROM topics WHERE instr(lower(name), lower(?)) OR instr(lower(COALESCE(description, '')), lower(?)) "
            "ORDER BY view_count DESC, topic_id ASC",
            (term, term),
        )
        return [_topic(r) for r in rows]

    @tool(read_only=True)
    def get_topic_feed(self, topic: str, limit: int | None = None) -> dict[str, Any]:
        """Return a topic's metadata plus its notes, hottest first (likes + 2*collects + 3*comments).

        Args:
            topic: The exact topic name, e.g. 考研上岸 (a leading # is ignored).
            limit: Maximum notes (default 20, capped at 100).
        """
        name = topic.strip().lstrip("#")
        row = self.require(
            "SELECT * FROM topics WHERE name = ?", (name,), "TOPIC_NOT_FOUND", f"no topic named {topic!r}"
        )
        lim = _limit(limit)
        rows = self.query(
            _NOTES + " JOIN note_topics nt ON nt.note_id = n.note_id WHERE nt.topic_id = ?", (row["topic_id"],)
        )
        return {**_topic(row), "notes": [_note_summary(r) for r in self._sorted(rows, "hot")[:lim]]}

    # ------------------------------------------------------------------ helpers
    def _note_row(self, note_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM notes WHERE note_id = ?", (note_id,), "NOTE_NOT_FOUND", f"no note {note_id!r}"
        )

    def _user_row(self, user_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM users WHERE user_id = ?", (user_id,), "USER_NOT_FOUND", f"no user {user_id!r}"
        )

    def _has_edge(self, table: str, col_a: str, a: str, col_b: str, b: str) -> bool:
        return self.query_one(f"SELECT 1 FROM {table} WHERE {col_a} = ? AND {col_b} = ?", (a, b)) is not None

    def _follow_result(self, user_id: str, target_user_id: str, following: bool) -> dict[str, Any]:
        return {
            "follower_id": user_id,
            "followee_id": target_user_id,
            "following": following,
            "followee_follower_count": int(self._user_row(target_user_id)["follower_count"]),
        }

    def _tz(self) -> tzinfo | None:
        return self.now().tzinfo

    def _sorted(self, rows: list[dict[str, Any]], sort: str) -> list[dict[str, Any]]:
        if sort == "latest":
            tz = self._tz()
            return sorted(rows, key=lambda r: (_instant(r["published_at"], tz), r["note_id"]), reverse=True)
        if sort == "most_collected":
            return sorted(rows, key=lambda r: (-int(r["collect_count"]), r["note_id"]))
        return sorted(rows, key=lambda r: (-_hot(r), r["note_id"]))


def _check_category(category: str | None) -> None:
    if category is not None and category not in CATEGORIES:
        raise ToolError("BAD_ARG", f"category must be one of {', '.join(CATEGORIES)}, got {category!r}")


def _limit(limit: int | None) -> int:
    if limit is None:
        return DEFAULT_LIMIT
    if limit < 1:
        raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")
    return min(limit, MAX_LIMIT)


def _require_text(name: str, value: str) -> None:
    if not value.strip():
        raise ToolError("BAD_ARG", f"{name} must not be empty")


def _hot(row: dict[str, Any]) -> int:
    return int(row["like_count"]) + 2 * int(row["collect_count"]) + 3 * int(row["comment_count"])


def _instant(raw: Any, tz: tzinfo | None) -> float:
    """Sort key for a stored date or timestamp (naive values are local to ``tz``)."""
    try:
        parsed = datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=tz)
    return parsed.timestamp()


def _json_list(raw: Any) -> list[str]:
    if not raw:
        return []
    try:
        value = json.loads(raw)
    except (TypeError, ValueError):
        return [t.strip() for t in str(raw).split(",") if t.strip()]
    return [str(v) for v in value] if isinstance(value, list) else []


def _user_brief(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "user_id": row["user_id"],
        "handle": row["handle"],
        "nickname": row["nickname"],
        "is_official": bool(row["is_official"]),
    }


def _note_summary(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "note_id": row["note_id"],
        "title": row["title"],
        "category": row["category"],
        "author_id": row["author_id"],
        "author_nickname": row.get("author_nickname") or row["author_id"],
        "tags": _json_list(row["tags"]),
        "like_count": int(row["like_count"]),
        "collect_count": int(row["collect_count"]),
        "comment_count": int(row["comment_count"]),
        "published_at": row["published_at"],
    }


def _topic(row: dict[str, Any]) -> dict[str, Any]:
    return {
        "topic_id": row["topic_id"],
        "name": row["name"],
        "category": row["category"],
        "description": row["description"],
        "note_count": int(row["note_count"]),
        "view_count": int(row["view_count"]),
    }
