"""The Telegram layer's send functions for the outbox (:mod:`handlers.telegram.shared.outbox`).

Each renders its owed item from the latest stored state when it runs, so a late delivery
never shows an older state than the chat has seen: a reveal is the record of its turn; the next
turn is opened only if no later turn resolved meanwhile; a reminder goes only to players who
still have not sealed that turn. The wiring (``handlers.telegram.app``) gives them to the
application, one per kind (:func:`handlers.telegram.shared.outbox.add_senders`).
"""

from __future__ import annotations

from typing import Any

from engine import match as lifecycle
from engine.match import Phase, TurnRecord
from engine.ports import Owed
from handlers.telegram import stale
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import clock_text, render
from handlers.telegram.shared import clock_notices as clock
from handlers.telegram.shared import farewell, lock, outbox, summary, turns
from handlers.telegram.shared.send import deep_link, edit, send
from handlers.telegram.ui import Button, Screen, get_ui


async def send_resolved(context: Any, item: Owed) -> None:
    """A resolved turn: with ``reason`` deadline the default orders first (group and each
    defaulted player; ``forced``: each defaulted player), then the reveal and the next turn
    (``turns.announce_resolved``)."""
    repo = context.svc.deps.repo
    got = outbox.known(item.match_id)  # the resolving invocation's own save: nothing to read
    if got is not None and got.record is not None and got.record.turn == item.turn:
        latest, record, last = got.match, got.record, True
    else:
        latest = got.match if got is not None else repo.load(item.match_id).match
        history = repo.history(item.match_id, since=item.turn)  # its record and any later one
        found = next((r for r in history if r.turn == item.turn), None)
        if found is None:
            return  # undone before it was announced: the GM's undo told the chat
        record, last = found, found.turn == history[-1].turn
    preface = ""
    if record.reason == "deadline":  # the group reads it at the head of the reveal
        preface = clock.deadline_text(latest, record)
        with outbox.labelled(f"deadline:{record.turn}"):
            await clock.announce_deadline(context, latest, record, group=False)
    elif record.reason == "forced":  # the GM resolved it: each defaulted player is told
        from handlers.telegram import input_flow

        with outbox.labelled(f"forced:{record.turn}"):
            await input_flow.tell_defaulted(context, latest, record)
    status, edited = item.data.get("status"), item.data.get("edited")
    await turns.announce_resolved(
        context,
        None if status is None else int(status),
        latest,
        record,
        last=last,
        edited=None if edited is None else int(edited),
        preface=preface,
    )


async def send_started(context: Any, item: Owed) -> None:
    """A match started: the start in place of the lobby, then the first turn (unless a later
    turn is already the match's: it was announced by then)."""
    repo = context.svc.deps.repo
    latest = repo.load(item.match_id).match
    history = repo.history(item.match_id)
    events = history[0].events if history and history[0].turn == 0 else ()
    lobby = item.data.get("lobby")
    opened = latest.phase is Phase.RUNNING and latest.turn == item.turn
    await turns.announce_started(
        context, None if lobby is None else int(lobby), latest, events, opened=opened
    )


async def send_receipt(context: Any, item: Owed) -> None:
    """The receipt of the order that resolved its turn (the order as revealed)."""
    repo = context.svc.deps.repo
    got = outbox.known(item.match_id)  # the resolving invocation's own save: nothing to read
    latest = got.match if got is not None else repo.load(item.match_id).match
    if got is not None and got.record is not None and got.record.turn == item.turn:
        record: TurnRecord | None = got.record
    else:
        since = repo.history(item.match_id, since=item.turn)
        record = next((r for r in since if r.turn == item.turn), None)
    pid = item.data.get("pid")
    order = None if record is None else next((o for o in record.orders if o.pid == pid), None)
    if order is None or order.default:
        return  # undone meanwhile: the GM's undo told the players
    tr = Tr(str(item.data.get("lang") or latest.lang))
    await turns.send_receipt(context, tr, latest, order, bool(item.data.get("replaced")), item.data)


async def send_reminder(context: Any, item: Owed) -> None:
    """The turn's one reminder, to those still missing when it is sent."""
    latest = context.svc.deps.repo.load(item.match_id).match
    if latest.phase is not Phase.RUNNING or latest.turn != item.turn:
        return
    missing = lifecycle.missing(latest)
    if missing:
        await clock.remind(context, latest, missing)


async def send_note(context: Any, item: Owed) -> None:
    """A GM action's announcement (``turns.note``), in the language of its reader, its
    deadline as it is now; the final summary (``turns.SUMMARY``) only if the match ended."""
    svc = context.svc
    latest = svc.deps.repo.load(item.match_id).match
    user = item.data.get("user")
    tr = Tr(svc.lang_for(int(user), latest.lang) if user else latest.lang)
    if item.data.get("summary"):
        # Not when the action also resolved its turn: that turn's announcement ends with
        # the summary (turns.announce_resolved).
        resolved = bool(svc.deps.repo.history(item.match_id, since=item.turn))
        if latest.phase is Phase.FINISHED and not resolved:
            status = latest.ui.get("status")
            if status is not None:  # the open turn's status, closed
                closed = Screen(tr("gm.status_closed", turn=item.turn))
                await edit(context, latest.chat_id, int(status), closed)
            await summary.send_summary(context, latest)  # also remembered as finished
        return
    if "show" in item.data:
        await _show(context, item, latest, tr)
        return
    if "open" in item.data:  # an undo reopened this turn: open it, unless it moved on
        if latest.phase is Phase.RUNNING and latest.turn == item.data["open"]:
            await turns.open_turn(context, latest)
        return
    lines = [item.data, *(item.data.get("more") or ())]  # "more": lines of the same message
    text = "\n".join(_said(svc, tr, latest, line) for line in lines)
    await send(context, item.chat_id, Screen(text))


def _said(svc: Any, tr: Tr, latest: Any, line: dict[str, Any]) -> str:
    """One line of a note (``turns.note``) in ``tr``'s language."""
    raw = set(line.get("raw") or ())
    params: dict[str, Any] = {}
    for name, value in (line.get("params") or {}).items():
        if value == turns.DEADLINE:
            params[name] = Raw(clock_text.deadline_line(tr, latest, svc.deps.clock()))
        else:
            params[name] = Raw(value) if name in raw else value
    return tr(str(line["say"]), **params)


async def send_resumed(context: Any, item: Owed) -> None:
    """A pause that ran out by itself (a resolution it caused is owed on its own)."""
    latest = context.svc.deps.repo.load(item.match_id).match
    await clock.announce_resumed(context, latest, None, refresh=latest.turn == item.turn)


async def send_lock(context: Any, item: Owed) -> None:
    """A turn locked: its lock message, whose Telegram date fixes the beacon round, then the
    resolution once the round is out (``shared.lock``); its reveal is owed on its own."""
    await lock.lock_and_resolve(context, item.match_id, item.turn)


async def send_beacon_late(context: Any, item: Owed) -> None:
    """A locked turn's beacon round stayed out of reach: the group sees it, with the GM's
    Resolve-now button (server seed only). Not sent once the turn resolved."""
    latest = context.svc.deps.repo.load(item.match_id).match
    if latest.phase is not Phase.RUNNING or latest.turn != item.turn or latest.locked_at is None:
        return
    await send(context, latest.chat_id, clock.beacon_late_screen(latest))


async def _show(context: Any, item: Owed, latest: Any, tr: Tr) -> None:
    what, data = item.data["show"], item.data
    running = latest.phase is Phase.RUNNING
    if what == "lobby" and latest.phase is Phase.LOBBY:
        await turns.refresh_lobby(context, latest)
    elif what == "status":
        await turns.refresh_status(context, latest)
    elif what == "commitment":
        await turns.post_commitment(context, latest, strict=True)
    elif what == "clock":
        await send(context, item.chat_id, Screen(clock_text.settings_text(tr, latest)))
    elif what == "offer":
        seat = next((s for s in latest.seats if s.pid == data.get("pid")), None)
        if seat is None or latest.phase is Phase.FINISHED:
            return
        url = deep_link(context, f"claim_{latest.id}_{seat.pid}")
        text = tr("gm.replace_offer", name=seat.name, who=str(data.get("who") or ""))
        await send(context, item.chat_id, Screen(text, [[Button(tr("gm.btn_claim"), url=url)]]))
    elif what == "builder" and running and data.get("pid") in lifecycle.acting(latest):
        if latest.seat(str(data["pid"])).user_id == item.chat_id:
            screen = render.builder_screen(tr, latest, data["pid"], ())
            # Remembered as the turn's first message in that chat: what is typed after it is
            # for this turn, a redelivered order included (builders.refuse_if_before_turn).
            await stale.remember(context, latest, [await send(context, item.chat_id, screen)])
    elif what == "npc_added" and latest.phase is Phase.LOBBY:  # the latest of that name
        seat = next((x for x in reversed(latest.seats) if x.npc and x.name == data["name"]), None)
        if seat is not None:
            label = get_ui(latest.ruleset).character_label(tr, seat.character or {})
            text = tr(
                "npc.added", name=seat.name, pid=seat.pid, side=seat.side, character=Raw(label)
            )
            await send(context, item.chat_id, Screen(text))
    elif what == "side_set" and latest.phase is Phase.LOBBY:
        seat = next((x for x in latest.seats if x.pid == data.get("pid")), None)
        if seat is not None:
            text = tr("npc.side_set", name=seat.name, side=seat.side)
            await send(context, item.chat_id, Screen(text))
    elif what == "gm_changed":  # the new GM's order screens of the GM-run seats
        await turns.gm_changed(context, latest)
    elif what == "inert":
        await farewell.inert(context, list(data.get("messages") or ()))
