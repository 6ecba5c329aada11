"""Realistic payloads the tests feed in (``tests/fixtures/``): Telegram Bot API updates and API
Gateway HTTP API (payload 2.0) events. They live in the repository, so a fresh clone tests alone.

- ``telegram/``: a deep-link ``/start`` in private, a group command with ``@botname``, a callback
  query on a group message, a typed order, a reply to the bot in private, an edited message, the
  bot added to a group and the bot blocked in private (``my_chat_member``). Alice writes in
  Russian; Bob has HTML in his name, which every message must escape.
- ``aws/``: the HTTP API event as ``sam local generate-event apigateway http-api-proxy`` makes it
  (base64 body), and one as API Gateway delivers a Telegram webhook (plain JSON body).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def load(name: str) -> dict[str, Any]:
    """The fixture ``name`` (``telegram/x.json``; a bare ``x`` means ``telegram/x.json``)."""
    if "/" not in name:
        name = f"telegram/{name}.json"
    data: dict[str, Any] = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    return data
