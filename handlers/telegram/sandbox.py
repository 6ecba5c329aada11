"""The offline sandbox: the real Application against the fake Bot API, in a terminal.

One person plays the GM and the players (``:users N`` adds players, up to a 12-dragon battle).
Lines starting with ``:`` drive the sandbox (switch user and chat, press buttons by number on
the newest message or on any message by its number, unfold a folded block, show a chat); any
other line is a message typed by the current user in the current chat. After every action the
sandbox prints what changed in every chat: new messages and edits, with their buttons numbered
and their expandable blocks folded, as a phone shows them. Pictures the bot sends (the
reveals') are saved in a folder of this run (:func:`pictures_dir`), never over an earlier
run's, and their path printed. ``--lang`` makes every sandbox user (the GM too) speak it.

``--demo`` plays a whole pistol duel without input and prints each chat's transcript.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from engine.match import Phase
from handlers.telegram.fake_api import FakeMessage
from handlers.telegram.harness import GROUP_ID, TOKEN, Harness, plain
from handlers.telegram.i18n import Tr
from handlers.telegram.sandbox_fold import folded, unfolded

HELP = """Sandbox commands (anything else is sent as a message):
  :as <gm|alice|bob|…>   act as this user        :in <group|private>  switch chat
  :users N               N players besides the GM (adds dave, erin, … up to 11)
  :press N  (or just N)  press button N of the latest message with buttons in this chat
  :press #M N            press button N of message #M of this chat
  :unfold M              message #M of this chat with its folded blocks (▸) open
  :show                  this chat's transcript  :chats  every chat's last message
  :save DIR              write every file and picture the bot sent (dossier JSON, Markdown) to DIR
  :page                  a link to the order page as this user, for a desktop browser
  :help                  this text               :quit   leave (so does end of input)
Try: /duel (as gm, in the group), then press the buttons."""


def pictures_dir() -> Path:
    """A new folder for a sandbox run's pictures, under ``sekundant-sandbox`` in the temp
    directory and named after the run's start (then a few random letters): a run never
    overwrites an earlier run's pictures."""
    base = Path(tempfile.gettempdir()) / "sekundant-sandbox"
    base.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=time.strftime("%Y%m%d-%H%M%S-"), dir=base))


# Players ``:users`` adds after alice and bob: (key, first name); ids 400000001, 400000002 …
MORE_PLAYERS = (
    ("dave", "Dave"),
    ("erin", "Эрин"),
    ("frank", "Frank"),
    ("grace", "Грейс"),
    ("heidi", "Heidi"),
    ("ivan", "Иван"),
    ("judy", "Judy"),
    ("mallory", "Mallory"),
    ("niaj", "Нияз"),
)


class Sandbox:
    def __init__(
        self,
        out: TextIO | None = None,
        *,
        lang: str = "ru",
        pictures: Path | None = None,
        demo: bool = True,
        user_lang: str | None = None,
    ) -> None:
        """``lang``: the bot's default language; ``user_lang`` (``--lang``): the language of
        every sandbox user, the GM included (else the GM and Bob speak English, Алиса
        Russian)."""
        if demo:  # counting seeds and salts, a clock that ticks 10 ms a reading: the same
            # transcript every run, and times in order (verify's time checks mean something)
            import itertools

            ticks = itertools.count()
            self.h = Harness(default_lang=lang, clock=lambda: 1_764_440_000.0 + next(ticks) / 100)
        else:  # an interactive sandbox keeps its secrets as live play does, beacon included
            import time

            from engine.usecases import SystemEntropy
            from infra.beacon import LocalBeacon

            self.h = Harness(
                default_lang=lang,
                entropy=SystemEntropy(),
                beacon=LocalBeacon(),
                clock=time.time,
            )
        self.out = out if out is not None else sys.stdout  # read now: a test may swap it
        self._pictures = pictures  # None: a folder of this run's own, made at its first picture
        self.user_lang = user_lang
        en, ru = user_lang or "en", user_lang or "ru"
        self.users = {
            "gm": self.h.user(333333333, "Carol", lang=en, username="carol_gm"),
            "alice": self.h.user(111111111, "Алиса", lang=ru, username="alice_duelist"),
            "bob": self.h.user(222222222, "Bob", last_name="<b>Smith</b>", lang=en),
        }
        self.group = self.h.group(GROUP_ID, "Дуэльный клуб")
        from handlers.webapp.local import for_sandbox  # the order page on localhost

        self.page, self.lock = for_sandbox(self.h, TOKEN, lang, serve=not demo)
        self.who = "gm"
        self.where = "group"
        self._seen: dict[tuple[int, int], tuple[str, Any]] = {}

    # --- state ---

    @property
    def user(self) -> dict[str, Any]:
        return self.users[self.who]

    @property
    def chat_id(self) -> int:
        return self.group if self.where == "group" else int(self.user["id"])

    def chat_name(self, chat_id: int) -> str:
        if chat_id == self.group:
            return "group"
        for name, u in self.users.items():
            if u["id"] == chat_id:
                return f"{name} (private)"
        return str(chat_id)

    def prompt(self) -> str:
        return f"[{self.who}@{self.where}]> "

    # --- output ---

    def show_message(self, m: FakeMessage, tag: str = "") -> None:
        head = f"--- {self.chat_name(m.chat_id)} #{m.message_id}{tag}"
        print(head, file=self.out)
        if m.photo is not None:
            print(f"[picture: {self.save_picture(m)}]", file=self.out)
        print(plain(unfolded(folded(m.text, m.message_id))), file=self.out)
        if m.document is not None:  # a file or picture (e.g. the odds chart): name and size
            size = len(m.document.content)
            print(f"   [{m.document.file_name or 'file'}: {size} bytes]", file=self.out)
        for i, b in enumerate(m.buttons, 1):
            kind = " (link)" if "url" in b else ""
            print(f"   [{i}] {b['text']}{kind}", file=self.out)

    @property
    def pictures(self) -> Path:
        """The folder of this run's pictures (made when the first picture is saved)."""
        if self._pictures is None:
            self._pictures = pictures_dir()
        return self._pictures

    def save_picture(self, m: FakeMessage) -> Path:
        """Save a photo the bot sent (``<chat>-<message>.png``) and return its path."""
        assert m.photo is not None
        self.pictures.mkdir(parents=True, exist_ok=True)
        path = self.pictures / f"{m.chat_id}-{m.message_id}.png"
        path.write_bytes(m.photo)
        return path

    def flush(self) -> None:
        """Print every bot message that is new or changed since the last flush."""
        for chat in self.h.api.chats.values():
            for m in chat.messages:
                if not m.from_bot:
                    continue
                key = (m.chat_id, m.message_id)
                snap = (m.text, m.reply_markup)
                old = self._seen.get(key)
                if old == snap:
                    continue
                self._seen[key] = snap
                self.show_message(m, "" if old is None else " (edited)")
        while self.h.api.alerts:
            uid, text, alert = self.h.api.alerts.pop(0)
            who = next((n for n, u in self.users.items() if u["id"] == uid), uid)
            print(f"--- {'alert' if alert else 'toast'} for {who}: {text}", file=self.out)

    # --- input ---

    def handle(self, line: str) -> bool:
        """One input line; False means quit (the order page waits meanwhile)."""
        with self.lock:
            return self._handle(line)

    def _handle(self, line: str) -> bool:
        line = line.strip()
        if not line:
            return True
        if line.isdigit():
            line = f":press {line}"
        if line.startswith(":"):
            cmd, _, arg = line[1:].partition(" ")
            arg = arg.strip()
            if cmd in ("quit", "q", "exit"):
                return False
            if cmd == "help":
                print(HELP, file=self.out)
            elif cmd == "as" and arg in self.users:
                self.who = arg
            elif cmd == "in" and arg in ("group", "private"):
                self.where = arg
            elif cmd == "press" and arg.isdigit():
                self.press(int(arg))
            elif cmd == "press" and re.fullmatch(r"#?\d+ +\d+", arg):
                number, button = arg.lstrip("#").split()
                self.press(int(button), message=int(number))
            elif cmd == "unfold" and arg.lstrip("#").isdigit():
                self.unfold(int(arg.lstrip("#")))
            elif cmd == "users" and arg.isdigit():
                self.add_players(int(arg))
            elif cmd == "show":
                for m in self.h.api.chat(self.chat_id).messages:
                    if m.from_bot:
                        self.show_message(m)
                    else:
                        print(f">>> {plain(m.text)}", file=self.out)
            elif cmd == "save" and arg:
                self.save(arg)
            elif cmd == "page":
                self.page_link(None)
            elif cmd == "chats":
                for chat in self.h.api.chats.values():
                    bots = [m for m in chat.messages if m.from_bot]
                    if bots:
                        self.show_message(bots[-1])
            else:
                print(f"unknown sandbox command {line!r}; :help lists them", file=self.out)
            return True
        self.h.say(self.user, self.chat_id, line)
        self.flush()
        return True

    def save(self, directory: str) -> list[str]:
        """Write every document (dossier JSON and Markdown) and picture the bot sent, in any
        chat, to ``directory`` (a later file with the same name gets a numbered name); returns
        the paths written."""

        target = Path(directory)
        target.mkdir(parents=True, exist_ok=True)
        written: list[str] = []
        for chat in self.h.api.chats.values():
            for m in chat.messages:
                if m.photo is not None:
                    path = target / f"{self.chat_name(m.chat_id).split()[0]}-{m.message_id}.png"
                    path.write_bytes(m.photo)
                    written.append(str(path))
                if m.document is None:
                    continue
                path = target / m.document.file_name
                n = 1
                while path.exists():
                    n += 1
                    path = target / f"{Path(m.document.file_name).stem}-{n}{path.suffix}"
                path.write_bytes(m.document.content)
                written.append(str(path))
        print(f"--- saved {len(written)} file(s) to {target}", file=self.out)
        return written

    def press(self, number: int, message: int | None = None) -> None:
        """Press button ``number`` of the newest message with buttons in this chat, or of
        message #``message`` of this chat (as a client can press an older message's)."""
        msgs = [m for m in self.h.api.chat(self.chat_id).messages if m.from_bot and m.buttons]
        if message is not None:
            msgs = [m for m in msgs if m.message_id == message]
            if not msgs:
                print(f"message #{message} of this chat has no buttons", file=self.out)
                return
        if not msgs:
            print("no buttons in this chat", file=self.out)
            return
        m = msgs[-1]
        if not 1 <= number <= len(m.buttons):
            print(f"buttons are numbered 1..{len(m.buttons)}", file=self.out)
            return
        if "web_app" in m.buttons[number - 1]:
            self.page_link(m.buttons[number - 1]["web_app"]["url"])
            return
        if "url" in m.buttons[number - 1]:
            self.where = "private"  # a deep link opens the private chat, as in a client
        self.h.press(self.user, m, number - 1)
        self.flush()

    def page_link(self, url: str | None) -> None:
        """Print the order page's link signed for the current user (a desktop browser)."""
        from handlers.webapp.local import print_link

        print_link(self, url, TOKEN)

    def unfold(self, number: int) -> None:
        """Print message #``number`` of this chat with its folded blocks open."""
        found = [m for m in self.h.api.chat(self.chat_id).messages if m.message_id == number]
        if not found:
            print(f"no message #{number} in this chat", file=self.out)
            return
        print(f"--- {self.chat_name(self.chat_id)} #{number} (unfolded)", file=self.out)
        print(plain(unfolded(found[0].text)), file=self.out)

    def add_players(self, n: int) -> None:
        """Make ``n`` players besides the GM (alice and bob are the first two; never fewer)."""
        wanted = min(n, 2 + len(MORE_PLAYERS))
        for i, (key, name) in enumerate(MORE_PLAYERS[: max(0, wanted - 2)], 1):
            if key not in self.users:
                lang = self.user_lang or ("ru" if not name.isascii() else "en")
                self.users[key] = self.h.user(400000000 + i, name, lang=lang)
        players = [k for k in self.users if k != "gm"]
        note = "" if wanted == n else f" (at most {wanted})"
        print(f"--- players{note}: {', '.join(players)}; :as NAME to act as one", file=self.out)

    def run(self, lines: Iterable[str], *, interactive: bool) -> int:
        print(HELP, file=self.out)
        if interactive:
            print(self.prompt(), end="", file=self.out, flush=True)
        for line in lines:
            if not self.handle(line):
                break
            if interactive:
                print(self.prompt(), end="", file=self.out, flush=True)
        if interactive:
            print(file=self.out)
        if self.page is not None:
            self.page.close()
        self.h.close()
        return 0


# --------------------------------------------------------------------------- demo


def demo(out: TextIO | None = None, lang: str | None = None) -> int:
    """A whole pistol duel, played through the buttons (Alice) and typed orders (Bob);
    ``lang`` (``--lang``): every user's language, the GM's too (else mixed, as in the
    interactive sandbox)."""
    sb = Sandbox(out=open_null(), lang=lang or "ru", user_lang=lang)
    out = out if out is not None else sys.stdout  # read now: a test may swap it
    h = sb.h
    play_duel(sb)
    g = sb.group
    alice, bob = sb.users["alice"], sb.users["bob"]
    for chat_id in (g, int(alice["id"]), int(bob["id"])):
        print(f"\n========== {sb.chat_name(chat_id)} ==========", file=out)
        for msg in h.api.chat(chat_id).messages:
            if msg.from_bot:
                if msg.photo is not None:
                    print(f"[picture: {sb.save_picture(msg)}]", file=out)
                print(plain(msg.text), file=out)
                labels = [b["text"] for b in msg.buttons]
                if labels:
                    print("   " + " | ".join(labels), file=out)
            else:
                print(f">>> {plain(msg.text)}", file=out)
            print(file=out)
    h.close()
    return 0


def play_duel(sb: Sandbox) -> None:
    """Play a whole pistol duel in ``sb``: Alice by buttons, Bob by typed orders."""
    h = sb.h
    gm, alice, bob = sb.users["gm"], sb.users["alice"], sb.users["bob"]
    g = sb.group
    tr = Tr(gm.get("language_code") or "en")  # the GM's buttons, in the GM's language
    h.say(gm, g, "/duel@sekundant_bot")
    h.press_text(gm, h.last(g, with_buttons=True), tr("ruleset.pistol"))
    lobby = h.last(g, with_buttons=True)
    for player in (alice, bob):
        h.press(player, lobby, 0)  # the Join deep link
    h.press(alice, h.last(int(alice["id"]), with_buttons=True), 0)
    h.say(bob, int(bob["id"]), "/character weapon=revolver perks=lucky")
    h.press_text(gm, lobby, tr("btn.start"))
    moves = [(-2, 0, 1), (1, -1, 0), (0, 0, 0), (2, 1, 1), (-1, -1, -1), (0, 0, 1)]
    for turn in range(6):
        match = h.deps.repo.active_in_chat(g)
        if not match or match[0].phase is not Phase.RUNNING:
            break
        m, a, b = moves[turn]
        builder = h.last(int(alice["id"]), with_buttons=True)
        h.press(alice, builder, m + 2)  # the move row: -2..+2
        aim = h.last(int(alice["id"]), with_buttons=True)
        h.press(alice, aim, (3 - b) * 7 + (a + 3))  # rows y = 3..-2, columns x = -3..3
        h.press_text(alice, h.last(int(alice["id"]), with_buttons=True), "🔒")
        h.say(bob, int(bob["id"]), f"/order move {-m} aim {b}:{a}")


def open_null() -> TextIO:
    import io

    return io.StringIO()
