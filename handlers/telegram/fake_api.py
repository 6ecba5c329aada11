"""An in-process fake of the Telegram Bot API, plugged into PTB as its request class.

It keeps chats and their messages, assigns message ids, applies edits, answers getMe locally,
records every call, and behaves like Telegram where it matters to the bot:

- a private chat with a user who never pressed Start (or blocked the bot) answers sendMessage
  with 403 ``Forbidden: bot can't initiate conversation with a user``;
- an edit that changes nothing answers 400 ``message is not modified``;
- callback data over 64 bytes, texts over 4096 characters and captions over 1024 answer 400
  (counted as Telegram counts them: after the HTML entities are parsed, in UTF-16 units);
- ``sendPhoto`` and ``sendDocument`` keep the uploaded bytes (``photos``, ``documents``);
- ``editMessageMedia`` replaces a message's photo and caption, and adds a photo to a text
  message (Bot API 10.0: "or to add media to text messages"); a photo's text is its caption:
  ``editMessageText`` on it answers 400 ``there is no text in the message to edit``, as
  ``editMessageCaption`` on a text message answers ``there is no caption in the message to
  edit``;
- ``getFile`` and the file download serve ``files`` (a user's upload, :meth:`add_file`, and
  every document the bot sent), so a bot can read a file a user sends;
- scripted failures (``fail_next``) simulate 429 ``RetryAfter`` and other errors.

Used by the tests (as the recording request), the offline sandbox and the benchmark, so all
three run the same :class:`telegram.ext.Application` as production.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from telegram.request import BaseRequest, RequestData

from handlers.telegram.fake_media import (
    MAX_CAPTION,
    MAX_TEXT,
    Call,
    FakeChat,
    FakeDocument,
    FakeMessage,
    MediaMethods,
    _ApiError,
    shown_length,
)

__all__ = [
    "BOT_ID",
    "BOT_INFO",
    "BOT_USERNAME",
    "MAX_CAPTION",
    "MAX_TEXT",
    "Call",
    "FakeBotAPI",
    "FakeChat",
    "FakeDocument",
    "FakeMessage",
    "shown_length",
]

BOT_ID = 7000000001
BOT_USERNAME = "sekundant_bot"
BOT_INFO: dict[str, Any] = {
    "id": BOT_ID,
    "is_bot": True,
    "first_name": "Sekundant",
    "username": BOT_USERNAME,
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
}


class FakeBotAPI(MediaMethods, BaseRequest):
    """The fake Bot API server, as a PTB request object (no sockets)."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock  # what Telegram stamps a message's ``date`` with (whole seconds)
        self.calls: list[Call] = []
        self.chats: dict[int, FakeChat] = {}
        self.users: dict[int, dict[str, Any]] = {}
        self.started: set[int] = set()  # users who pressed Start and did not block the bot
        self.admins: dict[int, dict[int, str]] = {}  # chat -> user -> status
        self.alerts: list[tuple[int, str, bool]] = []  # (user, text, show_alert)
        self.fail_next: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        self._next_id = 1000
        self._callback_owner: dict[str, int] = {}
        self.files: dict[str, bytes] = {}  # file id -> content (getFile and its download)
        self.menu_button: Any = None  # the last setChatMenuButton

    # --- the world ---

    def add_user(self, user: dict[str, Any], *, started: bool = True) -> None:
        self.users[int(user["id"])] = user
        self.chat(int(user["id"]), "private", user.get("first_name", ""))
        if started:
            self.started.add(int(user["id"]))

    def add_file(self, content: bytes) -> str:
        """Keep a file as Telegram's servers would; its file id."""
        file_id = f"file{self.new_message_id()}"
        self.files[file_id] = content
        return file_id

    def chat(self, chat_id: int, kind: str = "supergroup", title: str = "") -> FakeChat:
        if chat_id not in self.chats:
            self.chats[chat_id] = FakeChat(chat_id, kind, title)
        return self.chats[chat_id]

    def chat_json(self, chat_id: int) -> dict[str, Any]:
        c = self.chat(chat_id)
        if c.type == "private":
            return {"id": c.id, "type": "private", "first_name": c.title}
        return {"id": c.id, "type": c.type, "title": c.title}

    def new_message_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def message(self, chat_id: int, message_id: int) -> FakeMessage | None:
        for m in self.chat(chat_id).messages:
            if m.message_id == message_id:
                return m
        return None

    def message_json(self, m: FakeMessage) -> dict[str, Any]:
        out: dict[str, Any] = {
            "message_id": m.message_id,
            "date": self._date(m),
            "chat": self.chat_json(m.chat_id),
        }
        if m.photo is None:
            out["text"] = m.text
        else:  # a photo: its text is its caption
            out["caption"] = m.text
            out["photo"] = [
                {"file_id": f"ph{m.message_id}", "file_unique_id": f"u{m.message_id}",
                 "width": 1, "height": 1}
            ]  # fmt: skip
        if m.from_bot:
            out["from"] = {k: BOT_INFO[k] for k in ("id", "is_bot", "first_name", "username")}
        elif m.user_id is not None:
            out["from"] = self.users[m.user_id]
        if m.reply_markup:
            out["reply_markup"] = m.reply_markup
        if m.edits:
            out["edit_date"] = int(self.clock())
        return out

    def _date(self, m: FakeMessage) -> int:
        if not m.date:
            m.date = int(self.clock())
        return m.date

    def note_callback(self, query_id: str, user_id: int) -> None:
        self._callback_owner[query_id] = user_id

    def calls_of(self, method: str) -> list[Call]:
        return [c for c in self.calls if c.method == method]

    # --- BaseRequest ---

    @property
    def read_timeout(self) -> float | None:
        return 1.0

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = None,
        write_timeout: Any = None,
        connect_timeout: Any = None,
        pool_timeout: Any = None,
    ) -> tuple[int, bytes]:
        if "/file/bot" in url:  # a file download (getFile's file_path)
            content = self.files.get(url.rsplit("/", 1)[-1])
            return (200, content) if content is not None else (404, b"Not Found")
        api = url.rsplit("/", 1)[-1]
        params = dict(request_data.parameters) if request_data else {}
        if request_data is not None and request_data.contains_files:
            params["_files"] = request_data.multipart_data
        self.calls.append(Call(api, params))
        scripted = self.fail_next.get(api)
        if scripted:
            code, body = scripted.pop(0)
            return code, json.dumps({"ok": False, "error_code": code, **body}).encode()
        try:
            result = self._handle(api, params)
        except _ApiError as err:
            return err.code, json.dumps(
                {"ok": False, "error_code": err.code, "description": err.description}
            ).encode()
        return 200, json.dumps({"ok": True, "result": result}).encode()

    # --- methods ---

    def _handle(self, api: str, p: dict[str, Any]) -> Any:
        if api == "getMe":
            return BOT_INFO
        if api == "getChat":
            return self.chat_json(int(p["chat_id"]))
        if api == "getFile":
            file_id = str(p["file_id"])
            if file_id not in self.files:
                raise _ApiError(400, "Bad Request: invalid file_id")
            size = len(self.files[file_id])
            return {"file_id": file_id, "file_unique_id": file_id, "file_size": size,
                    "file_path": f"documents/{file_id}"}  # fmt: skip
        if api == "sendMessage":
            return self._send(p)
        if api == "sendDocument":
            return self._send_document(p)
        if api == "sendPhoto":
            return self._send_photo(p)
        if api == "editMessageText":
            found = self.message(int(p["chat_id"]), int(p["message_id"]))
            if found is not None and found.photo is not None:
                raise _ApiError(400, "Bad Request: there is no text in the message to edit")
            return self._edit(p, text=str(p["text"]))
        if api == "editMessageCaption":
            return self._edit_caption(p)
        if api == "editMessageMedia":
            return self._edit_media(p)
        if api == "editMessageReplyMarkup":
            return self._edit(p, text=None)
        if api == "answerCallbackQuery":
            owner = self._callback_owner.get(str(p.get("callback_query_id")), 0)
            if p.get("text"):
                self.alerts.append((owner, str(p["text"]), bool(p.get("show_alert"))))
            return True
        if api == "getChatMember":
            status = self.admins.get(int(p["chat_id"]), {}).get(int(p["user_id"]), "member")
            user = self.users.get(
                int(p["user_id"]), {"id": int(p["user_id"]), "is_bot": False, "first_name": "?"}
            )
            member: dict[str, Any] = {"status": status, "user": user}
            if status in ("creator", "administrator"):  # the fields Telegram always sends
                member["is_anonymous"] = False
            if status == "administrator":
                rights = ("can_be_edited can_manage_chat can_delete_messages can_manage_video_chats"
                          " can_restrict_members can_promote_members can_change_info"
                          " can_invite_users can_post_stories can_edit_stories"
                          " can_delete_stories")  # fmt: skip
                member |= dict.fromkeys(rights.split(), False)
            return member
        if api == "setChatMenuButton":
            button = p.get("menu_button")
            self.menu_button = json.loads(button) if isinstance(button, str) else button
            return True
        if api in ("setMyCommands", "deleteMyCommands", "deleteWebhook", "setWebhook"):
            return True
        if api == "deleteMessage":
            chat = self.chat(int(p["chat_id"]))
            self._check_delete(chat, int(p["message_id"]))
            chat.messages = [m for m in chat.messages if m.message_id != int(p["message_id"])]
            return True
        raise _ApiError(400, f"Bad Request: method {api} is not faked")

    def _check_delete(self, chat: FakeChat, message_id: int) -> None:
        """In a group, another user's message goes only for an admin bot (Telegram's rule;
        ``admins[chat][BOT_ID] = "administrator"`` grants it)."""
        m = next((m for m in chat.messages if m.message_id == message_id), None)
        bot_status = self.admins.get(chat.id, {}).get(BOT_ID)
        if (
            m is not None
            and chat.type != "private"
            and not m.from_bot
            and bot_status != "administrator"
        ):
            raise _ApiError(400, "Bad Request: message can't be deleted")

    def _check_markup(self, markup: Any, chat_id: int) -> dict[str, Any] | None:
        if not markup:
            return None
        if isinstance(markup, str):
            markup = json.loads(markup)
        for row in markup.get("inline_keyboard", []):
            for b in row:
                if len(str(b.get("callback_data", "")).encode()) > 64:
                    raise _ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
                if "web_app" in b and (
                    chat_id < 0
                    or not str(b["web_app"]["url"]).startswith(
                        ("https://", "http://127.0.0.1")  # Telegram: HTTPS; the sandbox: local
                    )
                ):
                    raise _ApiError(400, "Bad Request: BUTTON_TYPE_INVALID")
        return dict(markup)

    def _send(self, p: dict[str, Any]) -> dict[str, Any]:
        chat_id = int(p["chat_id"])
        text = str(p["text"])
        if len(text) > MAX_TEXT:
            raise _ApiError(400, "Bad Request: message is too long")
        chat = self.chat(chat_id, "private" if chat_id > 0 else "supergroup")
        if chat.type == "private" and chat_id not in self.started:
            raise _ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        m = FakeMessage(
            self.new_message_id(),
            chat_id,
            text,
            reply_markup=self._check_markup(p.get("reply_markup"), chat_id),
        )
        chat.messages.append(m)
        return self.message_json(m)

    def _edit(self, p: dict[str, Any], text: str | None) -> dict[str, Any]:
        chat_id = int(p["chat_id"])
        m = self.message(chat_id, int(p["message_id"]))
        if m is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        markup = self._check_markup(p.get("reply_markup"), chat_id)
        new_text = m.text if text is None else text
        if shown_length(new_text, p.get("parse_mode")) > MAX_TEXT:
            raise _ApiError(400, "Bad Request: message is too long")
        if new_text == m.text and markup == m.reply_markup:
            raise _ApiError(400, "Bad Request: message is not modified")
        m.text, m.reply_markup = new_text, markup
        m.edits += 1
        return self.message_json(m)
