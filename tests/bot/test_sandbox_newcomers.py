"""The sandbox for newcomers (issue 24 point 5), played only through what a person types there:
``:users N`` adds players (a 3-dragon battle without the GM in it), a button of any message is
pressed by the message's number, expandable blocks are shown folded with a way to open them,
``--lang`` is every sandbox user's language (the GM's too), and each run keeps its pictures in
a folder of its own."""

from __future__ import annotations

import argparse
import io
import re
import sys
import tempfile
from pathlib import Path

import pytest

from engine.match import Phase
from handlers.commands import sandbox as sandbox_command
from handlers.telegram import sandbox as sandbox_module
from handlers.telegram.sandbox import Sandbox


class Typist:
    """Types lines into a sandbox and reads what it printed since the last look."""

    def __init__(self, **kw: object) -> None:
        self.out = io.StringIO()
        self.sb = Sandbox(out=self.out, **kw)  # type: ignore[arg-type]
        self.h = self.sb.h
        self._read = 0

    def type(self, *lines: str) -> str:
        for line in lines:
            assert self.sb.handle(line)
        text = self.out.getvalue()[self._read :]
        self._read = len(self.out.getvalue())
        return text

    def button(self, needle: str, message: int | None = None) -> str:
        """The ``:press`` line for the button labelled with ``needle`` (newest message with
        buttons in this chat, or message #``message``)."""
        msgs = [m for m in self.h.api.chat(self.sb.chat_id).messages if m.from_bot and m.buttons]
        if message is not None:
            msgs = [m for m in msgs if m.message_id == message]
        n = self.h.find_button(msgs[-1], needle) + 1
        return f":press #{message} {n}" if message is not None else f":press {n}"

    def press(self, needle: str) -> str:
        return self.type(self.button(needle))


def test_users_adds_players_for_a_three_dragon_battle_without_the_gm_in_it() -> None:
    t = Typist(lang="en", user_lang="en")
    added = t.type(":users 3")
    assert "players: alice, bob, dave" in added
    t.type(":as gm", ":in group", "/duel")
    t.press("Dragon")
    for who, side in (("alice", "A"), ("bob", "B"), ("dave", "B")):
        t.type(f":as {who}", ":in group")
        t.press("Join")  # the deep link: now in the private chat
        t.type("/character young" if who != "bob" else "/character war")
        t.type(":in group")
        t.press(f" {side}")
    t.type(":as gm", ":in group")
    t.press("Start")
    match = t.h.deps.repo.load("m00001").match
    assert match.phase is Phase.RUNNING
    assert [s.name for s in match.seats] == ["Алиса", "Bob <b>Smith</b>", "Dave"]
    assert match.seat_of_user(333333333) is None  # the GM plays no dragon
    for who in ("alice", "bob", "dave"):
        t.type(f":as {who}", ":in private", "/order level 0")
    assert t.h.deps.repo.load("m00001").match.turn == 2  # the turn resolved with three dragons
    assert ":users" in t.type(":help")


def test_users_never_goes_over_the_largest_battle() -> None:
    t = Typist()
    said = t.type(":users 40")
    assert "(at most 11)" in said
    assert len(t.sb.users) == 12  # the GM and 11 players: 12 seats with the GM's NPCs aside


def test_a_button_of_an_older_message_is_pressed_by_its_number() -> None:
    t = Typist(lang="en", user_lang="en")
    t.type(":as gm", ":in group", "/duel")
    first = t.h.last(t.sb.group, with_buttons=True)
    t.type("/duel")  # a second picker: the first one is no longer the newest
    assert t.h.last(t.sb.group, with_buttons=True).message_id != first.message_id
    shown = t.type(t.button("Pistol", message=first.message_id))
    assert t.h.deps.repo.active_in_chat(t.sb.group)  # the older picker's button worked
    assert f"#{first.message_id}" in shown
    assert "has no buttons" in t.type(":press #99999 1")


def test_expandable_blocks_are_folded_and_unfold_on_request() -> None:
    t = Typist(lang="en", user_lang="en")
    t.type(":as gm", ":in group", "/duel")
    t.press("Pistol")
    for who in ("alice", "bob"):
        t.type(f":as {who}", ":in group")
        t.press("Join")
        t.type("/character weapon=revolver")
    t.type(":as gm", ":in group")
    t.press("Start")
    shown = t.type(":as alice", ":in private", "/order move 0 aim 0:0")  # sealed: proof folded
    assert "<blockquote" not in shown and "</blockquote>" not in shown
    fold = re.search(r"▸ \[\d+ more line\(s\) folded: :unfold (\d+)\]", shown)
    assert fold is not None, shown
    opened = t.type(f":unfold {fold.group(1)}")
    assert f"#{fold.group(1)} (unfolded)" in opened and "│ " in opened
    assert "<blockquote" not in opened
    assert "no message #99999" in t.type(":unfold 99999")


def test_lang_is_every_sandbox_users_language_the_gms_too(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(":as gm\n:in group\n/duel\n"))
    assert sandbox_command.run(sandbox_command_args("ru")) == 0
    printed = capsys.readouterr().out
    assert "Пистолет" in printed or "пистолет" in printed.lower()  # the GM's picker, in Russian
    assert "Pistol" not in printed


def sandbox_command_args(lang: str, *more: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sandbox_command.add_arguments(parser)
    return parser.parse_args(["--lang", lang, *more])


@pytest.mark.parametrize(
    ("lang", "start", "other"),
    [("ru", "начинаем", "starting now"), ("en", "starting now", "начинаем")],
)
def test_the_demo_speaks_lang_to_everyone(
    capsys: pytest.CaptureFixture[str], lang: str, start: str, other: str
) -> None:
    """``--demo --lang``: the whole duel in that language, the group's messages included."""
    assert sandbox_command.run(sandbox_command_args(lang, "--demo")) == 0
    group = capsys.readouterr().out.split("==========")[2]
    assert start in group and other not in group


def test_each_run_keeps_its_pictures_in_a_folder_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    saved = []
    for _run in range(2):
        t = Typist(lang="en", user_lang="en")
        sandbox_module.play_duel(t.sb)
        t.sb.flush()
        found = re.findall(r"\[picture: (.+?\.png)\]", t.out.getvalue())
        assert found
        saved.append([Path(p) for p in found])
        t.h.close()
    first, second = saved
    assert first[0].parent != second[0].parent
    assert all(p.exists() for p in first + second)  # the second run overwrote nothing
    assert first[0].parent.parent == second[0].parent.parent == tmp_path / "sekundant-sandbox"
