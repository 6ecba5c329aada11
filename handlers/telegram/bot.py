"""The Telegram shell: one wiring function (:func:`build_application`) and thin handlers.

Each handler parses the update, calls one use case of :mod:`engine.usecases` (which loads,
runs the pure core and saves), renders with :mod:`handlers.telegram.render` and the ruleset's UI
module, and sends. No PTB conversation state, persistence or job queue: everything lives in the
store or in the (signed) callback data. Services reach handlers through ``bot_data``.

Errors: a :class:`~engine.errors.Rejection` becomes its translated message (a reply, or a
private alert for a button), nothing changed; lost races become "please try again".
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import warnings
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from telegram import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    Update,
    User,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    ContextTypes,
    filters,
)
from telegram.helpers import create_deep_linked_url
from telegram.request import BaseRequest
from telegram.warnings import PTBUserWarning

from engine import match as lifecycle
from engine import rulesets as registry
from engine import usecases
from engine.errors import ChatBusyError, ConflictError, NotFoundError, Rejection
from engine.match import Match, Phase, SealedOrder, TurnRecord
from engine.ports import PrefsRepository
from engine.ruleset import Outcome
from engine.usecases import Deps, TryAgainError
from handlers.telegram import callbacks as cbcodec
from handlers.telegram import commitments, hints, npc, outbox, plain, render, reveal, stale
from handlers.telegram.callbacks import Callback
from handlers.telegram.clock_text import deadline_line, with_deadline
from handlers.telegram.fairness import receipt_screen, reveal_proof
from handlers.telegram.i18n import LANGS, Raw, Tr, normalize
from handlers.telegram.ui import Button, Screen, esc, get_ui, has_ui, label, names_of

log = logging.getLogger("sekundant.bot")

Ctx = ContextTypes.DEFAULT_TYPE
SERVICES = "sekundant"
RETRY_AFTER_MAX = 5.0  # seconds we are willing to sleep on a 429 inside one update
REVEAL_RETRIES = 2  # a reveal is sent again after a network error or a Telegram 5xx
_NO_PREVIEW = {"is_disabled": True}
_RAW_NO_PREVIEW = {"link_preview_options": _NO_PREVIEW}
# edit() calls editMessageText through do_api_request on purpose (see there); PTB warns that a
# typed method exists.
warnings.filterwarnings(
    "ignore", message=r"Please use 'Bot\.editMessageText'", category=PTBUserWarning
)


@dataclass
class Services:
    """What the handlers need, reached through ``application.bot_data``."""

    deps: Deps
    secret: bytes
    default_lang: str = "ru"
    retry_after_max: float = RETRY_AFTER_MAX
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
    errors: list[BaseException] = field(default_factory=list)  # for a webhook's status code
    # Turns this process resolved and began to announce (on_resolved, which every resolution
    # reaches, a seal's even when its receipt fails). The webhook asks Telegram to re-send
    # a failed update only if this did not move while handling it: past a turn boundary, a
    # redelivery would apply the update again (a typed order into the next turn).
    resolved: int = 0
    _prefs: dict[int, str] = field(default_factory=dict)  # cache of stored /lang choices
    _seen: dict[int, str] = field(default_factory=dict)  # client languages seen (process only)

    # --- per-user language (/lang): the store when it supports prefs, else process memory ---

    def user_lang(self, user: User | None) -> str:
        """A user's language: their ``/lang`` choice, else their Telegram client's."""
        if user is None:
            return self.default_lang
        seen = normalize(user.language_code, self.default_lang)
        self._seen[user.id] = seen
        return self.lang_for(user.id, seen)

    def lang_for(self, user_id: int, fallback: str) -> str:
        """The language to DM ``user_id`` in when no update of theirs is at hand."""
        if user_id in self._prefs:
            return self._prefs[user_id]
        repo = self.deps.repo
        if isinstance(repo, PrefsRepository):
            lang = repo.load_prefs(user_id).get("lang")
            if lang in LANGS:
                self._prefs[user_id] = str(lang)
                return str(lang)
        return self._seen.get(user_id, fallback)

    def set_user_lang(self, user_id: int, lang: str) -> None:
        self._prefs[user_id] = lang
        repo = self.deps.repo
        if isinstance(repo, PrefsRepository):
            repo.save_prefs(user_id, {**repo.load_prefs(user_id), "lang": lang})

    def cb(self, callback: Callback) -> str:
        return cbcodec.encode(callback, self.secret)


def services(context: Ctx) -> Services:
    svc: Services = context.application.bot_data[SERVICES]
    return svc


# --------------------------------------------------------------------------- sending


class _Keyboard(InlineKeyboardMarkup):
    """An inline keyboard we only send: its JSON built straight from our rows.

    PTB would build an :class:`InlineKeyboardButton` per button and turn each back into a dict
    on every call (~50 µs a button; the pistol aim keyboard has 42). ``inline_keyboard`` stays
    empty: nothing reads a keyboard we send, incoming messages carry PTB's parsed one.
    """

    __slots__ = ("_rows",)

    def __init__(self, rows: list[list[dict[str, str]]]) -> None:
        super().__init__(())
        self._rows = rows

    def to_dict(self, recursive: bool = True) -> dict[str, Any]:
        return {"inline_keyboard": self._rows}


def markup(svc: Services, rows: Sequence[Sequence[Button]]) -> InlineKeyboardMarkup | None:
    if not rows:
        return None
    return _Keyboard(
        [
            [
                {"text": label(b.label), "url": b.url}
                if b.url
                else {"text": label(b.label), "callback_data": svc.cb(b.cb or Callback("x"))}
                for b in row
            ]
            for row in rows
        ]
    )


async def _api(svc: Services, call: Callable[[], Awaitable[Any]], retries: int = 0) -> Any:
    """Run one Bot API call, honouring a short ``RetryAfter`` once (a long one re-raises, so a
    webhook answers 500 and Telegram retries later). ``retries``: how many times a network
    error or a Telegram 5xx is tried again after a short pause. Inside an outbox delivery the
    call goes through its journal (:mod:`handlers.telegram.outbox`): a message sent by an
    earlier attempt is not sent again."""
    journal = outbox.current()
    if journal is None:
        return await _api_call(svc, call, retries)
    return await journal.run(lambda: _api_call(svc, call, retries))


async def _api_call(svc: Services, call: Callable[[], Awaitable[Any]], retries: int = 0) -> Any:
    for attempt in range(retries):
        try:
            return await _api_call(svc, call)
        except NetworkError as exc:
            if isinstance(exc, BadRequest | Forbidden | RetryAfter):
                raise  # permanent, or already waited for
            log.warning("Bot API call failed (%s), trying again", exc.message)
            await svc.sleep(0.5 * (attempt + 1))
    try:
        return await call()
    except RetryAfter as exc:
        with warnings.catch_warnings():  # PTB 22.2+: int now, timedelta later; both handled
            warnings.simplefilter("ignore")
            delay = exc.retry_after
        seconds = delay.total_seconds() if isinstance(delay, timedelta) else float(delay)
        if seconds > svc.retry_after_max:
            raise
        await svc.sleep(seconds)
        return await call()


async def send(context: Ctx, chat_id: int, screen: Screen, retries: int = 0) -> Message:
    """Send a screen (split under 4096 characters; the keyboard goes on the last part);
    ``retries`` as in :func:`_api`."""
    svc = services(context)
    parts = render.split_text(screen.text)
    msg: Message | None = None
    for i, part in enumerate(parts):
        kb = markup(svc, screen.rows) if i == len(parts) - 1 else None

        async def call(part: str = part, kb: InlineKeyboardMarkup | None = kb) -> Message:
            return await context.bot.send_message(
                chat_id,
                part,
                parse_mode=ParseMode.HTML,
                reply_markup=kb,
                api_kwargs=_RAW_NO_PREVIEW,  # as JSON: no LinkPreviewOptions object per send
            )

        msg = await _api(svc, call, retries)
    assert msg is not None
    return msg


async def post_commitment(context: Ctx, match: Match, *, strict: bool = False) -> Match:
    """The open turn's commitment as its own message, if the group does not have it yet.
    ``strict``: a failure raises (an owed delivery is then tried again by the outbox); else
    it is logged and the next seal tries again."""

    async def to_chat(chat_id: int, screen: Screen) -> Message:
        return await send(context, chat_id, screen)

    deps = services(context).deps
    if strict:
        return await commitments.post(to_chat, deps, match)
    return await commitments.try_post(to_chat, deps, match)


async def edit(context: Ctx, chat_id: int, message_id: int, screen: Screen) -> None:
    """Edit a message in place; "not modified" is fine, a vanished message is logged."""
    svc = services(context)
    params = {
        "chat_id": chat_id,
        "message_id": message_id,
        "text": render.split_text(screen.text)[0],
        "parse_mode": ParseMode.HTML,
        "reply_markup": markup(svc, screen.rows),
        "link_preview_options": _NO_PREVIEW,
    }
    try:
        # Raw: Telegram answers with the whole edited message, keyboard included, and PTB
        # would parse it into objects nobody reads (~2 ms for the 42-button aim keyboard).
        await _api(svc, lambda: context.bot.do_api_request("editMessageText", params))
    except BadRequest as exc:
        if "not modified" not in exc.message.lower():
            log.warning("edit of %s/%s failed: %s", chat_id, message_id, exc.message)


async def dm(context: Ctx, match: Match, user_id: int, screen: Screen) -> Message | None:
    """A private message to a player. ``Forbidden`` (never started the bot, or blocked it)
    marks them unreachable and tells the group with a deep-link button; the match goes on."""
    try:
        return await send(context, user_id, screen)
    except Forbidden:
        await mark_unreachable(context, match, user_id)
        return None


async def mark_unreachable(context: Ctx, match: Match, user_id: int) -> None:
    svc = services(context)
    seat = match.seat_of_user(user_id)
    if seat is None:
        if user_id == match.gm_user_id:  # e.g. the NPCs' order screens: the turn waits on them
            url = deep_link(context, f"play_{match.id}")
            tr = Tr(match.lang)
            button = [[Button(tr("btn.open_private"), url=url)]]
            await send(context, match.chat_id, Screen(tr("group.gm_unreachable"), button))
        return
    if seat.reachable:
        with contextlib.suppress(Rejection, NotFoundError, TryAgainError):
            usecases.set_reachable(svc.deps, match.id, user_id, False)
    tr = Tr(match.lang)
    url = deep_link(context, f"play_{match.id}")
    await send(
        context,
        match.chat_id,
        Screen(
            tr("group.unreachable", name=seat.name), [[Button(tr("btn.open_private"), url=url)]]
        ),
    )


def deep_link(context: Ctx, payload: str) -> str:
    return create_deep_linked_url(context.bot.username, payload)


# --------------------------------------------------------------------------- guard


def _rejection_text(tr: Tr, exc: Exception) -> str:
    if isinstance(exc, Rejection):  # in plain words, with the example a handler attached
        return plain.rejection_text(tr, exc)
    if isinstance(exc, TryAgainError | ConflictError):
        return tr("err.try_again")
    return tr("err.no_match")


Handler = Callable[[Update, Ctx], Coroutine[Any, Any, None]]
EXPECTED = (Rejection, TryAgainError, ConflictError, NotFoundError)


def command(fn: Handler) -> Handler:
    """A command handler: expected failures become a translated reply, nothing changed."""

    async def wrapper(update: Update, context: Ctx) -> None:
        try:
            await fn(update, context)
        except EXPECTED as exc:
            svc = services(context)
            tr = Tr(svc.user_lang(update.effective_user))
            if update.effective_chat is not None:
                await send(context, update.effective_chat.id, Screen(_rejection_text(tr, exc)))

    return wrapper


# --------------------------------------------------------------------------- lookups


def _lobby_url(context: Ctx, match: Match) -> str:
    return deep_link(context, f"join_{match.id}")


async def refresh_lobby(context: Ctx, match: Match) -> None:
    mid = match.ui.get("lobby")
    if mid is None:
        return
    screen = render.lobby_screen(Tr(match.lang), match, _lobby_url(context, match))
    await edit(context, match.chat_id, int(mid), screen)


async def refresh_status(context: Ctx, match: Match, fps: Mapping[str, str] | None = None) -> None:
    svc = services(context)
    mid = match.ui.get("status")
    if mid is None or match.phase is not Phase.RUNNING:
        return
    if fps is None:
        fps = usecases.sealed_fingerprints(svc.deps, match.id)
    screen = render.status_screen(Tr(match.lang), match, fps, svc.deps.clock())
    await edit(context, match.chat_id, int(mid), screen)
    # Never back in time: if the turn resolved while this edit travelled, the resolution's
    # closing edit may have landed first and been overwritten; close it again (the same
    # edit twice changes nothing, so whichever lands last shows the newer state).
    latest = svc.deps.repo.load(match.id).match
    if latest.turn != match.turn or latest.phase is not Phase.RUNNING:
        record = next((r for r in svc.deps.repo.history(match.id) if r.turn == match.turn), None)
        if record is not None:
            await close_status(context, int(mid), latest, record)


def group_match(svc: Services, chat_id: int) -> Match:
    """The group's match (a group plays one match at a time); NotFoundError when none."""
    matches = svc.deps.repo.active_in_chat(chat_id)
    if not matches:
        raise NotFoundError(chat_id)
    return matches[0]


def _user_matches(svc: Services, user_id: int) -> list[Match]:
    return svc.deps.repo.active_for_user(user_id)


def _own_seat(match: Match, user_id: int) -> str | None:
    seat = match.seat_of_user(user_id)
    return seat.pid if seat else None


# --------------------------------------------------------------------------- commands


@command
async def cmd_start(update: Update, context: Ctx) -> None:
    """``/start`` in private: a deep link (``join_<id>``, ``play_<id>``) or the welcome."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    tr = Tr(svc.user_lang(user))
    payload = context.args[0] if context.args else ""
    # The user can be messaged now: clear any "unreachable" mark.
    for m in _user_matches(svc, user.id):
        seat = m.seat_of_user(user.id)
        if seat is not None and not seat.reachable:
            changed = usecases.set_reachable(svc.deps, m.id, user.id, True)
            if changed.phase is Phase.RUNNING:
                await refresh_status(context, changed)
    if payload.startswith("join_"):
        await _join(update, context, payload.removeprefix("join_"))
        return
    if payload.startswith("play_"):
        match = svc.deps.repo.load(payload.removeprefix("play_")).match
        await _open_match(context, tr, match, user.id)
        return
    await send(context, chat.id, Screen(tr("start.welcome")))


async def _join(update: Update, context: Ctx, match_id: str) -> None:
    svc = services(context)
    user = update.effective_user
    assert user is not None
    tr = Tr(svc.user_lang(user))
    try:
        match = usecases.join(svc.deps, match_id, user.id, user.full_name)
        await refresh_lobby(context, match)
    except Rejection as exc:
        match = svc.deps.repo.load(match_id).match
        if exc.code != "already_joined" and match.seat_of_user(user.id) is None:
            raise  # (a seat holder's old Join link of a started match: "already in", too)
        await send(context, user.id, Screen(tr("input.join.already")))
        seat = match.seat_of_user(user.id)
        if match.phase is not Phase.LOBBY or seat is None or seat.character is None:
            await _open_match(context, tr, match, user.id)  # what is still to do, if anything
        return
    await send(context, user.id, Screen(tr("join.done", title=Raw(render.match_title(tr, match)))))
    await _open_match(context, tr, match, user.id)


async def _open_match(context: Ctx, tr: Tr, match: Match, user_id: int) -> None:
    """Show a player what to do now in ``match``: pick a character, or build an order."""
    pid = _own_seat(match, user_id)
    if pid is None and user_id == match.gm_user_id:  # the GM's deep link: the NPCs' screens
        if match.phase is Phase.RUNNING and npc.gm_run(match):
            await stale.remember(context, match, await npc.open_turn_gm(context, match))
        else:
            await send(context, user_id, Screen(render.match_list(tr, [match])))
        return
    if pid is None:
        raise Rejection("not_a_participant")
    if match.phase is Phase.LOBBY:
        await send(context, user_id, character_screen(tr, match, pid))
    elif match.phase is Phase.RUNNING and pid in lifecycle.acting(match):
        msg = await send(context, user_id, render.builder_screen(tr, match, pid, ()))
        await stale.remember(context, match, [msg])
    else:
        await send(context, user_id, Screen(render.match_list(tr, [match])))


def character_screen(tr: Tr, match: Match, pid: str) -> Screen:
    ui = get_ui(match.ruleset)
    rules = match.rules
    presets = rules.presets(rules.config(match.config))
    rows = [
        [Button(ui.preset_label(tr, pid_, ch), Callback("chr", match.id, 0, (pid, pid_)))]
        for pid_, ch in presets.items()
    ]
    text = tr(
        "character.pick",
        title=Raw(render.match_title(tr, match)),
        example=Raw(esc(hints.character_example(match))),
    )
    return Screen(text, rows)


@command
async def cmd_duel(update: Update, context: Ctx) -> None:
    """``/duel`` or ``/newmatch`` in a group: pick the ruleset with buttons."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    tr = Tr(svc.user_lang(user))
    if chat.type == "private":
        await send(context, chat.id, Screen(tr("duel.group_only")))
        return
    active = svc.deps.repo.active_in_chat(chat.id)
    if active:
        await send(context, chat.id, Screen(tr("duel.exists", id=active[0].id)))
        return
    ids = [r for r in registry.available() if has_ui(r)] or registry.available()
    # The picker carries the id of the match it creates: a double tap (two presses a webhook
    # handles at once, both before the chat's match is visible) creates it once (btn_new).
    mid = svc.deps.entropy.new_id()
    rows = [
        [Button(tr(f"ruleset.{rid}"), Callback("new", "", 0, (rid, str(user.id), mid)))]
        for rid in ids
    ]
    await send(context, chat.id, Screen(tr("duel.pick"), rows))


@command
async def cmd_help(update: Update, context: Ctx) -> None:
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if chat.type == "private":
        tr = Tr(svc.user_lang(user))
        matches = _user_matches(svc, user.id)
    else:
        matches = svc.deps.repo.active_in_chat(chat.id)
        tr = Tr(matches[0].lang if matches else svc.user_lang(user))
    parts = [tr("help.private" if chat.type == "private" else "help.group")]
    for rid in dict.fromkeys(m.ruleset for m in matches):
        parts.append(tr(get_ui(rid).help_key))
    parts.append(tr("help.rulesets"))  # all of them, and /rules
    await send(context, chat.id, Screen("\n\n".join(parts)))


@command
async def cmd_lang(update: Update, context: Ctx) -> None:
    """``/lang [ru|en]``: the user's language in private; the match's language in a group (GM)."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    choice = (context.args[0].lower() if context.args else "")[:2]
    if chat.type == "private":
        if choice not in LANGS:
            tr = Tr(svc.user_lang(user))
            rows = [[Button(tr(f"lang.{lg}"), Callback("ul", "", 0, (lg,))) for lg in LANGS]]
            await send(context, chat.id, Screen(tr("lang.pick"), rows))
            return
        svc.set_user_lang(user.id, choice)
        await send(context, chat.id, Screen(Tr(choice)("lang.set")))
        return
    current = group_match(svc, chat.id)
    if choice not in LANGS:
        example = "/lang en" if current.lang == "ru" else "/lang ru"
        raise Rejection(
            "invalid_field", what="lang", field="lang", expected="ru, en", example=example
        )
    match = usecases.set_language(svc.deps, current.id, user.id, choice)
    await send(context, chat.id, Screen(Tr(choice)("lang.match_set")))
    await refresh_lobby(context, match)
    await refresh_status(context, match)


@command
async def cmd_status(update: Update, context: Ctx) -> None:
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    if chat.type != "private":
        matches = svc.deps.repo.active_in_chat(chat.id)
        if not matches:
            await send(context, chat.id, Screen(Tr(svc.user_lang(user))("matches.none")))
            return
        m = matches[0]
        tr = Tr(m.lang)
        if m.phase is Phase.LOBBY:
            await send(context, chat.id, Screen(render.lobby_screen(tr, m, "").text))
        else:
            fps = usecases.sealed_fingerprints(svc.deps, m.id)
            await send(context, chat.id, Screen(render.status_text(tr, m, fps, svc.deps.clock())))
        return
    tr = Tr(svc.user_lang(user))
    matches = _user_matches(svc, user.id)
    lines = [render.match_list(tr, matches)]
    ui_rows: list[list[Button]] = []
    for m in matches:
        if m.phase is not Phase.RUNNING:
            continue
        for o in usecases.my_orders(svc.deps, m.id, user.id):
            lines.append(
                tr(
                    "status.mine",
                    id=m.id,
                    order=Raw(get_ui(m.ruleset).order_text(tr, o.order)),
                    fp=render.short_fp(o.fingerprint),
                )
            )
        if deadline := deadline_line(tr, m, svc.deps.clock()):
            lines.append(f"<code>{m.id}</code>: {deadline}")
        pid = _own_seat(m, user.id)
        if pid and pid in lifecycle.acting(m):
            ui_rows.append(
                [Button(tr("btn.order_for", id=m.id), Callback("b", m.id, m.turn, (pid,)))]
            )
    await send(context, chat.id, Screen("\n".join(lines), ui_rows))


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
            return named[0], candidates, words[1:]
    if len(candidates) == 1:
        return candidates[0], candidates, words
    return None, candidates, words


async def _choose(
    context: Ctx, tr: Tr, chat_id: int, candidates: list[Match], user_id: int, example: str
) -> None:
    if not candidates:
        # Say why when the user does play a match, only not in the phase the command is for
        # (/character once it started, /order before it starts).
        for m in _user_matches(services(context), user_id):
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


@command
async def cmd_order(update: Update, context: Ctx) -> None:
    """``/order [match] <typed order>`` in private; with no order, the builder."""
    svc = services(context)
    user = update.effective_user
    assert user is not None
    tr = Tr(svc.user_lang(user))
    words = list(context.args or [])
    match, candidates, words = _pick_match(svc, user.id, words, Phase.RUNNING)
    if match is None:
        example = _order_example(tr, candidates, user.id)
        await _choose(context, tr, user.id, candidates, user.id, example)
        return
    pid = _own_seat(match, user.id)
    assert pid is not None
    if not words:
        msg = await send(context, user.id, render.builder_screen(tr, match, pid, ()))
        await stale.remember(context, match, [msg])
        return
    refuse_if_before_turn(update, match)
    with plain.with_example(lambda: hints.order_example(tr, match, pid)):
        order = get_ui(match.ruleset).parse_typed(words)
        await _seal(context, tr, match, pid, user.id, order, message=None)


@command
async def cmd_character(update: Update, context: Ctx) -> None:
    """``/character [match] <sheet>`` in private: a typed character for the lobby."""
    svc = services(context)
    user = update.effective_user
    assert user is not None
    tr = Tr(svc.user_lang(user))
    match, candidates, words = _pick_match(svc, user.id, list(context.args or []), Phase.LOBBY)
    if match is None:
        example = hints.character_example(candidates[0], with_id=True) if candidates else ""
        await _choose(context, tr, user.id, candidates, user.id, example)
        return
    pid = _own_seat(match, user.id)
    assert pid is not None
    if not words:
        await send(context, user.id, character_screen(tr, match, pid))
        return
    lobby = match
    with plain.with_example(lambda: hints.character_example(lobby)):
        sheet = get_ui(match.ruleset).parse_character(words)
        match = usecases.set_character(svc.deps, match.id, user.id, pid, sheet)
    label = get_ui(match.ruleset).character_label(tr, sheet)
    await send(context, user.id, Screen(tr("character.set", character=Raw(label))))
    await refresh_lobby(context, match)


@command
async def cmd_takegm(update: Update, context: Ctx) -> None:
    """``/takegm`` in a group: a chat administrator takes the GM role of the active match."""
    svc = services(context)
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    match = group_match(svc, chat.id)
    tr = Tr(match.lang)
    member = await _api(svc, lambda: context.bot.get_chat_member(chat.id, user.id))
    if member.status not in ("administrator", "creator"):
        raise Rejection("admins_only")
    match = usecases.hand_gm(svc.deps, match.id, user.id, user.id, as_admin=True)
    await send(context, chat.id, Screen(tr("gm.taken", name=user.full_name)))
    await gm_changed(context, match)


# --------------------------------------------------------------------------- buttons


class Alert(Exception):  # noqa: N818 - control flow: answer the press with this alert
    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


async def on_button(update: Update, context: Ctx) -> None:
    """Every inline button. Unknown, forged or stale presses get a private alert and change
    nothing; expected failures too."""
    svc = services(context)
    query = update.callback_query
    assert query is not None
    user = query.from_user
    tr = Tr(svc.user_lang(user))
    cb = cbcodec.decode(query.data, svc.secret)
    toast: str | None = None
    alert = False
    try:
        if cb is None:
            raise Alert(tr("err.forged"))
        handler = BUTTONS.get(cb.kind)
        if handler is None:
            raise Alert(tr("err.forged"))
        toast = await handler(context, query.message, user, tr, cb)  # type: ignore[arg-type]
    except Alert as exc:
        toast, alert = exc.text, True
    except EXPECTED as exc:
        toast, alert = _rejection_text(tr, exc), True
    except (ValueError, IndexError):
        toast, alert = tr("err.forged"), True
    with contextlib.suppress(BadRequest):
        await _api(svc, lambda: query.answer(toast[:200] if toast else None, show_alert=alert))


Button_ = Callable[[Ctx, Message, User, Tr, Callback], Awaitable[str | None]]
# Run after every seal with (context, match before, result): plans' GM review (plan_flow).
SEAL_HOOKS: list[Callable[[Ctx, Match, usecases.SealResult], Awaitable[None]]] = []
# Run when the GM role changed hands mid-turn, with the match after: plans' review (plan_flow).
GM_HOOKS: list[Callable[[Ctx, Match], Awaitable[None]]] = []


async def gm_changed(context: Ctx, match: Match) -> None:
    """The GM role changed hands (``/gm``, ``/takegm``): during a turn, the new GM gets what
    the previous one was sent for it - the order builders of the GM-run participants not
    sealed yet, and whatever the :data:`GM_HOOKS` add (the plans to review)."""
    if match.phase is not Phase.RUNNING:
        return
    sent = await npc.open_turn_gm(context, match, unsealed_only=True)
    await stale.remember(context, match, sent)
    for hook in GM_HOOKS:
        await hook(context, match)


def _load(svc: Services, cb: Callback) -> Match:
    return svc.deps.repo.load(cb.match).match


def _require_turn(tr: Tr, match: Match, cb: Callback) -> None:
    """Bind a press to the turn it was drawn for: an older button is stale."""
    if match.phase is not Phase.RUNNING or match.turn != cb.turn:
        raise Alert(tr("err.stale"))


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


async def btn_new(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    rid, owner = cb.arg(0), int(cb.arg(1))
    if owner != user.id:
        raise Alert(tr("err.not_yours"))
    if svc.deps.repo.active_in_chat(msg.chat.id):
        raise Alert(tr("duel.exists", id=svc.deps.repo.active_in_chat(msg.chat.id)[0].id))
    lang = svc.user_lang(user)
    mid = cb.arg(2) or None  # pickers drawn before ids were carried: a new id
    try:
        match = usecases.create_match(
            svc.deps, msg.chat.id, user.id, rid, lang=lang, match_id=mid, lock_chat=True
        )
    except ChatBusyError as busy:
        # Another picker of this chat was pressed at the same instant (both passed the check
        # above) and made the chat's match: this press shows that lobby too.
        match = svc.deps.repo.load(busy.match_id).match
        if match.phase is not Phase.LOBBY:
            raise Alert(tr("duel.exists", id=match.id)) from None
        gtr = Tr(match.lang)
        screen = render.lobby_screen(gtr, match, _lobby_url(context, match))
        await edit(context, msg.chat.id, msg.message_id, screen)
        return None
    except ConflictError:
        # This picker's match exists: the other tap of a double tap, or this press before a
        # failed edit (Telegram re-sent it). Show its lobby again, as the first press would.
        match = svc.deps.repo.load(str(mid)).match
        if match.chat_id != msg.chat.id or match.phase is not Phase.LOBBY:
            raise Alert(tr("duel.exists", id=mid)) from None
    gtr = Tr(match.lang)
    await edit(
        context,
        msg.chat.id,
        msg.message_id,
        render.lobby_screen(gtr, match, _lobby_url(context, match)),
    )
    usecases.update_ui(svc.deps, match.id, lobby=msg.message_id)
    await post_commitment(context, match)  # turn 0's, as its own message
    return None


async def btn_option(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = gm_lobby(svc, tr, cb, user)
    name = cb.arg(0)
    if name == "lang":
        lang = cb.arg(1)
        if lang not in LANGS:
            raise ValueError(lang)
        match = usecases.set_language(svc.deps, match.id, user.id, lang)
    else:
        opts = {o.name: o for o in get_ui(match.ruleset).options(tr, match)}
        if name not in opts:
            raise Alert(tr("err.stale"))
        match = usecases.configure(svc.deps, match.id, user.id, opts[name].patch)
    await refresh_lobby(context, match)
    return None


async def btn_start(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = gm_lobby(svc, tr, cb, user)
    if match.ui.get("lobby") != msg.message_id:  # the start goes where this press was
        match = usecases.update_ui(svc.deps, match.id, lobby=msg.message_id)
    match, _events = usecases.start(svc.deps, match.id, user.id)
    await outbox.deliver(context, match.id)  # announce_started, owed with the start
    return None


async def announce_started(
    context: Ctx, lobby_id: int | None, match: Match, events: Sequence[Any], *, opened: bool
) -> None:
    """The owed announcement of a start (``handlers.telegram.owed``): the lobby message
    becomes the start (seats, setup events such as initiative), then (``opened``: the first
    turn is still the match's turn) the turn opens."""
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
    history = usecases.history(services(context).deps, match.id)
    if history:  # turn 0: its seed is revealed now
        lines.append(reveal_proof(gtr, match, history[0]))
    if lobby_id is not None:
        await edit(context, match.chat_id, lobby_id, Screen("\n".join(lines)))
    else:
        await send(context, match.chat_id, Screen("\n".join(lines)))
    if opened:
        await open_turn(context, match)


async def open_turn(context: Ctx, match: Match) -> None:
    """A turn opened: one status message in the group (edited in place from now on), and
    each acting player's order builder in private."""
    svc = services(context)
    gtr = Tr(match.lang)
    # The status message carries the turn's seed commitment: it is posted before any player
    # gets a builder, so the commitment always precedes the turn's first seal.
    match = await post_commitment(context, match, strict=True)  # its own message, never edited
    now = svc.deps.clock()
    status = await send(context, match.chat_id, render.status_screen(gtr, match, {}, now))
    match = usecases.update_ui(svc.deps, match.id, status=status.message_id)
    need = lifecycle.acting(match)
    gm_run = lifecycle.gm_controlled(match)
    builders: list[Message | None] = []
    for seat in match.seats:
        if seat.user_id is None or seat.pid not in need or seat.pid in gm_run:
            continue
        ptr = Tr(svc.lang_for(seat.user_id, match.lang))
        screen = render.builder_screen(ptr, match, seat.pid, ())
        screen = with_deadline(ptr, match, screen, now)
        builders.append(await dm(context, match, seat.user_id, screen))
    builders += await npc.open_turn_gm(context, match)  # NPC builders in the GM's chat
    # One write remembers them: their keyboards go when the turn resolves, and the first one
    # in each chat orders typed orders after the turn opened (refuse_if_before_turn).
    await stale.remember(context, match, builders)


async def btn_character(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    if match.phase is not Phase.LOBBY:
        raise Alert(tr("err.stale"))
    pid, preset = cb.arg(0), cb.arg(1)
    rules = match.rules
    presets = rules.presets(rules.config(match.config))
    if preset not in presets:
        raise Alert(tr("err.stale"))
    match = usecases.set_character(svc.deps, match.id, user.id, pid, presets[preset])
    label = get_ui(match.ruleset).character_label(tr, presets[preset])
    await edit(
        context, msg.chat.id, msg.message_id, Screen(tr("character.set", character=Raw(label)))
    )
    await refresh_lobby(context, match)
    return None


async def btn_pick(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    await _open_match(context, tr, match, user.id)
    return None


async def btn_builder(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    if match.seat(pid) not in match.controlled_by(user.id):
        raise Alert(tr("err.not_yours"))
    screen = render.builder_screen(tr, match, pid, cb.args[1:])
    if msg.chat.type == "private":
        await edit(context, msg.chat.id, msg.message_id, screen)
    else:
        await stale.remember(context, match, [await dm(context, match, user.id, screen)])
    from handlers.telegram import text_reply

    if text_reply.has_text_orders(match.ruleset):  # a text step: the next message is its text
        text_reply.remember(context, user.id, screen)
    return None


async def btn_seal(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    _require_turn(tr, match, cb)
    pid = cb.arg(0)
    order = get_ui(match.ruleset).order_for(match, pid, cb.args[1:])
    await _seal(context, tr, match, pid, user.id, order, message=msg)
    return tr("receipt.toast")


def refuse_if_before_turn(update: Update, match: Match) -> None:
    """Refuse a typed command for the current turn written before that turn opened: it was
    meant for an earlier one. A redelivered update does this when its first attempt resolved
    the turn and then died (``handlers.lambda_webhook``: the lease); so does an order typed
    while another player's resolved the turn. Buttons need no such check: they carry their
    turn.

    Telegram orders the messages of a chat: a message id below the id of the turn's first
    message in that chat (its builder, remembered by :func:`open_turn` with the turn's live
    messages, ``stale.live``) was written before the turn opened there; one above it after,
    whatever the clocks say, even in the same second.
    Without a recorded message (e.g. a player the builder did not reach) the dates decide, to
    the second: only a message dated a whole second before the turn opened is refused; date
    0 (the in-process fake API) is unknown and never refused."""
    msg = update.effective_message
    if msg is None or match.turn_opened_at is None:
        return
    first = min((m for c, m in stale.live(match, match.turn) if c == msg.chat_id), default=None)
    if first is not None:
        if msg.message_id < first:
            raise Rejection("typed_before_turn", turn=match.turn)
        return
    written = int((msg.edit_date or msg.date).timestamp())
    if 0 < written < int(match.turn_opened_at):
        raise Rejection("typed_before_turn", turn=match.turn)


async def _seal(
    context: Ctx,
    tr: Tr,
    match: Match,
    pid: str,
    user_id: int,
    order: Mapping[str, Any],
    message: Message | None,
) -> None:
    """Seal, give the player a receipt (the builder message becomes it), update the group's
    status message; when this order completed the turn, reveal."""
    svc = services(context)
    match = await post_commitment(context, match)  # a failed posting is retried first
    # Bound to the turn the caller checked (and built the order for): if that turn resolves
    # meanwhile, the order is refused as stale, never sealed into the next turn.
    # When this order resolves the turn, its receipt is owed in the outbox (send_receipt):
    # a failed receipt could not be had again by re-sending the order past the turn.
    where = {"message": message.message_id if message is not None else None, "lang": tr.lang}
    res = usecases.seal_order(
        svc.deps, match.id, user_id, pid, order, turn=match.turn, receipt=where
    )
    sent: Message | None = None
    try:
        if res.record is None:
            sent = await send_receipt(context, tr, res.match, res.order, res.replaced, where)
    finally:  # a lost receipt must not cost the group its status (nor Services.resolved)
        if res.record is None:
            fps = {pid: res.order.fingerprint}
            if any(p != pid for p in res.match.sealed):  # others' fingerprints: from the store
                fps = {**usecases.sealed_fingerprints(svc.deps, match.id), **fps}
            await refresh_status(context, res.match, fps)
            await stale.remember(context, res.match, [sent])  # a typed order's receipt
        else:
            await on_resolved(context, match, res.match, res.record)
    for hook in SEAL_HOOKS:
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
    svc = services(context)
    final = match.turn != order.turn or match.phase is not Phase.RUNNING
    receipt = receipt_screen(tr, match, order, replaced, svc.deps.clock(), final=final)
    user_id = order.by_user if order.by_user is not None else match.gm_user_id
    if where.get("message") is not None:
        await edit(context, user_id, int(where["message"]), receipt)
        return None
    return await send(context, user_id, receipt)


async def on_resolved(context: Ctx, before: Match, after: Match, record: TurnRecord) -> None:
    """A turn resolved, and its announcement was saved with it in the outbox: deliver it now
    (:func:`announce_resolved`); what fails is delivered by the sweeper."""
    services(context).resolved += 1  # see Services.resolved
    await outbox.deliver(context, after.id)


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
) -> None:
    """The owed announcement of a resolved turn (``handlers.telegram.owed``): close its
    status message, remove the keyboards of its builders and receipts (``edited``: the
    receipt the resolving seal drew without one), post the reveal (picture and text), then
    (``last``: no later turn resolved meanwhile) the next turn or the final summary."""
    gtr = Tr(after.lang)
    if status_id is not None:
        await close_status(context, status_id, after, record)
    await stale.clear(context, after, record.turn, skip=edited)
    await send_reveal(context, after, record)
    if not last:
        return
    if after.phase is Phase.FINISHED:
        await send(context, after.chat_id, summary_screen(gtr, after))
        return
    await open_turn(context, after)
    from handlers.telegram import gm_panel

    await gm_panel.absentee_alert(context, after)  # K missed turns in a row: tell the GM


async def send_reveal(context: Ctx, match: Match, record: TurnRecord) -> None:
    """Post a turn's reveal in the group: its picture (:func:`send_reveal_picture`), then the
    story with every die collapsed and the proof (``handlers.telegram.reveal``), tried again
    on a network hiccup (nothing else sends it)."""
    await send_reveal_picture(context, match, record)
    text = reveal.reveal_text(Tr(match.lang), match, record)
    await send(context, match.chat_id, Screen(text), retries=REVEAL_RETRIES)


async def send_reveal_picture(context: Ctx, match: Match, record: TurnRecord) -> bool:
    """The reveal's picture with a short caption (``handlers.telegram.pictures``, which
    imports Pillow only now). Whatever fails here - drawing or sending - is logged and the
    text reveal still goes out: the picture is a convenience, the text is the record."""
    tr = Tr(match.lang)
    try:
        from handlers.telegram import pictures

        png = pictures.reveal_picture(tr, match, record)
        if png is None:
            return False
        caption = tr("reveal.caption", turn=record.turn)
        photo = InputFile(png, filename=f"{match.id}-turn{record.turn}.png")
        await _api(services(context), lambda: context.bot.send_photo(match.chat_id, photo, caption))
    except Exception:
        log.warning("reveal picture of %s turn %s not sent", match.id, record.turn, exc_info=True)
        return False
    return True


def summary_screen(tr: Tr, match: Match) -> Screen:
    ui = get_ui(match.ruleset)
    lines = [
        tr("summary.title", title=Raw(render.match_title(tr, match))),
        ui.outcome_text(tr, match),
    ]
    rows = [[Button(tr("fair.btn_dossier"), Callback("dos", match.id))]]
    forfeit = (match.outcome or {}).get("reason") == "forfeit"
    if match.turn > 1 and not forfeit:  # the GM may still undo the last resolved turn
        rows.append([Button(tr("gm.btn_undo"), Callback("gsu", match.id, match.turn))])
    return Screen("\n".join(lines), rows)


async def btn_gm_status(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str:
    svc = services(context)
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    _require_turn(tr, match, cb)
    names = {s.pid: s.name for s in match.seats}
    missing = [names[p] for p in lifecycle.missing(match)]
    sealed = [names[p] for p in match.sealed]
    raise Alert(
        tr(
            "gm.status",
            turn=match.turn,
            sealed=", ".join(sealed) or "—",
            missing=", ".join(missing) or "—",
        )
        .replace("<b>", "")
        .replace("</b>", "")
    )


async def btn_force(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    _require_turn(tr, match, cb)
    missing = lifecycle.missing(match)
    if missing and cb.kind == "gfr":
        names = names_of(match)
        gtr = Tr(match.lang)
        fps = usecases.sealed_fingerprints(svc.deps, match.id)
        text = (
            render.status_text(gtr, match, fps, svc.deps.clock())
            + "\n\n"
            + gtr("gm.force_confirm", names=Raw(", ".join(names[p] for p in missing)))
        )
        await edit(
            context,
            msg.chat.id,
            msg.message_id,
            Screen(text, render.confirm_rows(gtr, match, "gfc")),
        )
        return None
    res = usecases.force_resolve(svc.deps, match.id, user.id, match.turn)
    from handlers.telegram import input_flow

    await input_flow.tell_defaulted(context, res.match, res.record)  # as the deadline does
    await on_resolved(context, match, res.match, res.record)
    return None


async def btn_end(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is Phase.FINISHED or match.turn != cb.turn:
        raise Alert(tr("err.stale"))
    gtr = Tr(match.lang)
    if cb.kind == "gend":
        await edit(
            context,
            msg.chat.id,
            msg.message_id,
            Screen(
                msg.text_html + "\n\n" + gtr("gm.end_confirm"),
                render.confirm_rows(gtr, match, "gec"),
            ),
        )
        return None
    ended = usecases.end_match(svc.deps, match.id, user.id, Outcome("draw", reason="gm"))
    await edit(context, msg.chat.id, msg.message_id, Screen(gtr("gm.ended")))
    if match.phase is Phase.RUNNING:
        await send(context, ended.chat_id, summary_screen(gtr, ended))
    return None


async def btn_back(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    """Cancel a GM confirmation: the panel (or lobby) comes back as it was."""
    svc = services(context)
    match = _load(svc, cb)
    _require_gm(tr, match, user)
    if match.phase is Phase.LOBBY:
        await refresh_lobby(context, match)
    else:
        _require_turn(tr, match, cb)
        await refresh_status(context, match)
    return None


async def btn_user_lang(context: Ctx, msg: Message, user: User, tr: Tr, cb: Callback) -> str | None:
    svc = services(context)
    lang = cb.arg(0)
    if lang not in LANGS:
        raise ValueError(lang)
    svc.set_user_lang(user.id, lang)
    await edit(context, msg.chat.id, msg.message_id, Screen(Tr(lang)("lang.set")))
    return None


BUTTONS: dict[str, Button_] = {
    "new": btn_new,
    "opt": btn_option,
    "start": btn_start,
    "chr": btn_character,
    "pick": btn_pick,
    "b": btn_builder,
    "s": btn_seal,
    "gst": btn_gm_status,
    "gfr": btn_force,
    "gfc": btn_force,
    "gend": btn_end,
    "gec": btn_end,
    "gx": btn_back,
    "ul": btn_user_lang,
    stale.KIND: stale.btn_done,
}


# --------------------------------------------------------------------------- chat member


async def on_my_chat_member(update: Update, context: Ctx) -> None:
    """A user blocked (or unblocked) the bot in private: mark them (un)reachable."""
    svc = services(context)
    change = update.my_chat_member
    if change is None or change.chat.type != "private":
        return
    reachable = change.new_chat_member.status not in ("kicked", "left")
    for m in _user_matches(svc, change.from_user.id):
        seat = m.seat_of_user(change.from_user.id)
        if seat is not None and seat.reachable != reachable:
            with contextlib.suppress(*EXPECTED):
                changed = usecases.set_reachable(svc.deps, m.id, change.from_user.id, reachable)
                await refresh_status(context, changed)


async def on_error(update: object, context: Ctx) -> None:
    """Unexpected errors: logged, and kept for a webhook handler deciding its status code."""
    svc = context.application.bot_data.get(SERVICES)
    if isinstance(svc, Services) and context.error is not None:
        svc.errors.append(context.error)
    log.error("update failed", exc_info=context.error)


# --------------------------------------------------------------------------- wiring


def bot_commands(lang: str) -> dict[str, list[BotCommand]]:
    """The command menus for private chats and groups in ``lang`` (used by ``run`` on startup
    and by ``setup-webhook``): ``{"private": [...], "group": [...]}``."""
    tr = Tr(lang)
    private = ["start", "order", "plan", "npcorder", "character", "side", "status", "history"]
    private += ["dossier", "leave", "forfeit", "lang", "help", "rules"]
    group = ["duel", "status", "history", "dossier", "clock", "npc", "side", "replace", "edit"]
    group += ["gm", "lang", "takegm", "help", "rules"]
    return {
        "private": [BotCommand(c, tr(f"cmd.{c}")) for c in private],
        "group": [BotCommand(c, tr(f"cmd.{c}")) for c in group],
    }


async def set_commands(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Register the command menus for both scopes in both languages (default: English)."""
    for lang in (*LANGS, None):
        menus = bot_commands(lang or "en")
        await app.bot.set_my_commands(
            menus["private"], scope=BotCommandScopeAllPrivateChats(), language_code=lang
        )
        await app.bot.set_my_commands(
            menus["group"], scope=BotCommandScopeAllGroupChats(), language_code=lang
        )


async def announce_sweep(app: Any, results: Sequence[Any]) -> None:
    """Announce sweep results (the Lambda sweeper finds this; ``handlers.telegram.clock``)."""
    from handlers.telegram import clock

    await clock.announce(app, results)


def callback_secret(token: str) -> bytes:
    """The key signing callback data: derived from the bot token, so it is stable across
    restarts and Lambda containers without another secret to manage."""
    return hashlib.sha256(b"sekundant-callback|" + token.encode()).digest()


def build_application(
    deps: Deps,
    token: str,
    *,
    request: BaseRequest | None = None,
    get_updates_request: BaseRequest | None = None,
    base_url: str = "https://api.telegram.org",
    default_lang: str = "ru",
    updater: bool = False,
) -> Application[Any, Any, Any, Any, Any, Any]:
    """The one place the bot is wired: handlers, services, request classes.

    ``request`` replaces PTB's HTTP client (the fake Bot API in tests and the sandbox);
    ``base_url`` is the Bot API root (methods go to ``<root>/bot<token>/<method>``). With
    ``updater=False`` (webhook, tests) updates are fed with ``process_update``.
    """
    builder: ApplicationBuilder[Any, Any, Any, Any, Any, Any] = (
        Application.builder()
        .token(token)
        .base_url(f"{base_url}/bot")
        .base_file_url(f"{base_url}/file/bot")
    )
    if request is not None:
        builder = builder.request(request)
        builder = builder.get_updates_request(get_updates_request or request)
    if not updater:
        builder = builder.updater(None)
    app = builder.build()
    # In a chat, an order waits for its turn's commitment message (handlers/telegram/commitments).
    deps.require_commitment_post = True
    app.bot_data[SERVICES] = Services(
        deps=deps, secret=callback_secret(token), default_lang=normalize(default_lang)
    )
    private = filters.ChatType.PRIVATE & filters.UpdateType.MESSAGE
    group = filters.ChatType.GROUPS & filters.UpdateType.MESSAGE
    anywhere = filters.UpdateType.MESSAGE
    app.add_handler(CommandHandler("start", cmd_start, filters=private))
    app.add_handler(CommandHandler(["duel", "newmatch"], cmd_duel, filters=anywhere))
    app.add_handler(CommandHandler("help", cmd_help, filters=anywhere))
    app.add_handler(CommandHandler("lang", cmd_lang, filters=anywhere))
    app.add_handler(CommandHandler("status", cmd_status, filters=anywhere))
    app.add_handler(CommandHandler("order", cmd_order, filters=private))
    app.add_handler(CommandHandler("character", cmd_character, filters=private))
    app.add_handler(CommandHandler("takegm", cmd_takegm, filters=group))
    from handlers.telegram import plan_flow, text_reply

    text_reply.register(app)  # orders with free text, sealed by a reply (plans, powers)
    from handlers.telegram import rules_help

    rules_help.register(app)  # /rules: the ruleset in play, in short
    plan_flow.register(app)  # plans: /plan, the GM's veto
    npc.register(app)  # NPCs and sides: /npc, /side, /npcorder and their buttons
    from handlers.telegram import clock, gm_panel, odds  # they use this module's helpers

    clock.register(app)  # turn clock: /clock, lobby clock buttons
    odds.register(app)  # the lobby's 🎲 Odds: the matchup simulated
    gm_panel.register(app)  # GM powers, player commands, /dossier
    from handlers.telegram import owed

    owed.register()  # the outbox's send functions
    app.add_handler(CallbackQueryHandler(on_button))
    app.add_handler(ChatMemberHandler(on_my_chat_member, ChatMemberHandler.MY_CHAT_MEMBER))
    app.add_error_handler(on_error)
    return app
