"""What players see (issue 16): short reveals with every die one tap away, short receipts with
the proof collapsed, no rule ids in what players read, through the real Application."""

from __future__ import annotations

import asyncio
import re
from typing import Any

import pytest

from engine import usecases
from engine.match import Phase
from handlers.telegram.harness import Harness
from handlers.telegram.reveal import expandable, visible
from tests.bot.conftest import Duel
from tests.bot.test_dragons_ui import Battle, everyone_orders
from tests.bot.test_plans_ui import PlansDuel

PISTOL_MAX = 700
DRAGONS_MAX = 1500
RECEIPT_MAX = 300
RULE_ID = re.compile(r"\b[CDP]\d{1,2}[a-z]?\b")  # C8, D24, P14, D34a


def _reveals(texts: list[str]) -> list[str]:
    return [t for t in texts if "<blockquote expandable>" in t and ("reveal" in t or "вскрыт" in t)]


def test_expandable_keeps_blocks_short_and_visible_hides_them() -> None:
    lines = [f"line {i} " + "x" * 90 for i in range(100)]
    text = "story\n\n" + expandable(lines, limit=1000)
    assert text.count("<blockquote expandable>") == 10
    blocks = re.findall(r"<blockquote expandable>(.*?)</blockquote>", text, re.S)
    assert len(blocks) == 10 and all(len(b) <= 1000 for b in blocks)
    assert visible(text) == "story"


def test_pistol_reveals_are_short_stories_with_the_dice_collapsed() -> None:
    """Seeded duels with every move and a spread of aims: each reveal's visible text stays
    under 700 characters and names no rule; the dice are in the collapsed block."""
    seen = 0
    for seed in range(6):
        h = Harness()
        duel = Duel(h)
        duel.start()
        for turn in range(6):
            if h.deps.repo.load("m00001").match.phase is not Phase.RUNNING:
                break
            duel.alice_seals((seed + turn) % 5 - 2, (turn % 3) - 1, 1 - seed % 3)
            h.say(duel.bob, duel.b, f"/order move {(seed * 2 + turn) % 5 - 2} aim {seed % 3 - 1}:0")
        for text in _reveals(h.reveals(duel.g)):
            seen += 1
            shown = visible(text)
            assert len(shown) <= PISTOL_MAX, shown
            assert not RULE_ID.search(shown), shown
            assert "🔫" in shown  # who shot at whom, in words
            details = text.split("<blockquote expandable>", 1)[1]
            assert "d6" in details and "d3" in details  # every die, one tap away
        h.close()
    assert seen >= 6


def test_dragons_four_dragon_reveals_stay_under_1500_characters() -> None:
    h = Harness()
    battle = Battle(h)
    battle.start()
    for _ in range(4):
        if battle.match().phase is not Phase.RUNNING:
            break
        everyone_orders(battle)
    reveals = _reveals(h.reveals(battle.g))
    assert len(reveals) >= 2
    for text in reveals:
        shown = visible(text)
        assert len(shown) <= DRAGONS_MAX, (len(shown), shown)
        assert not RULE_ID.search(shown), shown
        assert "Alice" in shown and "Raider 1" in shown  # the table names every dragon
    first = visible(reveals[0])
    assert "⚔ Alice → Bob (claws):" in first  # the attack and its result in words
    assert "Fighting d" not in first and "Fighting d" in reveals[0]  # the roll, collapsed
    h.close()


def test_receipts_are_short_with_salt_and_fingerprint_collapsed(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(0, 0, 1)
    receipt = h.last(duel.a)
    shown = visible(receipt.text)
    assert len(shown) <= RECEIPT_MAX, shown
    (sealed,) = usecases.my_orders(h.deps, "m00001", duel.a)
    assert sealed.salt not in shown and sealed.fingerprint not in shown
    assert sealed.salt in receipt.text and sealed.fingerprint in receipt.text
    assert receipt.buttons  # still changeable
    h.say(duel.bob, duel.b, "/order move 0 aim 0:0")  # completes the turn
    final = h.last(duel.b)
    assert not final.buttons and "reveal" in visible(final.text)


def test_plans_reveal_names_no_rules_and_keeps_the_texts_visible() -> None:
    h = Harness()
    pd = PlansDuel(h)
    pd.start()
    confirm = pd.build_first_choices()
    pd.reply(pd.alice, confirm, "a low lunge")
    pd.seal_shown(pd.alice)
    pd.bob_types(1)
    (reveal,) = _reveals(h.reveals(pd.g))
    shown = visible(reveal)
    assert "a low lunge" in shown and "🔮" in shown  # plans, texts and guesses: the story
    assert not RULE_ID.search(shown), shown
    assert "🎲" in reveal.split("<blockquote expandable>", 1)[1]  # the dice, collapsed
    h.close()


def _gm_result(h: Harness, gm: dict, group: int, pick: str) -> str:
    """The GM ends the running match from the panel with ``pick``; the final message."""
    status = h.api.message(group, int(h.deps.repo.load("m00001").match.ui["status"]))
    assert status is not None
    h.press_text(gm, status, "GM")
    h.press_text(gm, status, "End with a result")
    labels = [b["text"] for b in status.buttons]
    h.press_text(gm, status, pick)
    h.press_text(gm, status, "Confirm")  # ending asks first
    assert h.deps.repo.load("m00001").match.phase is Phase.FINISHED, labels
    return visible(h.texts(group)[-1])


def test_gm_chosen_winner_is_named_in_every_rulesets_final_message() -> None:
    h = Harness()
    pd = PlansDuel(h)
    pd.start()
    final = _gm_result(h, pd.gm, pd.g, "Bob")
    assert "Winner: Bob <b>Smith</b> (the GM's ruling)" in final  # plans: not just "ended"
    h.close()
    h = Harness()
    duel = Duel(h)
    duel.start()
    final = _gm_result(h, duel.gm, duel.g, "Draw")
    assert "Draw. (the GM's ruling)" in final
    h.close()


def test_dragons_gm_result_offers_sides_and_names_the_side() -> None:
    h = Harness()
    battle = Battle(h)
    battle.start()
    status = h.api.message(battle.g, int(battle.match().ui["status"]))
    assert status is not None
    h.press_text(battle.gm, status, "GM")
    h.press_text(battle.gm, status, "End with a result")
    labels = [b["text"] for b in status.buttons]
    assert "🏆 Side A wins (Alice, Wingman)" in labels
    assert not any(label.startswith("🏆 Alice") for label in labels)  # sides, not dragons
    h.press_text(battle.gm, status, "Side B")
    h.press_text(battle.gm, status, "Confirm")
    m = battle.match()
    assert m.outcome is not None and set(m.outcome["winners"]) == {"p2", "n2"}
    final = visible(h.texts(battle.g)[-1])
    assert "🏆 Side B wins: Bob, Raider 1 (the GM's ruling)" in final
    assert "decides" not in final
    h.close()


def test_help_lists_all_three_rulesets_and_rules_explains_the_one_in_play(duel: Duel) -> None:
    h = duel.h
    h.say(duel.bob, duel.b, "/help")
    text = visible(h.texts(duel.b)[-1])
    assert all(name in text for name in ("Pistol duel", "Plan duel", "Dragon dogfight"))
    duel.start()
    h.say(duel.gm, duel.g, "/rules")
    rules = visible(h.texts(duel.g)[-1])
    assert "Pistol duel — the rules in short" in rules and "Dragon" not in rules
    h.say(duel.alice, duel.a, "/rules")  # in private: her match's, in her language
    assert "Дуэль на пистолетах — правила коротко" in visible(h.texts(duel.a)[-1])


def test_every_rulesets_rules_fit_in_15_lines_in_both_languages() -> None:
    from engine import rulesets as registry
    from handlers.telegram.features.rules_help import MAX_LINES
    from handlers.telegram.i18n import Tr
    from handlers.telegram.ui import has_ui

    for lang in ("en", "ru"):
        tr = Tr(lang)
        for rid in (r for r in registry.available() if has_ui(r)):
            text = tr(f"rules.{rid}")
            assert text != f"rules.{rid}" and len(text.splitlines()) <= MAX_LINES, (lang, rid)
            assert not RULE_ID.search(text), text


def test_a_resolved_turns_builders_and_receipts_keep_no_live_buttons(duel: Duel) -> None:
    """Alice seals by buttons (her builder became the receipt), Bob by typing (a new receipt)
    after asking for his builder: once the turn resolves, none of them offers Change,
    Withdraw or a move; each shows one inert "turn 1 resolved" line. Within the budget of
    docs/bot.md: one editMessageReplyMarkup per remembered message, none for the message the
    resolving seal just drew."""
    h = duel.h
    duel.lobby()
    lobby_msgs = {uid: len(h.api.chat(uid).messages) for uid in (duel.a, duel.b)}
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    h.say(duel.bob, duel.b, "/order")  # a second builder for Bob
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")  # a typed receipt with Change/Withdraw
    assert any("Withdraw" in b["text"] for b in h.last(duel.b).buttons)
    before = len(h.api.calls)
    in_flight, most = [0], [0]
    real = h.api.do_request

    async def slow_keyboards(url: str, *args: Any, **kwargs: Any) -> Any:
        if not url.endswith("/editMessageReplyMarkup"):
            return await real(url, *args, **kwargs)
        in_flight[0] += 1
        most[0] = max(most[0], in_flight[0])
        await asyncio.sleep(0.01)  # Telegram's round trip
        in_flight[0] -= 1
        return await real(url, *args, **kwargs)

    h.api.do_request = slow_keyboards  # type: ignore[method-assign]
    duel.alice_seals(0, 3, 3)  # completes turn 1: nobody is hit
    assert duel.match().turn == 2
    cleanup = [c for c in h.api.calls[before:] if c.method == "editMessageReplyMarkup"]
    assert len(cleanup) == 3  # Bob's two builders and his receipt; Alice's receipt was drawn
    assert most[0] == 3  # at once, not one round trip after another (billed waiting)
    for uid in (duel.a, duel.b):
        sent = h.api.chat(uid).messages[lobby_msgs[uid] :]
        turn_one = [m for m in sent if m.from_bot and m.buttons][:-1]
        assert len(turn_one) == (3 if uid == duel.b else 0)  # Alice's receipt has none
        for m in turn_one:  # everything but the turn-2 builder
            labels = [b["text"] for b in m.buttons]
            assert labels in (["✔️ Turn 1 resolved"], ["✔️ Ход 1 разрешён"]), labels


@pytest.mark.parametrize("ruleset", ["pistol", "dragons", "plans"])
def test_no_rule_ids_in_anything_players_read(ruleset: str) -> None:
    """Lobby, builders, receipts, statuses, reveals and final messages of a played turn, in
    every chat: rule ids (P14, D24, C8) stay in the docs, the dossier and the GM's details."""
    from handlers.telegram.picture_demo import play

    h = play(ruleset, "ru")
    for chat in h.api.chats.values():
        for m in chat.messages:
            if m.from_bot:
                shown = visible(m.text)
                assert not RULE_ID.search(shown), shown
                labels = " ".join(b["text"] for b in m.buttons)
                assert not RULE_ID.search(labels), labels
    h.close()


def test_a_resumed_turn_opening_shows_the_seals_made_meanwhile(duel: Duel) -> None:
    """A resolved turn's delivery that resumes late (the sweeper, after the invocation that
    began it died) opens the next turn again: its status edit must show the orders sealed
    meanwhile with their fingerprints, not redraw them empty (found with the outbox's journal:
    edits are made again on a resume)."""
    from handlers.telegram.screens.render import short_fp
    from handlers.telegram.shared import turns
    from handlers.telegram.shared.context import SekundantContext

    h = duel.h
    duel.start()
    duel.alice_seals(0, 3, 3)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")  # turn 1 resolves: nobody is hit
    duel.alice_seals(0, 3, 3)  # turn 2's first order
    match = duel.match()
    assert match.turn == 2 and match.sealed == ("p1",)
    fp = h.deps.repo.load(match.id).orders["p1"].fingerprint
    assert short_fp(fp) in duel.status_msg().text
    h.runner.run(turns.open_turn(SekundantContext(h.app), match))  # the resumed opening
    assert short_fp(fp) in duel.status_msg().text
