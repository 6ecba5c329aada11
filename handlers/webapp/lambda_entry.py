"""AWS Lambda entry of the order page (``template.yaml``: ``WebAppFunction``, the ``/app`` and
``/api`` routes of the bot's HTTP API, payload 2.0). Its own function, so the webhook's cold
path never imports the page's code. The page's files are answered before anything is wired;
an API call wires the bot once per container (``handlers.runtime``, like the sweeper: no
webhook secret) and goes through :class:`handlers.webapp.api.WebApp`."""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Awaitable
from typing import Any, TypeVar

from handlers import runtime
from handlers.webapp import initdata
from handlers.webapp.api import SECURITY_HEADERS, WebApp

T = TypeVar("T")
_WEBAPP: dict[str, WebApp] = {}


class RuntimeBackend:
    """The container's :class:`handlers.runtime.Runtime` as the API's backend, wired on first
    use (a request for the page's files never wires it)."""

    def __init__(self, rt: runtime.Runtime) -> None:
        self.rt = rt

    @property
    def deps(self) -> Any:
        return self.rt.deps

    @property
    def app(self) -> Any:
        return self.rt.app

    @property
    def token(self) -> str:
        return str(self.rt.app.bot.token)

    def run(self, coro: Awaitable[T]) -> T:
        return self.rt.run(coro)


def webapp() -> WebApp:
    found = _WEBAPP.get("app")
    if found is None:
        age = float(os.environ.get("SEKUNDANT_WEBAPP_MAX_AGE") or initdata.MAX_AGE_SECONDS)
        lang = os.environ.get("SEKUNDANT_LANG") or "ru"
        backend = RuntimeBackend(runtime.container(webhook=False))
        found = _WEBAPP["app"] = WebApp(backend, max_age=age, default_lang=lang)
    return found


def lambda_handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return handle(event, webapp())


def handle(event: dict[str, Any], app: WebApp) -> dict[str, Any]:
    http = (event.get("requestContext") or {}).get("http") or {}
    method = str(http.get("method") or "GET")
    path = str(event.get("rawPath") or "/")
    headers = {str(k): str(v) for k, v in (event.get("headers") or {}).items()}
    raw = event.get("body") or ""
    try:
        body = base64.b64decode(raw, validate=True) if event.get("isBase64Encoded") else raw
    except (binascii.Error, ValueError):
        body = b"\xff"  # unreadable: the API refuses it as such
    if isinstance(body, str):
        body = body.encode()
    answer = app.handle(method, path, headers, body)
    text = answer.headers.get("Content-Type", "").startswith(("text/", "application/json"))
    return {
        "statusCode": answer.status,
        "headers": {**SECURITY_HEADERS, **answer.headers},
        "body": answer.body.decode() if text else base64.b64encode(answer.body).decode(),
        "isBase64Encoded": not text,
    }
