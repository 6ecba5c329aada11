"""The fake Bot API (:class:`handlers.telegram.fake_api.FakeBotAPI`) behind a real HTTP server
on the loopback, so worker processes reach one shared Telegram with PTB's production request
class (``HTTPXRequest``), as Lambda containers reach the real one.

PTB posts a method's parameters as a form (``application/x-www-form-urlencoded``), or as
``multipart/form-data`` when it uploads a file; values that are not strings are JSON. Both are
decoded back into the parameters the fake expects. Every request is handled under one lock,
which the load driver also takes while it writes users' messages into the fake's chats.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl

from handlers.telegram.fake_api import FakeBotAPI, _ApiError
from tests.bench.load.loopback import json_server


def _value(raw: str) -> Any:
    """A form value as PTB encoded it: JSON for objects and numbers, else the string."""
    if raw[:1] in "{[" or raw.lstrip("-").isdigit():
        try:
            return json.loads(raw)
        except ValueError:
            return raw
    return raw


def decode(content_type: str, body: bytes) -> dict[str, Any]:
    """A Bot API request body back into parameters (uploads under ``_files``)."""
    if content_type.startswith("multipart/form-data"):
        head = f"Content-Type: {content_type}\r\n\r\n".encode()
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + body)
        params: dict[str, Any] = {}
        files: dict[str, tuple[str, bytes, str]] = {}
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            payload = part.get_payload(decode=True) or b""
            filename = part.get_filename()
            if filename is not None:
                files[str(name)] = (filename, payload, part.get_content_type())
            else:
                params[str(name)] = _value(payload.decode())
        params["_files"] = files
        return params
    return {k: _value(v) for k, v in parse_qsl(body.decode(), keep_blank_values=True)}


class BotAPIServer:
    """``FakeBotAPI`` served at ``url`` (``http://127.0.0.1:<port>``) until :meth:`close`."""

    def __init__(self, api: FakeBotAPI | None = None) -> None:
        self.api = api or FakeBotAPI()
        self.lock = threading.Lock()
        self.calls = 0
        self._httpd, self.url = json_server(self._respond)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def _respond(self, request: BaseHTTPRequestHandler) -> tuple[int, dict[str, Any]]:
        method = request.path.rsplit("/", 1)[-1]
        body = request.rfile.read(int(request.headers.get("content-length") or 0))
        return self.handle(method, decode(request.headers.get("content-type", ""), body))

    def handle(self, method: str, params: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One Bot API call, as the fake answers it (its call log included)."""
        from handlers.telegram.fake_api import Call

        with self.lock:
            self.calls += 1
            self.api.calls.append(Call(method, params))
            try:
                return 200, {"ok": True, "result": self.api._handle(method, params)}
            except _ApiError as err:
                return err.code, {
                    "ok": False,
                    "error_code": err.code,
                    "description": err.description,
                }

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
