"""What the order page shows its reader (docs/bot.md "The order page"): the match's public
state, the reader's own seat (sheet, own sealed order and its fingerprint), the legal choices
and the exact odds computed by the engine. Never another seat's order: the only order read
here is the reader's own (``engine.match.own_orders``).

JSON-ready dicts; probabilities go out as ``[numerator, denominator]`` (exact) and the page
shows them as percentages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.match import Match, Phase, SealedOrder, own_orders
from engine.rulesets.pistol.odds import heat_map
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.render import match_title
from handlers.telegram.ui import get_ui
from handlers.telegram.ui.pistol.reveal import PistolReveal
from handlers.webapp.dragons_page import dragons_odds, dragons_page
from handlers.webapp.plans_page import plans_odds, plans_page
from handlers.webapp.text import frac, plain


def matches_list(matches: list[Match], user_id: int, tr: Tr) -> list[dict[str, Any]]:
    """The reader's running matches with the seats they may seal for (the menu button opens
    the page without a match: it lists these)."""
    out = []
    for m in matches:
        if m.phase is not Phase.RUNNING or m.ruleset not in PAGES:
            continue
        seats = [{"pid": s.pid, "name": s.name} for s in m.controlled_by(user_id)]
        if seats:
            out.append(
                {
                    "match": m.id,
                    "ruleset": m.ruleset,
                    "title": plain(match_title(tr, m)),
                    "seats": seats,
                }
            )
    return out


def reader_view(
    match: Match, orders: Mapping[str, SealedOrder], user_id: int, pid: str, tr: Tr
) -> dict[str, Any]:
    """The page's view of ``match`` for ``user_id`` acting as ``pid`` (a seat they control:
    checked by the caller)."""
    ui = get_ui(match.ruleset)
    mine = {o.pid: o for o in own_orders(list(orders.values()), match, user_id)}
    own = mine.get(pid)
    seats = [
        {
            "pid": s.pid,
            "name": s.name,
            "side": s.side,
            "npc": s.npc,
            "sealed": s.pid in match.sealed,
        }
        for s in match.seats
    ]
    view: dict[str, Any] = {
        "match": match.id,
        "ruleset": match.ruleset,
        "title": plain(match_title(tr, match)),
        "turn": match.turn,
        "phase": match.phase.value,
        "locked": match.locked_at is not None,
        "deadline": match.deadline,
        "pid": pid,
        "name": match.seat(pid).name,
        "seats": seats,
        "sealed": None
        if own is None
        else {
            "fingerprint": own.fingerprint,
            "order": own.order,
            "text": plain(ui.order_text(tr, own.order)),
        },
    }
    if match.state is not None and match.phase is Phase.RUNNING:
        rules = match.rules
        state = rules.load_state(match.state)
        view["public"] = rules.view(state, pid)
        view[match.ruleset] = PAGES[match.ruleset](match, state, pid, tr)
    return view


def pistol_page(match: Match, state: Any, pid: str, tr: Tr) -> dict[str, Any]:
    """The silhouette from the shooter's view, every legal aim with its exact chances (P9-P11)
    against the opponent standing still and over their moves, the move control (P6)."""
    cfg = state.rules.config
    me = next(d for d in state.duelists if d.pid == pid)
    foe = next(d for d in state.duelists if d.pid != pid)
    heat = [
        {
            "aim": list(cell.aim),
            "still": {k: frac(v) for k, v in cell.still.items()},
            "still_hit": frac(cell.still_hit),
            "moving": {k: frac(v) for k, v in cell.moving.items()},
            "moving_hit": frac(cell.moving_hit),
        }
        for cell in heat_map(cfg, me.zone)
    ]
    return {
        "zone": me.zone,
        "weapon": me.weapon,
        "heat": heat,
        "opponent": {"pid": foe.pid, "name": match.seat(foe.pid).name},
        "move_max": cfg.move_max,
        "aim_window": [cfg.aim_min, cfg.aim_max],
        "silhouette": {p: [list(c) for c in cs] for p, cs in cfg.silhouette.items()},
        "parts": {p: tr(f"part.{p}") for p in cfg.silhouette},
        "moves": [
            {"move": m, "label": plain(PistolReveal._move_text(tr, m))}
            for m in range(-cfg.move_max, cfg.move_max + 1)
        ],
        "default": {"move": 0, "aim": [0, 0]},
    }


PageBuilder = Callable[[Match, Any, str, Tr], dict[str, Any]]
PAGES: dict[str, PageBuilder] = {
    "pistol": pistol_page,
    "plans": plans_page,
    "dragons": dragons_page,
}


def strings(lang: str) -> dict[str, str]:
    """Every text of the page in ``lang`` (the ``webapp.*`` messages of the catalogs, as
    templates: the page fills ``{fields}`` itself, as text, never as HTML)."""
    from handlers.telegram.i18n import catalog

    messages: dict[object, str] = getattr(catalog(lang), "_catalog", {})  # the compiled ids
    keys = sorted(k for k in messages if isinstance(k, str) and k.startswith("webapp."))
    return {k: catalog(lang).gettext(k) for k in keys}


def draft_odds(match: Match, pid: str, order: Mapping[str, Any], tr: Tr) -> dict[str, Any]:
    """The exact odds of a draft order, for the rulesets whose odds depend on the whole order
    (the pistol page has every aim's odds in its view already)."""
    build = ODDS.get(match.ruleset)
    if build is None or match.state is None:
        return {}
    rules = match.rules
    return build(match, rules.load_state(match.state), pid, order, tr)


OddsBuilder = Callable[[Match, Any, str, Mapping[str, Any], Tr], dict[str, Any]]
ODDS: dict[str, OddsBuilder] = {"plans": plans_odds, "dragons": dragons_odds}
