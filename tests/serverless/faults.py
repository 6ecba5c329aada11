"""Fault injection at the two request layers the functions depend on: the DynamoDB client
(what botocore returns after its own retries: throttling, an unreachable endpoint) and the
Bot API request class (Telegram's 429 with ``retry_after``, a 5xx, a timeout, or the Lambda
invocation stopped right at a call). A fault is armed for the next ``times`` matching calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError, EndpointConnectionError
from telegram.error import TimedOut

from handlers.telegram.fake_api import FakeBotAPI


class InvocationDied(BaseException):
    """Lambda stopping the invocation (timeout, out of memory): no ``except Exception`` of
    ours runs, so nothing is released, confirmed or recorded."""


@dataclass
class Fault:
    kind: str
    times: int
    match: Callable[[str, dict[str, Any]], bool]
    after: int = 0  # matching calls let through first

    def hits(self, name: str, params: dict[str, Any]) -> bool:
        if self.times <= 0 or not self.match(name, params):
            return False
        if self.after > 0:
            self.after -= 1
            return False
        self.times -= 1
        return True


def throttled(op: str) -> ClientError:
    body = {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}
    return ClientError(body, op)  # type: ignore[arg-type]


OUTBOX = "outbox"  # an op of its own: the outbox's writes (claim, journal, done)


def outbox_write(op: str, params: dict[str, Any]) -> bool:
    """A write of the outbox: an UpdateItem of an entry of the match item's ``ow`` map that
    is not a save of the match (docs/storage.md, "The outbox"), or one of an older-layout
    ``OWED#`` item."""
    if op == "update_item":
        names = params.get("ExpressionAttributeNames", {}).values()
        return "ow" in names and "version" not in params.get("ConditionExpression", "")
    sk = str(params.get("Item", params.get("Key", {})).get("SK", {}).get("S", ""))
    return op in ("put_item", "delete_item") and sk.startswith("OWED#")


class FaultyDynamo:
    """Wraps a DynamoDB client; ``arm(kind, times, ops)`` fails the next calls of ``ops``
    (all when empty; :data:`OUTBOX` for the outbox's writes) with ``throttle``,
    ``unreachable`` or ``die``."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.faults: list[Fault] = []
        self.failed = 0

    def arm(self, kind: str, times: int, ops: tuple[str, ...] = ()) -> None:
        def match(op: str, params: dict[str, Any]) -> bool:
            return not ops or op in ops or (OUTBOX in ops and outbox_write(op, params))

        self.faults.append(Fault(kind, times, match))

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if not callable(attr) or name.startswith("_") or name == "meta":
            return attr

        def call(**kwargs: Any) -> Any:
            for fault in self.faults:
                if fault.hits(name, kwargs):
                    self.failed += 1
                    if fault.kind == "throttle":
                        raise throttled(name)
                    if fault.kind == "unreachable":
                        raise EndpointConnectionError(endpoint_url="https://dynamodb.invalid")
                    raise InvocationDied
            return attr(**kwargs)

        return call


class FaultyTelegram:
    """Wraps the fake Bot API's ``do_request``; ``arm(kind, times, method, chat_id, after)``
    fails the next matching calls (after letting ``after`` through) with ``429`` (retry_after
    30), ``500``, ``timeout`` or ``die``."""

    def __init__(self, api: FakeBotAPI) -> None:
        self.api = api
        self.faults: list[Fault] = []
        self.failed = 0
        real = api.do_request

        async def do_request(
            url: str, method: str, request_data: Any = None, *a: Any, **k: Any
        ) -> Any:
            name = url.rsplit("/", 1)[-1]
            params = dict(request_data.parameters) if request_data else {}
            for fault in self.faults:
                if fault.hits(name, params):
                    self.failed += 1
                    return self._fail(fault.kind)
            return await real(url, method, request_data, *a, **k)

        api.do_request = do_request  # type: ignore[method-assign]

    def arm(
        self,
        kind: str,
        times: int,
        method: str = "sendMessage",
        chat_id: int | None = None,
        after: int = 0,
    ) -> None:
        def match(name: str, params: dict[str, Any]) -> bool:
            return name == method and (chat_id is None or params.get("chat_id") == chat_id)

        self.faults.append(Fault(kind, times, match, after))

    @staticmethod
    def _fail(kind: str) -> tuple[int, bytes]:
        if kind == "timeout":
            raise TimedOut("Timed out")
        if kind == "die":
            raise InvocationDied
        if kind == "429":
            body = {
                "ok": False,
                "error_code": 429,
                "description": "Too Many Requests: retry after 30",
                "parameters": {"retry_after": 30},
            }
            return 429, json.dumps(body).encode()
        body = {"ok": False, "error_code": 502, "description": "Bad Gateway"}
        return 502, json.dumps(body).encode()
