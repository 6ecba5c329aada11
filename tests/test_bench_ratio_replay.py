"""The bot-vs-PTB bench's replay (tests/bench/bench_ratio.py, issue 28 point 7): calls the bot
makes at once reach it in any order and each still gets its own recorded answer."""

from __future__ import annotations

import pytest

from tests.bench.bench_ratio import Script, _chat_of


def test_calls_made_at_once_get_their_own_answers_in_any_order() -> None:
    script = Script(
        [[("sendMessage", {"chat_id": 1}, b"one"), ("sendMessage", {"chat_id": 2}, b"two")]]
    )
    script.next_update()
    assert script.answer("sendMessage", "2")[1] == b"two"  # the second chat's builder first
    assert script.answer("sendMessage", "1")[1] == b"one"
    assert script.diverged == []


def test_a_call_the_recording_lacks_is_a_divergence_kept_for_the_bench() -> None:
    script = Script([[("editMessageText", {"chat_id": 1}, b"x")]])
    script.next_update()
    with pytest.raises(RuntimeError):
        script.answer("sendPhoto", "1")
    assert script.diverged == ["update 0: sendPhoto"]


def test_the_chat_of_a_form_posted_request() -> None:
    assert _chat_of(b"chat_id=-1001&text=%22hi%22") == "-1001"
    assert _chat_of(b'chat_id="42"') == "42"
    assert _chat_of(b"text=hi") is None
