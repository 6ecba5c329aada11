"""Dragons without traps (issue 24 point 3): the bot never suggests an action that cannot
succeed, and the review names every one that cannot, with why.

"Cannot succeed" is the engine's own check (:func:`engine.rulesets.dragons.action_problems`:
the ordering dragon after its movement, everyone else where they are now, the reason codes of
resolution's "impossible" events, D18-D28). Resolution re-checks after everyone moved (D10), so
a suggestion is judged when it is made: a foe's own movement can still take it out of reach.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import match as lifecycle
from engine import usecases
from engine.match import Match, Phase
from engine.rulesets import dragons as dr
from handlers.telegram.callbacks import Callback
from handlers.telegram.harness import GROUP_ID, Harness, plain
from handlers.telegram.hints import order_words
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import get_ui
from handlers.telegram.ui.dragons.tokens import order_from_tokens
from tests.bot.test_dragons_ui import Battle

SEEDS = range(3)
TURNS = 6


def _problems(match: Match, pid: str, raw: dict) -> list[tuple[int, str, dict]]:  # type: ignore[type-arg]
    st = dr.RULESET.load_state(match.state or {})
    order = dr.RULESET.parse_order(st, pid, raw)
    reason = dr.RULESET.validate(st, pid, order)
    assert reason is None, (pid, raw, reason.code)  # a suggestion the rules refuse
    return dr.action_problems(st, pid, order)


def _builder_orders(match: Match, pid: str) -> Iterator[dict]:  # type: ignore[type-arg]
    """Every order one action deep that the builder's buttons lead to (a movement, then one
    offered weapon and target, tail, force or break)."""
    ui, tr = get_ui("dragons"), Tr("en")
    st = dr.RULESET.load_state(match.state or {})
    frontier: list[tuple[str, ...]] = [()]
    seen: set[tuple[str, ...]] = set()
    for _depth in range(5):
        nxt: list[tuple[str, ...]] = []
        for tokens in frontier:
            for row in ui.builder(tr, match, pid, tokens).rows:
                for b in row:
                    cb = b.cb
                    if not isinstance(cb, Callback) or cb.kind != "b" or len(cb.args) < 2:
                        continue
                    new = tuple(cb.args[1:])
                    if new in seen or len(new) > 2 or new[0] == "~":
                        continue
                    seen.add(new)
                    nxt.append(new)
                    if len(new) == 2 and not new[1].startswith(("+", "!")):
                        yield order_from_tokens(st, pid, new)
        frontier = nxt


def _suggestions(match: Match, pid: str) -> Iterator[tuple[str, dict]]:  # type: ignore[type-arg]
    ui = get_ui("dragons")
    words = order_words(Tr("en"), match, pid)  # the typed example the bot shows
    yield f"example {words}", ui.parse_typed_in(match, [words])  # names as shown
    nearest = ui.nearest_order(match, pid)  # type: ignore[attr-defined]
    if nearest is not None:
        yield "nearest", nearest
    for order in _builder_orders(match, pid):
        yield "builder", order


def test_no_suggested_order_can_fail_in_seeded_battles() -> None:
    suggested = fizzles = 0
    for seed in SEEDS:
        h = Harness()
        h.deps.require_commitment_post = False  # orders are sealed here directly, by use case
        rng = random.Random(seed)
        try:
            battle = Battle(h)
            battle.start()
            for _turn in range(TURNS):
                m = battle.match()
                if m.phase is not Phase.RUNNING:
                    break
                st = dr.RULESET.load_state(m.state or {})
                for pid in lifecycle.missing(m):
                    for where, raw in _suggestions(m, pid):
                        suggested += 1
                        problems = _problems(m, pid, raw)
                        fizzles += len(problems)
                        assert not problems, (seed, m.turn, pid, where, raw, problems)
                for pid in lifecycle.missing(m):  # then everyone plays a random legal order
                    seat = m.seat(pid)
                    uid = m.gm_user_id if seat.npc or seat.user_id is None else seat.user_id
                    order = dr.RULESET.dump_order(dr.RULESET.random_order(st, pid, rng))
                    assert uid is not None
                    usecases.seal_order(h.deps, m.id, uid, pid, order)
        finally:
            h.close()
    assert suggested > 500 and fizzles == 0


def test_the_review_names_every_action_that_cannot_succeed_now() -> None:
    h = Harness()
    try:
        battle = Battle(h)
        battle.start()
        m = battle.match()
        # Level flight at Speed 6 and Altitude 10, with every dragon there too: breath needs
        # height or a tail (D18); a tail on Bob works (D25); a force needs a tail to be on.
        tokens = ("l0", "a0n2", "tp2", "!")
        builder = h.last(111, with_buttons=True)
        h.click(battle.alice, builder, h.services.cb(Callback("b", m.id, m.turn, ("p1", *tokens))))
        review = plain(h.last(111, with_buttons=True).text)
        assert "Action 1 cannot succeed now: not higher than the target nor on its tail" in review
        assert "Action 2 cannot" not in review
    finally:
        h.close()


def test_a_dragon_without_a_side_is_listed_as_such_not_under_its_pid() -> None:
    """Sandbox play (issue 24): before a side is picked the lobby said "p1: Alice p1"."""
    h = Harness()
    try:
        gm, alice = h.user(333, "Carol", lang="en"), h.user(111, "Alice", lang="en")
        h.group(GROUP_ID)
        h.say(gm, GROUP_ID, "/duel")
        h.press_text(gm, h.last(GROUP_ID, with_buttons=True), "Dragon")
        lobby = h.last(GROUP_ID, with_buttons=True)
        h.press_text(alice, lobby, "Join")
        assert "no side yet (the Side buttons): Alice p1" in plain(lobby.text)
        h.press_text(alice, lobby, "Side A")
        assert "A: Alice p1" in plain(lobby.text) and "no side yet" not in plain(lobby.text)
    finally:
        h.close()
