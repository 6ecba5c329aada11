"""AWS Lambda entry for Telegram's webhook (API Gateway HTTP API / Function URL, payload 2.0).

Status policy (Telegram re-sends an update until it gets a 2xx, and holds back that chat's
later updates meanwhile, so retries must be rare and useful):

- 401: the ``X-Telegram-Bot-Api-Secret-Token`` header is missing or wrong (constant-time
  compare); nothing is stored or sent.
- 200: handled; a duplicate delivery (the ``update_id`` was already claimed); input we cannot
  use (not JSON, no ``update_id``); permanent errors (``Forbidden``, ``BadRequest`` such as
  "message is not modified", bugs) - logged, because retrying would fail the same way.
- 500: transient errors (network, Telegram 5xx/429, DynamoDB throttling, ``TryAgainError``),
  after releasing the claim so Telegram's redelivery is processed again - unless the update
  had already resolved a turn (``Services.resolved``): then 200, since a redelivery would
  apply it once more past the turn boundary (a typed order into the next turn). The reveal
  itself is tried again in-process (``REVEAL_RETRIES``).
"""

from __future__ import annotations

import base64
import binascii
import hmac
import json
import logging
from typing import Any

from telegram import Update
from telegram.error import BadRequest, NetworkError, RetryAfter

from handlers import runtime
from handlers.runtime import Runtime

log = logging.getLogger("sekundant.lambda")

SECRET_HEADER = "x-telegram-bot-api-secret-token"

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
    return handle(event, runtime.container(webhook=True))


def handle(event: dict[str, Any], rt: Runtime) -> dict[str, Any]:
    """Answer one webhook delivery with the runtime ``rt`` (tests pass their own)."""
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
        if not repo.claim_update(update_id, rt.deps.clock()):
            log.info("duplicate delivery of update %s", update_id)
            return _status(200)
    except Exception as exc:
        # Nothing was processed, so Telegram's retry is safe whatever went wrong.
        log.error("could not claim update %s: %s", update_id, _describe(exc))
        return _status(500)
    errors = rt.services.errors
    errors.clear()
    resolved = rt.services.resolved
    try:
        rt.run(rt.app.process_update(Update.de_json(data, rt.app.bot)))
    except Exception as exc:  # handler errors go to on_error; anything else lands here
        errors.append(exc)
    transient = [e for e in errors if is_transient(e)]
    for err in errors:
        kind = "transient" if err in transient else "permanent"
        log.error("update %s failed (%s): %s", update_id, kind, _describe(err))
    errors.clear()
    if not transient:
        return _status(200)
    if rt.services.resolved != resolved:
        # The update resolved a turn (saved) before failing: Telegram's redelivery would
        # apply it again after the turn boundary (a typed order sealed into the next turn).
        log.error("update %s resolved a turn before failing: not re-sent", update_id)
        return _status(200)
    try:
        repo.release_update(update_id)
    except Exception as exc:
        log.error("could not release update %s: %s", update_id, _describe(exc))
    return _status(500)


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
