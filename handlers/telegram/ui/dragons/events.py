"""The ``dragons`` events in words (D36): one small function per kind of event, and the rolls
they show (trait rolls with their aces, opposed rolls, damage dice)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import esc
from handlers.telegram.ui.dragons.common import _label, reason_text, weapon_name
from handlers.telegram.ui.dragons.typed import DragonsTyped


def _faces(faces: Sequence[int]) -> str:
    """Aces shown as ``6+6+3``."""
    return "+".join(str(f) for f in faces) if faces else "—"


def roll_text(tr: Tr, roll: Mapping[str, Any]) -> str:
    """A trait roll (D36): trait die and Wild Die faces with aces, modifiers, total vs TN,
    result and raises."""
    trait = _label(tr, f"dr.trait.{roll['trait']}", str(roll["trait"]))
    dice = f"{roll['die']}[{_faces(roll['trait_faces'])}]"
    if roll.get("wild_faces"):
        dice += f" {tr('dr.wild')}[{_faces(roll['wild_faces'])}]"
    if roll.get("unskilled"):
        dice += " " + tr("dr.unskilled")
    mods = [(str(k), int(v)) for k, v in roll.get("modifiers", ()) if int(v)]
    mod_text = "".join(f" {v:+d} {_label(tr, f'dr.mod.{k}', k)}" for k, v in mods)
    result = _label(tr, f"dr.result.{roll['result']}", str(roll["result"]))
    raises = f" ×{roll['raises']}" if roll.get("raises") else ""
    total = f"<b>{roll['total']}</b> {tr('dr.vs')} {roll['tn']}"
    return f"{trait} {dice} → {roll['kept']}{mod_text} = {total}: {result}{raises}"


def contest_text(tr: Tr, contest: Mapping[str, Any]) -> str:
    return tr(
        "dr.contest",
        a=Raw(roll_text(tr, contest["initiator"])),
        b=Raw(roll_text(tr, contest["defender"])),
    )


def damage_text(roll: Mapping[str, Any]) -> str:
    parts = [f"d{d['sides']}[{_faces(d['faces'])}]" for d in roll.get("dice", ())]
    if roll.get("raise_die"):
        parts.append(f"d6[{_faces(roll['raise_die'])}]")
    text = " + ".join(parts)
    if roll.get("flat"):
        text += f" {int(roll['flat']):+d}"
    return text


@dataclass(frozen=True)
class Ev:
    """One event to tell: the reader's catalog, the seats' names, who acted and the data."""

    tr: Tr
    names: Mapping[str, str]
    actor: str | None
    data: Mapping[str, Any]

    def who(self, p: Any) -> Raw:
        return Raw(self.names.get(str(p), esc(p)))

    @property
    def me(self) -> Raw:
        return self.who(self.actor)

    @property
    def roll(self) -> Raw:
        """The event's trait roll in words, or nothing when it has none."""
        trait_roll = self.data.get("roll")
        is_trait = isinstance(trait_roll, Mapping) and "trait" in trait_roll
        return Raw(roll_text(self.tr, self.data["roll"]) if is_trait else "")

    @property
    def contest(self) -> Raw:
        return (
            Raw(contest_text(self.tr, self.data["contest"])) if "contest" in self.data else Raw("")
        )

    @property
    def reason(self) -> Raw:
        return Raw(reason_text(self.tr, str(self.data.get("reason", ""))))


def _battle(e: Ev) -> str:
    names = e.names
    pos = ", ".join(
        f"{names.get(p, esc(p))} S{s} H{a}" for p, (s, a) in dict(e.data["positions"]).items()
    )
    return e.tr("dr.ev.battle", positions=Raw(pos))


def _activation(e: Ev) -> str:
    data = e.data
    return e.tr("dr.ev.activation", who=e.me, speed=data["speed"], altitude=data["altitude"])


def _move(e: Ev) -> str:
    tr, data = e.tr, e.data
    move = Raw(DragonsTyped._move_label(tr, str(data["move"]), int(data["n"])))
    key = "dr.ev.move"
    if data.get("copied_from"):
        key = "dr.ev.move_copied"
    elif data.get("forced"):
        key = "dr.ev.move_forced"
    elif data.get("converted"):
        key = "dr.ev.move_converted"
    text = tr(
        key,
        who=e.me,
        move=move,
        victim=e.who(data.get("copied_from")),
        sf=data["speed_from"],
        af=data["altitude_from"],
        speed=data["speed"],
        altitude=data["altitude"],
    )
    if data.get("aerobatics"):
        text += " " + tr("dr.aero", name=str(data["aerobatics"]))
    return text


def _wound(e: Ev) -> str:
    return e.tr.n("dr.st.wounds", int(e.data.get("wounds", 0)), who=e.me, total=e.data["total"])


def _actions_void(e: Ev) -> str:
    return e.tr.n("dr.st.actions_void", int(e.data.get("count", 0)), who=e.me, reason=e.reason)


def _attack(e: Ev) -> str:
    tr, data = e.tr, e.data
    band = " " + tr(f"dr.band.{data['band']}") if data.get("band") else ""
    return tr(
        "dr.ev.attack",
        who=e.me,
        target=e.who(data["target"]),
        weapon=weapon_name(tr, data["weapon"]),
        range=data["range"],
        band=band,
        roll=e.roll,
    )


def _damage(e: Ev) -> str:
    data = e.data
    return e.tr(
        "dr.ev.damage",
        who=e.me,
        target=e.who(data["target"]),
        dice=Raw(damage_text(data["roll"])),
        total=data["roll"]["total"],
        toughness=data["toughness"],
        armor=data["armor"],
        ap=data["ap"],
        excess=data["excess"],
        wounds=data["wounds"],
    )


EVENTS: Mapping[str, Callable[[Ev], str]] = {
    "battle": _battle,
    "activation": _activation,
    "move": _move,
    "wound": _wound,
    "actions_void": _actions_void,
    "attack": _attack,
    "damage": _damage,
}


def _none(e: Ev) -> dict[str, Any]:
    return {}


# The events told by ``dr.ev.<kind>`` with who, roll, contest and reason, and these parameters.
SIMPLE: Mapping[str, Callable[[Ev], dict[str, Any]]] = {
    "recover": lambda e: {"ok": e.tr("dr.yes" if e.data.get("recovered") else "dr.no")},
    "dangerous": lambda e: {
        "reasons": Raw(", ".join(reason_text(e.tr, r) for r in e.data.get("reasons", ())))
    },
    "fall": _none,
    "falling": lambda e: {
        "lost": e.data.get("lost"),
        "speed": e.data.get("speed"),
        "altitude": e.data.get("altitude"),
    },
    "regain": _none,
    "miss": lambda e: {"target": e.who(e.data.get("target"))},
    "hit": lambda e: {"target": e.who(e.data.get("target")), "raises": e.data.get("raises", 0)},
    "shaken": _none,
    "out": lambda e: {"fate": Raw(reason_text(e.tr, str(e.data.get("fate", ""))))},
    "speed_loss": lambda e: {"lost": e.data.get("lost"), "speed": e.data.get("speed")},
    "weapon_broken": lambda e: {"weapon": str(e.data.get("weapon")), "face": e.data.get("face")},
    "spirit": _none,
    "takeover": _none,
    "consumed_orders": lambda e: {
        "target": e.who(e.data.get("target")) if e.data.get("target") else "—"
    },
    "tail": lambda e: {"victim": e.who(e.data.get("victim"))},
    "evade": lambda e: {"pursuer": e.who(e.data.get("pursuer"))},
    "tail_broken": lambda e: {"victim": e.who(e.data.get("victim"))},
    "force": lambda e: {
        "victim": e.who(e.data.get("victim")),
        "choice": e.tr(f"dr.force.{e.data.get('choice')}"),
    },
    "force_failed": lambda e: {"victim": e.who(e.data.get("victim"))},
    "break_failed": lambda e: {"pursuer": e.who(e.data.get("pursuer"))},
    "power": lambda e: {"text": str(e.data.get("text") or "—")},
    "impossible": lambda e: {"action": e.tr(f"dr.act.{e.data.get('type')}")},
}


def told(e: Ev, kind: str) -> str | None:
    """The event in words, or None for a kind this ruleset does not tell."""
    text = EVENTS.get(kind)
    if text is not None:
        return text(e)
    params = SIMPLE.get(kind)
    if params is None:
        return None
    return e.tr(
        f"dr.ev.{kind}", who=e.me, roll=e.roll, contest=e.contest, reason=e.reason, **params(e)
    )
