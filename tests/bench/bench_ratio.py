"""The bot's CPU per update against a bare python-telegram-bot making the same Bot API calls,
and the 🎲 Odds answer at the CPU share of a 512 MB Lambda.

Ratio: whole pistol duels are played through the bot (memory store, the fake Bot API) once to
record, for each update, the Bot API calls it made and Telegram's answers. Then the same duels
are played again by the bot, and the same updates are fed to a bare PTB ``Application`` whose
one handler makes exactly the recorded calls; both runs get the recorded answers from the same
replaying request object, so neither pays for a fake Telegram. Figure: median CPU time per
update (this thread), ours / bare. Target <= 1.5.

Odds: for each example setup, the answer's CPU time (pilot, run, chart), with N sized as on a
512 MB function (the pilot's speed scaled to 512/1769 of a vCPU), then scaled to that share.
Target <= 3 s.
"""

from __future__ import annotations

import asyncio
import json
import statistics
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


class Replay(BaseRequest):
    """Answers each call with the recorded answer (calls must come in the recorded order)."""

    def __init__(self, script: list[list[tuple[str, dict[str, Any], bytes]]]) -> None:
        self.script = script
        self.update = -1
        self.pos = 0

    def next_update(self) -> None:
        self.update += 1
        self.pos = 0

    @property
    def read_timeout(self) -> float | None:
        return 1.0

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(self, url: str, method: str, *_a: Any, **_kw: Any) -> tuple[int, bytes]:
        api = url.rsplit("/", 1)[-1]
        if api == "getMe":
            return 200, json.dumps({"ok": True, "result": BOT_INFO}).encode()
        calls = self.script[self.update]
        name, _params, body = calls[self.pos]
        if name != api:
            raise RuntimeError(f"replay diverged: {api} instead of {name}")
        self.pos += 1
        return 200 if b'"ok": true' in body else 400, body


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


def ours(updates: list[dict[str, Any]], script: Any) -> list[float]:
    """CPU per update of the bot replaying the recorded answers."""
    replay = Replay(script)
    h = Harness()
    h.app.bot._request = (replay, replay)  # type: ignore[attr-defined]
    timed = _timed(h.feed, replay.next_update)
    for u in updates:
        timed(u)
    h.close()
    return timed.cpu  # type: ignore[attr-defined,no-any-return]


def bare(updates: list[dict[str, Any]], script: Any) -> list[float]:
    """CPU per update of a bare PTB application making the recorded calls."""
    replay = Replay(script)
    app: Application[Any, Any, Any, Any, Any, Any] = (
        ApplicationBuilder().token(TOKEN).request(replay).get_updates_request(replay).build()
    )

    async def handler(update: Update, context: Any) -> None:
        from telegram import InputFile

        for method, params, _body in script[replay.update]:
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

    timed = _timed(feed, replay.next_update)
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


def main() -> None:
    updates, script = record()
    mine = statistics.median(ours(updates, script))
    floor = statistics.median(bare(updates, script))
    print(f"   {len(updates)} updates of {DUELS} pistol duels, the same Bot API calls and answers")
    print(f"   CPU per update: the bot {mine * 1000:.2f} ms, bare PTB {floor * 1000:.2f} ms,"
          f" ratio {mine / floor:.2f}   target <= {TARGET_RATIO}")  # fmt: skip
    for name in ODDS_SETUPS:
        n, seconds = odds_seconds(name)
        print(f"   🎲 Odds {name}: {n} matches, {seconds:.2f} s at a 512 MB Lambda's CPU share"
              f"   target <= {ODDS_TARGET:.0f} s")  # fmt: skip
