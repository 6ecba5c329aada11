"""Every name the bot shows is accepted when typed, in either language (docs/glossary.md): the
weapons, perks and presets of the pistol duel, the skills, groups, actions, weapons and presets
of the plans duel, the weapons, presets, manoeuvres, actions and force choices of the dragons.
The names are walked from the catalogs (the message ids the bot shows them by), so a name
added there is covered the day it is added."""

from __future__ import annotations

import pytest

from engine.rulesets import dragons as dr
from engine.rulesets.dragons import DragonsConfig
from engine.rulesets.pistol import RULESET as PISTOL
from engine.rulesets.plans.sheet import PRESETS as PLANS_PRESETS
from handlers.telegram.i18n import LANGS, Tr, message_ids
from handlers.telegram.ui import get_ui
from handlers.telegram.ui.words import bare_name


def shown(prefix: str) -> list[tuple[str, str, str]]:
    """(lang, id, the name as shown) for every message id ``<prefix><id>``."""
    out = []
    for lang in LANGS:
        tr = Tr(lang)
        for key in message_ids(lang, prefix):
            if "{" not in tr(key) and len(tr(key).split()) <= 4:  # a name, not a sentence
                out.append((lang, key.removeprefix(prefix), bare_name(tr(key))))
    assert out, prefix
    return out


def test_the_names_are_walked_in_both_languages() -> None:
    names = {(lang, ident): name for lang, ident, name in shown("weapon.")}
    assert names["ru", "rifle"] == "винтовка" and names["en", "rifle"] == "rifle"


# --------------------------------------------------------------------------- pistol


@pytest.mark.parametrize(("lang", "ident", "name"), shown("weapon."))
def test_pistol_weapon_names(lang: str, ident: str, name: str) -> None:
    for typed in (f"оружие={name}", f"weapon={name}", f"weapon={name.replace(' ', '_')}"):
        assert get_ui("pistol").parse_character(typed.split())["weapon"] == ident, typed


@pytest.mark.parametrize(("lang", "ident", "name"), shown("perk."))
def test_pistol_perk_names(lang: str, ident: str, name: str) -> None:
    sheet = get_ui("pistol").parse_character(f"оружие=винтовка особенности={name}".split())
    assert sheet["perks"] == [ident]


@pytest.mark.parametrize(("lang", "ident", "name"), shown("preset."))
def test_pistol_preset_names(lang: str, ident: str, name: str) -> None:
    presets = PISTOL.presets(PISTOL.config({}))
    assert get_ui("pistol").parse_character(name.split()) == dict(presets[ident])


# --------------------------------------------------------------------------- plans


def _plan(text: str) -> dict[str, object]:
    return get_ui("plans").parse_typed(f"{text} -- наступаю и ищу брешь".split())


@pytest.mark.parametrize(("lang", "ident", "name"), shown("plans.skill."))
def test_plans_skill_names(lang: str, ident: str, name: str) -> None:
    plan = _plan(f"физическая {name} сильное догадка:?/{name}/?")
    assert plan["skill"] == ident
    assert plan["guess"] == {"group": None, "skill": ident, "action": None}


@pytest.mark.parametrize(("lang", "ident", "name"), shown("plans.group."))
def test_plans_group_names(lang: str, ident: str, name: str) -> None:
    assert _plan(f"{name} fencing strong stamina:{name}".replace("stamina", "soak"))["group"] == (
        ident
    )


@pytest.mark.parametrize(("lang", "ident", "name"), shown("plans.action."))
def test_plans_action_names(lang: str, ident: str, name: str) -> None:
    assert _plan(f"physical fencing {name}")["action"] == ident


@pytest.mark.parametrize(("lang", "ident", "name"), shown("plans.preset."))
def test_plans_preset_names(lang: str, ident: str, name: str) -> None:
    typed = f"заготовка={name.replace(' ', '_')}"
    assert (
        get_ui("plans").parse_character(typed.split())["skills"] == (PLANS_PRESETS[ident]["skills"])
    )


@pytest.mark.parametrize(("lang", "ident", "name"), shown("plans.weapon."))
def test_plans_weapon_names(lang: str, ident: str, name: str) -> None:
    typed = f"preset=fencer оружие={name.replace(' ', '_')}:2"
    assert get_ui("plans").parse_character(typed.split())["weapon"] == {
        "name": ident,
        "lethality": 2,
    }


# --------------------------------------------------------------------------- dragons


def _order(text: str) -> dict[str, object]:
    return get_ui("dragons").parse_typed(text.split())


@pytest.mark.parametrize(("lang", "ident", "name"), shown("dr.weapon."))
def test_dragon_weapon_names(lang: str, ident: str, name: str) -> None:
    order = _order(f"по уровню 0; атака {name} p2")
    assert order["actions"] == [{"type": "attack", "weapon": ident, "target": "p2"}]


@pytest.mark.parametrize(("lang", "ident", "name"), shown("dr.preset."))
def test_dragon_preset_names(lang: str, ident: str, name: str) -> None:
    want = dr.presets(DragonsConfig())[ident]
    ui = get_ui("dragons")
    assert ui.parse_character(name.split())["toughness"] == want["toughness"]
    typed = f"заготовка={name.replace(' ', '_')}"
    assert ui.parse_character(typed.split())["toughness"] == want["toughness"]


@pytest.mark.parametrize("lang", LANGS)
def test_dragon_manoeuvre_names(lang: str) -> None:
    tr = Tr(lang)
    assert _order(tr("dr.mv.level0"))["move"] == "level"
    assert _order(tr("dr.mv.level", n="+2")) | {"aerobatics": None} == _order("level +2")
    for move in ("climb", "dive"):
        order = _order(tr(f"dr.mv.{move}", n=1))
        assert (order["move"], order["n"]) == (move, 1)


@pytest.mark.parametrize(("lang", "ident", "name"), shown("dr.act."))
def test_dragon_action_names(lang: str, ident: str, name: str) -> None:
    args = {"attack": " когти p2", "tail": " p2", "force": " up", "break": "", "power": " огонь"}
    order = _order(f"по уровню 0; {name}{args[ident]}")
    assert [a["type"] for a in order["actions"]] == [ident]  # type: ignore[attr-defined]


@pytest.mark.parametrize(("lang", "ident", "name"), shown("dr.force."))
def test_dragon_force_choice_names(lang: str, ident: str, name: str) -> None:
    if ident == "same":
        pytest.skip("'the same' is the button for no raise choice")
    first, raise_pick = (ident, None) if ident in ("up", "down") else ("up", ident)
    typed = f"force {name}" if raise_pick is None else f"force up {name}"
    (action,) = _order(f"по уровню 0; {typed}")["actions"]  # type: ignore[misc]
    assert (action["choice"], action["raise_choice"]) == (first, raise_pick)
