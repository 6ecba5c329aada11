"""The ``dragons`` builder's action steps, one function per step (the pending token in the
builder's callback says which): the review, the attack's weapon and target, the tail, the force,
the break, and the hub between them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.match import Match
from engine.rulesets import dragons as dr
from engine.rulesets.dragons import DragonsState
from engine.savage import multi_action_penalty
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import Button, Screen
from handlers.telegram.ui.dragons.common import reason_text, weapon_name
from handlers.telegram.ui.dragons.typed import DragonsTyped


@dataclass(frozen=True)
class Step:
    """What every step shows from: the order so far (``base`` tokens, its ``acts``), the lines
    above the buttons (appended to) and the navigation row."""

    tr: Tr
    st: DragonsState
    match: Match
    pid: str
    cb: Callable[..., Callback]
    base: list[str]
    acts: list[str]
    order: dict[str, Any]
    lines: list[str]
    nav: list[Button]
    pending: str
    move: tuple[str, int]


def problem_lines(tr: Tr, st: DragonsState, pid: str, order: dr.DragonOrder) -> list[str]:
    """One line per action of ``order`` that cannot succeed now, with why (the engine's own
    check: :func:`engine.rulesets.dragons.action_problems`)."""
    return [
        tr("traps.dr.cannot", n=i + 1, reason=Raw(reason_text(tr, code)))
        for i, code, _ in dr.action_problems(st, pid, order)
    ]


def review(s: Step) -> Screen:
    """The review ("!"): the order to seal, or why it is illegal; a power asks for its text."""
    tr, st, match, pid, acts, order = s.tr, s.st, s.match, s.pid, s.acts, s.order
    base, lines, nav = s.base, s.lines, s.nav
    rules = match.rules
    parsed = rules.parse_order(st, pid, order)
    reason = rules.validate(st, pid, parsed)
    if reason is not None:
        lines.append(tr("dr.b.illegal", reason=Raw(reason_text(tr, reason.code, **reason.params))))
        return Screen("\n".join(lines), [nav])
    lines += problem_lines(tr, st, pid, parsed)  # what cannot succeed now, and why
    lines.append(tr("dr.b.confirm"))
    seal = Button(tr("btn.seal"), Callback("s", match.id, match.turn, (pid, *base)))
    if "p" not in acts:
        return Screen("\n".join(lines), [[seal], nav])
    # D34a: the GM rules on the power's effect, which is free text: a reply to this
    # message seals the order with it (text_reply); Seal leaves it blank.
    lines.append(tr("dr.b.power_text"))
    text = Button(tr("dr.btn.power_text"), Callback("pt", match.id, match.turn, (pid, *base)))
    return Screen("\n".join(lines), [[text], [seal], nav])


def pick_weapon(s: Step) -> Screen:
    """Add an attack ("+a"): the weapons not used yet and not broken."""
    tr, st, pid, cb, base, order = s.tr, s.st, s.pid, s.cb, s.base, s.order
    lines, nav = s.lines, s.nav
    rows: list[list[Button]] = []
    me = st.dragon(pid)
    used = {a["weapon"] for a in order["actions"] if a["type"] == "attack"}
    for i, w in enumerate(st.stats[pid].weapons):
        if w.name in me.broken:
            lines.append(tr("dr.b.weapon_broken", weapon=weapon_name(tr, w.name)))
        elif w.name not in used:
            kind = tr("dr.melee") if w.melee else tr("dr.ranged")
            rows.append([Button(f"{weapon_name(tr, w.name)} ({kind})", cb(*base, f"+a{i}"))])
    lines.append(tr("dr.b.pick_weapon"))
    return Screen("\n".join(lines), [*rows, nav])


def pick_target(s: Step) -> Screen:
    """The attack's target ("+a<weapon>"): each foe with its range and the roll's odds."""
    tr, st, pid, cb, base, pending = s.tr, s.st, s.pid, s.cb, s.base, s.pending
    lines, nav = s.lines, s.nav
    (move, n) = s.move
    rows: list[list[Button]] = []
    wi = int(pending[2:])
    weapon = st.stats[pid].weapons[wi]
    lines.append(tr("dr.b.pick_target", weapon=weapon_name(tr, weapon.name)))
    for foe in DragonsTyped._foes(st, pid):
        chk = dr.attack_check(st, pid, weapon.name, foe.pid, (move, n))
        band = tr(f"dr.band.{chk.band}") if chk.band else ""
        if chk.possible:
            extra = f" {band} {chk.penalty:+d}" if chk.band else f" TN{chk.tn}"
            label = f"✅ {foe.name} ({foe.pid}) R{chk.range}{extra}"
        else:  # named with why, never offered: it would fail (issue 24)
            lines.append(tr("dr.b.not_possible", target=foe.name,
                            reason=Raw(reason_text(tr, chk.reason or ""))))  # fmt: skip
            continue
        if foe.tail_of == pid:
            continue  # D26: never offered (validation refuses it)
        rows.append([Button(label, cb(*base, f"a{wi}{foe.pid}"))])
    if not rows:
        lines.append(tr("traps.dr.no_target_now"))
    return Screen("\n".join(lines), [*rows, nav])


def pick_tail(s: Step) -> Screen:
    """Get on a tail ("+t"): the foes (but the one on our own tail)."""
    tr, st, pid, cb, base, lines, nav = s.tr, s.st, s.pid, s.cb, s.base, s.lines, s.nav
    me = st.dragon(pid)
    (move, n) = s.move
    rows = []
    for foe in DragonsTyped._foes(st, pid):
        if foe.pid == me.tail_of:
            continue
        tail = dr.DragonOrder(move, n, None, (dr.Action("tail", target=foe.pid),))
        problems = dr.action_problems(st, pid, tail)
        if problems:  # named with why, never offered: it would fail (D25)
            why = Raw(reason_text(tr, problems[0][1]))
            lines.append(tr("dr.b.not_possible", target=foe.name, reason=why))
            continue
        label = f"{foe.name} ({foe.pid}) S{foe.speed} H{foe.altitude}"
        rows.append([Button(label, cb(*base, f"t{foe.pid}"))])
    if not rows:
        lines.append(tr("traps.dr.no_target_now"))
    lines.append(tr("dr.b.pick_tail"))
    return Screen("\n".join(lines), [*rows, nav])


def pick_force(s: Step) -> Screen:
    """Force the victim (D27, "+f"): up or down."""
    tr, cb, base, lines, nav = s.tr, s.cb, s.base, s.lines, s.nav
    lines.append(tr("dr.b.pick_force"))
    rows = [
        [
            Button(tr("dr.force.up"), cb(*base, "+fu")),
            Button(tr("dr.force.down"), cb(*base, "+fd")),
        ]
    ]
    return Screen("\n".join(lines), [*rows, nav])


def pick_force_raise(s: Step) -> Screen:
    """Force with a raise ("+fu", "+fd"): climb, dive or the same."""
    tr, cb, base, pending, lines, nav = s.tr, s.cb, s.base, s.pending, s.lines, s.nav
    c = pending[2]
    lines.append(tr("dr.b.pick_force_raise"))
    rows = [
        [
            Button(tr("dr.force.climb"), cb(*base, f"f{c}c")),
            Button(tr("dr.force.dive"), cb(*base, f"f{c}d")),
            Button(tr("dr.force.same"), cb(*base, f"f{c}")),
        ]
    ]
    return Screen("\n".join(lines), [*rows, nav])


def pick_break(s: Step) -> Screen:
    """Break a tail (D28, "+b"): any pursuer, or a named one."""
    tr, st, pid, cb, base, lines, nav = s.tr, s.st, s.pid, s.cb, s.base, s.lines, s.nav
    pursuers = [d for d in st.dragons if d.tail_of == pid and d.in_battle]
    rows = [[Button(tr("dr.b.any_pursuer"), cb(*base, "b"))]]
    rows += [[Button(f"{d.name} ({d.pid})", cb(*base, f"b{d.pid}"))] for d in pursuers]
    lines.append(tr("dr.b.pick_break"))
    return Screen("\n".join(lines), [*rows, nav])


def hub(s: Step) -> Screen:
    """The hub: what is chosen so far, add an action, or finish."""
    tr, cfg, cb, base, acts, lines = s.tr, s.st.config, s.cb, s.base, s.acts, s.lines
    limit = cfg.max_actions
    rows: list[list[Button]] = []
    if len(acts) < limit:
        rows.append(
            [
                Button(
                    tr(
                        "dr.btn.add_action" if acts else "dr.btn.add_first",
                        penalty=multi_action_penalty(len(acts) + 1, cfg.multi_action_penalty),
                    ),
                    cb(*base, "+"),
                )
            ]
        )
    else:
        lines.append(tr("dr.b.max_actions", limit=limit))
    rows.append([Button(tr("dr.btn.review"), cb(*base, "!"))])
    if acts:
        rows.append([Button(tr("dr.btn.drop_last"), cb(*base[:-1]))])
    rows.append([Button(tr("dr.btn.change_move"), cb()), Button(tr("dr.btn.cancel"), cb())])
    return Screen("\n".join(lines), rows)


# The steps by their pending token; "+a<weapon>" is the target step, none is the hub.
STEPS: Mapping[str, Callable[[Step], Screen]] = {
    "!": review,
    "+a": pick_weapon,
    "+t": pick_tail,
    "+f": pick_force,
    "+fu": pick_force_raise,
    "+fd": pick_force_raise,
    "+b": pick_break,
}


def step_of(pending: str) -> Callable[[Step], Screen]:
    """The step a pending token asks for."""
    return STEPS.get(pending) or (pick_target if pending.startswith("+a") else hub)
