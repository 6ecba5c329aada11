"""Turn announcements shared by every feature: a turn opening (status message, builders, the
GM's NPC builders), a seal and its receipt, a resolution (reveal, next turn or summary), the
lobby and status refreshes, the seal and GM-change hooks (moved from ``handlers.telegram.bot``,
``npc`` and ``gm_panel``)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from telegram import Message
from telegram.error import TelegramError

from engine import usecases
from engine.errors import Rejection
from engine.match import Match, Phase, SealedOrder, TurnRecord
from engine.ports import Loaded
from handlers.telegram import stale
from handlers.telegram.i18n import Raw, Tr
from handlers.telegram.screens import render
from handlers.telegram.screens.fairness import receipt_screen, reveal_proof
from handlers.telegram.shared import campaign, commitments, finished, outbox
from handlers.telegram.shared.builders import send_builders
from handlers.telegram.shared.context import Ctx
from handlers.telegram.shared.gm_seats import absentee_alert, open_turn_gm
from handlers.telegram.shared.offloop import off_loop
from handlers.telegram.shared.page_button import proof_link
from handlers.telegram.shared.reveal_post import send_reveal
from handlers.telegram.shared.routing import router
from handlers.telegram.shared.send import at_once, both, deep_link, edit, edit_strict, send
from handlers.telegram.shared.summary import summary_screen
from handlers.telegram.ui import Screen, get_ui, names_of

log = logging.getLogger("sekundant.bot")


async def post_commitment(context: Ctx, match: Match, *, strict: bool = False) -> Match:
    """The open turn's commitment as its own message, if the group does not have it yet.
    ``strict``: a failure raises (an owed delivery is then tried again by the outbox); else
    it is logged and the next seal tries again."""

    async def to_chat(chat_id: int, screen: Screen) -> Message:
        return await send(context, chat_id, screen)

    post = commitments.post if strict else commitments.try_post
    return await post(to_chat, context.svc.deps, match)


def _lobby_url(context: Ctx, match: Match) -> str:
    return deep_link(context, f"join_{match.id}")


async def refresh_lobby(context: Ctx, match: Match) -> None:
    mid = match.ui.get("lobby")
    if mid is None:
        return
    screen = render.lobby_screen(Tr(match.lang), match, _lobby_url(context, match))
    await edit(context, match.chat_id, int(mid), screen)


async def refresh_status(context: Ctx, match: Match, fps: Mapping[str, str] | None = None) -> Match:
    """The group's status message edited to ``match`` (``fps``: its sealed orders' public
    fingerprints, read when not given); the match as read after the edit (else ``match``)."""
    svc = context.svc
    mid = match.ui.get("status")
    if mid is None or match.phase is not Phase.RUNNING:
        return match
    if fps is None:
        fps = usecases.sealed_fingerprints(svc.deps, match.id)
    screen = render.status_screen(Tr(match.lang), match, fps, svc.deps.clock())
    try:
        await edit(context, match.chat_id, int(mid), screen)
    finally:
        # Even when the edit failed: one that timed out on our side may still land after the
        # resolution's edits (docs/deploy.md, the late-edit race); the failure still answers
        # 500, and the redelivery is refused as older than the turn.
        latest = await _show_latest(context, match, int(mid))
    return latest


async def _show_latest(context: Ctx, match: Match, mid: int) -> Match:
    """Never back in time: if the turn resolved while a status edit travelled, the
    resolution's edits of the one status message (the next turn, the summary) may have landed
    first and been overwritten; show the latest state again (the same edit twice changes
    nothing, so whichever lands last shows the newer state). Returns the latest match."""
    svc = context.svc
    latest = svc.deps.repo.load(match.id).match
    if latest.turn == match.turn and latest.phase is Phase.RUNNING:
        return latest
    if latest.phase is Phase.RUNNING:
        fps = usecases.sealed_fingerprints(svc.deps, latest.id)
        screen = render.status_screen(Tr(latest.lang), latest, fps, svc.deps.clock())
        await edit(context, latest.chat_id, mid, screen)
    elif latest.phase is Phase.FINISHED:
        screen = summary_screen(Tr(latest.lang), latest, proof_link(context, latest))
        await edit(context, latest.chat_id, mid, screen)
    return latest


async def gm_changed(context: Ctx, match: Match) -> None:
    """The GM role changed hands (``/gm``, ``/takegm``): during a turn, the new GM gets what
    the previous one was sent for it - the order builders of the GM-run participants not
    sealed yet, and whatever the router's GM-change hooks add (the plans to review)."""
    if match.phase is not Phase.RUNNING:
        return
    sent = await open_turn_gm(context, match, unsealed_only=True)
    await stale.remember(context, match, sent)
    for hook in router(context.application).gm_hooks:
        await hook(context, match)


async def announce_started(
    context: Ctx, lobby_id: int | None, match: Match, events: Sequence[Any], *, opened: bool
) -> None:
    """The owed announcement of a start (``shared.owed``): the lobby message becomes the
    start (seats, setup events such as initiative), then (``opened``: the first turn is still
    the match's turn) the turn opens."""
    gtr = Tr(match.lang)
    ui = get_ui(match.ruleset)
    names = names_of(match)
    lines = [gtr("start.title", title=Raw(render.match_title(gtr, match)))]
    for s in match.seats:
        lines.append(
            gtr(
                "lobby.seat", name=s.name, character=Raw(ui.character_label(gtr, s.character or {}))
            )
        )
    lines += [ui.event_text(gtr, names, e.kind, e.actor, e.data) for e in events]
    history = usecases.history(context.svc.deps, match.id)
    if history:  # turn 0: its seed is revealed now
        lines.append(reveal_proof(gtr, match, history[0]))
    fold = opened and commitments.foldable(match, match.turn, lobby_id)
    if fold:  # turn 1's commitment: the start message's last edit
        lines.append(commitments.fold_text(gtr, match))
    if lobby_id is not None and fold:  # it must carry the commitment, or say it did not
        try:
            await edit_strict(context, match.chat_id, lobby_id, Screen("\n".join(lines)))
        except TelegramError as exc:  # the commitment is posted on its own (open_turn)
            log.warning("start of %s not shown: %s", match.id, exc)
            fold = False
        carrier = lobby_id
    elif lobby_id is not None:
        await edit(context, match.chat_id, lobby_id, Screen("\n".join(lines)))
        carrier = lobby_id
    else:
        with outbox.labelled("start"):
            carrier = (await send(context, match.chat_id, Screen("\n".join(lines)))).message_id
    if fold:
        match = commitments.folded(context.svc.deps, match, carrier)
    await stale.close_pickers(context, match)  # the lobby's character pickers go inert
    if opened:
        await open_turn(context, match)


async def open_turn(context: Ctx, match: Match) -> None:
    """A turn opened: one status message in the group (edited in place from now on), and
    each acting player's order builder in private."""
    svc = context.svc
    # The status message carries the turn's seed commitment: it is posted before any player
    # gets a builder, so the commitment always precedes the turn's first seal.
    turn = match.turn
    with outbox.labelled(f"commitment:{turn}"):  # its own message, never edited
        match = await post_commitment(context, match, strict=True)
    now = svc.deps.clock()
    # Sealed already only when this opening is a late resumed delivery: show the seals too.
    fps = usecases.sealed_fingerprints(svc.deps, match.id) if match.sealed else {}
    screen = render.status_screen(Tr(match.lang), match, fps, now)
    kept = match.ui.get("status")
    if kept is None:
        with outbox.labelled(f"status:{turn}"):
            status = await send(context, match.chat_id, screen)
        ids, opened = {"status": status.message_id}, match
        match = outbox.with_save(  # the status message's journal entry rides on it
            lambda entry: usecases.update_ui_owing(
                svc.deps, opened.id, ids, (), known=opened, entry=entry
            )
        )

    async def status_edit(mid: int) -> list[Message | None]:  # the one status message
        await edit(context, match.chat_id, mid, screen)
        return []

    # The builders (private) while the group's status is edited: one wait for Telegram.
    edits = [] if kept is None else [status_edit(int(kept))]
    calls = [send_builders(context, match, now), *edits]
    builders = [msg for sent in await at_once(*calls) for msg in sent]
    # One write remembers them: their keyboards go when the turn resolves, and the first one
    # in each chat orders typed orders after the turn opened (refuse_if_before_turn).
    await stale.remember(context, match, builders, known=match)


async def _seal(
    context: Ctx,
    tr: Tr,
    match: Match,
    pid: str,
    user_id: int,
    order: Mapping[str, Any],
    message: Message | None,
    *,
    loaded: Loaded | None = None,
) -> None:
    """Seal, give the player a receipt (the builder message becomes it), update the group's
    status message; when this order completed the turn, reveal. ``loaded``: the match with
    its orders as the caller just read it (the seal starts from it)."""
    svc = context.svc
    posted = await post_commitment(context, match)  # a failed posting is retried first
    if posted is not match:  # saved meanwhile: what the caller read is out of date
        loaded = None
    match = posted
    # Bound to the turn the caller checked (and built the order for): if that turn resolves
    # meanwhile, the order is refused as stale, never sealed into the next turn.
    # When this order resolves the turn, its receipt is owed in the outbox (send_receipt):
    # a failed receipt could not be had again by re-sending the order past the turn.
    where = {"message": message.message_id if message is not None else None, "lang": tr.lang}
    res = await off_loop(  # it may wait for the turn's beacon round
        usecases.seal_order,
        svc.deps,
        match.id,
        user_id,
        pid,
        order,
        turn=match.turn,
        receipt=where,
        known=loaded,
    )
    if res.unchanged:  # the same order again (or Telegram's redelivery after a failed
        # send): its receipt and the group's status again, nothing sealed anew
        await send_receipt(context, tr, res.match, res.order, False, where)
        await refresh_status(context, res.match)
        return
    if res.record is not None:
        await on_resolved(context, match, res.match, res.record)
    else:  # the receipt (private) and the group's status at once: one wait for Telegram
        sent, latest = await asyncio.gather(
            send_receipt(context, tr, res.match, res.order, res.replaced, where),
            refresh_status(context, res.match, res.fingerprints),  # the match read after it
            return_exceptions=True,
        )
        if isinstance(latest, BaseException):
            raise latest
        # A lost receipt must not cost the group its status, nor the turn its lock message.
        # A typed order's receipt is remembered (its keyboard goes when the turn resolves);
        # the one of the seal that locked the turn has none.
        locked = res.match.locked_at is not None
        receipt = None if isinstance(sent, BaseException) or locked else sent
        latest = await stale.remember(context, res.match, [receipt], known=latest)
        if res.match.locked_at is not None:  # this seal locked it (not another's)
            await after_lock(context, latest, res.fingerprints)
        if isinstance(sent, BaseException):
            raise sent
    for hook in router(context.application).seal_hooks:
        await hook(context, match, res)


async def send_receipt(
    context: Ctx,
    tr: Tr,
    match: Match,
    order: SealedOrder,
    replaced: bool,
    where: Mapping[str, Any],
) -> Message | None:
    """A player's receipt (the order, its salt and full fingerprint, the deadline): the builder
    message ``where["message"]`` becomes it, else a new private message (returned, so its
    keyboard can go when the turn resolves: ``stale``)."""
    svc = context.svc
    final = match.turn != order.turn or match.phase is not Phase.RUNNING
    locked = not final and match.locked_at is not None  # no Change, no Withdraw any more
    now = svc.deps.clock()
    receipt = receipt_screen(tr, match, order, replaced, now, final=final, locked=locked)
    user_id = order.by_user if order.by_user is not None else match.gm_user_id
    if where.get("message") is not None:
        await edit(context, user_id, int(where["message"]), receipt)
        return None
    return await send(context, user_id, receipt)


async def after_lock(context: Ctx, match: Match, fps: Mapping[str, str] | None = None) -> None:
    """A change that locked the turn without resolving it (``shared.lock``): deliver the owed
    lock message now, from ``match`` as just saved or read (``fps``: its sealed orders')."""
    if match.phase is Phase.RUNNING and match.locked_at is not None and not match.lock_message:
        await outbox.deliver(context, match.id, outbox.Known(match, fingerprints=fps))


async def force_resolve(
    context: Ctx, match_id: str, user_id: int, turn: int
) -> usecases.Resolution | None:
    """The GM's force: the resolution, or None when it locked the turn and the lock message
    went out now (``shared.lock``: the reveal follows when the round is out)."""
    try:  # off the event loop: it may wait for a beacon round (shared.offloop)
        return await off_loop(usecases.force_resolve, context.svc.deps, match_id, user_id, turn)
    except Rejection as exc:
        latest = context.svc.deps.repo.load(match_id).match
        if exc.code != "beacon_pending" or latest.lock_message is not None:
            raise
        await after_lock(context, latest)
        return None


async def on_resolved(context: Ctx, before: Match, after: Match, record: TurnRecord) -> None:
    """A turn resolved, and its announcement was saved with it in the outbox: deliver it now
    (:func:`announce_resolved`); what fails is delivered by the sweeper."""
    context.svc.resolved += 1  # see Services.resolved
    await outbox.deliver(context, after.id, outbox.Known(after, record))


async def close_status(context: Ctx, status_id: int, after: Match, record: TurnRecord) -> None:
    """Turn ``record.turn``'s status message, closed."""
    fps = {o.pid: o.fingerprint for o in record.orders if not o.default}
    screen = render.closed_status(Tr(after.lang), after, record.turn, fps)
    await edit(context, after.chat_id, status_id, screen)


async def announce_resolved(
    context: Ctx,
    status_id: int | None,
    after: Match,
    record: TurnRecord,
    *,
    last: bool = True,
    edited: int | None = None,
    preface: str = "",
) -> None:
    """The owed announcement of a resolved turn (``shared.owed``): close its status message,
    remove the keyboards of its builders and receipts (``edited``: the receipt the resolving
    seal drew without one), post the reveal (picture and text), then (``last``: no later turn
    resolved meanwhile) the next turn or the final summary."""
    final = None
    if last and after.phase is Phase.FINISHED:  # the summary ends the final reveal
        final = summary_screen(Tr(after.lang), after, proof_link(context, after))

    async def edits(after: Match) -> None:  # of earlier messages: no chat's order changes
        closing = [] if status_id is None else [close_status(context, status_id, after, record)]
        await at_once(*closing, stale.clear(context, after, record.turn, skip=edited))

    # The old status closed and the private keyboards replaced while the reveal goes out.
    reveal = send_reveal(context, after, record, last=last, preface=preface, final=final)
    after, _ = await both(reveal, edits(after))
    if not last:
        return
    if after.phase is Phase.FINISHED:
        campaign.sync_result(context.svc, after)  # the ladder's result (features/ladder.py)
        finished.remember(context.svc, after)  # /dossier and /history answer about it
        return
    await open_turn(context, after)
    with outbox.labelled(f"absentees:{after.turn}"):
        await absentee_alert(context, after)  # K missed turns in a row: tell the GM


DEADLINE = "@deadline"  # a note's parameter: the deadline line, as it is when sent
SUMMARY: dict[str, Any] = {"summary": True}  # a note: the final summary, if the match ended


def note(
    key: str, *, chat: int | None = None, user: int | None = None, **params: Any
) -> dict[str, Any]:
    """A GM action's announcement, owed in the action's own write (the use cases' ``notes``;
    sent by ``owed.send_note`` through the outbox, issue 28): the catalog ``key`` and its
    ``params`` (``Raw`` ones stay raw; :data:`DEADLINE` is rendered when sent); ``chat``:
    where (default the group), ``user``: whose language (default the match's)."""
    raw = [k for k, v in params.items() if isinstance(v, Raw)]
    plain = {k: v if isinstance(v, int) else str(v) for k, v in params.items()}
    return {"say": key, "params": plain, "raw": raw, "chat": chat, "user": user}


async def announce(context: Ctx, match: Match) -> None:
    """Deliver what the action owed (its notes): through the outbox, so a Telegram failure
    leaves it owed for the sweeper instead of lost."""
    await outbox.deliver(context, match.id)


async def _after_change(
    context: Ctx, before: Match, after: Match, record: TurnRecord | None
) -> None:
    """After a GM step that may have resolved or finished the match: reveal, summary, or an
    updated status message."""
    if record is not None:
        await on_resolved(context, before, after, record)
    elif after.phase is Phase.FINISHED:
        campaign.sync_result(context.svc, after)
        # The status closed and the summary: owed by the action (SUMMARY, shared.owed).
        await outbox.deliver(context, after.id)
    else:
        await refresh_status(context, after)
        await after_lock(context, after)


async def _close_status(context: Ctx, before: Match, after: Match) -> None:
    status_id = before.ui.get("status")
    if status_id is not None:
        gtr = Tr(after.lang)
        await edit(
            context,
            after.chat_id,
            int(status_id),
            Screen(gtr("gm.status_closed", turn=before.turn)),
        )
