"""AWS Lambda entry for Telegram's webhook (API Gateway HTTP API / Function URL, payload 2.0).

Status policy (Telegram re-sends an update until it gets a 2xx, and holds back that chat's
later updates meanwhile, so retries must be rare and useful):

- 401: the ``X-Telegram-Bot-Api-Secret-Token`` header is missing or wrong (constant-time
  compare); nothing is stored or sent.
- 200: handled; a duplicate delivery (the ``update_id`` is done); input we cannot use (not
  JSON, no ``update_id``, or an update that cannot be a real one - a message without its
  chat: :func:`junk` - refused once, logged, metric ``UpdateRefused``); Telegram refusing a
  call (``Forbidden``, ``BadRequest`` such as "message is not modified") - logged, because
  retrying would be refused the same way.
- 500: any other failure - transient ones (network, Telegram 5xx/429, DynamoDB throttling,
  ``TryAgainError``: a lost write race is never answered "try again" with a 200, see
  ``Services.redelivery``) and unexpected ones (a bug, a broken build) alike - after releasing
  the claim so Telegram's redelivery is processed again - unless the update had already resolved
  a turn (``Services.resolved``): then 200, since a redelivery would apply it once more past
  the turn boundary (a typed order into the next turn). Also when the claim cannot be made.
  After :data:`MAX_UPDATE_ATTEMPTS` attempts (:data:`MAX_TRANSIENT_ATTEMPTS` while they
  fail only transiently) the update is *parked*: not processed again,
  its last error kept on its record and logged, metric ``UpdateParked`` (an alarm), a short
  apology in its chat, and 200. What a handled update owes the chats after its save (a
  reveal...) is in the outbox (``handlers.telegram.shared.outbox``): a failed send there fails
  nothing here, the sweeper delivers it.
- 503: another attempt at the same update holds its processing lease (it may still be
  running, e.g. Telegram gave up waiting for it): Telegram retries later, and by then that
  attempt has finished (a duplicate: 200) or died (its lease ran out: processed again).

The claim is a lease (``MatchRepository.claim_update``): it lasts the invocation's remaining
time plus :data:`LEASE_MARGIN_SECONDS`, then is confirmed done for 48 h when the update was
handled (every 200 above). An invocation that dies before that (timeout, out of memory, a
crash, or a failed release) leaves a lease that runs out, so Telegram's redelivery is processed
again instead of being dropped as a duplicate. If that dead attempt had already resolved a
turn, the typed commands that act on the current turn refuse a message older than the turn
(``bot.refuse_if_before_turn``); buttons are bound to their turn anyway.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import logging
from typing import Any

from telegram import Update
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter

from handlers import runtime
from handlers.metrics import metric
from handlers.runtime import Runtime

log = logging.getLogger("sekundant.lambda")

SECRET_HEADER = "x-telegram-bot-api-secret-token"

# The processing lease: the invocation's remaining time plus this margin (clock skew between
# containers; the lease starts a moment after the remaining time is read).
LEASE_MARGIN_SECONDS = 5.0
# Without a Lambda context (tests, a local run): the webhook function's ``Timeout`` in
# ``template.yaml`` (25 s) plus the margin.
FALLBACK_LEASE_SECONDS = 30.0
# Attempts at one update (Telegram's redeliveries after our 500s) before it is parked: after
# an unexpected error (a bug, a broken build) or an attempt that died (timeout, out of
# memory), and - with more patience, since an outage ends - after transient ones.
MAX_UPDATE_ATTEMPTS = 3
MAX_TRANSIENT_ATTEMPTS = 20
TRANSIENT = "transient: "  # how a release notes a transient error

# DynamoDB error codes worth a retry (AWS SDK retry guidance), and the per-item reasons of a
# cancelled transaction that mean the same (named without "Exception" there).
TRANSIENT_AWS_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ProvisionedThroughputExceeded",
        "ThrottlingException",
        "Throttling",
        "ThrottlingError",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionConflict",
        "TransactionConflictException",
        "TransactionInProgressException",
        "LimitExceededException",
    }
)


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """The function's handler (``template.yaml``: ``handlers.lambda_webhook.lambda_handler``)."""
    return handle(event, runtime.container(webhook=True), lease=lease_for(context))


def lease_for(context: Any) -> float:
    """The processing lease for this invocation: until Lambda would stop it, plus a margin."""
    remaining = getattr(context, "get_remaining_time_in_millis", None)
    if remaining is None:
        return FALLBACK_LEASE_SECONDS
    return max(0.0, float(remaining()) / 1000) + LEASE_MARGIN_SECONDS


def handle(
    event: dict[str, Any], rt: Runtime, *, lease: float = FALLBACK_LEASE_SECONDS
) -> dict[str, Any]:
    """Answer one webhook delivery with the runtime ``rt`` (tests pass their own); ``lease``:
    how long the claim holds off other attempts at the same update."""
    headers = {str(k).lower(): str(v) for k, v in (event.get("headers") or {}).items()}
    given = headers.get(SECRET_HEADER, "").encode()
    expected = (rt.webhook_secret or "").encode()
    if not expected or not hmac.compare_digest(given, expected):
        log.warning("rejected a delivery with a missing or wrong secret token")
        return _status(401)
    data = _body(event)
    update_id = data.get("update_id") if isinstance(data, dict) else None
    if not isinstance(update_id, int) or isinstance(update_id, bool):
        log.warning("ignored a delivery without an update_id")
        return _status(200)
    repo = rt.deps.repo
    try:
        claim = repo.claim_update(update_id, rt.deps.clock(), lease)
    except Exception as exc:
        # Nothing was processed, so Telegram's retry is safe whatever went wrong.
        log.error("could not claim update %s: %s", update_id, _describe(exc))
        return _status(500)
    if claim.status == "done":
        log.info("duplicate delivery of update %s", update_id)
        return _status(200)
    if claim.status == "processing":
        log.warning("update %s is being processed by another attempt: retry later", update_id)
        return _status(503)
    transient_before = claim.error.startswith(TRANSIENT)
    if claim.attempt > (MAX_TRANSIENT_ATTEMPTS if transient_before else MAX_UPDATE_ATTEMPTS):
        _park(rt, data, update_id, claim.attempt - 1, claim.error)
        _confirm(rt, update_id, claim.token)
        return _status(200)
    why = junk(data)
    if why:
        # Not a real update (Telegram never sends one like it): refused once, never retried.
        log.warning("update %s cannot be a real one (%s): ignored", update_id, why)
        metric("UpdateRefused", 1)
        _confirm(rt, update_id, claim.token)
        return _status(200)
    errors = rt.services.errors
    errors.clear()
    rt.services.redelivery = True  # a lost race answers 500: see Services.redelivery
    resolved = rt.services.resolved
    if rt.services.webapp_url is None:
        rt.services.webapp_url = page_url(event)
    try:
        rt.run(rt.app.process_update(Update.de_json(data, rt.app.bot)))
    except Exception as exc:  # handler errors go to on_error; anything else lands here
        errors.append(exc)
    from handlers.telegram.shared.guards import NoSender  # wired by now (handlers.runtime)

    # Refused, not retried: Telegram would refuse the same call again; an update without
    # the sender its handler needs cannot gain one.
    retry = [e for e in errors if not isinstance(e, BadRequest | Forbidden | NoSender)]
    for err in errors:
        kind = "refused" if err not in retry else "transient" if is_transient(err) else "unexpected"
        log.error("update %s failed (%s): %s", update_id, kind, _describe(err))
    errors.clear()
    if retry:
        metric("UpdateFailed", 1)
    if retry and rt.services.resolved != resolved:
        # The update resolved a turn (saved) before failing: Telegram's redelivery would
        # apply it again after the turn boundary (a typed order sealed into the next turn).
        log.error("update %s resolved a turn before failing: not re-sent", update_id)
        retry = []
    if not retry:
        _confirm(rt, update_id, claim.token)
        return _status(200)
    try:
        kind = TRANSIENT if all(is_transient(e) for e in retry) else ""
        repo.release_update(update_id, claim.token, (kind + _describe(retry[0]))[:500])
    except Exception as exc:
        # The lease stays until it runs out; a redelivery after that is processed.
        log.error("could not release update %s: %s", update_id, _describe(exc))
    return _status(500)


def page_url(event: dict[str, Any]) -> str | None:
    """The order page on the HTTP API this delivery came through (``template.yaml``: the
    ``/app/`` routes of the same API; API Gateway sets the domain, not the caller)."""
    context = event.get("requestContext")
    domain = context.get("domainName") if isinstance(context, dict) else None
    return f"https://{domain}/app/" if isinstance(domain, str) and domain else None


def _confirm(rt: Runtime, update_id: int, token: str) -> None:
    """Mark a handled update done. Whatever happens, the answer stays 200: the update was
    processed, and a retry must not run it again (a failed confirm leaves the lease, which
    runs out with no redelivery to pick it up)."""
    try:
        if not rt.deps.repo.confirm_update(update_id, token, rt.deps.clock()):
            # Our lease ran out and another attempt claimed the update: it ran twice.
            log.error("update %s was claimed again while being processed", update_id)
    except Exception as exc:
        log.error("could not confirm update %s: %s", update_id, _describe(exc))


def _park(rt: Runtime, data: dict[str, Any], update_id: int, attempts: int, error: str) -> None:
    """Give up an update that failed every attempt: log it with its last error (kept on its
    record too), count it for the alarm, and tell its chat, briefly (best effort)."""
    log.error(
        "update %s parked after %d failed attempts; last error: %s",
        update_id,
        attempts,
        error or "unknown (the attempt died)",
    )
    metric("UpdateParked", 1)
    chat_id, lang = _chat_of(data)
    if chat_id is None:
        return
    from handlers.telegram.i18n import Tr, normalize

    text = Tr(normalize(lang, rt.services.default_lang))("outbox.apology")
    try:
        rt.run(rt.app.bot.send_message(chat_id, text))
    except Exception as exc:
        log.error("could not apologise in chat %s: %s", chat_id, _describe(exc))


def _chat_of(data: dict[str, Any]) -> tuple[int | None, str | None]:
    """The chat an update came from and its sender's language (None for a membership change:
    no apology to someone who just blocked the bot)."""
    for key in ("message", "edited_message", "callback_query"):
        part = data.get(key)
        if not isinstance(part, dict):
            continue
        msg = part.get("message", {}) if key == "callback_query" else part
        chat = msg.get("chat", {}) if isinstance(msg, dict) else {}
        sender = part.get("from", {})
        chat_id = chat.get("id") if isinstance(chat, dict) else None
        lang = sender.get("language_code") if isinstance(sender, dict) else None
        if isinstance(chat_id, int):
            return chat_id, lang if isinstance(lang, str) else None
    return None, None


# The parts of an update that carry a message (Bot API ``Update``), and those with a sender.
_MESSAGES = ("message", "edited_message", "channel_post", "edited_channel_post")
_SENT = ("callback_query", "inline_query", "my_chat_member", "chat_member")


def junk(data: dict[str, Any]) -> str:
    """Why ``data`` cannot be an update Telegram sent (a message without its chat, id or
    date; a button press or membership change without its sender), else "". Such a delivery
    is answered 200 once and logged: retrying cannot make it processable."""
    for key in _MESSAGES:
        if key in data:
            msg = data[key]
            if not isinstance(msg, dict) or not _has_int(msg, "message_id", "date"):
                return f"{key} without its id or date"
            if not isinstance(msg.get("chat"), dict) or not _has_int(msg["chat"], "id"):
                return f"{key} without its chat"
    for key in _SENT:
        if key in data:
            part = data[key]
            sender = part.get("from") if isinstance(part, dict) else None
            if not isinstance(sender, dict) or not _has_int(sender, "id"):
                return f"{key} without its sender"
    return ""


def _has_int(doc: dict[str, Any], *keys: str) -> bool:
    return all(isinstance(doc.get(k), int) and not isinstance(doc.get(k), bool) for k in keys)


def is_transient(exc: BaseException) -> bool:
    """Would the same update likely succeed if Telegram re-sent it in a moment?"""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if _transient_one(cur):
            return True
        cur = cur.__cause__
    return False


def _transient_one(exc: BaseException) -> bool:
    # Imported here: the engine is wired on the first real update (handlers.runtime), and an
    # error can only come from it after that.
    from engine.errors import ConflictError
    from engine.usecases import TryAgainError

    if isinstance(exc, TryAgainError | ConflictError | RetryAfter):
        return True
    if isinstance(exc, BadRequest):  # a NetworkError subclass, but permanent
        return False
    if isinstance(exc, NetworkError | ConnectionError | TimeoutError):
        return True
    from botocore.exceptions import ClientError, HTTPClientError
    from botocore.exceptions import ConnectionError as BotoConnectionError

    if isinstance(exc, ClientError):
        code = str(exc.response.get("Error", {}).get("Code", ""))
        if code in TRANSIENT_AWS_CODES:
            return True
        from infra.dynamodb import cancel_codes  # the reasons, or the message listing them

        if any(c in TRANSIENT_AWS_CODES for c in cancel_codes(exc)):
            return True
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return isinstance(status, int) and status >= 500
    return isinstance(exc, BotoConnectionError | HTTPClientError)


def _body(event: dict[str, Any]) -> Any:
    raw = event.get("body") or ""
    try:
        if event.get("isBase64Encoded"):
            raw = base64.b64decode(raw, validate=True).decode()
        return json.loads(raw)
    except (ValueError, binascii.Error, UnicodeDecodeError, RecursionError):
        return None  # RecursionError: nesting deeper than the parser's stack


def _describe(exc: BaseException) -> str:
    # Exception text only: PTB and botocore messages carry no token (URLs are not in them).
    return f"{type(exc).__name__}: {exc}"


def _status(code: int) -> dict[str, Any]:
    return {"statusCode": code, "headers": {"Content-Type": "text/plain"}, "body": ""}
