"""The ``plans`` lobby: the GM's options (wound limit, turn cap, GM review)."""

from __future__ import annotations

from engine.match import Match
from handlers.telegram.i18n import Tr
from handlers.telegram.ui import (
    Option,
    RulesetUI,
)
from handlers.telegram.ui.plans.common import _config

WOUND_LIMITS = (3, 5, 7)
TURN_CAPS = (10, 20, 30)


class PlansLobby(RulesetUI):
    # --- lobby -------------------------------------------------------------------------------

    def turn_limit(self, match: Match) -> int | None:
        return _config(match).turn_cap  # C21

    def options(self, tr: Tr, match: Match) -> list[Option]:
        cfg = _config(match)
        end = cfg.end_condition
        other = "first_blood" if end == "incapacitation" else "incapacitation"
        wl = (
            WOUND_LIMITS[(WOUND_LIMITS.index(cfg.wound_limit) + 1) % len(WOUND_LIMITS)]
            if (cfg.wound_limit in WOUND_LIMITS)
            else 5
        )
        tc = (
            TURN_CAPS[(TURN_CAPS.index(cfg.turn_cap) + 1) % len(TURN_CAPS)]
            if (cfg.turn_cap in TURN_CAPS)
            else 20
        )
        sees = cfg.gm_sees_plans
        opts = [
            Option(
                "ec", tr("plans.opt.end", value=tr(f"plans.end.{end}")), {"end_condition": other}
            )
        ]
        if end == "incapacitation":  # C6: the wound limit only matters for incapacitation
            opts.append(
                Option("wl", tr("plans.opt.wound_limit", n=cfg.wound_limit), {"wound_limit": wl})
            )
        opts.append(Option("tc", tr("plans.opt.turn_cap", n=cfg.turn_cap), {"turn_cap": tc}))
        opts.append(
            Option(
                "gv",
                tr("plans.opt.gm_sees_on" if sees else "plans.opt.gm_sees_off"),
                {"gm_sees_plans": not sees},
            )
        )
        return opts
