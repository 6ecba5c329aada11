"""🎲 Odds: the lobby's matchup as configured (these characters, sides and options) played by the
balance simulator with random orders on both sides, answered in the chat: win shares by side
with 95% intervals, mean turns, the commonest ending, and a bar chart.

Who: the GM (the answer goes to the chat where the button was pressed, usually the group) and
any participant (the answer goes to them in private). How long: a pilot run measures the speed
here and now (on Lambda, at the function's CPU share) and sizes N so the whole answer, pilot and
chart included, takes about ``BUDGET_SECONDS`` (between ``MIN_MATCHES`` and ``MAX_MATCHES``; a
slow matchup gets fewer matches and wider intervals, which the answer shows, rather than a late
answer). ``make bench`` (bench_ratio) prints the figure at a 512 MB Lambda's share. Answers are
cached by the hash of the configuration, which also seeds the run: the same matchup gets the
same figures, in any process.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from telegram import Message, User
from telegram.constants import ParseMode
from telegram.error import Forbidden

from engine.match import Match, Phase
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.screens.canvas import participant_colours
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.guards import Alert, _load
from handlers.telegram.shared.send import _api, send
from handlers.telegram.ui import Screen

if TYPE_CHECKING:
    from engine.simulate import Result

# The simulator (pydantic, the rulesets) is imported on the first press, not when the webhook
# is wired: a cold start pays only for what its update needs (tests/serverless).

MIN_MATCHES = 200  # the floor: below it the intervals say too little
MAX_MATCHES = 20_000
BUDGET_SECONDS = 3.0  # aimed at: the whole answer, wall clock
RUN_SHARE = 0.75  # of the budget, for the run itself (the pilot, the chart and sending: the rest)
PILOT_MATCHES = 100
TURN_CAP = 200  # a random battle that has not ended by then is a draw (turn_cap)
CAPTION_MAX = 1024  # Telegram's photo caption limit
_CACHE: OrderedDict[str, tuple[Result, dict[str, Any]]] = OrderedDict()
_CACHE_SIZE = 64


def setup_doc(match: Match) -> dict[str, Any] | None:
    """The simulator setup of the lobby's matchup with random orders for every seat; None
    while a seat has no character or seats are missing."""
    seats = [s for s in match.seats if s.status == "active"]
    if len(seats) < match.rules.min_participants or any(s.character is None for s in seats):
        return None
    return {
        "ruleset": match.ruleset,
        "config": dict(match.config),
        "turns": TURN_CAP,
        "participants": [
            {
                "id": s.pid,
                "name": s.name,
                "side": s.side,
                "npc": s.npc,
                "character": dict(s.character or {}),
                "orders": "random",
            }
            for s in seats
        ],
    }


def config_hash(doc: dict[str, Any], version: str) -> str:
    raw = json.dumps([version, doc], sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(raw.encode()).hexdigest()


def size(rate: float) -> int:
    """Matches to play at ``rate`` matches per second (see the module doc)."""
    n = int(rate * BUDGET_SECONDS * RUN_SHARE)
    return max(MIN_MATCHES, min(MAX_MATCHES, n))


def run(doc: dict[str, Any], version: str) -> tuple[Result, dict[str, Any]]:
    """Simulate the matchup (cached by configuration); raises
    :class:`~engine.simulate.SetupError`."""
    from engine import sim_batch
    from engine.simulate import parse_setup, prepare

    key = config_hash(doc, version)
    hit = _CACHE.get(key)
    if hit is not None:
        _CACHE.move_to_end(key)
        return hit
    prepared = prepare(parse_setup(doc))
    seed = key[:16]
    started = time.perf_counter()
    sim_batch.run(sim_batch.plan(prepared, PILOT_MATCHES, f"pilot:{seed}"))
    rate = PILOT_MATCHES / max(time.perf_counter() - started, 1e-6)
    batch = sim_batch.plan(prepared, size(rate), seed)
    result = sim_batch.run(batch)
    out = _CACHE[key] = (result, sim_batch.report(batch, result))
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return out


def answer(
    doc: dict[str, Any], version: str, lang: str, colours: Mapping[str, str] | None = None
) -> tuple[str, bytes | None]:
    """The text (HTML) and the chart (PNG, None without Pillow) in ``lang``; a side's bar in
    ``colours`` of its first member (the participant's colour in every picture)."""
    from handlers.sim_render import odds_text
    from handlers.telegram.screens.odds_chart import chart_png

    result, rep = run(doc, version)
    tr = Tr(lang)
    bars = [(s["label"], s["share"], *s["interval"]) for s in rep["sides"]]
    fills: list[str | None] = [(colours or {}).get(s["members"][0]) for s in rep["sides"]]
    for key in ("draw", "mutual"):
        if rep[key]["count"]:
            name = tr("sim.outcome." + key)
            bars.append((name, rep[key]["share"], *rep[key]["interval"]))
            fills.append(None)
    title = tr("odds.chart.title", n=result.n)
    return odds_text(result, rep, lang), chart_png(title, bars, fills if colours else None)


async def btn_odds(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    from engine.simulate import SetupError

    svc = context.svc
    tr = context.own_tr(user)  # the odds go to the presser (the GM's to the group, below)
    match = _load(svc, cb)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    gm = user.id == match.gm_user_id
    if not gm and match.seat_of_user(user.id) is None:
        raise Alert(tr("err.not_a_participant"))
    doc = setup_doc(match)
    if doc is None:
        raise Alert(tr("odds.not_ready"))
    try:  # CPU work off the event loop (long polling keeps answering meanwhile)
        lang = match.lang if gm else tr.lang  # the group reads the match's language
        colours = participant_colours(match)
        text, png = await asyncio.to_thread(answer, doc, match.rules.version, lang, colours)
    except SetupError:
        raise Alert(tr("odds.not_ready")) from None
    chat_id = msg.chat.id if gm else user.id
    try:
        if png is not None and len(text) <= CAPTION_MAX:
            await _api(
                svc,
                lambda: context.bot.send_photo(
                    chat_id, photo=png, caption=text, parse_mode=ParseMode.HTML
                ),
            )
        else:
            await send(context, chat_id, Screen(text))
            if png is not None:
                await _api(svc, lambda: context.bot.send_photo(chat_id, photo=png))
    except Forbidden:
        raise Alert(tr("odds.open_private")) from None
    return None if chat_id == msg.chat.id else tr("odds.sent")
