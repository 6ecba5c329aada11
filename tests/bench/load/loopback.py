"""A JSON-over-HTTP server on the loopback for the load run's fakes (the Bot API, a drand
relay): each request answered by a function of the request, in a thread of its own."""

from __future__ import annotations

import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Respond = Callable[[BaseHTTPRequestHandler], tuple[int, Any]]


def json_server(respond: Respond) -> tuple[ThreadingHTTPServer, str]:
    """A server (not started: ``serve_forever`` in a thread) on a free loopback port whose
    GET and POST requests are answered ``respond(request)``: a status and a JSON body; and
    its URL. Quiet: no request log."""

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _reply(self) -> None:
            code, answer = respond(self)
            raw = json.dumps(answer).encode()
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        do_GET = do_POST = _reply  # noqa: N815 - http.server's names

        def log_message(self, *_args: Any) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}"
