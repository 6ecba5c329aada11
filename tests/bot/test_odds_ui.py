"""The lobby's 🎲 Odds through the real Application: the configured matchup simulated with
random orders on both sides, answered with shares by side and their intervals, mean turns, the
commonest ending and a chart; for the GM in the chat, for a player in private; cached."""

from __future__ import annotations

import re

import pytest

from handlers.telegram.features import odds
from handlers.telegram.harness import plain
from handlers.telegram.screens import odds_chart
from handlers.telegram.screens.odds_chart import chart_png
from tests.bot.conftest import Duel

PNG = b"\x89PNG\r\n\x1a\n"


def _matches(text: str) -> int:
    found = re.search(r"(\d+) matches|матчей (\d+)", text)
    assert found, text
    return int(found.group(1) or found.group(2))


def _latin_lobby(duel: Duel) -> None:
    """A lobby of Bob and Dave (names Pillow's default font can draw)."""
    h = duel.h
    dave = h.user(555555555, "Dave", lang="en")
    h.say(duel.gm, duel.g, "/duel@sekundant_bot")
    h.press_text(duel.gm, h.last(duel.g, with_buttons=True), "Pistol")
    lobby = h.last(duel.g, with_buttons=True)
    h.press(duel.bob, lobby, 0)
    h.press(dave, lobby, 0)
    h.say(duel.bob, duel.b, "/character weapon=revolver perks=lucky")
    h.say(dave, int(dave["id"]), "/character weapon=rifle")
    duel.lobby_msg = lobby


def test_gm_gets_the_odds_in_the_group_with_a_chart(duel: Duel) -> None:
    h = duel.h
    odds._CACHE.clear()
    _latin_lobby(duel)
    before = len(h.api.chat(duel.g).messages)
    h.press_text(duel.gm, duel.lobby_msg, "Odds")
    answer = h.last(duel.g)
    assert len(h.api.chat(duel.g).messages) == before + 1
    text = plain(answer.text)
    assert _matches(text) >= odds.MIN_MATCHES
    assert "random orders on both sides" in text
    # Both sides by name and weapon, each with a share and its 95% interval.
    assert re.search(r"\(revolver\): \d+\.\d% \(\d+\.\d%–\d+\.\d%\)", text), text
    assert text.count("%–") >= 2
    assert "turns per match" in text and "commonest ending" in text
    assert "(rifle)" in text
    assert answer.photo is not None and answer.photo.startswith(PNG)


def test_a_player_gets_the_odds_in_private_in_her_language(duel: Duel) -> None:
    h = duel.h
    duel.lobby()
    group_before = len(h.api.chat(duel.g).messages)
    h.press_text(duel.alice, duel.lobby_msg, "Odds")
    assert len(h.api.chat(duel.g).messages) == group_before  # nothing in the group
    answer = plain(h.last(duel.a).text)
    assert "Шансы" in answer and "случайные приказы у обеих сторон" in answer
    assert "95% интервал" in answer
    assert h.api.alerts[-1][0] == duel.a and not h.api.alerts[-1][2]  # a toast: sent


def test_odds_refused_to_strangers_and_before_every_seat_has_a_character(duel: Duel) -> None:
    h = duel.h
    h.say(duel.gm, duel.g, "/duel@sekundant_bot")
    h.press_text(duel.gm, h.last(duel.g, with_buttons=True), "Pistol")
    lobby = h.last(duel.g, with_buttons=True)
    h.press(duel.alice, lobby, 0)
    h.press(duel.bob, lobby, 0)
    h.press(duel.alice, h.last(duel.a, with_buttons=True), 0)
    group_before = len(h.api.chat(duel.g).messages)
    h.press_text(duel.gm, lobby, "Odds")  # Bob has no character yet
    assert h.api.alerts[-1][0] == duel.gm["id"] and h.api.alerts[-1][2]
    assert "pick the characters first" in h.api.alerts[-1][1]
    eve = h.user(444444444, "Eve", lang="en")
    h.press_text(eve, lobby, "Odds")
    assert h.api.alerts[-1][0] == eve["id"] and h.api.alerts[-1][2]
    assert len(h.api.chat(duel.g).messages) == group_before


def test_odds_are_cached_by_configuration(duel: Duel) -> None:
    h = duel.h
    odds._CACHE.clear()
    duel.lobby()
    h.press_text(duel.gm, duel.lobby_msg, "Odds")
    first = plain(h.last(duel.g).text)
    h.press_text(duel.gm, duel.lobby_msg, "Odds")
    assert plain(h.last(duel.g).text) == first and len(odds._CACHE) == 1
    h.say(duel.bob, duel.b, "/character weapon=rifle perks=lucky")  # another matchup
    h.press_text(duel.gm, duel.lobby_msg, "Odds")
    assert len(odds._CACHE) == 2 and "(rifle)" in plain(h.last(duel.g).text)


def test_odds_size_follows_the_measured_speed() -> None:
    assert odds.size(100_000) == odds.MAX_MATCHES
    # 1,000 matches/s: the run gets its share of the 3 s budget, no more.
    assert odds.size(1000) == int(1000 * odds.BUDGET_SECONDS * odds.RUN_SHARE) < 3000
    assert odds.size(10) == odds.MIN_MATCHES  # a very slow matchup: the floor


def test_chart_is_a_png_or_nothing_never_empty_boxes(monkeypatch: pytest.MonkeyPatch) -> None:
    bars = [("a (rifle)", 0.4, 0.38, 0.42), ("draw", 0.1, 0.09, 0.11)]
    png = chart_png("Win shares, 2000 matches", bars)
    assert png is not None and png.startswith(PNG)
    cyrillic = chart_png("Доли побед", [("Алиса (револьвер)", 0.5, 0.48, 0.52)])
    assert cyrillic is not None and cyrillic.startswith(PNG)  # the bundled font draws it
    monkeypatch.setattr(odds_chart, "FONT", None)  # Pillow's default font has no Cyrillic:
    assert chart_png("Доли побед", bars) is None  # no picture rather than empty boxes
