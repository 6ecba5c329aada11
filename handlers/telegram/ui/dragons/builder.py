"""The ``dragons`` order builder: movement, up to three actions, the confirmation; NPC orders."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import Rejection
from engine.match import Match
from engine.rulesets import dragons as dr
from engine.rulesets.dragons import DragonsState
from engine.savage import multi_action_penalty
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    Button,
    Screen,
    names_of,
)
from handlers.telegram.ui.dragons.common import reason_text, state_of
from handlers.telegram.ui.dragons.reveal import DragonsReveal
from handlers.telegram.ui.dragons.steps import Step, step_of
from handlers.telegram.ui.dragons.tokens import (
    action_from_token,
    move_token,
    order_from_tokens,
    parse_move,
)

MAX_STEPS = 4  # climb/dive buttons 1..4; larger values through the typed syntax


class _Cb:
    """Builder callbacks for one participant: ``cb(*tokens)``."""

    __slots__ = ("match", "pid")

    def __init__(self, match: Match, pid: str) -> None:
        self.match, self.pid = match, pid

    def __call__(self, *tokens: str) -> Callback:
        return Callback("b", self.match.id, self.match.turn, (self.pid, *tokens))


class DragonsBuilder(DragonsReveal):
    def order_from_args(self, args: Sequence[str]) -> dict[str, Any]:
        return order_from_tokens(None, "", args)

    def order_for(self, match: Match, pid: str, args: Sequence[str]) -> dict[str, Any]:
        return order_from_tokens(state_of(match), pid, args)

    reply_alert_key = "dr.reply_alert"

    def order_with_text(
        self, match: Match, pid: str, args: Sequence[str], text: str
    ) -> dict[str, Any]:
        """D34a: the confirmed order with ``text`` as the effect of its power(s)."""
        order = order_from_tokens(state_of(match), pid, args)
        powers = [a for a in order["actions"] if a["type"] == "power"]
        if not powers:
            raise Rejection("invalid_button")
        for action in powers:
            action["text"] = text
        return order

    def builder(self, tr: Tr, match: Match, pid: str, state: Sequence[str]) -> Screen:
        st = state_of(match)
        if st is None:
            return Screen(tr("builder.typed_only", turn=match.turn))
        me = st.dragon(pid)
        names = names_of(match)
        head = tr(
            "dr.b.you",
            name=Raw(names.get(pid, pid)),
            pid=pid,
            speed=me.speed,
            altitude=me.altitude,
            top=st.stats[pid].spec.top_speed,
        )
        cb = _Cb(match, pid)
        try:
            if not state or state[0] == "~":
                body = self._movement(tr, st, pid, cb, aero=bool(state))
            else:
                body = self._actions(tr, st, match, pid, cb, list(state))
        except (ValueError, IndexError, KeyError):
            raise Rejection("invalid_button") from None
        return Screen(f"{head}\n\n{body.text}", body.rows)

    def _movement(self, tr: Tr, st: DragonsState, pid: str, cb: _Cb, *, aero: bool) -> Screen:
        me = st.dragon(pid)
        cfg = st.config
        seat = cb.match.seat(pid)
        from handlers.telegram.hints import order_command, order_words

        command = f"/npcorder {pid}" if seat.npc or me.consumed else order_command(cb.match, pid)
        example = f"{command} {order_words(tr, cb.match, pid)}"
        lines = [tr("dr.b.pick_move", example=example)]
        rows: list[list[Button]] = []
        if me.falling:  # D32: the movement is void while falling
            lines.append(tr("dr.b.falling"))
            rows.append([Button(tr("dr.b.continue"), cb(move_token("level", 0, False)))])
            return Screen("\n".join(lines), [*rows, *self._npc_rows(tr, cb)])
        if me.tail_of is not None:  # D26: a pursuer copies its victim
            lines.append(tr("dr.b.pursuer", victim=me.tail_of))
            rows.append([Button(tr("dr.b.continue"), cb(move_token("level", 0, False)))])
            return Screen("\n".join(lines), [*rows, *self._npc_rows(tr, cb)])
        if me.shaken:
            lines.append(tr("dr.b.shaken"))  # D16
        opts = dr.movement_options(st, pid, max_steps=min(MAX_STEPS, cfg.max_altitude_change))
        refused: list[str] = []
        by_kind: dict[str, list[Button]] = {}
        for o in opts:
            text = self._move_label(tr, o.move, o.n)
            if not o.legal:
                why = reason_text(tr, o.reason.code, **o.reason.params) if o.reason else ""
                refused.append(tr("dr.b.refused", move=Raw(text), reason=Raw(why)))
                continue
            warn = " ⚠" if o.dangerous else " ⬇" if o.speed <= 0 else ""
            label = f"{text} ▸ S{o.speed} H{o.altitude}{warn}"
            by_kind.setdefault(o.move, []).append(Button(label, cb(move_token(o.move, o.n, aero))))
        for kind in ("level", "climb", "dive"):
            buttons = by_kind.get(kind, [])
            for i in range(0, len(buttons), 2):
                rows.append(buttons[i : i + 2])
        if any(o.dangerous and o.legal for o in opts):
            lines.append(tr("dr.b.dangerous_hint"))
        if any(o.speed <= 0 and o.legal for o in opts):
            lines.append(tr("dr.b.stall_hint"))  # D14
        if refused:
            lines.append(tr("dr.b.refused_title"))
            lines += refused
        lines.append(tr("dr.b.aero_on" if aero else "dr.b.aero_off"))
        toggle = cb() if aero else cb("~")
        rows.append([Button(tr("dr.btn.aero_off" if aero else "dr.btn.aero_on"), toggle)])
        return Screen("\n".join(lines), [*rows, *self._npc_rows(tr, cb)])

    @staticmethod
    def _npc_rows(tr: Tr, cb: _Cb) -> list[list[Button]]:
        """GM-run dragons (NPCs, and D34 consumed ones): one-tap orders (handlers in npc.py)."""
        match, pid = cb.match, cb.pid
        st = state_of(match)
        if not match.seat(pid).npc and not (st is not None and st.dragon(pid).consumed):
            return []
        args = (pid,)
        return [
            [
                Button(tr("npc.btn.same"), Callback("nsl", match.id, match.turn, args)),
                Button(tr("npc.btn.nearest"), Callback("nnr", match.id, match.turn, args)),
            ]
        ]

    def _actions(
        self, tr: Tr, st: DragonsState, match: Match, pid: str, cb: _Cb, state: list[str]
    ) -> Screen:
        cfg = st.config
        move, n, _aero = parse_move(state[0])
        pending = state[-1] if state[-1].startswith(("+", "!")) else ""
        acts = state[1:-1] if pending else state[1:]
        for t in acts:
            action_from_token(st, pid, t)  # a malformed token is a forged press
        order = order_from_tokens(st, pid, [state[0], *acts])
        names = names_of(match)
        summary = self.order_text(tr, order, names)
        penalty = multi_action_penalty(len(acts), cfg.multi_action_penalty) if acts else 0
        lines = [tr("dr.b.order_so_far", order=Raw(summary))]
        if len(acts) > 1:
            lines.append(tr("dr.b.penalty", count=len(acts), penalty=penalty))  # D3
        base = [state[0], *acts]
        # Back returns to the order so far; cancel starts over from the movement.
        nav = [Button(tr("btn.back"), cb(*base)), Button(tr("dr.btn.cancel"), cb())]
        if pending == "+":
            return self._menu(tr, st, pid, cb, base, lines, nav)
        step = Step(tr, st, match, pid, cb, base, acts, order, lines, nav, pending, (move, n))
        return step_of(pending)(step)

    def _menu(
        self,
        tr: Tr,
        st: DragonsState,
        pid: str,
        cb: _Cb,
        base: list[str],
        lines: list[str],
        nav: list[Button],
    ) -> Screen:
        me = st.dragon(pid)
        acts = base[1:]
        will_tail = me.tail_of is not None or any(t.startswith("t") for t in acts)
        pursued = any(d.tail_of == pid and d.in_battle for d in st.dragons)
        rows = [
            [
                Button(tr("dr.act.attack"), cb(*base, "+a")),
                Button(tr("dr.act.tail"), cb(*base, "+t")),
            ]
        ]
        second: list[Button] = []
        if will_tail:
            second.append(Button(tr("dr.act.force"), cb(*base, "+f")))  # D27
        else:
            lines.append(tr("dr.b.force_needs_tail"))
        if pursued:
            second.append(Button(tr("dr.act.break"), cb(*base, "+b")))  # D28
        else:
            lines.append(tr("dr.b.break_needs_pursuer"))
        if st.stats[pid].arcane is not None:
            second.append(Button(tr("dr.act.power"), cb(*base, "p")))  # D34a
        if second:
            rows.append(second)
        lines.append(tr("dr.b.pick_action"))
        return Screen("\n".join(lines), [*rows, nav])

    # --- helpers for the GM's NPC buttons ---

    def cannot_succeed(self, tr: Tr, match: Match, pid: str, raw: Mapping[str, Any]) -> list[str]:
        """Why each action of the order ``raw`` cannot succeed now (none: it can), so that a
        button that proposes an order (the NPCs' "same as last") never proposes one that
        would fail (issue 24; :func:`engine.rulesets.dragons.action_problems`)."""
        from handlers.telegram.ui.dragons.steps import problem_lines

        st = state_of(match)
        if st is None:
            return []
        return problem_lines(tr, st, pid, match.rules.parse_order(st, pid, raw))

    def nearest_order(self, match: Match, pid: str) -> dict[str, Any] | None:
        """D34 "nearest": level flight (or the first legal movement after which it works) and
        an attack on the nearest foe with the first weapon that can reach it; None when no
        movement allows one."""
        st = state_of(match)
        if st is None:
            return None
        me = st.dragon(pid)
        foes = sorted(
            self._foes(st, pid),
            key=lambda d: dr.distance(st.config, me, d),
        )
        moves = [("level", 0)] + [
            (o.move, o.n)
            for o in dr.movement_options(st, pid, max_steps=MAX_STEPS)
            if o.legal and (o.move, o.n) != ("level", 0) and not o.dangerous
        ]
        for target in foes[:1] or []:
            if target.tail_of == pid:
                continue
            for move, n in moves:
                for w in st.stats[pid].weapons:
                    if w.name in me.broken:
                        continue
                    if dr.attack_check(st, pid, w.name, target.pid, (move, n)).possible:
                        order = {
                            "move": move,
                            "n": n,
                            "aerobatics": None,
                            "actions": [{"type": "attack", "weapon": w.name, "target": target.pid}],
                        }
                        if (
                            match.rules.validate(st, pid, match.rules.parse_order(st, pid, order))
                            is None
                        ):
                            return order
        return None
