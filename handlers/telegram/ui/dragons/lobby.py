"""The ``dragons`` lobby: the GM's options (turn limit, edition), sides and NPCs."""

from __future__ import annotations

from engine.match import Match
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    Button,
    Option,
    RulesetUI,
    Screen,
    esc,
)
from handlers.telegram.ui.dragons.common import config_of

TURN_LIMITS: tuple[int | None, ...] = (None, 5, 10, 20)
EDITIONS: tuple[str, ...] = ("SWADE", "SWD2015", "SWD2011")
DEFAULT_SIDES: tuple[str, ...] = ("A", "B")


class DragonsLobby(RulesetUI):
    # --- lobby ---

    def turn_limit(self, match: Match) -> int | None:
        return config_of(match).turn_limit

    def options(self, tr: Tr, match: Match) -> list[Option]:
        cfg = config_of(match)
        tl = cfg.turn_limit
        nxt = (
            TURN_LIMITS[(TURN_LIMITS.index(tl) + 1) % len(TURN_LIMITS)]
            if tl in TURN_LIMITS
            else None
        )
        ed = EDITIONS[(EDITIONS.index(cfg.edition) + 1) % len(EDITIONS)]
        return [
            Option("tl", tr("dr.opt.turn_limit", n=tl or "∞"), {"turn_limit": nxt}),
            Option("ed", tr("dr.opt.edition", edition=cfg.edition), {"edition": ed}),
            Option(
                "ml",
                tr("dr.opt.melee_5" if cfg.melee_requires_range_5 else "dr.opt.melee_alt"),
                {"melee_requires_range_5": not cfg.melee_requires_range_5},
            ),
            Option(
                "tk",
                tr(
                    "dr.opt.takeover_auto" if cfg.consumed_attacks_nearest else "dr.opt.takeover_gm"
                ),
                {"consumed_attacks_nearest": not cfg.consumed_attacks_nearest},
            ),
            Option(
                "tr",
                tr(f"dr.opt.terrain_{cfg.terrain}"),
                {"terrain": "ground" if cfg.terrain == "blue" else "blue"},
            ),
        ]

    def sides(self, match: Match) -> list[str]:
        """Sides offered by buttons: A, B and every side a seat is on (a seat's own pid, the
        lobby default, is not offered)."""
        pids = {s.pid for s in match.seats}
        named = [s.side for s in match.seats if s.side and s.side not in pids]
        return list(dict.fromkeys([*DEFAULT_SIDES, *named]))[:6]

    def lobby_extra(self, tr: Tr, match: Match) -> Screen:
        lines = [tr("dr.lobby.sides")]
        by_side: dict[str, list[str]] = {}
        pids = {s.pid for s in match.seats}
        for s in match.seats:
            tag = tr("dr.lobby.npc_tag") if s.npc else ""
            side = "" if s.side in pids else s.side  # its own pid: no side picked yet
            by_side.setdefault(side, []).append(f"{esc(s.name)}{tag} <code>{s.pid}</code>")
        for side, who in sorted(by_side.items(), key=lambda kv: kv[0] == ""):
            label = f"<b>{esc(side)}</b>" if side else tr("traps.no_side")
            lines.append(f"• {label}: {', '.join(who)}")
        if not match.seats:
            lines.append("—")
        side_row = [
            Button(tr("dr.btn.side", side=side), Callback("nsd", match.id, 0, (side,)))
            for side in self.sides(match)[:4]
        ]
        rows = [side_row, [Button(tr("dr.btn.npc_panel"), Callback("npp", match.id, 0))]]
        return Screen("\n".join(lines), rows)
