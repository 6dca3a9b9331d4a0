"""Normalised containment: does a text mention every (or any) one of several items?"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

from vibelife_env.checks.text._norm import has_cjk
from vibelife_env.checks.text.names import name_tokens, norm_name, tokens_contain

T = TypeVar("T")


def contains_text(text: str, item: str) -> bool:
    """Whether ``text`` contains ``item`` after :func:`~vibelife_env.checks.text.names.norm_name`.

    Latin-script items match whole words in order (``"Hotel Nikko"`` is in ``"the hotel-nikko
    lobby"`` but ``"Nikko"`` is not in ``"Nikkos"``); CJK items match as substrings, ignoring spaces.

    Raises:
        ValueError: ``item`` is empty after normalisation.

    >>> contains_text("Booked: HÔTEL  Nikko, Shanghai", "hotel nikko"), contains_text("abc", "ab")
    (True, False)
    """
    needle = norm_name(item)
    if not needle:
        raise ValueError(f"item is empty after normalisation: {item!r}")
    tokens = name_tokens(text)
    if has_cjk(needle):
        return needle.replace(" ", "") in "".join(tokens)
    return tokens_contain(tokens, needle.split())


def _checked(items: Iterable[Any]) -> list[Any]:
    if isinstance(items, str):
        raise TypeError(f"items must be a collection of items, not one string: {items!r}")
    listed = list(items)
    if not listed:
        raise ValueError("items must not be empty: a check over no items would pass vacuously")
    return listed


@overload
def contains_all(text: str, items: Iterable[str]) -> bool: ...
@overload
def contains_all(text: str, items: Iterable[T], matcher: Callable[[str, T], bool]) -> bool: ...
def contains_all(text: str, items: Iterable[Any], matcher: Callable[[str, Any], bool] | None = None) -> bool:
    """Whether ``matcher(text, item)`` holds for every item.

    Args:
        text: Free text.
        items: What must be mentioned (a list, not a single string).
        matcher: ``matcher(text, item) -> bool``, e.g. ``mentions_date`` or ``mentions_name``;
            defaults to :func:`contains_text`.

    Raises:
        TypeError: ``items`` is a single string.
        ValueError: ``items`` is empty.

    >>> from vibelife_env.checks.text.dates import mentions_date
    >>> contains_all("Out 8 May, back May 20th", ["2026-05-08", "2026-05-20"], mentions_date)
    True
    """
    match = matcher or contains_text
    return all(match(text, item) for item in _checked(items))


@overload
def contains_any(text: str, items: Iterable[str]) -> bool: ...
@overload
def contains_any(text: str, items: Iterable[T], matcher: Callable[[str, T], bool]) -> bool: ...
def contains_any(text: str, items: Iterable[Any], matcher: Callable[[str, Any], bool] | None = None) -> bool:
    """Whether ``matcher(text, item)`` holds for at least one item (see :func:`contains_all`).

    Raises:
        TypeError: ``items`` is a single string.
        ValueError: ``items`` is empty.
    """
    match = matcher or contains_text
    return any(match(text, item) for item in _checked(items))
