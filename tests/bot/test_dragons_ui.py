"""The ``dragons`` UI end to end through the real PTB Application (fake Bot API, memory store):
a 2v2 battle (two players, two GM-run NPC dragons) with buttons and typed orders, refusals
with reasons, the GM's NPC helpers, D34 takeover routing, secrecy and the D36 reveal."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from engine import match as lifecycle
from engine import usecases
from engine.match import Match, Phase
from engine.rulesets.dragons import RULESET as DRAGONS
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import GROUP_ID, Harness, plain


class Battle:
    """A GM (Carol), Alice and Bob (all English clients), and the group."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.gm = h.user(333, "Carol", lang="en")
        self.alice = h.user(111, "Alice", lang="en")
        self.bob = h.user(222, "Bob", lang="en")
        self.g = h.group(GROUP_ID)
        h.say(self.gm, 333, "/start")  # the GM can be messaged privately

    def lobby(self, *options: str) -> FakeMessage:
        h = self.h
        h.say(self.gm, self.g, "/duel")
        h.press_text(self.gm, h.last(self.g, with_buttons=True), "Dragon")
        lobby = h.last(self.g, with_buttons=True)
        for opt in options:
            h.press_text(self.gm, lobby, opt)
        h.press_text(self.alice, lobby, "Join")
        h.press_text(self.bob, lobby, "Join")
        h.press(self.alice, h.last(111, with_buttons=True), 0)  # the young dragon preset
        h.say(self.bob, 222, "/character war speed=6")
        h.press_text(self.alice, lobby, "Side A")
        h.press_text(self.bob, lobby, "Side B")
        # NPCs: one typed in the group, one from the GM's panel (preset, then side).
        h.say(self.gm, self.g, "/npc raider A Wingman")
        h.press_text(self.gm, lobby, "NPC dragons")
        panel = h.last(333, with_buttons=True)
        h.press_text(self.gm, panel, "Raider")
        h.press_text(self.gm, h.last(333, with_buttons=True), "Side B")
        self.lobby_msg = lobby
        return lobby

    def start(self, *options: str) -> None:
        self.h.press_text(self.gm, self.lobby(*options), "Start")

    def match(self) -> Match:
        return self.h.deps.repo.load("m00001").match

    def builder(self, uid: int, pid: str) -> FakeMessage:
        """The latest builder message for ``pid`` in ``uid``'s chat."""
        msgs = [
            m
            for m in self.h.api.chat(uid).messages
            if m.from_bot and m.buttons and f"({pid})" in plain(m.text)
        ]
        return msgs[-1]

    def labels(self, msg: FakeMessage) -> list[str]:
        return [b["text"] for b in msg.buttons]


@pytest.fixture
def battle() -> Iterator[Battle]:
    h = Harness()
    yield Battle(h)
    h.close()


def test_lobby_sides_npcs_and_presets(battle: Battle) -> None:
    lobby = battle.lobby()
    m = battle.match()
    assert [(s.pid, s.name, s.side, s.npc) for s in m.seats] == [
        ("p1", "Alice", "A", False),
        ("p2", "Bob", "B", False),
        ("n1", "Wingman", "A", True),
        ("n2", "Raider 1", "B", True),
    ]
    assert m.seats[1].character is not None and m.seats[1].character["speed"] == 6  # D2 edit
    text = plain(lobby.text)
    assert "Sides:" in text and "A: Alice p1, Wingman (NPC) n1" in text
    assert "Top Speed 8" in text  # the war dragon's stat block is shown


def test_lobby_options_change_the_config(battle: Battle) -> None:
    battle.lobby("Turn limit", "Melee", "Takeover")
    cfg = DRAGONS.config(battle.match().config)
    assert cfg.turn_limit == 5 and cfg.melee_requires_range_5
    assert not cfg.consumed_attacks_nearest


def test_npc_command_refuses_bad_input_naming_the_field(battle: Battle) -> None:
    battle.lobby()
    h = battle.h
    h.say(battle.gm, battle.g, "/npc dragonfly A")
    assert "preset" in plain(h.texts(battle.g)[-1])
    h.say(battle.gm, battle.g, '/npc {"weapons": [], "top_speed": 9} B Bad')
    assert "weapons" in plain(h.texts(battle.g)[-1])
    h.say(battle.alice, battle.g, "/npc raider A Mine")
    assert "GM" in plain(h.texts(battle.g)[-1])
    assert len(battle.match().seats) == 4


def test_gm_removes_an_npc_by_panel_button_or_typed(battle: Battle) -> None:
    lobby = battle.lobby()
    h = battle.h
    h.press_text(battle.gm, lobby, "NPC dragons")
    panel = h.last(333, with_buttons=True)
    assert battle.labels(panel).count("✖ remove") == 2  # one per NPC, none for players
    h.press(battle.gm, panel, battle.labels(panel).index("✖ remove"))  # the first NPC: n1
    assert len(battle.match().seats) == 4  # asked first (issue 24: every removal confirms)
    assert "Take Wingman out of the match?" in plain(panel.text)
    h.press_text(battle.gm, panel, "Back")
    assert len(battle.match().seats) == 4
    h.press(battle.gm, panel, battle.labels(panel).index("✖ remove"))
    h.press_text(battle.gm, panel, "Confirm")
    assert [s.pid for s in battle.match().seats] == ["p1", "p2", "n2"]
    assert "Wingman" not in plain(h.last(333, with_buttons=True).text)
    assert "Wingman" not in plain(lobby.text)  # the group's lobby was refreshed
    h.say(battle.alice, battle.g, "/npc remove n2")
    assert "GM" in plain(h.texts(battle.g)[-1])
    h.say(battle.gm, battle.g, "/npc remove p2")
    assert "not an NPC" in plain(h.texts(battle.g)[-1])
    h.say(battle.gm, battle.g, "/npc remove n2")
    assert "Raider 1" in plain(h.texts(battle.g)[-1])
    assert [s.pid for s in battle.match().seats] == ["p1", "p2"]


def _seal_alice_by_buttons(b: Battle, move: str, *actions: tuple[str, str]) -> None:
    h = b.h
    h.press_text(b.alice, b.builder(111, "p1"), move)
    for kind, pick in actions:
        h.press_text(b.alice, b.builder(111, "p1"), "Add an action")
        h.press_text(b.alice, b.builder(111, "p1"), kind)
        if kind == "Attack":
            weapon, target = pick.split("@")
            h.press_text(b.alice, b.builder(111, "p1"), weapon)
            if target:
                h.press_text(b.alice, b.builder(111, "p1"), target)
            else:  # the first foe offered
                h.press(b.alice, b.builder(111, "p1"), 0)
        else:
            h.press_text(b.alice, b.builder(111, "p1"), pick)
    h.press_text(b.alice, b.builder(111, "p1"), "review")
    h.press_text(b.alice, b.builder(111, "p1"), "Seal")


def everyone_orders(battle: Battle) -> None:
    """One turn: Alice by buttons, Bob typed, the GM's NPCs by a helper button and typed."""
    h = battle.h
    m = battle.match()
    turn, acting = m.turn, lifecycle.acting(m)
    if "p1" in acting:
        st = DRAGONS.load_state(m.state or {})
        me = st.dragon("p1")
        move = "Continue" if me.tail_of or me.falling else "level ▸"
        _seal_alice_by_buttons(battle, move, ("Attack", "claws@"))
    if "p2" in acting:
        st = DRAGONS.load_state(m.state or {})
        foe = next(d.pid for d in st.dragons if d.in_battle and d.side == "A")
        h.say(battle.bob, 222, f"/order level 0; attack bite {foe}")
        assert "p2" in battle.match().sealed or battle.match().turn > turn
    if "n1" in acting:
        h.press_text(battle.gm, battle.builder(333, "n1"), "Attack nearest")
        if battle.match().turn == turn and "n1" not in battle.match().sealed:
            h.say(battle.gm, 333, "/npcorder n1 level 0")
    if "n2" in acting:
        st = DRAGONS.load_state(battle.match().state or {})
        foe = next((d.pid for d in st.dragons if d.in_battle and d.side == "A"), "")
        h.say(battle.gm, 333, f"/npcorder n2 level -1; attack claws {foe}")


def test_2v2_battle_buttons_typed_and_npc_orders_over_several_turns(battle: Battle) -> None:
    h = battle.h
    battle.start()
    reveals = 0
    for turn in range(1, 5):
        m = battle.match()
        if m.phase is not Phase.RUNNING:
            break
        assert m.turn == turn
        assert not m.sealed
        acting = lifecycle.acting(m)
        everyone_orders(battle)
        group = [t for t in h.reveals(battle.g) if "reveal" in t]
        now = battle.match()
        assert len(group) == reveals + 1, (turn, now.sealed, acting, h.texts(333)[-1][:300])
        reveals += 1
    assert reveals >= 2
    first = next(t for t in h.reveals(battle.g) if "reveal" in t)
    text = plain(first)
    assert "Initiative:" in text and "▶ Alice" in text and "▶ Wingman" in text
    assert "Alice: level; attack Bob with claws" in text
    assert "Bob: level; attack Alice with bite" in text
    assert "Fighting d" in text  # the roll with its die, faces, modifiers and result
    assert first.count("<pre>") == 1  # the status table in the story (D36)
    assert "└" in first.split("<blockquote expandable>", 1)[1]  # the sky chart, collapsed


def test_D36_reveal_has_table_and_sky_chart(battle: Battle) -> None:
    h = battle.h
    battle.start()
    _seal_alice_by_buttons(battle, "dive 1")
    h.say(battle.bob, 222, "/order level +1")
    h.say(battle.gm, 333, "/npcorder n1 climb 1")
    h.say(battle.gm, 333, "/npcorder n2 level 0")
    reveal = next(t for t in h.reveals(battle.g) if "reveal" in t)
    table = reveal.split("<pre>")[1].split("</pre>")[0]
    # Before the proof block and the next turn's commitment (folded in: a quiet group).
    chart = reveal.split("<blockquote expandable>")[-3]
    for name, side, s, alt in (("Alice", "A", 8, 9), ("Bob", "B", 7, 10), ("Wingman", "A", 3, 11)):
        row = next(line for line in table.splitlines() if name in line)
        assert row.split()[1:4] == [side, str(s), str(alt)], row
    assert "└" in chart and "p1 [A] S8 H9" in chart and "n1 [A] S3 H11" in chart
    assert "🔒" in plain(reveal) or "📜" in plain(reveal)


def test_illegal_movement_is_refused_with_the_reason_and_changes_nothing(battle: Battle) -> None:
    h = battle.h
    battle.start()
    h.say(battle.alice, 111, "/order climb 3")  # Speed 6: climb 3 costs 9 (D12, D14)
    assert "at most climb 2" in plain(h.texts(111)[-1])
    h.say(battle.bob, 222, "/order level +2")  # war dragon at 6, Top Speed 8: ok
    h.say(battle.alice, 111, "/order level +5")
    assert "-1..2" in plain(h.texts(111)[-1])  # D11
    assert battle.match().sealed == ("p2",)
    builder = battle.builder(111, "p1")
    labels = battle.labels(builder)
    assert not any(label.startswith("climb 3") for label in labels)  # not offered...
    assert "climb 3: Climb 3 costs 9 Speed but you have 6" in plain(builder.text)  # ...explained
    assert "climb 1 ▸ S3 H11" in labels and "dive 2 ▸ S10 H8" in labels


def test_builder_three_actions_fit_in_callback_data_and_show_the_penalty(battle: Battle) -> None:
    h = battle.h
    battle.start()
    a = battle.alice
    h.press_text(a, battle.builder(111, "p1"), "level ▸")
    # Three actions that can all succeed from level flight (the builder offers no other).
    for kind, pick in (("Attack", "claws"), ("tail", "Raider 1"), ("tail", "Bob")):
        h.press_text(a, battle.builder(111, "p1"), "Add an action")
        h.press_text(a, battle.builder(111, "p1"), kind)
        h.press_text(a, battle.builder(111, "p1"), pick)
        if kind == "Attack":
            screen = battle.builder(111, "p1")
            assert all(" R" in lbl for lbl in battle.labels(screen)[:2])  # Range shown
            h.press_text(a, screen, "Raider 1")
    hub = battle.builder(111, "p1")
    assert "Actions: 3 → -4 to each" in plain(hub.text)
    assert "At most 3 actions" in plain(hub.text)
    assert not any("Add an action" in lbl for lbl in battle.labels(hub))
    h.press_text(a, hub, "review")
    confirm = battle.builder(111, "p1")
    assert "Actions: 3" in plain(confirm.text)
    assert all(len(b["callback_data"].encode()) <= 64 for b in confirm.buttons)
    h.press_text(a, confirm, "Seal")
    order = usecases.my_orders(h.deps, "m00001", 111)[0].order
    assert [x["type"] for x in order["actions"]] == ["attack", "tail", "tail"]
    assert order["actions"][0] == {"type": "attack", "weapon": "claws", "target": "n2"}


def test_attack_targets_show_possibility_and_range_band(battle: Battle) -> None:
    h = battle.h
    battle.start()
    a = battle.alice
    h.press_text(a, battle.builder(111, "p1"), "climb 1")  # S3 H11: above everyone
    h.press_text(a, battle.builder(111, "p1"), "Add an action")
    h.press_text(a, battle.builder(111, "p1"), "Attack")
    h.press_text(a, battle.builder(111, "p1"), "breath")
    labels = battle.labels(battle.builder(111, "p1"))
    # From H11 S3, Bob at S6 H10: Range 10*3 + 50 = 80 -> long band (-4), D18-D20.
    assert any(lbl.startswith("✅ Bob (p2) R80 long -4") for lbl in labels), labels
    h.press_text(a, battle.builder(111, "p1"), "Back")
    h.press_text(a, battle.builder(111, "p1"), "Start over")
    assert "1. Movement" in plain(battle.builder(111, "p1").text)


def test_npc_helpers_fill_an_order_in_one_tap(battle: Battle) -> None:
    h = battle.h
    battle.start()
    gm = battle.gm
    h.press_text(gm, battle.builder(333, "n1"), "Same as last turn")
    assert "No order from last turn" in h.api.alerts[-1][1]
    h.press_text(gm, battle.builder(333, "n1"), "Attack nearest")
    first = usecases.my_orders(h.deps, "m00001", 333)[0]
    assert first.pid == "n1" and first.order["actions"][0]["type"] == "attack"
    h.say(gm, 333, "/npcorder n2 level 0")
    _seal_alice_by_buttons(battle, "level ▸")
    h.say(battle.bob, 222, "/order level 0")
    assert battle.match().turn == 2
    if "n1" in battle.match().sealed or battle.match().phase is not Phase.RUNNING:
        return
    h.press_text(gm, battle.builder(333, "n1"), "Same as last turn")
    again = [o for o in usecases.my_orders(h.deps, "m00001", 333) if o.pid == "n1"]
    assert again and again[0].order == first.order


def test_npc_builders_go_to_the_gm_only(battle: Battle) -> None:
    h = battle.h
    battle.start()
    assert battle.builder(333, "n1") and battle.builder(333, "n2")
    for uid in (111, 222):
        assert not any("(n1)" in plain(t) or "(n2)" in plain(t) for t in h.texts(uid))
    # A player pressing an NPC's builder button is refused.
    h.click(
        battle.alice,
        battle.builder(111, "p1"),
        battle.builder(333, "n1").buttons[0]["callback_data"],
    )
    assert h.api.alerts[-1][0] == 111 and h.api.alerts[-1][2] is True
    assert battle.match().sealed == ()


def test_secrecy_no_order_content_outside_the_sealer_before_reveal(battle: Battle) -> None:
    h = battle.h
    battle.start()
    _seal_alice_by_buttons(battle, "climb 1", ("Attack", "breath@Raider 1"))
    h.say(battle.gm, 333, "/npcorder n2 climb 2; attack breath p1")
    secrets = ["climb 1;", "Raider 1 with breath", "climb 2;", "attack Alice", "attack p1 with"]
    for uid in (battle.g, 222):
        for t in h.texts(uid):
            assert not any(s in plain(t) for s in secrets), t
    for t in h.texts(333):  # the GM does not see players' orders either
        assert "climb 1;" not in plain(t) and "Raider 1 with breath" not in plain(t), t
    # The receipt names the target as the bot shows it (issue 24), not by its pid.
    assert "climb 1; attack Raider 1 with breath" in plain(h.texts(111)[-1])


def _consume(h: Harness, pid: str) -> None:
    loaded = h.deps.repo.load("m00001")
    m = loaded.match
    st = DRAGONS.load_state(m.state or {})
    dragons = tuple(replace(d, consumed=True) if d.pid == pid else d for d in st.dragons)
    new: Any = replace(m, state=DRAGONS.dump_state(replace(st, dragons=dragons)))
    h.deps.repo.save(new, expected_version=m.version)


def test_D34_takeover_routes_the_dragon_to_the_gm(battle: Battle) -> None:
    h = battle.h
    battle.start("Takeover")  # the GM gives a consumed dragon's orders
    _consume(h, "p1")
    h.press_text(battle.alice, battle.builder(111, "p1"), "level ▸")
    assert h.api.alerts[-1][0] == 111 and h.api.alerts[-1][2] is True
    h.say(battle.alice, 111, "/order level 0")
    assert "p1" not in battle.match().sealed
    h.say(battle.gm, 333, "/npcorder p1 level 0")
    assert "p1" in battle.match().sealed
    h.say(battle.bob, 222, "/order level 0")
    h.say(battle.gm, 333, "/npcorder n1 level 0")
    h.say(battle.gm, 333, "/npcorder n2 level 0")
    assert battle.match().turn == 2
    # Turn 2: p1's builder (with the NPC helpers) goes to the GM, not to Alice.
    gm_builder = battle.builder(333, "p1")
    assert "turn 2" in plain(gm_builder.text)
    assert any("Attack nearest" in lbl for lbl in battle.labels(gm_builder))
    alice_chat = [m.text for m in h.api.chat(111).messages if m.from_bot]
    assert not any("turn 2" in plain(t) and "(p1)" in plain(t) for t in alice_chat)


def test_typed_syntax_errors_name_what_was_expected(battle: Battle) -> None:
    h = battle.h
    battle.start()
    for typed, expected in (
        ("/order fly 2", "Unknown word «fly»"),
        ("/order climb 1; dive 1", "Only one movement"),
        ("/order attack breath", "needs WEAPON TARGET"),
        ("/order level 0; attack sword p2", "this dragon has: breath, claws"),
        ("/order level 0; attack breath n1", "is on your side"),
    ):
        h.say(battle.alice, 111, typed)
        assert expected in plain(h.texts(111)[-1]), (typed, h.texts(111)[-1])
    assert battle.match().sealed == ()


def test_russian_builder_and_reveal(battle: Battle) -> None:
    h = battle.h
    h.say(battle.alice, 111, "/lang ru")
    battle.start()
    h.say(battle.alice, 111, "/order")
    assert "Манёвр" in plain(h.texts(111)[-1])
    h.say(battle.alice, 111, "/order climb 3")
    assert "Набор 3 стоит 9 Скорости" in plain(h.texts(111)[-1])


def _reply(h: Harness, uid: int, to: FakeMessage, text: str) -> None:
    """``uid`` replies to ``to`` in their private chat (Telegram includes the replied message,
    keyboard and all)."""
    msg = FakeMessage(h.api.new_message_id(), uid, text, from_bot=False, user_id=uid)
    h.api.chat(uid).messages.append(msg)
    body = h.api.message_json(msg)
    body["reply_to_message"] = h.api.message_json(to)
    h.feed({"update_id": 900_000 + msg.message_id, "message": body})


def _power_confirmation(battle: Battle, *actions: tuple[str, str]) -> FakeMessage:
    """Bob (given an arcane skill) builds level flight, ``actions`` and a power by buttons,
    up to the confirmation screen."""
    h, b = battle.h, battle.bob
    h.press_text(b, battle.builder(222, "p2"), "level ▸")
    for kind, pick in (*actions, ("power", "")):
        h.press_text(b, battle.builder(222, "p2"), "Add an action")
        h.press_text(b, battle.builder(222, "p2"), kind)
        if pick:
            h.press_text(b, battle.builder(222, "p2"), pick)
        if kind == "Attack":  # then the first foe offered
            h.press(b, battle.builder(222, "p2"), 0)
    h.press_text(b, battle.builder(222, "p2"), "review")
    return battle.builder(222, "p2")


def test_D34a_a_power_built_by_buttons_gets_its_effect_from_a_reply(battle: Battle) -> None:
    h = battle.h
    battle.lobby()
    h.say(battle.bob, 222, "/character war speed=6 arcane=d8")
    h.press_text(battle.gm, battle.lobby_msg, "Start")
    confirm = _power_confirmation(battle)
    assert "next message (or reply to this one)" in plain(confirm.text)
    assert battle.labels(confirm)[:2] == ["✍️ Describe the power", "🔒 Seal this order"]
    h.press_text(battle.bob, confirm, "Describe")  # the button only explains
    assert "as your next message" in h.api.alerts[-1][1]
    assert "p2" not in battle.match().sealed
    _reply(h, 222, confirm, "  a gale that pushes Alice down  ")
    assert "p2" not in battle.match().sealed  # shown back first (issue 24)
    h.press_text(battle.bob, h.last(222, with_buttons=True), "🔒")
    assert "p2" in battle.match().sealed
    order = usecases.my_orders(h.deps, "m00001", 222)[0].order
    assert order["actions"] == [{"type": "power", "text": "a gale that pushes Alice down"}]
    h.say(battle.alice, 111, "/order level 0")
    h.say(battle.gm, 333, "/npcorder n1 level 0")
    h.say(battle.gm, 333, "/npcorder n2 level 0")
    reveal = plain(next(t for t in h.reveals(battle.g) if "reveal" in t))
    assert "a gale that pushes Alice down" in reveal


def test_D34a_power_text_reply_is_refused_for_another_seat_and_a_stale_turn(
    battle: Battle,
) -> None:
    h = battle.h
    battle.lobby()
    h.say(battle.bob, 222, "/character war speed=6 arcane=d8")
    h.press_text(battle.gm, battle.lobby_msg, "Start")
    confirm = _power_confirmation(battle, ("Attack", "bite"), ("tail", "Alice"))
    assert "Actions: 3" in plain(confirm.text)
    assert all(len(b["callback_data"].encode()) <= 64 for b in confirm.buttons)
    # Alice forwards herself Bob's confirmation and replies to it: not her seat.
    _reply(h, 111, confirm, "I steal Bob's power")
    assert "p2" not in battle.match().sealed
    assert "not your" in plain(h.last(111).text).lower()
    h.say(battle.bob, 222, "/order level 0; power a gust")  # typed: the confirmation stays
    h.say(battle.alice, 111, "/order level 0")
    h.say(battle.gm, 333, "/npcorder n1 level 0")
    h.say(battle.gm, 333, "/npcorder n2 level 0")
    assert battle.match().turn == 2
    _reply(h, 222, confirm, "too late: turn 1 is over")
    assert "p2" not in battle.match().sealed
    assert "turn 1" in plain(h.last(222).text).lower()


def test_a_gm_handed_the_role_mid_turn_gets_the_unsealed_npc_builders(battle: Battle) -> None:
    h = battle.h
    dave = h.user(444, "Dave", lang="en")
    h.say(dave, 444, "/start")
    battle.start()
    h.say(battle.gm, 333, "/npcorder n1 level 0")  # Carol seals one NPC, then hands over
    h.say(dave, battle.g, "I'll run it")
    h.say(battle.gm, battle.g, "/gm", reply_to=h.api.chat(battle.g).messages[-1])
    assert battle.match().gm_user_id == 444
    assert battle.builder(444, "n2")  # the NPC still to seal
    assert not any("(n1)" in plain(t) for t in h.texts(444))  # n1 is sealed already
    h.say(dave, 444, "/npcorder n2 level 0")  # and seals it
    assert set(battle.match().sealed) == {"n1", "n2"}


def test_the_weapon_buttons_name_the_weapons_in_the_readers_language(battle: Battle) -> None:
    """The builder shows "дыхание", "когти" in Russian, as typed orders accept them."""
    h = battle.h
    battle.start()
    a = battle.alice
    h.say(a, 111, "/lang ru")
    h.press(a, battle.builder(111, "p1"), 0)  # the first movement
    h.press_text(a, battle.builder(111, "p1"), "Добавить")
    h.press_text(a, battle.builder(111, "p1"), "Атака")
    labels = battle.labels(battle.builder(111, "p1"))
    assert any(lbl.startswith("дыхание (") for lbl in labels), labels
    assert any(lbl.startswith("когти (") for lbl in labels), labels
    assert not any(lbl.startswith(("breath", "claws")) for lbl in labels), labels
