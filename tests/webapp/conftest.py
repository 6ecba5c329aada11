"""The order page's API over the real bot: a :class:`Harness` (fake Bot API, memory store),
a :class:`WebApp` bound to it, and signed ``initData`` for the cast."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from handlers.telegram.harness import TOKEN, Harness
from handlers.webapp import initdata
from handlers.webapp.api import RateLimiter, Response, WebApp
from handlers.webapp.server import LocalBackend
from tests.bot.conftest import Duel


class Page:
    """The cast's duel (``tests.bot.conftest.Duel``) and its order-page API."""

    def __init__(self, h: Harness) -> None:
        self.duel = Duel(h)
        self.h = h
        self.backend = LocalBackend(h.deps, h.app, TOKEN, h.runner.run)
        self.webapp = WebApp(self.backend, limiter=RateLimiter(burst=1000, per_second=1000))

    def init(self, user: dict[str, Any], *, age: float = 0, token: str = TOKEN) -> str:
        who = {k: user[k] for k in ("id", "first_name", "language_code") if k in user}
        return initdata.sign(who, token, int(self.h.now - age))

    def call(
        self, path: str, body: Any, user: dict[str, Any] | None = None, *, init: str | None = None
    ) -> Response:
        if init is None:
            init = self.init(user) if user is not None else ""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        return self.webapp.handle("POST", path, {"Authorization": f"tma {init}"}, raw)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Headless Chromium (``tests/webapp/browser.py``), one per test module."""
    from tests.webapp import browser

    with browser.chromium() as driver:
        yield driver


@pytest.fixture
def page() -> Iterator[Page]:
    h = Harness()
    yield Page(h)
    h.close()
