"""What the clock tells the chats (``features.clock`` runs the clock; the outbox's send
functions, ``shared.owed``, deliver these): a deadline's default orders, the one reminder of a
turn, a pause that ran out, a match parked after failing its sweeps, a beacon that stays
silent."""

from __future__ import annotations

from collections.abc import Sequence

from engine import usecases
from engine.match import Match, TurnRecord
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import clock_text, render
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.send import dm, send
from handlers.telegram.shared.turns import on_resolved, refresh_status
from handlers.telegram.ui import Button, Screen, get_ui, names_of


def beacon_late_screen(match: Match) -> Screen:
    """The beacon stayed silent: the group sees it, and the GM gets the way on (server seed
    only, marked in the reveal and the dossier)."""
    tr = Tr(match.lang)
    text = tr("fair.beacon_late", turn=match.turn, round=match.beacon_round or 0)
    return Screen(text, [[Button(tr("btn.force"), Callback("gfr", match.id, match.turn))]])


async def announce_parked(context: Ctx, match_id: str) -> None:
    """The match kept failing its sweeps and was parked: the GM is told privately, with the
    reason (the status shows it too) and what brings it back."""
    svc = context.svc
    match = svc.deps.repo.load(match_id).match
    tr = Tr(svc.lang_for(match.gm_user_id, match.lang))
    reason = (match.attention or "").removeprefix(usecases.PARKED)
    text = tr("outbox.parked", title=Raw(render.match_title(tr, match)), reason=reason)
    await dm(context, match, match.gm_user_id, Screen(text))


def _default_lines(tr: Tr, match: Match, record: TurnRecord) -> list[str]:
    names = names_of(match)
    ui = get_ui(match.ruleset)
    return [
        tr(
            "clock.defaulted",
            name=Raw(names.get(o.pid, o.pid)),
            order=Raw(ui.order_text(tr, o.order)),
        )
        for o in record.orders
        if o.default
    ]


def deadline_text(match: Match, record: TurnRecord) -> str:
    """The group's word that the deadline resolved a turn, with each default order (the head
    of the turn's reveal: a quiet group gets no message of its own for it)."""
    gtr = Tr(match.lang)
    lines = [gtr("clock.deadline_passed", turn=record.turn)]
    lines += _default_lines(gtr, match, record) or [gtr("clock.all_were_in")]
    return "\n".join(lines)


async def announce_deadline(
    context: Ctx, match: Match, record: TurnRecord, *, group: bool = True
) -> None:
    """The deadline resolved a turn: say so in the group (``group``; else the reveal carries
    :func:`deadline_text`) with each player's default order and tell each of them privately
    (the reveal follows: ``shared.owed``)."""
    if group:
        await send(context, match.chat_id, Screen(deadline_text(match, record)))
    from handlers.telegram import input_flow

    await input_flow.tell_defaulted(context, match, record, key="clock.you_defaulted")


async def remind(context: Ctx, match: Match, missing: Sequence[str]) -> None:
    """The turn's one reminder: a private message to each player who has not sealed (never to
    those who have); GM-run seats remind the GM once."""
    svc = context.svc
    now = svc.deps.clock()
    users: dict[int, list[str]] = {}
    for pid in missing:
        seat = match.seat(pid)
        uid = match.gm_user_id if seat.npc or seat.user_id is None else seat.user_id
        users.setdefault(uid, []).append(pid)
    for uid, pids in users.items():
        tr = Tr(svc.lang_for(uid, match.lang))
        left = clock_text.deadline_line(tr, match, now)
        text = tr("clock.reminder", title=Raw(render.match_title(tr, match)), deadline=Raw(left))
        rows = [
            [
                Button(
                    tr("btn.order_for", id=match.seat(p).name),
                    Callback("b", match.id, match.turn, (p,)),
                )
            ]
            for p in pids
        ]
        await dm(context, match, uid, Screen(text, rows))


async def announce_resumed(
    context: Ctx, match: Match, record: TurnRecord | None, *, refresh: bool = True
) -> None:
    """A pause ran out by itself (``max_pause_seconds``); ``refresh``: update the status."""
    svc = context.svc
    gtr = Tr(match.lang)
    text = gtr("clock.auto_resumed")
    deadline = clock_text.deadline_line(gtr, match, svc.deps.clock())
    await send(context, match.chat_id, Screen(f"{text}\n{deadline}" if deadline else text))
    if record is not None:
        await on_resolved(context, match, match, record)
    elif refresh:
        await refresh_status(context, match)
