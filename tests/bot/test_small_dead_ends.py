"""The small dead ends a new user met, each now answered: a repeated join, a forced default
order, aims beyond the keyboard, a dossier that cannot be sent, a bot that cannot reach
Telegram at startup."""

from __future__ import annotations

from pathlib import Path

import pytest

from handlers.telegram.callbacks import Callback
from handlers.telegram.harness import plain
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import get_ui
from tests.bot.conftest import Duel


def test_joining_again_says_already_in_this_match_and_sends_no_second_picker(
    duel: Duel,
) -> None:
    h = duel.h
    duel.lobby()  # Alice and Bob joined and chose characters
    before = len(h.texts(duel.a))
    h.press(duel.alice, duel.lobby_msg, 0)  # the Join link again
    new = [plain(t) for t in h.texts(duel.a)[before:]]
    assert new == ["Вы уже в этом матче."]
    assert len(duel.match().seats) == 2


def test_joining_again_before_choosing_shows_the_picker_once_more(duel: Duel) -> None:
    h = duel.h
    h.say(duel.gm, duel.g, "/duel")
    h.press_text(duel.gm, h.last(duel.g, with_buttons=True), "Pistol")
    lobby = h.last(duel.g, with_buttons=True)
    h.press(duel.bob, lobby, 0)
    h.press(duel.bob, lobby, 0)
    texts = [plain(t) for t in h.texts(duel.b)]
    assert texts[-2] == "You are already in this match."
    assert "/character" in texts[-1]  # still to do: pick a character


def test_the_defaulted_player_is_told_privately_on_a_force_resolve(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(0, 3, 3)
    status = duel.status_msg()
    h.press_text(duel.gm, status, "Resolve")
    h.press_text(duel.gm, status, "Confirm")
    told = plain(h.texts(duel.b)[-2] + h.texts(duel.b)[-1])
    assert "without your order" in told and "default order" in told
    assert not any("без вашего приказа" in t for t in h.texts(duel.a))  # Alice sealed


def test_the_aim_keyboard_reaches_every_legal_aim(duel: Duel) -> None:
    """P8: aims -5..5 on both axes; the main keyboard shows the corners near the silhouette,
    its "more aims" page every other one."""
    duel.start()
    match = duel.match()
    ui, tr = get_ui("pistol"), Tr("en")
    reached: set[tuple[int, int]] = set()
    pages = [ui.builder(tr, match, "p1", ["0"])]
    far = [b.cb for row in pages[0].rows for b in row if b.cb and b.cb.args[2:] == ("far",)]
    assert len(far) == 1
    pages.append(ui.builder(tr, match, "p1", list(far[0].args[1:])))
    for page in pages:
        assert sum(len(r) for r in page.rows) <= 100  # Telegram's limit per keyboard
        for row in page.rows:
            for b in row:
                cb: Callback | None = b.cb
                if cb is not None and len(cb.args) == 4:
                    reached.add((int(cb.args[2]), int(cb.args[3])))
    window = range(-5, 6)
    assert reached == {(x, y) for x in window for y in window}


def test_pressing_a_far_aim_reaches_the_confirmation(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.press(duel.bob, h.last(duel.b, with_buttons=True), 2)  # move 0
    h.press_text(duel.bob, h.last(duel.b, with_buttons=True), "🔭")
    h.press_text(duel.bob, h.last(duel.b, with_buttons=True), "5:-5")
    h.press_text(duel.bob, h.last(duel.b, with_buttons=True), "🔒")
    assert "p2" in duel.match().sealed


def test_a_dossier_that_cannot_be_sent_answers_the_button(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.press_text(duel.gm, duel.status_msg(), "End")
    h.press_text(duel.gm, duel.status_msg(), "Confirm")
    summary = h.last(duel.g, with_buttons=True)
    h.api.started.discard(duel.a)  # Alice blocked the bot: nothing can reach her privately
    h.press_text(duel.alice, summary, "📜")
    answered = [a for a in h.api.alerts if a[0] == duel.a]
    assert answered and "Досье не удалось отправить" in answered[-1][1]


def test_startup_without_network_is_one_line_and_a_non_zero_exit(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from handlers import cli

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", "123456:ABCdefGHIjklMNOpqrSTUvwxYZ012345678")
    monkeypatch.setenv("TELEGRAM_API_BASE_URL", "http://127.0.0.1:9")  # nothing listens
    monkeypatch.setenv("SEKUNDANT_STORE", "sqlite")
    monkeypatch.setenv("SEKUNDANT_DB", str(tmp_path / "s.db"))
    assert cli.main(["run"]) == 2
    captured = capsys.readouterr()
    err = captured.err + captured.out
    assert err.count("\n") == 1 and "cannot reach Telegram at http://127.0.0.1:9" in err, err
    assert "Traceback" not in err
