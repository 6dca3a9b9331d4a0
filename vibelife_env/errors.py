"""Exceptions a user of the environment can cause, each naming what was wrong.

Tool refusals use one vocabulary of error codes, :data:`ERROR_CODES`: upper-case, each
with a one-line meaning. :class:`ToolError` refuses any other code, so a typo fails the
first test that reaches it instead of reaching an agent.
"""

from __future__ import annotations

from pathlib import Path

#: Longest error message returned to an agent; longer ones are cut in the middle.
MAX_MESSAGE_CHARS = 400

#: Every error code a tool may return, with what it means. Argument problems of any kind
#: are ``BAD_ARG`` (the message names the argument and what was expected); the other
#: codes say something about the world that the agent can act on.
ERROR_CODES: dict[str, str] = {
    # ----------------------------------------------------------------- generic
    "BAD_ARG": "an argument is missing, malformed, of the wrong type or outside its accepted values",
    "BAD_STATE": "the object exists but its current status does not allow this operation",
    "NOT_FOUND": "no object with the given id (when no more specific *_NOT_FOUND applies)",
    "ALREADY_EXISTS": "the object or relation to create exists already",
    "LIMIT_REACHED": "a per-episode or per-object limit would be exceeded",
    "UNKNOWN_TOOL": "no tool or service of that name is available",
    "BAD_TOOL_CALL": "a tool call written in the agent's text could not be parsed",
    "BUDGET_EXHAUSTED": "the episode's tool-call budget is used up",
    "INTERNAL_ERROR": "a bug in the tool; nothing was changed",
    # --------------------------------------------------------------- workspace
    "BAD_PATH": "a file path is empty or lies outside the workspace",
    "BINARY_CONTENT": "the content holds NUL bytes; only text can be stored",
    "EDIT_NO_UNIQUE_MATCH": "the text to replace does not occur exactly once",
    "FILE_ERROR": "a file to import or export could not be read or written",
    "FILE_NOT_FOUND": "no workspace file at that path",
    "FILE_TOO_LARGE": "the file would exceed the size limit",
    "WORKSPACE_FULL": "the workspace holds the maximum number of files",
    # ------------------------------------------------------- objects not found
    "ACCOUNT_NOT_FOUND": "no account with that id",
    "ADDRESS_NOT_FOUND": "no saved address with that id",
    "AGENT_NOT_FOUND": "no agent with that id",
    "APPLICATION_NOT_FOUND": "no application with that id",
    "ARTICLE_NOT_FOUND": "no statute article with that number",
    "ATTACHMENT_NOT_FOUND": "no attachment with that name on the email",
    "BLOCK_NOT_FOUND": "no block with that id",
    "BOOKING_NOT_FOUND": "no booking with that reference, or no such segment in it",
    "CALENDAR_NOT_FOUND": "no calendar with that id",
    "CARD_NOT_FOUND": "no card with that id",
    "CART_ITEM_NOT_FOUND": "no cart line for that SKU",
    "CASE_NOT_FOUND": "no case with that id",
    "COMPANY_NOT_FOUND": "no company with that id",
    "COURT_NOT_FOUND": "no court with that id",
    "DATABASE_NOT_FOUND": "no database with that id",
    "DEAL_NOT_FOUND": "no deal with that id",
    "DRAFT_NOT_FOUND": "no draft with that id",
    "EMAIL_NOT_FOUND": "no email with that id",
    "EVENT_NOT_FOUND": "no event with that id",
    "FLIGHT_NOT_FOUND": "no flight with that number on that date",
    "FOLDER_NOT_FOUND": "no folder with that name",
    "FUND_NOT_FOUND": "no fund with that code",
    "GOAL_NOT_FOUND": "no goal with that id",
    "HOTEL_NOT_FOUND": "no hotel with that id",
    "INCIDENT_NOT_FOUND": "no incident with that id",
    "INSURANCE_PLAN_NOT_FOUND": "no insurance plan with that id",
    "JOB_NOT_FOUND": "no job posting with that id",
    "LISTING_NOT_FOUND": "no listing with that id",
    "LOCATION_NOT_FOUND": "no rental location with that id",
    "MERCHANT_NOT_FOUND": "no merchant with that id",
    "METRIC_NOT_FOUND": "no metric of that name",
    "NOTE_NOT_FOUND": "no note with that id",
    "NOTIFICATION_NOT_FOUND": "no notification with that id",
    "OFFER_NOT_FOUND": "no offer with that id (or no such segment in it)",
    "ORDER_ITEM_NOT_FOUND": "the order has no item with that id",
    "ORDER_NOT_FOUND": "no order with that id",
    "PAGE_NOT_FOUND": "no page with that id",
    "PAYEE_NOT_FOUND": "no payee with that id for this account",
    "PRODUCT_NOT_FOUND": "no product with that id",
    "RATE_PLAN_NOT_FOUND": "no rate plan with that id",
    "RESERVATION_NOT_FOUND": "no reservation with that id",
    "RESUME_NOT_FOUND": "no resume with that id",
    "SCHEDULE_NOT_FOUND": "no scheduled transfer with that id",
    "SHIPMENT_NOT_FOUND": "no shipment with that tracking number",
    "SKU_NOT_FOUND": "no SKU with that id",
    "STATEMENT_NOT_FOUND": "no statement for that card and period",
    "STATS_NOT_FOUND": "no market statistics for that area",
    "STATUTE_NOT_FOUND": "no statute with that id",
    "STUDENT_PROFILE_NOT_FOUND": "no student profile for that user",
    "SUBSCRIPTION_NOT_FOUND": "no subscription with that id",
    "SYMBOL_NOT_FOUND": "no security with that symbol",
    "TOPIC_NOT_FOUND": "no topic with that id",
    "TRAIN_NOT_FOUND": "no train with that number on that date",
    "TX_NOT_FOUND": "no transaction with that id",
    "USER_NOT_FOUND": "no user with that id",
    "VIEWING_NOT_FOUND": "no viewing with that id",
    "WORKOUT_NOT_FOUND": "no workout with that id",
    # ------------------------------------------------------------ places, weather
    "NO_NEARBY_LOCATION": "no known weather location near the given place",
    "NO_TRANSIT_NEARBY": "no transit stop near the given place",
    "OBSERVATION_MISSING": "no weather observation for that place and hour",
    "UNKNOWN_STORM": "no track for that storm id",
    "ZERO_RESULTS": "the place or route could not be resolved",
    # ------------------------------------------------------------ domain refusals
    "ACCOUNT_FROZEN": "the account is frozen",
    "ALREADY_APPLIED": "the user already applied to this job",
    "ALREADY_CANCELLED": "the booking or reservation is already cancelled",
    "ALREADY_CHECKED_IN": "the passenger is already checked in",
    "ALREADY_SAVED": "the item is already saved",
    "ALREADY_SUBSCRIBED": "the subscription exists already",
    "BOOKING_NOT_TICKETED": "only ticketed bookings can check in",
    "CANCEL_TOO_LATE": "the shipment is past the point where it can be cancelled",
    "CART_EMPTY": "the cart has no items",
    "CHECK_IN_CLOSED": "check-in has closed for this flight",
    "CHECK_IN_NOT_OPEN": "check-in has not opened yet for this flight",
    "COUPON_BELOW_MIN": "the cart is below the coupon's minimum spend",
    "COUPON_CATEGORY_MISMATCH": "no cart item is in the coupon's category",
    "COUPON_EXPIRED": "the coupon has expired",
    "COUPON_INVALID": "the coupon does not exist, is inactive or used up",
    "COUPON_NOT_APPLIED": "the coupon is not applied to the cart",
    "CROSS_USER_TRANSFER": "the accounts belong to different owners",
    "DEAL_UNAVAILABLE": "the deal is sold out, expired or not valid for this use",
    "DISPUTE_ALREADY_OPEN": "the transaction already has an open dispute",
    "FLIGHT_CANCELLED": "the flight is cancelled",
    "FLIGHT_DEPARTED": "the flight has already departed",
    "FOLDER_EXISTS": "a folder of that name exists already",
    "FOLDER_PROTECTED": "system folders cannot be changed",
    "HOLD_NOT_AVAILABLE": "the flight departs too soon to be held",
    "IN_TRANSIT_LOCKED": "the shipment is in transit and can no longer be changed",
    "INSUFFICIENT_CASH": "the brokerage account lacks the free cash",
    "INSUFFICIENT_FUNDS": "the bank account balance is too low",
    "INSUFFICIENT_POINTS": "the card lacks the reward points",
    "INSUFFICIENT_SHARES": "the position holds too few shares",
    "INVALID_PASSENGERS": "the passengers do not fit the offer (count, types, names)",
    "INVENTORY_GONE": "not enough seats or vehicles left for the request",
    "JOB_CLOSED": "the job posting is closed",
    "LISTING_DELISTED": "the listing is no longer on the market",
    "MISSING_DOCUMENTS": "the application lacks required documents",
    "MISSING_FIELDS": "the application lacks required fields",
    "MODIFY_NO_AVAILABILITY": "the reservation cannot be moved to the requested stay",
    "NON_CHANGEABLE_FARE": "the fare does not allow changes",
    "NOT_COLLECTED": "the note is not in the user's collection",
    "NOT_FOLLOWING": "the user does not follow that user",
    "NOT_OWNER": "the user does not own that object",
    "NOT_SAVED": "the item is not saved",
    "OFFER_EXPIRED": "the offer expired; search again",
    "ORDER_NOT_CANCELABLE": "the order can no longer be cancelled",
    "ORDER_NOT_PENDING": "the order is no longer pending",
    "OUT_OF_STOCK": "not enough stock for the quantity",
    "OVERPAYMENT": "the payment exceeds the outstanding balance",
    "PARTY_SIZE_EXCEEDED": "the party is larger than the venue accepts",
    "PASSPORT_VALIDITY_INSUFFICIENT": "the passport expires too soon for the trip",
    "PAYMENT_DECLINED": "the payment method was declined",
    "REFUND_WINDOW_CLOSED": "the refund window has passed",
    "RESUME_OWNERSHIP": "the resume belongs to another user",
    "SEAT_UNAVAILABLE": "the seat does not exist, is taken or is outside the booked cabin",
    "SELF_FOLLOW": "a user cannot follow themselves",
    "SOLD_OUT": "no rooms left for some night of the stay",
    "TRAIN_CANCELLED": "the train is cancelled",
    "TRAIN_DEPARTED": "the train has already departed",
    "UNCANCELLABLE": "the reservation's status does not allow cancelling",
}


def bound_message(message: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``message`` cut in the middle to at most ``limit`` characters (both ends kept)."""
    if len(message) <= limit:
        return message
    tail = limit // 4
    omitted = len(message) - limit
    marker = f" …[{omitted} characters omitted]… "
    head = max(0, limit - tail - len(marker))
    return message[:head] + marker + message[len(message) - tail :]


class VibeLifeError(Exception):
    """Base class of every error raised by ``vibelife_env``."""


class ToolError(VibeLifeError):
    """Raised inside a tool to refuse a call; becomes ``{"error", "code"}`` for the agent.

    Args:
        code: A code of :data:`ERROR_CODES`, e.g. ``"EMAIL_NOT_FOUND"``.
        message: A human-readable sentence naming the offending argument or value; cut
            to :data:`MAX_MESSAGE_CHARS` (an echoed argument can be huge).

    Raises:
        ValueError: ``code`` is not in :data:`ERROR_CODES`.
    """

    def __init__(self, code: str, message: str) -> None:
        if code not in ERROR_CODES:
            raise ValueError(f"unknown error code {code!r}: declare it in vibelife_env.errors.ERROR_CODES")
        message = bound_message(str(message))
        super().__init__(message)
        self.code = code
        self.message = message

    def as_result(self) -> dict[str, str]:
        """The error object returned to the agent."""
        return {"error": self.message, "code": self.code}


class TaskLoadError(VibeLifeError):
    """A task bundle is malformed.

    Args:
        path: The file (or directory) that is wrong.
        field: Dotted path of the offending field inside that file, or ``""``.
        message: What was expected.
    """

    def __init__(self, path: str | Path, field: str, message: str) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {message}")


class ActionError(VibeLifeError, ValueError):
    """An action passed to ``step()`` does not have an accepted shape."""


class MutationError(VibeLifeError):
    """A timeline mutation could not be applied or its postconditions failed."""
