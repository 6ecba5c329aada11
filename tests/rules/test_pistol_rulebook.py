"""Rulebook audit of ``pistol`` (docs/rules/pistol.md, P1-P20): one small scripted-dice
case per situation not already pinned by ``test_pistol.py``, named by rule id.

Dice order in a turn: initiative of ``a`` then ``b`` (d6), then each shot's hit_x and hit_y in
shot order, then a d100 lethality roll right after a torso hit.
"""

from __future__ import annotations

from tests.rules.test_pistol import PIN_WEAPONS, RIFLE, R, kinds, order, play, shots, start

PIN = {"weapon": "pin"}


def test_P17_never_lethal_parts_also_keep_an_always_lethal_part_from_killing() -> None:
    # A perk is data (P17): ``never_lethal_parts`` means "hits here wound but never kill",
    # whatever the part's lethality mode; a head hit (always lethal) on such a duelist wounds.
    perks = {"iron_skull": {"name": "iron skull", "never_lethal_parts": ["head"]}}
    state = start(PIN, {"weapon": "pin", "perks": ["iron_skull"]}, weapons=PIN_WEAPONS, perks=perks)
    after, events = play(state, order(0, 0, 1), order(0, 5, 5), [6, 1, 1, 1])
    assert kinds(events, "perk")[0].data == {"effect": "not_lethal", "part": "head", "by": "a"}
    assert kinds(events, "wound") and not kinds(events, "death")
    assert [r.data["purpose"] for r in kinds(events, "roll")][-1] == "hit_y"  # no lethality roll
    assert (after.duelists[1].status, R.outcome(after).winners) == ("wounded", ("a",))


def test_P18_lucky_does_not_neutralise_a_simultaneous_hit() -> None:
    # Reading of P18: "a perk neutralises one of the hits" is a shrug (no wound at all); lucky
    # only keeps a torso hit from killing, so both hits still count: a mutual hit.
    state = start({"weapon": "rifle", "perks": ["lucky"]}, RIFLE)
    # Simultaneous (3 vs 3): a hits b's arm (aim 0:1, dice 2,2 -> 1:0); b hits a's torso
    # (aim -1:1, dice 2,2 -> 0:0): lucky, so no lethality roll.
    after, events = play(state, order(0, 0, 1), order(0, -1, 1), [3, 3, 2, 2, 2, 2])
    assert [(e.actor, e.data["part"]) for e in kinds(events, "hit")] == [
        ("a", "arm"),
        ("b", "torso"),
    ]
    assert kinds(events, "perk")[0].data["effect"] == "not_lethal"
    assert R.outcome(after).status == "mutual"
    assert [d.status for d in after.duelists] == ["wounded", "wounded"]


def test_P2_a_hit_on_the_last_turn_wins_rather_than_draws() -> None:
    state = start(turn_limit=1)
    after, events = play(state, order(0, -1, 2), order(0, 5, 5), [6, 1, 2, 2])  # a: b's head
    result = R.outcome(after)
    assert (result.status, result.winners) == ("win", ("a",))
    assert kinds(events, "outcome")[0].data["turn"] == 1


def test_P14_P15_the_slower_duelist_shoots_when_the_faster_misses_and_can_then_win() -> None:
    # b (rifle, 6 + 0 - |2|) outpaces a (derringer, 1 + 2 - 0); b misses far away, a then shoots
    # at b, who moved right 2 (E = -2): aim 2:1 with dice 1,1 -> 0:1, b's head.
    state = start({"weapon": "derringer"}, RIFLE)
    after, events = play(state, order(0, 2, 1), order(2, 5, 5), [1, 6, 1, 1, 1, 1])
    assert [(e.actor, e.kind) for e in shots(events)] == [("b", "miss"), ("a", "hit")]
    assert kinds(events, "hit")[0].data["shift"] == -2
    assert R.outcome(after).winners == ("a",)


def test_P14_equal_initiative_may_be_rolled_again_by_config() -> None:
    # "Equal values shoot simultaneously" is a DEFAULT, so it lives in the config: by default
    # no reroll; with initiative_tie_rerolls, equal totals are rolled again (both dice, seat
    # order, logged), at most that many times, and only a tie left after them is simultaneous.
    assert R.config().initiative_tie_rerolls == 0
    state = start(RIFLE, RIFLE, initiative_tie_rerolls=2)
    # 3 vs 3, then 4 vs 4, then 2 vs 5: b shoots first and kills (aim -1:2, dice 2,2 -> head).
    after, events = play(state, order(0, -1, 2), order(0, -1, 2), [3, 3, 4, 4, 2, 5, 2, 2])
    totals = [(e.actor, e.data["total"]) for e in kinds(events, "initiative")]
    assert totals == [("a", 3), ("b", 3), ("a", 4), ("b", 4), ("a", 2), ("b", 5)]
    assert [e.actor for e in shots(events)] == ["b"] and R.outcome(after).winners == ("b",)
    # Still equal after the last reroll: simultaneous, both shots are resolved.
    state = start(RIFLE, RIFLE, initiative_tie_rerolls=1)
    after, events = play(state, order(0, -1, 2), order(0, -1, 2), [3, 3, 4, 4, 2, 2, 2, 2])
    assert [e.actor for e in shots(events)] == ["a", "b"] and R.outcome(after).status == "mutual"
