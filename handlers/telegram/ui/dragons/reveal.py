"""The ``dragons`` reveal (D36): orders in words, the story, every roll one tap away."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import Rejection
from engine.match import Match, TurnRecord
from engine.rulesets import dragons as dr
from engine.rulesets.dragons import DragonsState
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    esc,
    names_of,
)
from handlers.telegram.ui.dragons.common import _label, reason_text, weapon_name
from handlers.telegram.ui.dragons.events import Ev, told
from handlers.telegram.ui.dragons.typed import DragonsTyped

# --------------------------------------------------------------------------- text helpers


def status_table(tr: Tr, state: DragonsState, match: Match) -> str:
    """All dragons by name: side, Speed, Altitude, wounds, Shaken, falling, tail relations,
    status. Names are cut to one width so the side column stays a column."""
    seats = {s.pid: s.name for s in match.seats}
    names = {d.pid: _cut(seats.get(d.pid, d.name), 12) for d in state.dragons}
    rows = [(tr("dr.col.dragon"), tr("dr.col.side"), "S", "H", "W", tr("dr.col.state"))]
    for d in state.dragons:
        flags = []
        if d.shaken:
            flags.append(tr("dr.flag.shaken"))
        if d.falling:
            flags.append(tr("dr.flag.falling"))
        if d.tail_of:
            flags.append(tr("dr.flag.tail", letter=names.get(d.tail_of, "?")))
        if d.consumed:
            flags.append(tr("dr.flag.consumed"))
        if d.broken:
            flags.append(tr("dr.flag.broken", weapons=",".join(d.broken)))
        if not d.in_battle:
            flags.append(_label(tr, f"dr.status.{d.status}", d.status))
        rows.append(
            (
                names[d.pid],
                d.side[:6],
                str(d.speed),
                str(d.altitude),
                str(d.wounds),
                " ".join(flags),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    return "\n".join(
        " ".join(r[i].ljust(widths[i]) if i < 2 else r[i].rjust(widths[i]) for i in range(5))
        + " "
        + r[5]
        for r in rows
    ).rstrip()


def _cut(name: str, width: int) -> str:
    """``name`` in at most ``width`` characters (an ellipsis marks a cut)."""
    return name if len(name) <= width else name[: width - 1] + "…"


class DragonsReveal(DragonsTyped):
    def order_text(
        self, tr: Tr, order: Mapping[str, Any], names: Mapping[str, str] | None = None
    ) -> str:
        try:
            move, n = str(order["move"]), int(order.get("n", 0))
            parts = [self._move_label(tr, move, n)]
            if order.get("aerobatics"):
                parts[0] += " " + tr("dr.aero", name=str(order["aerobatics"]))
            for a in order.get("actions") or ():
                parts.append(self.action_text(tr, a, names or {}))
        except (KeyError, TypeError, ValueError):
            return super().order_text(tr, order)
        return "; ".join(parts)

    @staticmethod
    def action_text(tr: Tr, a: Mapping[str, Any], names: Mapping[str, str]) -> str:
        def who(p: Any) -> Raw:
            return Raw(names.get(str(p), esc(p)))

        kind = a.get("type")
        if kind == "attack":
            return tr("dr.o.attack", weapon=weapon_name(tr, a["weapon"]), target=who(a["target"]))
        if kind == "tail":
            return tr("dr.o.tail", target=who(a["target"]))
        if kind == "force":
            text = tr("dr.o.force", choice=tr(f"dr.force.{a['choice']}"))
            if a.get("raise_choice"):
                text += " " + tr("dr.o.force_raise", choice=tr(f"dr.force.{a['raise_choice']}"))
            return text
        if kind == "break":
            return (
                tr("dr.o.break_from", target=who(a["target"]))
                if a.get("target")
                else tr("dr.o.break")
            )
        return tr("dr.o.power", text=str(a.get("text") or "—"))

    # --- results (D36) ---

    def event_text(
        self,
        tr: Tr,
        names: Mapping[str, str],
        kind: str,
        actor: str | None,
        data: Mapping[str, Any],
    ) -> str:
        if kind in ("roll", "status", "initiative"):
            return ""  # rolls are shown inside the events that use them; table and order apart
        text = told(Ev(tr, names, actor, data), kind)
        return super().event_text(tr, names, kind, actor, data) if text is None else text

    def reveal_order_text(self, tr: Tr, order: Mapping[str, Any], names: Mapping[str, str]) -> str:
        return self.order_text(tr, order, names)  # attack targets by name

    # Events told in the story (the rest - movement, recovery and manoeuvre rolls, damage
    # arithmetic - are details); attacks are told with their hit or miss.
    STORY = frozenset(
        {"fall", "falling", "shaken", "out", "takeover", "consumed_orders", "tail_broken"}
        | {"impossible", "weapon_broken"}
    )

    def reveal_parts(self, tr: Tr, match: Match, record: TurnRecord) -> tuple[list[str], list[str]]:
        """Story (D36 in short): the orders, each attack and whether it hit, wounds, Shaken,
        falls, tails and who is out, then the table of all dragons. Details: the initiative,
        each activation with its movement and every roll, and the sky chart."""
        names = names_of(match)

        def who(p: Any) -> Raw:
            return Raw(names.get(str(p), esc(p)))

        story = self.order_lines(tr, names, record)
        details: list[str] = []
        init = next((e for e in record.events if e.kind == "initiative"), None)
        if init is not None:
            order = " → ".join(
                f"{names.get(p, esc(p))} (S{s} H{a})"
                for p in init.data["order"]
                for s, a in [init.data["positions"][p]]
            )
            details.append(tr("dr.ev.initiative", order=Raw(order)))
        attack: Mapping[str, Any] | None = None
        for e in record.events:
            text = self.event_text(tr, names, e.kind, e.actor, e.data)
            if text:
                details.append(text if e.kind == "activation" else f"  {text}")
            d = e.data
            if e.kind == "attack":
                attack = d
            elif e.kind in ("hit", "miss") and attack is not None:
                key = "dr.st.hit" if e.kind == "hit" else "dr.st.miss"
                weapon = weapon_name(tr, attack["weapon"])
                story.append(tr(key, who=who(e.actor), target=who(d.get("target")), weapon=weapon))
                attack = None
            elif e.kind == "wound":
                story.append(
                    tr.n(
                        "dr.st.wounds", int(d.get("wounds", 0)), who=who(e.actor), total=d["total"]
                    )
                )
            elif e.kind in ("tail", "evade", "force", "force_failed", "break_failed", "power"):
                story.append(
                    tr(
                        f"dr.st.{e.kind}",
                        who=who(e.actor),
                        victim=who(d.get("victim")),
                        pursuer=who(d.get("pursuer")),
                        choice=tr(f"dr.force.{d.get('choice')}") if e.kind == "force" else "",
                        text=str(d.get("text") or "—"),
                    )
                )
            elif e.kind == "actions_void":
                reason = Raw(reason_text(tr, str(d.get("reason", ""))))
                story.append(
                    tr.n(
                        "dr.st.actions_void",
                        int(d.get("count", 0)),
                        who=who(e.actor),
                        reason=reason,
                    )
                )
            elif e.kind in self.STORY and text:
                story.append(text)
        after = match.rules.load_state(record.state_after)
        assert isinstance(after, DragonsState)
        story += [tr("dr.table_title"), f"<pre>{esc(status_table(tr, after, match))}</pre>"]
        details += [tr("dr.chart_title"), f"<code>{esc(dr.sky_chart(after))}</code>"]
        return story, details

    def outcome_text(self, tr: Tr, match: Match) -> str:
        """The result by side (D35): the winning side and its dragons, or a draw, with why;
        a result the GM declared says so."""
        out = match.outcome or {}
        names = names_of(match)
        winners = [str(p) for p in out.get("winners", [])]
        sides = {s.pid: s.side for s in match.seats}
        won = {sides.get(p) for p in winners}
        if out.get("status") == "win" and winners:
            who = Raw(", ".join(names.get(p, esc(p)) for p in winners))
            if len(won) == 1 and None not in won:
                text = tr("dr.outcome.side", side=str(won.pop()), names=who)
            else:
                text = tr("outcome.win", names=who)
        else:
            text = tr("outcome.draw")
        reason = str(out.get("reason", ""))
        if reason and reason != "gm" and tr.has(f"dr.reason.{reason}"):
            text += " " + tr(f"dr.reason.{reason}")
        return self.by_gm(tr, match, text)

    def result_choices(self, tr: Tr, match: Match) -> list[tuple[str, str]]:
        """The GM declares a side the winner (D35), never a single dragon."""
        active = [s for s in match.seats if s.status == "active" and s.side]
        choices = []
        for side in dict.fromkeys(s.side for s in active):
            who = ", ".join(s.name for s in active if s.side == side)
            choices.append((tr("dr.btn_side_wins", side=side, names=who), f"~{side}"))
        return choices

    def result_winners(self, match: Match, choice: str) -> tuple[str, ...]:
        side = choice.removeprefix("~")
        winners = tuple(
            s.pid
            for s in match.seats
            if s.side == side and s.status == "active" and choice[:1] == "~"
        )
        if not winners:
            raise Rejection("no_such_participant", pid=choice)
        return winners
