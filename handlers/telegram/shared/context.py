"""What every handler reaches through its context: the :class:`Services` kept in
``application.bot_data``, typed: the application is built with :data:`CONTEXT_TYPES`, so every
handler gets a :class:`SekundantContext` and reads ``context.svc`` (PTB's ``ContextTypes``)."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from telegram import Update, User
from telegram.ext import CallbackContext, ContextTypes, ExtBot

from engine.ports import PrefsRepository
from engine.usecases import Deps
from handlers.telegram import callbacks as cbcodec
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import LANGS, Tr, normalize

SERVICES = "sekundant"


RETRY_AFTER_MAX = 5.0  # seconds we are willing to sleep on a 429 inside one update


PREFS_TTL_SECONDS = 60.0  # how long a user's stored /lang (or its absence) is taken as read
PREFS_CACHE_MAX = 4096


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
    # The order page's URL (``handlers.webapp``; ``https://…/app/``): a private turn message
    # gets a button opening it. None: no button (the sandbox sets a localhost one).
    webapp_url: str | None = None
    # Set by the webhook (``handlers.lambda_webhook``): Telegram re-sends an update answered
    # 500, so a lost write race (``TryAgainError``) is left to that redelivery, never answered
    # "please try again" with a 200 that drops the order. Long polling has no redelivery: the
    # user is asked to try again.
    redelivery: bool = False
    # Stored /lang choices (None: none) by user, with when each entry expires: a message to
    # each recipient asks for its language, and a turn's delivery writes to every player and
    # the GM several times (each read was a request and a read unit: docs/deploy.md "Load and
    # cost"). A choice made through another Lambda container shows here within the TTL.
    _prefs: dict[int, tuple[float, str | None]] = field(default_factory=dict)
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
        now = time.monotonic()
        cached = self._prefs.get(user_id)
        if cached is None or cached[0] <= now:
            stored = None
            repo = self.deps.repo
            if isinstance(repo, PrefsRepository):
                lang = repo.load_prefs(user_id).get("lang")
                stored = str(lang) if lang in LANGS else None
            cached = self._cache_lang(user_id, stored, now)
        return cached[1] or self._seen.get(user_id, fallback)

    def _cache_lang(self, user_id: int, lang: str | None, now: float) -> tuple[float, str | None]:
        if len(self._prefs) >= PREFS_CACHE_MAX:
            self._prefs.clear()
        entry = self._prefs[user_id] = (now + PREFS_TTL_SECONDS, lang)
        return entry

    def set_user_lang(self, user_id: int, lang: str) -> None:
        self._cache_lang(user_id, lang, time.monotonic())
        repo = self.deps.repo
        if isinstance(repo, PrefsRepository):
            repo.set_pref(user_id, "lang", lang)  # its field only: see PrefsRepository

    def cb(self, callback: Callback) -> str:
        return cbcodec.encode(callback, self.secret)


class SekundantContext(
    CallbackContext[ExtBot[None], dict[Any, Any], dict[Any, Any], dict[Any, Any]]
):
    """The context of every handler of ours: PTB's, plus the application's services."""

    @property
    def svc(self) -> Services:
        """The :class:`Services` of this application (``bot_data``)."""
        svc: Services = self.application.bot_data[SERVICES]
        return svc

    _group_lang: str | None = None  # set per update by from_update: the group's match's

    @classmethod
    def from_update(cls, update: object, application: Any) -> SekundantContext:
        """PTB's context for ``update``, knowing the language of the group it came from: the
        language of the match running there (docs/glossary.md: a group reads one language,
        whoever caused the message)."""
        context = super().from_update(update, application)
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is not None and chat.type != "private":
            with contextlib.suppress(Exception):  # a language lookup never fails an update
                matches = context.svc.deps.repo.active_in_chat(chat.id)
                if matches:
                    context._group_lang = matches[-1].lang
        return context

    def tr(self, user: User | None) -> Tr:
        """The translator for what this update answers: in a group with a match, the match's
        language (the GM's replies, confirmations, alerts read like the rest of the group);
        elsewhere the user's ``/lang`` choice, else their client's language."""
        return Tr(self._group_lang or self.svc.user_lang(user))

    def own_tr(self, user: User | None) -> Tr:
        """The translator for what only ``user`` reads (a private message, an alert): their
        ``/lang`` choice, else their client's language, wherever the update came from."""
        return Tr(self.svc.user_lang(user))


Ctx = SekundantContext
# Passed to ApplicationBuilder.context_types: every handler and error handler gets a Ctx.
CONTEXT_TYPES = ContextTypes(context=SekundantContext)


def services(context: Ctx) -> Services:
    """``context.svc`` for code handed a context it did not type (kept for callers)."""
    return context.svc


def callback_secret(token: str) -> bytes:
    """The key signing callback data: derived from the bot token, so it is stable across
    restarts and Lambda containers without another secret to manage."""
    return hashlib.sha256(b"sekundant-callback|" + token.encode()).digest()
