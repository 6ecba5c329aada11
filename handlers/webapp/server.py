"""The order page on localhost (``make run``, the sandbox, the browser tests): the stdlib
``http.server`` in a daemon thread, every request handed to :meth:`WebApp.handle`.

The bot's event loop belongs to another thread: :class:`LocalBackend` runs the seal's
coroutine there (``asyncio.run_coroutine_threadsafe`` while polling; with the sandbox's and
the tests' :class:`~handlers.telegram.harness.Harness`, its runner under a lock the sandbox
also holds while it processes a line). One request at a time: a local server serves one
person.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

from telegram.ext import Application

from engine.usecases import Deps
from handlers.webapp.api import MAX_BODY_BYTES, WebApp

T = TypeVar("T")


@dataclass
class LocalBackend:
    """A :class:`~handlers.webapp.seal.Backend` over an Application running in this process;
    ``runner`` runs a coroutine to completion on the bot's loop."""

    deps: Deps
    app: Application[Any, Any, Any, Any, Any, Any]
    token: str
    runner: Callable[[Awaitable[Any]], Any]
    lock: threading.RLock = field(default_factory=threading.RLock)

    def run(self, coro: Awaitable[T]) -> T:
        with self.lock:
            result: T = self.runner(coro)
            return result

    @classmethod
    def on_loop(
        cls,
        deps: Deps,
        app: Application[Any, Any, Any, Any, Any, Any],
        token: str,
        loop: asyncio.AbstractEventLoop,
    ) -> LocalBackend:
        """For a bot whose loop runs in another thread (long polling)."""

        def runner(coro: Awaitable[Any]) -> Any:
            async def wrapped() -> Any:
                return await coro

            return asyncio.run_coroutine_threadsafe(wrapped(), loop).result(timeout=60)

        return cls(deps, app, token, runner)


class _Handler(BaseHTTPRequestHandler):
    webapp: WebApp
    lock: threading.RLock

    def _serve(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:  # refused unread: the API's own answer for the size
            body = b"x" * (MAX_BODY_BYTES + 1)
            self.close_connection = True
        else:
            body = self.rfile.read(length) if length > 0 else b""
        with self.lock:
            answer = self.webapp.handle(method, self.path, dict(self.headers.items()), body)
        self.send_response(answer.status)
        for key, value in answer.headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(answer.body)

    def do_GET(self) -> None:
        self._serve("GET")

    def do_HEAD(self) -> None:
        self._serve("HEAD")

    def do_POST(self) -> None:
        self._serve("POST")

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: the sandbox's terminal is the players' screen


@dataclass
class Served:
    server: ThreadingHTTPServer
    thread: threading.Thread
    url: str  # the page: http://127.0.0.1:PORT/app/

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def serve(
    webapp: WebApp, host: str = "127.0.0.1", port: int = 0, lock: threading.RLock | None = None
) -> Served:
    """Serve ``webapp`` on ``host:port`` (0: any free port) in a daemon thread."""
    handler = type("Handler", (_Handler,), {"webapp": webapp, "lock": lock or threading.RLock()})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="webapp", daemon=True)
    thread.start()
    bound = server.server_address[1]
    return Served(server, thread, f"http://{host}:{bound}/app/")
