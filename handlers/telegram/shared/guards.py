"""Guards and match lookup shared by the handlers: the command wrapper, the button alert,
GM and turn checks, which match a command is about (moved from ``handlers.telegram.bot``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from telegram import Chat, Message, Update, User

from engine.errors import ConflictError, NotFoundError, Rejection
from engine.match import Match, Phase
from engine.ports import Loaded
from engine.usecases import TryAgainError
from handlers import observe
from handlers.telegram import hints, plain
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import render
from handlers.telegram.shared.context import Ctx, Services
from handlers.telegram.shared.send import send
from handlers.telegram.ui import Button, Screen


def _rejection_text(tr: Tr, exc: Exception) -> str:
    if isinstance(exc, Rejection):  # in plain words, with the example a handler attached
        return plain.rejection_text(tr, exc)
    if isinstance(exc, TryAgainError | ConflictError):
        return tr("err.try_again")
    return tr("err.no_match")


Handler = Callable[[Update, Ctx], Coroutine[Any, Any, None]]


EXPECTED = (Rejection, TryAgainError, ConflictError, NotFoundError)


def left_to_redelivery(svc: Services, exc: BaseException) -> bool:
    """A lost write race under the webhook: raised on, so the update answers 500 and
    Telegram's redelivery does it again (``Services.redelivery``), instead of a 200 with "please
    try again" that leaves the order unsealed (the 4-player race of docs/deploy.md)."""
    return svc.redelivery and isinstance(exc, TryAgainError | ConflictError)


def command(fn: Handler) -> Handler:
    """A command handler: expected failures become a translated reply, nothing changed; under
    the webhook a lost race is left to Telegram's redelivery (:func:`left_to_redelivery`)."""

    async def wrapper(update: Update, context: Ctx) -> None:
        try:
            await fn(update, context)
        except EXPECTED as exc:
            if left_to_redelivery(context.svc, exc):
                raise
            tr = context.tr(update.effective_user)
            if update.effective_chat is not None:
                await send(context, update.effective_chat.id, Screen(_rejection_text(tr, exc)))

    return wrapper


def group_match(svc: Services, chat_id: int) -> Match:
    """The group's match (a group plays one match at a time); NotFoundError when none."""
    matches = svc.deps.repo.active_in_chat(chat_id)
    if not matches:
        raise NotFoundError(chat_id)
    observe.note(match_id=matches[0].id)  # the invocation's log field
    return matches[0]


def _user_matches(svc: Services, user_id: int) -> list[Match]:
    return svc.deps.repo.active_for_user(user_id)


def _own_seat(match: Match, user_id: int) -> str | None:
    seat = match.seat_of_user(user_id)
    return seat.pid if seat else None


def _pick_match(
    svc: Services, user_id: int, words: list[str], phase: Phase
) -> tuple[Match | None, list[Match], list[str]]:
    """The match a private command is about: named by its id as the first word, or the only
    one in ``phase``. Returns (match or None, candidates, remaining words)."""
    candidates = [
        m
        for m in _user_matches(svc, user_id)
        if m.phase is phase and m.seat_of_user(user_id) is not None
    ]
    if words:
        named = [m for m in candidates if m.id == words[0]]
        if named:
            observe.note(match_id=named[0].id)
            return named[0], candidates, words[1:]
    if len(candidates) == 1:
        observe.note(match_id=candidates[0].id)
        return candidates[0], candidates, words
    return None, candidates, words


async def _choose(
    context: Ctx, tr: Tr, chat_id: int, candidates: list[Match], user_id: int, example: str
) -> None:
    if not candidates:
        # Say why when the user does play a match, only not in the phase the command is for
        # (/character once it started, /order before it starts).
        for m in _user_matches(context.svc, user_id):
            if m.seat_of_user(user_id) is None:
                continue
            if m.phase is Phase.RUNNING:
                raise Rejection("match_already_running", id=m.id)
            if m.phase is Phase.LOBBY:
                raise Rejection("match_not_started", id=m.id)
        raise Rejection("no_active_match")
    rows = []
    for m in candidates:
        pid = _own_seat(m, user_id) or ""
        kind = "b" if m.phase is Phase.RUNNING else "pick"
        rows.append([Button(render.match_title(tr, m), Callback(kind, m.id, m.turn, (pid,)))])
    await send(context, chat_id, Screen(tr("matches.choose", example=example), rows))


def _order_example(tr: Tr, candidates: Sequence[Match], user_id: int) -> str:
    """The several-matches prompt's example: an order for the first match, with its id."""
    for m in candidates:
        pid = _own_seat(m, user_id)
        if pid is not None:
            return hints.order_example(tr, m, pid, with_id=True)
    return ""


class Alert(Exception):  # noqa: N818 - control flow: answer the press with this alert
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


Button_ = Callable[[Ctx, Message, User, Tr, Callback], Awaitable[str | None]]


def _load(svc: Services, cb: Callback) -> Match:
    return _load_with_orders(svc, cb).match


def _load_with_orders(svc: Services, cb: Callback) -> Loaded:
    """The press's match with its turn's sealed orders (for a seal to start from: it need
    not read them again, ``usecases.seal_order``'s ``known``)."""
    observe.note(match_id=cb.match)
    return svc.deps.repo.load(cb.match)


def _require_turn(tr: Tr, match: Match, cb: Callback) -> None:
    """Bind a press to the turn it was drawn for: an older button is stale."""
    if match.phase is Phase.FINISHED:  # no later message to use: say what happened
        raise Alert(tr("traps.stale.finished", id=match.id))
    if match.phase is not Phase.RUNNING or match.turn != cb.turn:
        raise Alert(tr("err.stale"))


def not_yours(tr: Tr, match: Match, user_id: int) -> Alert:
    """The refusal of a press on a seat's button by someone who does not control it: a user
    no longer in the match (removed, replaced) is told so, not "not for you"."""
    if match.seat_of_user(user_id) is None and user_id != match.gm_user_id:
        return Alert(tr("traps.gone.alert", id=match.id))
    return Alert(tr("err.not_yours"))


def _require_gm(tr: Tr, match: Match, user: User) -> None:
    if match.gm_user_id != user.id:
        raise Alert(tr("err.gm_only"))


def gm_lobby(svc: Services, tr: Tr, cb: Callback, user: User) -> Match:
    """The pressed button's match, for its GM, while it is still in the lobby."""
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    return match


class NoSender(Exception):  # noqa: N818 - control flow, like Alert
    """An update without the user or chat its handler's filters promise (never expected: the
    handlers are registered for messages in private or group chats). Logged as a failed update
    by the error handler, as the assertions it replaces were."""


def user_of(update: Update) -> User:
    """The user who sent ``update``."""
    user = update.effective_user
    if user is None:
        raise NoSender(update.update_id)
    return user


def message_of(update: Update) -> Message:
    """The message ``update`` carries (a command or a text: what its handler's filters let in)."""
    msg = update.effective_message
    if msg is None:
        raise NoSender(update.update_id)
    return msg


def sender(update: Update) -> tuple[User, Chat]:
    """The user who sent ``update`` and the chat it came from."""
    chat = update.effective_chat
    if chat is None:
        raise NoSender(update.update_id)
    return user_of(update), chat
