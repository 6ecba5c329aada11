"""The fake Bot API's messages, files and media (split from :mod:`handlers.telegram.fake_api`,
which re-exports them): what a chat holds, Telegram's length limits as Telegram counts them,
and the upload and media methods (sendPhoto, sendDocument, editMessageCaption,
editMessageMedia)."""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

MAX_TEXT = 4096
MAX_CAPTION = 1024
_TAG = re.compile(r"<[^>]+>")


def shown_length(text: str, parse_mode: Any = "HTML") -> int:
    """The length Telegram checks against its limits: the text after its HTML entities are
    parsed (tags dropped, ``&lt;`` one character), in UTF-16 code units."""
    if str(parse_mode or "").upper() == "HTML":
        text = html.unescape(_TAG.sub("", text))
    return len(text.encode("utf-16-le")) // 2


@dataclass
class FakeMessage:
    """A message as a chat shows it now (edits applied)."""

    message_id: int
    chat_id: int
    text: str
    from_bot: bool = True
    user_id: int | None = None
    reply_markup: dict[str, Any] | None = None
    edits: int = 0
    document: FakeDocument | None = None
    photo: bytes | None = None  # a sendPhoto's image; ``text`` is its caption
    date: int = 0  # Telegram's date (whole seconds), set when the message is first returned

    @property
    def buttons(self) -> list[dict[str, Any]]:
        """Every inline button, row by row, flattened (the sandbox numbers them)."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [b for row in rows for b in row]


@dataclass
class FakeDocument:
    """A file the bot sent (sendDocument): its name and bytes."""

    file_name: str
    content: bytes
    mime_type: str = ""


@dataclass
class FakeChat:
    id: int
    type: str  # private | group | supergroup
    title: str = ""
    messages: list[FakeMessage] = field(default_factory=list)


@dataclass
class Call:
    method: str
    params: dict[str, Any]


class MediaMethods:
    """The fake's upload and media methods (mixed into ``FakeBotAPI``, which provides these
    attributes and the message helpers)."""

    files: dict[str, bytes]
    started: set[int]

    def chat(self, chat_id: int, kind: str = "supergroup", title: str = "") -> FakeChat:
        raise NotImplementedError

    def message(self, chat_id: int, message_id: int) -> FakeMessage | None:
        raise NotImplementedError

    def message_json(self, m: FakeMessage) -> dict[str, Any]:
        raise NotImplementedError

    def new_message_id(self) -> int:
        raise NotImplementedError

    def _check_markup(self, markup: Any, chat_id: int) -> dict[str, Any] | None:
        raise NotImplementedError

    def _upload(self, p: dict[str, Any], field: str) -> tuple[int, tuple[Any, bytes, Any]]:
        """The chat and the (name, bytes, mime) of an upload's ``field`` (multipart, as PTB
        sends files), checked as Telegram checks a message to that chat."""
        chat_id = int(p["chat_id"])
        chat = self.chat(chat_id, "private" if chat_id > 0 else "supergroup")
        if chat.type == "private" and chat_id not in self.started:
            raise _ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        files = p.get("_files") or {}
        ref = str(p.get(field, "")).removeprefix("attach://")
        ref = ref if ref in files else field
        if ref not in files:
            raise _ApiError(400, f"Bad Request: there is no {field} in the request")
        name, content, mime = files[ref][:3]
        if hasattr(content, "read"):
            content = content.read()
        return chat_id, (name, bytes(content), mime)

    def _send_document(self, p: dict[str, Any]) -> dict[str, Any]:
        """A document upload: kept as a message whose text is the caption."""
        chat_id, (name, content, mime) = self._upload(p, "document")
        doc = FakeDocument(str(name), content, str(mime or ""))
        m = FakeMessage(self.new_message_id(), chat_id, str(p.get("caption", "")), document=doc)
        m.reply_markup = self._check_markup(p.get("reply_markup"), chat_id)
        self.chat(chat_id).messages.append(m)
        out = self.message_json(m)
        self.files[f"doc{m.message_id}"] = content
        out["document"] = {
            "file_id": f"doc{m.message_id}",
            "file_unique_id": f"u{m.message_id}",
            "file_name": doc.file_name,
        }
        return out

    def _send_photo(self, p: dict[str, Any]) -> dict[str, Any]:
        """A photo upload: kept as a message whose text is the caption (at most 1024
        characters, as Telegram's limit) and whose ``photo`` is the image."""
        caption = str(p.get("caption", ""))
        if shown_length(caption, p.get("parse_mode")) > MAX_CAPTION:
            raise _ApiError(400, "Bad Request: message caption is too long")
        chat_id, (_, content, _) = self._upload(p, "photo")
        m = FakeMessage(
            self.new_message_id(),
            chat_id,
            caption,
            photo=content,
            reply_markup=self._check_markup(p.get("reply_markup"), chat_id),
        )
        self.chat(chat_id).messages.append(m)
        return self.message_json(m)

    def _edit_caption(self, p: dict[str, Any]) -> dict[str, Any]:
        """editMessageCaption: a photo's caption (and keyboard); a text message has none."""
        m = self.message(int(p["chat_id"]), int(p["message_id"]))
        if m is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        if m.photo is None:
            raise _ApiError(400, "Bad Request: there is no caption in the message to edit")
        caption = str(p.get("caption", ""))
        if shown_length(caption, p.get("parse_mode")) > MAX_CAPTION:
            raise _ApiError(400, "Bad Request: message caption is too long")
        markup = self._check_markup(p.get("reply_markup"), m.chat_id)
        if caption == m.text and markup == m.reply_markup:
            raise _ApiError(400, "Bad Request: message is not modified")
        m.text, m.reply_markup = caption, markup
        m.edits += 1
        return self.message_json(m)

    def _edit_media(self, p: dict[str, Any]) -> dict[str, Any]:
        """editMessageMedia with a photo: the message (a photo, or a text message it adds the
        photo to) shows the new image and caption; the keyboard is the request's."""
        m = self.message(int(p["chat_id"]), int(p["message_id"]))
        if m is None:
            raise _ApiError(400, "Bad Request: message to edit not found")
        media = p.get("media")
        media = json.loads(media) if isinstance(media, str) else dict(media or {})
        if media.get("type") != "photo":
            raise _ApiError(400, f"Bad Request: media type {media.get('type')} is not faked")
        caption = str(media.get("caption", ""))
        if shown_length(caption, media.get("parse_mode")) > MAX_CAPTION:
            raise _ApiError(400, "Bad Request: message caption is too long")
        files = p.get("_files") or {}
        ref = str(media.get("media", "")).removeprefix("attach://")
        ref = ref if ref in files else "media"  # PTB uploads the new photo as ``media``
        if ref not in files:
            raise _ApiError(400, "Bad Request: there is no photo in the request")
        content = files[ref][1]
        content = bytes(content.read() if hasattr(content, "read") else content)
        m.photo, m.text = content, caption
        m.reply_markup = self._check_markup(p.get("reply_markup"), m.chat_id)
        m.edits += 1
        return self.message_json(m)

    def photos(self, chat_id: int) -> list[bytes]:
        """The images sent to ``chat_id``, oldest first."""
        return [m.photo for m in self.chat(chat_id).messages if m.photo is not None]

    def documents(self, chat_id: int) -> list[FakeDocument]:
        """The files sent to ``chat_id``, oldest first."""
        return [m.document for m in self.chat(chat_id).messages if m.document is not None]


class _ApiError(Exception):
    def __init__(self, code: int, description: str) -> None:
        super().__init__(description)
        self.code = code
        self.description = description
