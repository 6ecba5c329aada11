"""A seal from the order page, through the same use case as the chat's seal button and typed
orders (``handlers.telegram.shared.turns._seal``): the same validation, fingerprint, receipt in
the private chat (a new message there), status refresh, resolution and outbox.

An idempotency key (the page makes one per order it shows sealed) makes a double tap or a
retried request seal once: the key is claimed in the store's update ledger
(``MatchRepository.claim_update``, the webhook's dedup of Telegram updates) under a negative
id derived from the user and the key, which no Telegram ``update_id`` can be.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from telegram import User
from telegram.ext import Application

from engine import usecases
from engine.errors import Rejection
from engine.match import Match, Phase
from engine.usecases import Deps
from handlers.telegram.i18n import Tr
from handlers.telegram.shared.context import SekundantContext

T = TypeVar("T")
log = logging.getLogger("sekundant.webapp")

IDEMPOTENCY_LEASE_SECONDS = 30.0  # a seal in flight holds its key this long


class Backend(Protocol):
    """What the API needs from the running bot: the use-case deps, the initialised PTB
    Application (the same one the webhook or the poller runs), a way to run a coroutine on
    its loop, and the bot token (``initData``'s key)."""

    @property
    def deps(self) -> Deps: ...

    @property
    def app(self) -> Application[Any, Any, Any, Any, Any, Any]: ...

    @property
    def token(self) -> str: ...

    def run(self, coro: Awaitable[T]) -> T: ...


@dataclass(frozen=True)
class Sealed:
    fingerprint: str
    duplicate: bool = False


def idempotency_id(user_id: int, key: str) -> int:
    """The ledger id of ``key`` for ``user_id``: negative, 63 bits (Telegram's ids are > 0)."""
    digest = hashlib.sha256(f"webapp|{user_id}|{key}".encode()).digest()
    return -(int.from_bytes(digest[:7], "big") + 1)


def _sealed_since(deps: Deps, match: Match, pid: str, user_id: int) -> str | None:
    """The fingerprint of an order ``user_id`` sealed for ``pid`` after ``match`` was loaded
    (in its turn, or in that turn's record if it resolved since), else None."""
    loaded = deps.repo.load(match.id)
    found = loaded.orders.get(pid) if loaded.match.turn == match.turn else None
    if found is None and loaded.match.turn != match.turn:
        since = deps.repo.history(match.id, since=match.turn)
        record = next((r for r in since if r.turn == match.turn), None)
        found = next((o for o in record.orders if o.pid == pid), None) if record else None
    if found is None or found.by_user != user_id or found.seq <= match.seal_seq:
        return None
    return found.fingerprint


def seal(
    backend: Backend,
    user: User,
    match: Match,
    pid: str,
    order: Mapping[str, Any],
    key: str,
) -> Sealed:
    """Seal ``order`` for ``pid`` as ``user`` (who controls the seat: checked by the caller
    and again by the engine), once per ``key``."""
    deps = backend.deps
    ledger = idempotency_id(user.id, key)
    claim = deps.repo.claim_update(ledger, deps.clock(), IDEMPOTENCY_LEASE_SECONDS)
    if claim.status == "done":
        fps = usecases.sealed_fingerprints(deps, match.id)
        return Sealed(fps.get(pid, ""), duplicate=True)
    if claim.status == "processing":
        raise Rejection("webapp_in_flight")
    try:
        backend.run(_seal_now(backend.app, user, match, pid, order))
    except BaseException:
        # Sealed, then a delivery failed (the receipt, the status): the order stands (the
        # outbox or the next change delivers the rest), so the key is spent and the page told.
        done = _sealed_since(deps, match, pid, user.id)
        if done is None:
            deps.repo.release_update(ledger, claim.token, "webapp seal refused or failed")
            raise
        log.warning("webapp seal of %s/%s stored, a delivery failed", match.id, pid, exc_info=True)
        deps.repo.confirm_update(ledger, claim.token, deps.clock())
        return Sealed(done)
    deps.repo.confirm_update(ledger, claim.token, deps.clock())
    fps = usecases.sealed_fingerprints(deps, match.id)
    return Sealed(fps.get(pid, ""))


async def _seal_now(
    app: Application[Any, Any, Any, Any, Any, Any],
    user: User,
    match: Match,
    pid: str,
    order: Mapping[str, Any],
) -> None:
    from handlers.telegram.shared.turns import _seal

    context = SekundantContext(app)
    tr = Tr(context.svc.user_lang(user))
    if match.phase is not Phase.RUNNING:
        raise Rejection("not_running", phase=match.phase.value)
    await _seal(context, tr, match, pid, user.id, order, message=None)
