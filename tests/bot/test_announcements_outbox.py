"""Everything a player or the group must see goes through the outbox (issue 28 point 2): the
GM panel's announcements (pause, resume, extend, undo, remove, end), rulings, a player's
forfeit, a seat handed over, the GM role handed over are owed in the action's own write and
delivered by the outbox (``handlers.telegram.shared.outbox``), so a Telegram failure leaves
them owed for the sweeper instead of lost. A recording fake of the Bot API marks every
message sent outside an outbox delivery; the only calls allowed outside are the answers to
the update itself (its callback's answer, the pressed message edited in place)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from engine.match import Phase
from handlers.telegram.fake_api import FakeBotAPI
from handlers.telegram.harness import Harness
from handlers.telegram.shared import outbox
from tests.bot.conftest import Duel

MID = "m00001"
SENDS = frozenset({"sendMessage", "sendPhoto", "sendDocument", "sendMediaGroup"})


class Recorder:
    """The fake Bot API, noting each message sent outside an outbox delivery while armed."""

    def __init__(self, api: FakeBotAPI) -> None:
        self.outside: list[tuple[Any, str]] = []
        self.armed = False
        real = api.do_request

        async def do_request(
            url: str, method: str, request_data: Any = None, *a: Any, **k: Any
        ) -> Any:
            name = url.rsplit("/", 1)[-1]
            if self.armed and name in SENDS and outbox.current() is None:
                params = dict(request_data.parameters) if request_data else {}
                self.outside.append((params.get("chat_id"), str(params.get("text", ""))[:80]))
            return await real(url, method, request_data, *a, **k)

        api.do_request = do_request  # type: ignore[method-assign]

    @contextmanager
    def watching(self) -> Iterator[list[tuple[Any, str]]]:
        self.outside.clear()
        self.armed = True
        try:
            yield self.outside
        finally:
            self.armed = False


@pytest.fixture
def watched() -> Iterator[tuple[Duel, Recorder]]:
    h = Harness()
    recorder = Recorder(h.api)
    yield Duel(h), recorder
    h.close()


def _turn_one(duel: Duel) -> None:
    duel.alice_seals(0, -3, 3)
    duel.h.say(duel.bob, duel.b, "/order move 0 aim 5:5")


def test_the_gm_panels_announcements_go_through_the_outbox(
    watched: tuple[Duel, Recorder],
) -> None:
    duel, rec = watched
    h = duel.h
    duel.lobby()
    h.say(duel.gm, duel.g, "/clock turn=1h")  # a deadline to extend
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    _turn_one(duel)
    steps: list[tuple[str, Callable[[], object]]] = [
        ("pause", lambda: duel.panel("gpa")),
        ("resume", lambda: duel.panel("gre")),
        ("extend", lambda: duel.panel("gex", "3600")),
        ("ruling", lambda: h.say(duel.gm, duel.g, "/edit p1 shrugs_left 2 a doctor")),
        ("undo", lambda: duel.panel("gun") and duel.panel("guc")),
        ("remove", lambda: duel.panel("gko", "p2") and duel.panel("gkc", "p2")),
    ]
    sent_before = len(h.texts(duel.g))
    for name, step in steps:
        with rec.watching() as outside:
            step()
        assert outside == [], name
    group = h.texts(duel.g)[sent_before:]
    for needle in ("paused", "resumed", "extended", "ruling", "undid turn 1", "removed Bob"):
        assert any(needle in t for t in group), needle  # each was announced
    assert "Final" in group[-1]
    assert h.deps.repo.owed(MID) == []  # and nothing is left owed


@pytest.mark.parametrize("how", ["result", "draw", "forfeit"])
def test_the_end_of_a_match_goes_through_the_outbox(
    watched: tuple[Duel, Recorder], how: str
) -> None:
    duel, rec = watched
    h = duel.h
    duel.start()
    with rec.watching() as outside:
        # Bob's forfeit asks him to confirm: the answer to his own command is no announcement.
        duel.end(how, between=outside.clear)
    assert outside == [], how
    assert h.deps.repo.load(MID).match.phase is Phase.FINISHED
    assert "Final" in h.texts(duel.g)[-1]


def test_a_seat_or_the_gm_role_handed_over_is_announced_through_the_outbox(
    watched: tuple[Duel, Recorder],
) -> None:
    duel, rec = watched
    h = duel.h
    duel.start()
    dave = h.user(444444444, "Dave", lang="en", username="dave")
    h.say(dave, duel.g, "I can take over")
    hello = h.api.chat(duel.g).messages[-1]
    h.say(duel.gm, duel.g, "/replace Bob", reply_to=hello)
    offer = h.last(duel.g, with_buttons=True)
    with rec.watching() as outside:
        h.press(dave, offer, 0)
    assert [c for c, _ in outside if c == duel.g] == []  # Dave's own chat: his answers
    assert any("Dave takes the seat of Bob" in t for t in h.texts(duel.g))
    h.say(duel.alice, duel.g, "hi")
    hi = h.api.chat(duel.g).messages[-1]
    with rec.watching() as outside:
        h.say(duel.gm, duel.g, "/gm", reply_to=hi)
    assert [c for c, _ in outside if c == duel.g] == []
    assert h.deps.repo.load(MID).match.gm_user_id == duel.a
