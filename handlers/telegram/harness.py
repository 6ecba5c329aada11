"""Drive the real Application against the fake Bot API: build updates the way Telegram does,
feed them through ``process_update`` on one event loop, and read what each chat shows.

Used by the tests, the offline sandbox and the benchmark, so all of them exercise exactly the
production wiring (:func:`handlers.telegram.app.build_application`).
"""

from __future__ import annotations

import asyncio
import html
import itertools
import re
from collections.abc import Callable
from typing import Any

from telegram import Update

from engine.beacon import Beacon
from engine.ports import MatchRepository
from engine.usecases import CountingEntropy, Deps, Entropy
from handlers.telegram.app import build_application
from handlers.telegram.fake_api import BOT_USERNAME, FakeBotAPI, FakeMessage
from handlers.telegram.shared.context import Services, services

TOKEN = "7000000001:AAH-sandbox-token-not-a-real-one-xx"
GROUP_ID = -1001234567890


class Harness:
    """One bot, one fake Telegram, one event loop."""

    def __init__(
        self,
        repo: MatchRepository | None = None,
        *,
        clock: Callable[[], float] | None = None,
        entropy: Entropy | None = None,
        default_lang: str = "ru",
        beacon: Beacon | None = None,
    ) -> None:
        from infra.memory import MemoryRepository

        self.now = 1_764_440_000.0
        self.deps = Deps(
            repo=repo or MemoryRepository(),
            clock=clock or (lambda: self.now),
            entropy=entropy or CountingEntropy("m"),
            beacon=beacon,
        )
        self.api = FakeBotAPI()
        self.api.clock = self.deps.clock  # Telegram dates its messages by the same clock
        self.app = build_application(self.deps, TOKEN, request=self.api, default_lang=default_lang)
        self.runner = asyncio.Runner()
        self.runner.run(self.app.initialize())
        self._update_ids = itertools.count(900_000_100)
        self._cbq = itertools.count(1)
        self.slept: list[float] = []

        async def no_sleep(seconds: float) -> None:
            self.slept.append(seconds)

        self.services.sleep = no_sleep

    @property
    def services(self) -> Services:
        svc: Services = self.app.bot_data["sekundant"]
        return svc

    def close(self) -> None:
        self.runner.run(self.app.shutdown())
        self.runner.close()

    # --- the world ---

    def user(
        self,
        uid: int,
        first_name: str,
        *,
        last_name: str = "",
        lang: str = "ru",
        username: str = "",
        started: bool = True,
    ) -> dict[str, Any]:
        user: dict[str, Any] = {
            "id": uid,
            "is_bot": False,
            "first_name": first_name,
            "language_code": lang,
        }
        if last_name:
            user["last_name"] = last_name
        if username:
            user["username"] = username
        self.api.add_user(user, started=started)
        return user

    def group(self, chat_id: int = GROUP_ID, title: str = "Дуэльный клуб") -> int:
        self.api.chat(chat_id, "supergroup", title)
        return chat_id

    # --- updates ---

    def feed(self, update: dict[str, Any]) -> None:
        """Process one raw update (a dict shaped like Telegram's JSON)."""
        self.runner.run(self.app.process_update(Update.de_json(update, self.app.bot)))

    def say(
        self, user: dict[str, Any], chat_id: int, text: str, *, reply_to: FakeMessage | None = None
    ) -> None:
        """``user`` writes ``text`` in ``chat_id`` (commands get their entity, as in Telegram),
        optionally replying to ``reply_to``."""
        uid = int(user["id"])
        if chat_id == uid:
            self.api.started.add(uid)  # writing to the bot is starting it
        msg = FakeMessage(self.api.new_message_id(), chat_id, text, from_bot=False, user_id=uid)
        self.api.chat(chat_id).messages.append(msg)
        body = self.api.message_json(msg)
        if reply_to is not None:
            body["reply_to_message"] = self.api.message_json(reply_to)
        if text.startswith("/"):
            length = len(text.split(maxsplit=1)[0])
            body["entities"] = [{"offset": 0, "length": length, "type": "bot_command"}]
        self.feed({"update_id": next(self._update_ids), "message": body})

    def upload(
        self, user: dict[str, Any], chat_id: int, name: str, content: bytes, caption: str = ""
    ) -> None:
        """``user`` sends a file (a document message, with ``caption``) in ``chat_id``."""
        uid = int(user["id"])
        if chat_id == uid:
            self.api.started.add(uid)
        file_id = self.api.add_file(content)
        msg = FakeMessage(self.api.new_message_id(), chat_id, caption, from_bot=False, user_id=uid)
        self.api.chat(chat_id).messages.append(msg)
        body = self.api.message_json(msg)
        del body["text"]
        body["document"] = {"file_id": file_id, "file_unique_id": file_id, "file_name": name,
                            "file_size": len(content)}  # fmt: skip
        if caption:
            body["caption"] = caption
            if caption.startswith("/"):
                length = len(caption.split(maxsplit=1)[0])
                body["caption_entities"] = [{"offset": 0, "length": length, "type": "bot_command"}]
        self.feed({"update_id": next(self._update_ids), "message": body})

    def press(self, user: dict[str, Any], message: FakeMessage, index: int) -> None:
        """``user`` presses button ``index`` (0-based, row by row) of ``message``. A URL deep
        link to the bot becomes ``/start <payload>`` in the private chat, as a client does."""
        button = message.buttons[index]
        if "url" in button:
            m = re.search(r"[?&]start=([A-Za-z0-9_-]+)", button["url"])
            if m and BOT_USERNAME in button["url"]:
                self.say(user, int(user["id"]), f"/start {m.group(1)}")
            return
        self.click(user, message, button["callback_data"])

    def click(self, user: dict[str, Any], message: FakeMessage, data: str) -> None:
        """A callback query with arbitrary ``data`` (forged presses in tests)."""
        qid = f"q{next(self._cbq)}"
        self.api.note_callback(qid, int(user["id"]))
        self.feed(
            {
                "update_id": next(self._update_ids),
                "callback_query": {
                    "id": qid,
                    "from": user,
                    "message": self.api.message_json(message),
                    "chat_instance": "1",
                    "data": data,
                },
            }
        )

    def sweep(self) -> list[Any]:
        """One turn-clock sweep at ``self.now`` (what the timer and the Lambda sweeper do)."""
        from handlers.telegram.features.clock import sweep_once

        return self.runner.run(sweep_once(self.app))

    # --- reading ---

    def last(self, chat_id: int, *, with_buttons: bool = False) -> FakeMessage:
        msgs = [m for m in self.api.chat(chat_id).messages if m.from_bot]
        if with_buttons:
            msgs = [m for m in msgs if m.buttons]
        return msgs[-1]

    def texts(self, chat_id: int) -> list[str]:
        return [m.text for m in self.api.chat(chat_id).messages if m.from_bot]

    def reveals(self, chat_id: int) -> list[str]:
        """:meth:`texts`, a picture's caption joined with the message after it: a reveal as
        one text (the story as the picture's caption, the details and the proof after it)."""
        msgs = [m for m in self.api.chat(chat_id).messages if m.from_bot]
        out = []
        for i, m in enumerate(msgs):
            if i and msgs[i - 1].photo is not None:
                continue  # joined to the picture before it
            nxt = msgs[i + 1].text if m.photo is not None and i + 1 < len(msgs) else ""
            out.append(m.text + ("\n\n" + nxt if nxt else ""))
        return out

    def find_button(self, message: FakeMessage, needle: str) -> int:
        for i, b in enumerate(message.buttons):
            if needle in b["text"]:
                return i
        raise LookupError(f"no button {needle!r} in {[b['text'] for b in message.buttons]}")

    def press_text(self, user: dict[str, Any], message: FakeMessage, needle: str) -> None:
        self.press(user, message, self.find_button(message, needle))


def plain(text: str) -> str:
    """HTML message text as a client shows it (tags dropped, entities unescaped)."""
    return html.unescape(re.sub(r"</?(b|i|code|pre|a)( [^>]*)?>", "", text))


__all__ = ["GROUP_ID", "TOKEN", "Harness", "plain", "services"]
