"""Nothing blocks the long-polling loop (issue 28 point 4): what waits or computes for long -
the beacon fetch inside the use cases that may resolve a turn (up to a period, 3 s), the
reveal pictures, the odds - runs in a worker thread (:func:`off_loop`), and the polling
application processes the updates of different chats concurrently, each chat's in order
(:class:`PerChatProcessor`), so one chat's wait never delays another chat's update.

The webhook processes one update per invocation; it goes through the same code (a thread hop
costs ~0.1 ms)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from telegram import Update
from telegram.ext import BaseUpdateProcessor

P = ParamSpec("P")
T = TypeVar("T")

MAX_CONCURRENT_UPDATES = 16


async def off_loop(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in a worker thread: the event loop goes on meanwhile."""
    return await asyncio.to_thread(fn, *args, **kwargs)


def chat_key(update: object) -> int:
    """What orders updates: the chat (a button's: its message's chat), else the user; 0 for
    an update with neither (processed one at a time with the others like it)."""
    if not isinstance(update, Update):
        return 0
    chat = update.effective_chat
    if chat is not None:
        return chat.id
    user = update.effective_user
    return user.id if user is not None else 0


class PerChatProcessor(BaseUpdateProcessor):
    """Updates of different chats at once (up to ``max_concurrent_updates``), each chat's
    one after another in the order they came (a chat's lock, dropped once nobody waits)."""

    def __init__(self, max_concurrent_updates: int = MAX_CONCURRENT_UPDATES) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, tuple[asyncio.Lock, int]] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        key = chat_key(update)
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                await coroutine
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    async def initialize(self) -> None:
        pass

    async def shutdown(self) -> None:
        pass
