"""The ``pistol`` reveal (P20): both orders, every die, each shot's cell on the target's grid."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.events import Event
from engine.match import Match, TurnRecord
from engine.rulesets.pistol import PistolConfig, render_grid
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.ui import (
    esc,
    names_of,
)
from handlers.telegram.ui.pistol.common import _label
from handlers.telegram.ui.pistol.typed import PistolTyped


class PistolReveal(PistolTyped):
    @staticmethod
    def _move_text(tr: Tr, m: int) -> str:
        if m < 0:
            return tr.n("pistol.move_left", -m)
        if m > 0:
            return tr.n("pistol.move_right", m)
        return tr("pistol.move_stay")

    def order_text(self, tr: Tr, order: Mapping[str, Any]) -> str:
        try:
            move = int(order["move"])
            a, b = (int(v) for v in order["aim"])
        except (KeyError, TypeError, ValueError):
            return super().order_text(tr, order)
        return tr("pistol.order", move=Raw(self._move_text(tr, move)), aim=f"{a}:{b}")

    @staticmethod
    def _zone(match: Match, pid: str) -> int:
        if match.state is None:
            return 0
        rules = match.rules
        view = rules.view(rules.load_state(match.state), pid)
        for d in view["duelists"]:
            if d["pid"] == pid:
                return int(d["zone"])
        return 0

    # --- results (P20) ---

    def event_text(
        self,
        tr: Tr,
        names: Mapping[str, str],
        kind: str,
        actor: str | None,
        data: Mapping[str, Any],
    ) -> str:
        who = Raw(names.get(actor or "", actor or ""))
        if kind == "initiative":
            return tr(
                "pistol.initiative",
                who=who,
                roll=data["roll"],
                speed=data["speed"],
                move=abs(int(data["move"])),
                total=data["total"],
            )
        if kind in ("hit", "miss"):
            c, r = data["cell"]
            target = Raw(names.get(str(data.get("target")), ""))
            a, b = data["aim"]
            f, h = data["dice"]
            base = tr(
                "pistol.shot",
                who=who,
                target=target,
                aim=f"{a}:{b}",
                shift=f"{int(data['shift']):+d}",
                f=f,
                h=h,
                cell=f"{c}:{r}",
            )
            if kind == "miss":
                return base + " " + tr("pistol.miss")
            return base + " " + tr("pistol.hit", part=_label(tr, "part", str(data["part"])))
        if kind == "perk":
            return tr(
                f"pistol.perk_{data.get('effect')}",
                who=who,
                part=_label(tr, "part", str(data.get("part"))),
            )
        if kind in ("wound", "death"):
            return tr(f"pistol.{kind}", who=who, part=_label(tr, "part", str(data.get("part"))))
        if kind == "no_shot":
            return tr("pistol.no_shot", who=who)
        if kind in ("turn_result", "outcome"):
            return ""  # the result is the story's last line
        return super().event_text(tr, names, kind, actor, data)

    def reveal_parts(self, tr: Tr, match: Match, record: TurnRecord) -> tuple[list[str], list[str]]:
        """Story: the orders, who shoots first, where each shot went, wounds and deaths, the
        result. Details: every die, the initiative and shot arithmetic, the grids (P20)."""
        names = names_of(match)
        story = self.order_lines(tr, names, record)
        details: list[str] = []
        events = record.events
        # The last pair of initiative events decides who shoots first (tie rerolls, P14, add
        # pairs): equal totals shoot at once, and both shots count (P15).
        inits = [e for e in events if e.kind == "initiative"][-2:]
        if len(inits) == 2:
            first, second = sorted(inits, key=lambda e: -int(e.data["total"]))
            a, b = int(first.data["total"]), int(second.data["total"])
            if a == b:
                story.append(tr("pistol.st.both", a=a))
            else:
                who = Raw(names.get(first.actor or "", ""))
                story.append(tr("pistol.st.first", who=who, a=a, b=b))
        for e in events:
            text = self.event_text(tr, names, e.kind, e.actor, e.data)
            if text:
                details.append(text)
            if e.kind in ("hit", "miss"):
                who = Raw(names.get(e.actor or "", ""))
                target = Raw(names.get(str(e.data.get("target")), ""))
                if e.kind == "miss":
                    story.append(tr("pistol.st.miss", who=who, target=target))
                else:
                    part = _label(tr, "part", str(e.data["part"]))
                    story.append(tr("pistol.st.hit", who=who, target=target, part=Raw(part)))
            elif e.kind in ("perk", "wound", "death", "no_shot"):
                story.append(text)
        details += self._grids(tr, match, record.events, names)
        result = next((e for e in record.events if e.kind == "turn_result"), None)
        if result is not None:
            story.append(self._result(tr, names, result))
        return story, details

    def _grids(
        self, tr: Tr, match: Match, events: Sequence[Event], names: Mapping[str, str]
    ) -> list[str]:
        """Each target's silhouette with the cell every shot at it landed on (P20), as lines
        of a collapsed block (``<code>``: a ``<pre>`` cannot sit inside a blockquote)."""
        cfg = match.rules.config((match.state or {}).get("config") or match.config)
        assert isinstance(cfg, PistolConfig)
        shots: dict[str, dict[tuple[int, int], str]] = {}
        for e in events:
            if e.kind in ("hit", "miss"):
                c, r = e.data["cell"]
                shots.setdefault(str(e.data["target"]), {})[(int(c), int(r))] = "X"
        blocks = []
        for pid, marks in shots.items():
            grid = "\n".join(render_grid(cfg, marks))
            outside = [
                f"{c}:{r}"
                for (c, r) in marks
                if not (cfg.aim_min <= c <= cfg.aim_max and cfg.aim_min <= r <= cfg.aim_max)
            ]
            title = tr("pistol.grid_title", name=Raw(names.get(pid, pid)))
            note = "\n" + tr("pistol.off_grid", cells=", ".join(outside)) if outside else ""
            blocks.append(f"{title}\n<code>{esc(grid)}</code>{note}")
        return blocks

    @staticmethod
    def _result(tr: Tr, names: Mapping[str, str], e: Event) -> str:
        status = str(e.data.get("status"))
        winners = [names.get(p, p) for p in e.data.get("winners", [])]
        if status == "win":
            return tr("outcome.win", names=Raw(", ".join(winners)))
        if status == "mutual":
            return tr("outcome.mutual")
        if status == "draw":
            return tr("outcome.draw")
        return tr("pistol.no_hit")
