"""The order page in local runs: the offline sandbox (a localhost page whose link carries a
signed test identity, for a desktop browser) and ``make run``'s long polling (the page on
localhost; ``SEKUNDANT_WEBAPP_URL`` names its public HTTPS address for the chat's buttons)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import threading
from contextlib import AbstractContextManager
from typing import Any
from urllib.parse import urlencode

from engine.usecases import Deps
from handlers.webapp import initdata
from handlers.webapp.api import WebApp
from handlers.webapp.server import LocalBackend, Served, serve

log = logging.getLogger("sekundant.webapp")

DEFAULT_PORT = 8080  # make run's page: http://127.0.0.1:8080/app/ (SEKUNDANT_WEBAPP_PORT)


def for_harness(h: Any, token: str, lang: str) -> tuple[Served, threading.RLock]:
    """Serve the page of a :class:`~handlers.telegram.harness.Harness` (the sandbox) on a free
    localhost port; the chat's buttons open it. Returns the server and the lock the sandbox
    holds while it processes a line (the harness's loop serves one caller at a time)."""
    backend = LocalBackend(h.deps, h.app, token, h.runner.run)
    served = serve(WebApp(backend, default_lang=lang), lock=backend.lock)
    h.services.webapp_url = served.url
    return served, backend.lock


def for_sandbox(
    h: Any, token: str, lang: str, *, serve: bool
) -> tuple[Served | None, AbstractContextManager[Any]]:
    """The sandbox's page and lock (:func:`for_harness`); none in the demo."""
    if not serve:
        return None, contextlib.nullcontext()
    return for_harness(h, token, lang)


def print_link(sb: Any, url: str | None, token: str) -> None:
    """Print, in the sandbox ``sb``, the page's link signed for its current user."""
    if sb.page is None:
        print("the order page is not served in the demo", file=sb.out)
        return
    link = signed_link(url or sb.page.url, sb.user, token, sb.h.deps.clock())
    print(f"--- the order page as {sb.who}, open in a browser: {link}", file=sb.out)
    print("--- (after sealing there, press Enter here to see the chats)", file=sb.out)


def signed_link(url: str, user: dict[str, Any], token: str, now: float) -> str:
    """``url`` opened as ``user``: Telegram's ``#tgWebAppData`` fragment with ``initData``
    signed by the bot's token, as a Telegram client would pass it (the page reads it when no
    Telegram script is there: a desktop browser)."""
    who: dict[str, object] = {
        k: user[k] for k in ("id", "first_name", "language_code") if k in user
    }
    data = initdata.sign(who, token, int(now))
    return f"{url}#{urlencode({'tgWebAppData': data})}"


def for_polling(deps: Deps, app: Any, token: str, lang: str) -> Served | None:
    """Serve the page next to the long-polling bot (call from its loop: ``post_init``)."""
    port = int(os.environ.get("SEKUNDANT_WEBAPP_PORT") or DEFAULT_PORT)
    backend = LocalBackend.on_loop(deps, app, token, asyncio.get_running_loop())
    try:
        served = serve(WebApp(backend, default_lang=lang), port=port)
    except OSError as exc:
        log.warning("the order page could not listen on port %s: %s", port, exc)
        return None
    log.info(
        "order page on %s (set SEKUNDANT_WEBAPP_URL to its public HTTPS address for the "
        "chat's buttons)",
        served.url,
    )
    return served
