"""The bot's CPU per update against a bare python-telegram-bot making the same Bot API calls,
and the 🎲 Odds answer at the CPU share of a 512 MB Lambda.

Ratio: whole pistol duels are played through the bot (memory store, the fake Bot API) once to
record, for each update, the Bot API calls it made and Telegram's answers. Then the same updates
are fed again to the bot and to a bare PTB ``Application`` whose one handler makes exactly the
recorded calls. Both get the recorded answers, either over real HTTP (production's
``HTTPXRequest`` to a loopback server in another thread, whose CPU is not counted: the calls
cost what they cost on Lambda) or from an in-process replay (the calls are free, so the figure
is the bot's own work against PTB's). Figure: mean CPU time per update of this thread (the
event loop's), ours / bare. Target <= 1.5 (the HTTP line: the same Bot API calls).

Odds: for each example setup, the answer's CPU time (pilot, run, chart), with N sized as on a
512 MB function (the pilot's speed scaled to 512/1769 of a vCPU), then scaled to that share.
Target <= 3 s.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from telegram import Update
from telegram.ext import Application, ApplicationBuilder, TypeHandler
from telegram.request import BaseRequest, RequestData

from handlers.telegram.fake_api import BOT_INFO, FakeBotAPI
from handlers.telegram.harness import TOKEN, Harness
from tests.bench.bench_bot import DUELS, play_duels

ROOT = Path(__file__).resolve().parents[2]
TARGET_RATIO = 1.5
LAMBDA_SHARE = 512 / 1769  # a 512 MB function's share of one vCPU
ODDS_TARGET = 3.0
ODDS_SETUPS = ("pistol-rifle-vs-pistol.json", "plans-random.json", "dragons-2v2-random.json")


class Recorder(FakeBotAPI):
    """The fake Bot API that also keeps every answer, grouped by the update being processed."""

    def __init__(self) -> None:
        super().__init__()
        self.by_update: list[list[tuple[str, dict[str, Any], bytes]]] = []

    async def do_request(self, url: str, method: str, request_data: RequestData | None = None,
                         *args: Any, **kw: Any) -> tuple[int, bytes]:  # fmt: skip
        code, body = await super().do_request(url, method, request_data, *args, **kw)
        params = dict(request_data.parameters) if request_data else {}
        if request_data is not None and request_data.contains_files:
            params["_files"] = {
                k: (v[0], v[1] if isinstance(v[1], bytes) else v[1].read(), v[2])
                for k, v in request_data.multipart_data.items()
            }
        if self.by_update:
            self.by_update[-1].append((url.rsplit("/", 1)[-1], params, body))
        return code, body


class Script:
    """The recorded answers of each update. Calls made at once (``send.at_once``: a turn's
    builders, a receipt with the group's status) reach the replay in any order, so a call is
    answered with the first unanswered recorded call of its method (and of its chat, when the
    request says which) rather than strictly in order; a call the recording lacks is an
    error."""

    def __init__(self, script: list[list[tuple[str, dict[str, Any], bytes]]]) -> None:
        self.script = script
        self.update = -1
        self.used: set[int] = set()
        self.diverged: list[str] = []  # calls the recording lacks (raised in the server's
        # thread over HTTP, where PTB would only see a dropped connection: checked after)
        self._lock = threading.Lock()  # the HTTP replay answers from several threads

    def next_update(self) -> None:
        self.update += 1
        self.used = set()

    def answer(self, api: str, chat_id: str | None = None) -> tuple[int, bytes]:
        if api == "getMe":
            return 200, json.dumps({"ok": True, "result": BOT_INFO}).encode()
        with self._lock:
            calls = self.script[self.update]
            free = [i for i in range(len(calls)) if i not in self.used and calls[i][0] == api]
            same_chat = [i for i in free if str(calls[i][1].get("chat_id")) == chat_id]
            if not free:
                self.diverged.append(f"update {self.update}: {api}")
                raise RuntimeError(f"replay diverged: {api} not recorded for this update")
            pick = (same_chat or free)[0]
            self.used.add(pick)
        body = calls[pick][2]
        return 200 if b'"ok": true' in body else 400, body


class Replay(BaseRequest):
    """The recorded answers, in process: a Bot API call costs nothing."""

    def __init__(self, script: Script) -> None:
        self.script = script

    @property
    def read_timeout(self) -> float | None:
        return 1.0

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(
        self, url: str, method: str, request_data: RequestData | None = None, *_a: Any, **_kw: Any
    ) -> tuple[int, bytes]:
        params = request_data.parameters if request_data is not None else {}
        chat = params.get("chat_id")
        return self.script.answer(url.rsplit("/", 1)[-1], None if chat is None else str(chat))


class ReplayServer:
    """The recorded answers over HTTP on the loopback (a thread of its own)."""

    def __init__(self, script: Script) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                sent = self.rfile.read(int(self.headers.get("content-length") or 0))
                code, body = script.answer(self.path.rsplit("/", 1)[-1], _chat_of(sent))
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_args: Any) -> None:
                return

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def request(self) -> BaseRequest:
        """Production's request class, sent here instead of to Telegram."""
        from telegram.request import HTTPXRequest

        base = self.url

        class Local(HTTPXRequest):
            async def do_request(self, url: str, *a: Any, **kw: Any) -> tuple[int, bytes]:
                return await super().do_request(
                    url.replace("https://api.telegram.org", base), *a, **kw
                )

        return Local(connection_pool_size=4)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def _chat_of(body: bytes) -> str | None:
    """The ``chat_id`` of a Bot API request's body (PTB posts parameters as a form, JSON
    values as strings; a multipart upload is not read: None)."""
    from urllib.parse import parse_qs

    try:
        found = parse_qs(body.decode(), strict_parsing=False).get("chat_id")
    except UnicodeDecodeError:
        return None
    return found[0].strip('"') if found else None


def _timed(feed: Callable[[dict[str, Any]], None], before: Callable[[], None]) -> Callable[
    [dict[str, Any]], None
]:  # fmt: skip
    cpu: list[float] = []

    def run(update: dict[str, Any]) -> None:
        before()
        started = time.thread_time()
        feed(update)
        cpu.append(time.thread_time() - started)

    run.cpu = cpu  # type: ignore[attr-defined]
    return run


def record() -> tuple[list[dict[str, Any]], list[list[tuple[str, dict[str, Any], bytes]]]]:
    """The updates of :data:`DUELS` pistol duels and each one's calls with their answers."""
    h = Harness()
    rec = Recorder()
    rec.chats, rec.users, rec.started = h.api.chats, h.api.users, h.api.started
    h.app.bot._request = (rec, rec)  # type: ignore[attr-defined]
    h.api = rec
    updates: list[dict[str, Any]] = []
    original = h.feed

    def feed(update: dict[str, Any]) -> None:
        updates.append(update)
        rec.by_update.append([])
        original(update)

    h.feed = feed  # type: ignore[method-assign]
    play_duels(h)
    h.close()
    return updates, rec.by_update


def ours(updates: list[dict[str, Any]], script: Script, request: BaseRequest) -> list[float]:
    """CPU per update of the bot, its calls answered by ``request``."""
    h = Harness()
    h.app.bot._request = (request, request)  # type: ignore[attr-defined]
    timed = _timed(h.feed, script.next_update)
    for u in updates:
        timed(u)
    h.close()
    return timed.cpu  # type: ignore[attr-defined,no-any-return]


def bare(updates: list[dict[str, Any]], script: Script, request: BaseRequest) -> list[float]:
    """CPU per update of a bare PTB application making the recorded calls."""
    app: Application[Any, Any, Any, Any, Any, Any] = (
        ApplicationBuilder().token(TOKEN).request(request).get_updates_request(request).build()
    )

    async def handler(update: Update, context: Any) -> None:
        from telegram import InputFile

        for method, params, _body in script.script[script.update]:
            kwargs = {k: v for k, v in params.items() if k != "_files"}
            for name, (filename, content, _mime) in params.get("_files", {}).items():
                kwargs[name] = InputFile(content, filename=filename)
            await context.bot.do_api_request(method, api_kwargs=kwargs)

    app.add_handler(TypeHandler(Update, handler))
    # do_api_request for a method PTB has a shortcut for warns; the call is what we want.
    warnings.filterwarnings("ignore", message="Please use 'Bot.")
    runner = asyncio.Runner()
    runner.run(app.initialize())

    def feed(update: dict[str, Any]) -> None:
        runner.run(app.process_update(Update.de_json(update, app.bot)))

    timed = _timed(feed, script.next_update)
    for u in updates:
        timed(u)
    runner.run(app.shutdown())
    runner.close()
    return timed.cpu  # type: ignore[attr-defined,no-any-return]


def odds_seconds(name: str) -> tuple[int, float]:
    """(N, seconds) of the odds answer for an example setup on a 512 MB Lambda."""
    from engine import sim_batch
    from engine.simulate import parse_setup, prepare
    from handlers.telegram.features import odds

    doc = json.loads((ROOT / "examples" / name).read_text(encoding="utf-8"))
    started = time.process_time()
    prepared = prepare(parse_setup(doc))
    sim_batch.run(sim_batch.plan(prepared, odds.PILOT_MATCHES, "pilot"))
    pilot = time.process_time() - started
    n = odds.size(odds.PILOT_MATCHES / max(pilot, 1e-6) * LAMBDA_SHARE)
    odds._CACHE.clear()
    original, odds.size = odds.size, lambda _rate: n
    try:
        started = time.process_time()
        odds.answer(doc, "bench", "en")
        cpu = time.process_time() - started
    finally:
        odds.size = original
    return n, cpu / LAMBDA_SHARE


def compare(
    updates: list[dict[str, Any]], recorded: Any, make: Callable[[Script], BaseRequest]
) -> tuple[float, float]:
    """Mean CPU seconds per update: (the bot, bare PTB), calls answered by ``make(script)``."""
    results = []
    for run in (ours, bare):
        script = Script(recorded)
        results.append(statistics.mean(run(updates, script, make(script))))
        if script.diverged:  # a figure of other work than the recorded one
            raise RuntimeError(f"the replay diverged ({run.__name__}): {script.diverged[:3]}")
    return results[0], results[1]


def main() -> None:
    updates, recorded = record()
    print(f"   {len(updates)} updates of {DUELS} pistol duels, the same Bot API calls and answers")
    servers: list[ReplayServer] = []

    def over_http(script: Script) -> BaseRequest:
        servers.append(ReplayServer(script))
        return servers[-1].request()

    for label, make in (("over HTTP", over_http), ("calls free", Replay)):
        mine, floor = compare(updates, recorded, make)
        target = f"   target <= {TARGET_RATIO}" if make is over_http else ""
        print(f"   CPU per update ({label}): the bot {mine * 1000:.2f} ms, bare PTB"
              f" {floor * 1000:.2f} ms, ratio {mine / floor:.2f}{target}")  # fmt: skip
    for server in servers:
        server.close()
    for name in ODDS_SETUPS:
        n, seconds = odds_seconds(name)
        print(f"   🎲 Odds {name}: {n} matches, {seconds:.2f} s at a 512 MB Lambda's CPU share"
              f"   target <= {ODDS_TARGET:.0f} s")  # fmt: skip
