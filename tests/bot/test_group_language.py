"""The group reads one language, the match's, whoever caused the message (issue 24,
docs/glossary.md): an English-speaking GM runs a Russian match, and everything the bot writes
or edits in the group (replies to the GM, confirmations under a Russian question and their
buttons, /clock, alerts to the GM's presses there) is Russian."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from handlers.telegram.harness import GROUP_ID, Harness
from tests.test_glossary import latin_words


@pytest.fixture
def h() -> Iterator[Harness]:
    harness = Harness()
    yield harness
    harness.close()


def group_texts(h: Harness, since: int) -> list[str]:
    """Texts and button labels the bot sent or edited in the group after call ``since``, and
    the alerts answering presses there."""
    out = []
    for call in h.api.calls[since:]:
        p = call.params
        if call.method == "answerCallbackQuery" and p.get("text"):
            out.append(str(p["text"]))
        if str(p.get("chat_id")) != str(GROUP_ID):
            continue
        out += [str(p[k]) for k in ("text", "caption") if p.get(k)]
        markup = p.get("reply_markup")
        if isinstance(markup, str):
            markup = json.loads(markup)
        rows = (markup or {}).get("inline_keyboard", [])
        out += [str(b.get("text", "")) for row in rows for b in row]
    return out


def english(texts: list[str]) -> list[str]:
    names = {"Carol", "Bob", "Smith", "English"}  # names; the language button's own name
    return [t for t in texts if set(latin_words(t)) - names]


def test_an_english_gm_in_a_russian_match_gets_russian_in_the_group(h: Harness) -> None:
    gm = h.user(333, "Carol", lang="en")
    alice = h.user(111, "Алиса", lang="ru")
    h.group(GROUP_ID)
    h.say(gm, GROUP_ID, "/duel")
    h.press_text(gm, h.last(GROUP_ID, with_buttons=True), "Pistol")
    lobby = h.last(GROUP_ID, with_buttons=True)
    h.press_text(gm, lobby, "🌐")  # the match's language: Russian
    match = h.deps.repo.active_in_chat(GROUP_ID)[0]
    assert match.lang == "ru"
    since = len(h.api.calls)
    lobby = h.last(GROUP_ID, with_buttons=True)
    h.press_text(gm, lobby, "Начать")  # not enough players: the answer is Russian
    h.say(gm, GROUP_ID, "/clock")
    h.say(gm, GROUP_ID, "/clock turn=soon")  # a bad value: the rejection is Russian too
    h.say(gm, GROUP_ID, "/status")
    h.press(alice, h.last(GROUP_ID, with_buttons=True), 0)  # Alice joins
    texts = group_texts(h, since)
    assert any("Недостаточно игроков" in t or "игроков" in t for t in texts), texts
    assert english(texts) == []


def test_the_gm_panel_under_a_russian_match_is_russian(h: Harness) -> None:
    from tests.bot.conftest import Duel

    duel = Duel(h)  # Carol the GM speaks English
    duel.lobby()
    h.press_text(duel.gm, duel.lobby_msg, "🌐")  # the match's language: Russian
    h.press_text(duel.gm, h.last(duel.g, with_buttons=True), "Начать")
    match = duel.match()
    assert match.lang == "ru"
    since = len(h.api.calls)
    h.say(duel.gm, duel.g, "/status")
    panel = h.last(duel.g, with_buttons=True)
    h.press_text(duel.gm, panel, "⚙️")  # the GM menu
    menu = h.last(duel.g, with_buttons=True)
    h.press_text(duel.gm, menu, "🏆")  # end with a result: a question with confirm/back
    texts = group_texts(h, since)
    assert english(texts) == [], english(texts)
