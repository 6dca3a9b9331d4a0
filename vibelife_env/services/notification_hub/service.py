"""notification_hub: a cross-platform subscription centre and notification inbox.

Tool surface: the public ``notification_hub_mock`` spec. The hub never fabricates
notifications; new ones arrive through timeline mutations. Ids come from ``_counters``
(``sub_%06d``, ``ntf_%08d``, ``alr_%06d``); times are ISO-8601 UTC with ``Z``.

Error codes come from the shared vocabulary (:data:`vibelife_env.errors.ERROR_CODES`): the
upper-case form of the SPEC's, with every argument error ``BAD_ARG`` (the SPEC's ``BAD_TYPE``,
``BAD_DATE``, ``BAD_AMOUNT``).
"""

from __future__ import annotations

import re
from typing import Any

from vibelife_env.services.base import Service, ToolError, schema_from, tool
from vibelife_env.services.common import loads, parse_json_arg

SUBSCRIPTION_TYPES = ("price_drop", "restock", "policy_update", "new_content", "price_target", "keyword")
SUBSCRIPTION_STATUSES = ("active", "paused", "deleted")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class NotificationHubService(Service):
    """Subscriptions, price alerts, official-account feeds and the notification inbox."""

    name = "notification_hub"
    SCHEMA = schema_from(__file__)

    # ------------------------------------------------------------ subscriptions
    @tool(read_only=True)
    def list_subscriptions(self, user_id: str, status: str | None = None) -> list[dict[str, Any]]:
        """List a user's subscriptions, oldest first.

        Args:
            user_id: The user whose subscriptions to list.
            status: Only this status (active, paused or deleted); omitted excludes deleted ones.
        """
        if status is not None and status not in SUBSCRIPTION_STATUSES:
            raise ToolError("BAD_ARG", f"status must be one of {', '.join(SUBSCRIPTION_STATUSES)}, got {status!r}")
        if status is None:
            rows = self.query(
                "SELECT * FROM subscriptions WHERE user_id = ? AND status != 'deleted' ORDER BY created_at, subscription_id",
                (user_id,),
            )
        else:
            rows = self.query(
                "SELECT * FROM subscriptions WHERE user_id = ? AND status = ? ORDER BY created_at, subscription_id",
                (user_id, status),
            )
        return [_subscription(r) for r in rows]

    @tool(read_only=True)
    def get_subscription(self, subscription_id: str) -> dict[str, Any]:
        """Return one subscription.

        Args:
            subscription_id: The subscription id, e.g. ``sub_000001``.
        """
        return _subscription(self._subscription_row(subscription_id))

    @tool
    def create_subscription(
        self, user_id: str, source: str, type: str, target: str, condition_json: str | None = None
    ) -> dict[str, Any]:
        """Subscribe to a price drop, restock, policy update, new content, price target or keyword.

        Records intent only; notifications arrive from the platforms later.

        Args:
            user_id: The subscribing user.
            source: Platform key being watched, e.g. ``ecommerce``.
            type: One of price_drop, restock, policy_update, new_content, price_target, keyword.
            target: What is watched (an item id, a keyword, a policy name).
            condition_json: Optional JSON object with extra conditions, e.g. ``{"below": 19900}``.
        """
        if type not in SUBSCRIPTION_TYPES:
            raise ToolError("BAD_ARG", f"type must be one of {', '.join(SUBSCRIPTION_TYPES)}, got {type!r}")
        for arg, value in (("user_id", user_id), ("source", source), ("target", target)):
            if not value.strip():
                raise ToolError("BAD_ARG", f"{arg} must not be empty")
        condition = _parse_json_arg("condition_json", condition_json)
        sub_id = f"sub_{self.next_seq('subscription_seq'):06d}"
        now = self.now_utc()
        self.execute(
            "INSERT INTO subscriptions VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?)",
            (sub_id, user_id, source, type, target, condition, now, now),
        )
        return self.get_subscription(sub_id)

    @tool
    def update_subscription(
        self,
        subscription_id: str,
        target: str | None = None,
        source: str | None = None,
        condition_json: str | None = None,
    ) -> dict[str, Any]:
        """Change a subscription's target, source or condition (at least one).

        Args:
            subscription_id: The subscription to change.
            target: New watched target.
            source: New platform key.
            condition_json: New JSON condition object.
        """
        self._subscription_row(subscription_id)
        changes: dict[str, Any] = {}
        if target is not None:
            changes["target"] = target
        if source is not None:
            changes["source"] = source
        if condition_json is not None:
            changes["condition_json"] = _parse_json_arg("condition_json", condition_json)
        if not changes:
            raise ToolError("BAD_ARG", "give at least one of target, source, condition_json")
        changes["updated_at"] = self.now_utc()
        self.update_rows("subscriptions", changes, {"subscription_id": subscription_id})
        return self.get_subscription(subscription_id)

    @tool
    def pause_subscription(self, subscription_id: str) -> dict[str, Any]:
        """Pause a subscription (idempotent).

        Args:
            subscription_id: The subscription to pause.
        """
        return self._set_status(subscription_id, "paused")

    @tool
    def resume_subscription(self, subscription_id: str) -> dict[str, Any]:
        """Resume a paused subscription (idempotent).

        Args:
            subscription_id: The subscription to resume.
        """
        return self._set_status(subscription_id, "active")

    @tool
    def delete_subscription(self, subscription_id: str) -> dict[str, Any]:
        """Delete a subscription (soft delete, idempotent).

        Args:
            subscription_id: The subscription to delete.
        """
        return self._set_status(subscription_id, "deleted")

    # ------------------------------------------------------------ notifications
    @tool(read_only=True)
    def list_notifications(
        self,
        user_id: str,
        unread_only: bool = False,
        source: str | None = None,
        since: str | None = None,
        limit: int = 50,
    ) -> list[dict[str, Any]]:
        """List a user's inbox notifications, newest first.

        Args:
            user_id: The user whose inbox to read.
            unread_only: Only notifications not yet read.
            source: Only notifications from this platform key.
            since: ``YYYY-MM-DD``; keep notifications created on or after that date.
            limit: Maximum results (1 to 500, default 50).
        """
        if limit < 1:
            raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")
        sql = "SELECT * FROM notifications WHERE user_id = ?"
        params: list[Any] = [user_id]
        if unread_only:
            sql += " AND read = 0"
        if source is not None:
            sql += " AND source = ?"
            params.append(source)
        if since is not None:
            if not _DATE.match(since):
                raise ToolError("BAD_ARG", f"since must be YYYY-MM-DD, got {since!r}")
            sql += " AND substr(created_at, 1, 10) >= ?"
            params.append(since)
        sql += " ORDER BY created_at DESC, notification_id DESC LIMIT ?"
        params.append(min(limit, 500))
        return [_notification(r) for r in self.query(sql, params)]

    @tool(read_only=True)
    def get_notification(self, notification_id: str) -> dict[str, Any]:
        """Return one notification with its parsed payload.

        Args:
            notification_id: The notification id.
        """
        return _notification(self._notification_row(notification_id))

    @tool
    def mark_read(self, notification_id: str) -> dict[str, Any]:
        """Mark one notification as read (idempotent).

        Args:
            notification_id: The notification to mark.
        """
        self._notification_row(notification_id)
        self.execute("UPDATE notifications SET read = 1 WHERE notification_id = ?", (notification_id,))
        return self.get_notification(notification_id)

    @tool
    def mark_all_read(self, user_id: str) -> dict[str, Any]:
        """Mark every unread notification of a user as read.

        Args:
            user_id: The user whose inbox to clear.
        """
        cur = self.execute("UPDATE notifications SET read = 1 WHERE user_id = ? AND read = 0", (user_id,))
        return {"user_id": user_id, "marked_read": cur.rowcount}

    # ------------------------------------------------------------- price alerts
    @tool
    def create_price_alert(self, user_id: str, item_ref: str, target_price_minor: int) -> dict[str, Any]:
        """Alert the user when an item's price falls to a target.

        Args:
            user_id: The user to alert.
            item_ref: Reference of the watched item (e.g. a product or fare id).
            target_price_minor: Target price in minor units (fen), a positive integer.
        """
        if target_price_minor <= 0:
            raise ToolError("BAD_ARG", f"target_price_minor must be positive, got {target_price_minor}")
        alert_id = f"alr_{self.next_seq('alert_seq'):06d}"
        self.execute(
            "INSERT INTO price_alerts VALUES (?, ?, ?, ?, 'CNY', 'active', ?)",
            (alert_id, user_id, item_ref, target_price_minor, self.now_utc()),
        )
        return self.query_one("SELECT * FROM price_alerts WHERE alert_id = ?", (alert_id,)) or {}

    @tool(read_only=True)
    def list_price_alerts(self, user_id: str) -> list[dict[str, Any]]:
        """List a user's price alerts, oldest first.

        Args:
            user_id: The user whose alerts to list.
        """
        return self.query("SELECT * FROM price_alerts WHERE user_id = ? ORDER BY created_at, alert_id", (user_id,))

    # --------------------------------------------------------- official accounts
    @tool
    def subscribe_official_account(self, user_id: str, account_id: str) -> dict[str, Any]:
        """Follow an official account's feed.

        Args:
            user_id: The following user.
            account_id: The official account to follow.
        """
        account = self._account_row(account_id)
        if self.query_one(
            "SELECT 1 FROM official_account_subscriptions WHERE user_id = ? AND account_id = ?", (user_id, account_id)
        ):
            raise ToolError("ALREADY_SUBSCRIBED", f"{user_id} already follows {account_id}")
        now = self.now_utc()
        self.execute("INSERT INTO official_account_subscriptions VALUES (?, ?, ?)", (user_id, account_id, now))
        return {**account, "subscribed_at": now}

    @tool(read_only=True)
    def list_official_accounts(self, user_id: str) -> list[dict[str, Any]]:
        """List the official accounts a user follows.

        Args:
            user_id: The following user.
        """
        return self.query(
            "SELECT a.*, s.subscribed_at FROM official_account_subscriptions s "
            "JOIN official_accounts a ON a.account_id = s.account_id WHERE s.user_id = ? "
            "ORDER BY s.subscribed_at, a.account_id",
            (user_id,),
        )

    @tool(read_only=True)
    def get_account_feed(self, account_id: str, limit: int = 20) -> list[dict[str, Any]]:
        """Read an official account's posts, newest first.

        Args:
            account_id: The official account.
            limit: Maximum posts (1 to 200, default 20).
        """
        self._account_row(account_id)
        if limit < 1:
            raise ToolError("BAD_ARG", f"limit must be at least 1, got {limit}")
        return self.query(
            "SELECT * FROM official_account_posts WHERE account_id = ? ORDER BY published_at DESC, post_id DESC LIMIT ?",
            (account_id, min(limit, 200)),
        )

    # ------------------------------------------------------------------ helpers
    def _subscription_row(self, subscription_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM subscriptions WHERE subscription_id = ?",
            (subscription_id,),
            "SUBSCRIPTION_NOT_FOUND",
            f"no subscription {subscription_id!r}",
        )

    def _notification_row(self, notification_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM notifications WHERE notification_id = ?",
            (notification_id,),
            "NOTIFICATION_NOT_FOUND",
            f"no notification {notification_id!r}",
        )

    def _account_row(self, account_id: str) -> dict[str, Any]:
        return self.require(
            "SELECT * FROM official_accounts WHERE account_id = ?",
            (account_id,),
            "ACCOUNT_NOT_FOUND",
            f"no official account {account_id!r}",
        )

    def _set_status(self, subscription_id: str, status: str) -> dict[str, Any]:
        self._subscription_row(subscription_id)
        self.execute(
            "UPDATE subscriptions SET status = ?, updated_at = ? WHERE subscription_id = ? AND status != ?",
            (status, self.now_utc(), subscription_id, status),
        )
        return self.get_subscription(subscription_id)


def _parse_json_arg(name: str, raw: str | None) -> str | None:
    if raw is None:
        return None
    parse_json_arg(name, raw)
    return raw


def _subscription(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k != "condition_json"}
    out["condition"] = loads(row.get("condition_json"))
    return out


def _notification(row: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in row.items() if k != "payload_json"}
    out["payload"] = loads(row.get("payload_json"))
    out["read"] = bool(row.get("read"))
    return out
