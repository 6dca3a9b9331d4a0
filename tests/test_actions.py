"""Parsing one assistant message: malformed shapes raise ActionError, bad arguments never escape."""

from __future__ import annotations

import pytest

from vibelife_env.actions import MAX_ARGUMENT_CHARS, clean_text, parse_action
from vibelife_env.errors import ActionError


def _circular() -> dict:
    loop: dict = {"a": 1}
    loop["self"] = loop
    return loop


def _call(arguments) -> dict:
    return {"tool_calls": [{"name": "email__get_emails", "arguments": arguments}]}


def test_the_three_shapes_parse():
    plain = parse_action({"tool_calls": [{"name": "a__b", "arguments": '{"x": 1}'}], "reply": "done"})
    assert plain.tool_calls[0].args == {"x": 1} and plain.reply == "done"
    openai = parse_action(
        {
            "role": "assistant",
            "content": "checking",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "a__b", "arguments": "{}"}}],
        }
    )
    assert openai.reply is None and openai.narration == "checking" and openai.tool_calls[0].id == "c1"
    assert parse_action("hello").reply == "hello"


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (42, "must be a dict"),
        (None, "must be a dict"),
        ({"tool_calls": "email__get_emails"}, "must be a list"),
        ({"tool_calls": {"name": "a__b"}}, "must be a list"),
        ({"tool_calls": [7]}, r"\[0\] must be an object"),
        ({"tool_calls": [{"arguments": {}}]}, "name must be a non-empty string"),
        ({"tool_calls": [{"name": "a__b", "id": 5}]}, "id must be a string"),
        ({"tool_calls": [{"name": "a__b", "arguments": b"{}"}]}, "arguments must be a JSON object"),
        ({"tool_calls": [{"function": "a__b"}]}, "function must be an object"),
        ({"tool_calls": [], "reply": 5}, "reply"),
        ({"tool_calls": [], "bogus": 1}, "unknown keys"),
        ({"role": "user", "content": "hi"}, "role 'assistant'"),
        ({"role": "assistant", "content": ["parts"]}, "content"),
    ],
)
def test_structurally_malformed_actions_raise_action_error(action, message):
    with pytest.raises(ActionError, match=message):
        parse_action(action)


def test_a_circular_tool_call_list_is_an_action_error():
    calls: list = []
    calls.append(calls)
    with pytest.raises(ActionError):
        parse_action({"tool_calls": calls})


@pytest.mark.parametrize(
    ("arguments", "problem"),
    [
        ("{not json", "not valid JSON"),
        ('{"n": ' + "9" * 5000 + "}", "too many digits"),
        ("[" * 100_000, "nested too deep"),
        ('{"x": ' + "[" * 40 + "]" * 40 + "}", "nested deeper"),
        ('{"x": "\\ud83d"}', "lone surrogate"),
        ('{"x": NaN}', "finite number"),
        ('{"x": ' + str(2**64) + "}", "out of range"),
        ("[1, 2]", "must be a JSON object"),
        (" " * (MAX_ARGUMENT_CHARS + 1), "at most"),
        ({"x": {1, 2}}, "expected JSON data"),
        ({"x": b"bytes"}, "expected JSON data"),
        ({1: "x"}, "must be strings"),
        ({"x": 10**5000}, "out of range"),
        (_circular(), "circular"),
    ],
)
def test_unusable_arguments_become_a_parse_error_of_that_call(arguments, problem):
    call = parse_action(_call(arguments)).tool_calls[0]
    assert call.args is None and problem in call.parse_error
    assert len(call.parse_error) < 500
    call.raw_arguments.encode("utf-8")  # the transcript can always store it


def test_lone_surrogates_in_text_become_replacement_characters():
    action = parse_action({"tool_calls": [{"name": "a__\ud83d", "id": "c\udfff", "arguments": {}}], "reply": "x\ud83d"})
    assert action.reply == "x\ufffd"
    assert action.tool_calls[0].name == "a__\ufffd" and action.tool_calls[0].id == "c\ufffd"
    assert parse_action("pair \ud83d\ude00 kept").reply == "pair \U0001f600 kept"
    assert parse_action({"role": "assistant", "content": "\udc00"}).reply == "\ufffd"
    assert clean_text("plain") == "plain"
