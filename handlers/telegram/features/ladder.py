"""The group's ladder (docs/campaign.md "The ladder"): ``/ladder [ruleset]`` in the group (the
top players with rating, matches and wins, as a picture with the table as its caption), ``/me``
in private (one's own record in every group and ruleset), and the GM's ⚖️ rated/unrated switch
in the lobby (``cru``). Results are kept by ``shared.campaign.sync_result``; ratings are
computed from them on every read (``engine.campaign.ladder``)."""

from __future__ import annotations

import logging

from telegram import InputFile, Message, Update, User

from engine import usecases
from engine.errors import Rejection
from engine.ports import CampaignRepository
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.shared import campaign
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.guards import command, gm_lobby, sender
from handlers.telegram.shared.send import _api, send
from handlers.telegram.shared.turns import refresh_lobby
from handlers.telegram.ui import Screen, has_ui

log = logging.getLogger("sekundant.bot")
TOP = 10


def _store(svc: Services) -> CampaignRepository:
    found = campaign.store(svc)
    if found is None:
        raise Rejection("campaign_unavailable")
    return found


def ladder_text(tr: Tr, ruleset: str, table: list[object]) -> str:
    lines = [tr("ladder.title", ruleset=tr(f"ruleset.{ruleset}"))]
    for place, s in enumerate(table[:TOP], 1):
        lines.append(
            tr(
                "ladder.line",
                place=place,
                name=s.name,  # type: ignore[attr-defined]
                rating=f"{s.rating:.1f}",  # type: ignore[attr-defined]
                matches=s.matches,  # type: ignore[attr-defined]
                wins=s.wins,  # type: ignore[attr-defined]
            )
        )
    return "\n".join(lines)


@command
async def cmd_ladder(update: Update, context: Ctx) -> None:
    """``/ladder [ruleset]`` in a group."""
    from engine.campaign import ladder

    svc = context.svc
    user, chat = sender(update)
    active = svc.deps.repo.active_in_chat(chat.id)
    tr = Tr(active[0].lang) if active else context.tr(user)
    results = _store(svc).results(chat.id)
    played = ladder.rulesets(results)
    asked = (context.args or [""])[0].lower()
    if asked and (asked not in played or not has_ui(asked)):
        known = ", ".join(played) or "-"
        raise Rejection("ladder_no_ruleset", ruleset=asked, known=known)
    if not played:
        await send(context, chat.id, Screen(tr("ladder.empty")))
        return
    rid = asked or played[0]
    table = ladder.players(ladder.standings(results, rid))
    text = ladder_text(tr, rid, list(table))
    if len(played) > 1:
        text += "\n" + tr("ladder.others", commands=", ".join(f"/ladder {r}" for r in played))
    try:
        from handlers.telegram.screens.ladder_picture import ladder_png

        header = [tr("ladder.col_name"), tr("ladder.col_rating"), tr("ladder.col_matches"),
                  tr("ladder.col_wins")]  # fmt: skip
        rows = [(i, s.name, s.rating, s.matches, s.wins) for i, s in enumerate(table[:TOP], 1)]
        png = ladder_png(tr("ladder.picture_title", ruleset=tr(f"ruleset.{rid}")), header, rows)
        photo = InputFile(png, filename=f"ladder-{rid}.png")
        await _api(svc, lambda: context.bot.send_photo(chat.id, photo, caption=text[:1024],
                                                      parse_mode="HTML"))  # fmt: skip
    except Exception:  # the picture is a convenience: the table goes out as text
        log.warning("ladder picture of %s not sent", chat.id, exc_info=True)
        await send(context, chat.id, Screen(text))


@command
async def cmd_me(update: Update, context: Ctx) -> None:
    """``/me`` in private: the user's record in every group and ruleset they played."""
    from engine.campaign import ladder

    svc = context.svc
    user, chat = sender(update)
    tr = context.tr(user)
    store = _store(svc)
    mine = store.user_results(user.id)
    if not mine:
        await send(context, chat.id, Screen(tr("me.empty")))
        return
    lines = [tr("me.title")]
    for group in sorted({int(r["chat_id"]) for r in mine}):
        results = store.results(group)
        title = await _chat_title(context, group)
        for rid in ladder.rulesets(r for r in results if user.id in _users(r)):
            table = ladder.players(ladder.standings(results, rid))
            place, s = next((i, s) for i, s in enumerate(table, 1) if s.user_id == user.id)
            lines.append(
                tr(
                    "me.line",
                    group=title,
                    ruleset=tr(f"ruleset.{rid}"),
                    rating=f"{s.rating:.1f}",
                    place=place,
                    of=len(table),
                    matches=s.matches,
                    wins=s.wins,
                    draws=s.draws,
                )
            )
    await send(context, chat.id, Screen("\n".join(lines)))


def _users(result: dict[str, object]) -> list[int]:
    from engine.ports import result_users

    return result_users(result)


async def _chat_title(context: Ctx, chat_id: int) -> str:
    try:
        chat = await _api(context.svc, lambda: context.bot.get_chat(chat_id))
        return str(chat.title or chat_id)
    except Exception:  # a group the bot left: its id
        return str(chat_id)


async def btn_rated(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """``cru``: the GM switches the lobby's match between rated and unrated."""
    from engine.campaign.ladder import UNRATED

    svc = context.svc
    match = gm_lobby(svc, tr, cb, user)
    match = usecases.update_ui(svc.deps, match.id, **{UNRATED: not match.ui.get(UNRATED)})
    await refresh_lobby(context, match)
    return None
