"""Typed orders accept the words the buttons show, in Russian and in English, including the
translated names of weapons and skills (one alias table per ruleset:
``handlers/telegram/ui/<ruleset>/aliases.json``)."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest

from engine import usecases
from handlers.telegram.harness import Harness
from handlers.telegram.ui import aliases, get_ui
from tests.bot.conftest import Duel
from tests.bot.test_dragons_ui import Battle
from tests.bot.test_plans_ui import PlansDuel


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("по уровню +1; атака когти p2", ("level", 1, "claws")),
        ("level +1; attack claws p2", ("level", 1, "claws")),
        ("набор 2; атаковать дыхание p2", ("climb", 2, "breath")),
        ("снижение 1; атака укус p2", ("dive", 1, "bite")),
        ("level +1; attack claws p2.", ("level", 1, "claws")),  # copied with a full stop
    ],
)
def test_dragons_typed_words_in_both_languages(typed: str, expected: tuple[str, int, str]) -> None:
    order = get_ui("dragons").parse_typed([typed])
    move, n, weapon = expected
    assert (order["move"], order["n"]) == (move, n)
    assert order["actions"][0] == {"type": "attack", "weapon": weapon, "target": "p2"}


def test_dragons_free_texts_are_kept_as_typed() -> None:
    order = get_ui("dragons").parse_typed(["по уровню; сила огонь с неба; фигура бочка"])
    assert order["actions"] == [{"type": "power", "text": "огонь с неба"}]
    assert order["aerobatics"] == "бочка"


def test_a_russian_dragons_order_is_sealed_end_to_end() -> None:
    h = Harness()
    try:
        battle = Battle(h)
        battle.start()
        h.say(battle.alice, 111, "/order по уровню 0; атака когти p2")
        assert "p1" in battle.match().sealed
        order = usecases.my_orders(h.deps, "m00001", 111)[0].order
        assert order["actions"] == [{"type": "attack", "weapon": "claws", "target": "p2"}]
    finally:
        h.close()


def test_a_russian_plan_with_translated_skills_is_sealed(pd_start: PlansDuel) -> None:
    pd = pd_start
    text = "/plan физическая фехтование сильное догадка:маг/пиромантия/точн -- Выпад в колено"
    pd.h.say(pd.alice, pd.a, text)
    assert "p1" in pd.match().sealed
    plan = usecases.my_orders(pd.h.deps, pd.match().id, pd.a)[0].order
    assert (plan["group"], plan["skill"], plan["action"]) == ("physical", "fencing", "strong")
    assert plan["guess"]["skill"] == "pyromancy"
    assert plan["text"] == "Выпад в колено"  # the text is never translated


def test_a_russian_pistol_order_is_sealed(duel: Duel) -> None:
    duel.start()
    duel.h.say(duel.alice, duel.a, "/order сдвиг 1 прицел 0:1")
    assert "p1" in duel.match().sealed


def test_every_alias_table_maps_to_words_the_parser_reads() -> None:
    """The tables are data: each canonical word is one the ruleset's parser knows."""
    from engine.rulesets.dragons.typed import _WORDS

    assert set(aliases("dragons")["order"].values()) <= set(_WORDS.values())
    assert set(aliases("pistol")["words"].values()) <= {"move", "aim", "pick"}


@pytest.fixture
def pd_start() -> Iterator[PlansDuel]:
    h = Harness()
    pd = PlansDuel(h)
    pd.start()
    yield pd
    h.close()


def test_dragon_targets_are_typed_by_the_names_the_bot_shows() -> None:
    """Issue 24: a target is typed by the rider's or the dragon's shown name (any case, in
    either language's order words), not only p2; the examples the bot shows use those names
    and are accepted back."""
    h = Harness()
    try:
        battle = Battle(h)
        battle.start()
        h.say(battle.alice, 111, "/order по уровню 0; атака когти bOB")
        assert "p1" in battle.match().sealed
        order = usecases.my_orders(h.deps, "m00001", 111)[0].order
        assert order["actions"] == [{"type": "attack", "weapon": "claws", "target": "p2"}]
        example = next(
            c
            for m in reversed(h.api.chat(222).messages)
            for c in re.findall(r"<code>(/order [^<]*)</code>", m.text)
        )
        assert "attack" in example and not re.search(r"\b[pn]\d\b", example), example
        h.say(battle.bob, 222, html.unescape(example))
        assert "p2" in battle.match().sealed or battle.match().turn == 2, example
    finally:
        h.close()


def test_an_npc_target_is_typed_by_its_name_by_the_gm() -> None:
    h = Harness()
    try:
        battle = Battle(h)
        battle.start()
        names = {s.pid: s.name for s in battle.match().seats}
        assert names["n1"] == "Wingman"
        order = get_ui("dragons").parse_typed_in(battle.match(), ["tail WINGMAN; break wingman"])
        assert order["actions"] == [
            {"type": "tail", "target": "n1"},
            {"type": "break", "target": "n1"},
        ]
        h.say(battle.gm, 333, "/npcorder n1 level 0; tail BOB")  # the GM's NPC, by name too
        assert "n1" in battle.match().sealed
        (sealed,) = [o for o in usecases.my_orders(h.deps, "m00001", 333) if o.pid == "n1"]
        assert sealed.order["actions"] == [{"type": "tail", "target": "p2"}]
    finally:
        h.close()
