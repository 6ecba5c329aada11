"""The ladder (docs/campaign.md "The ladder"): a finished match's result, ratings replayed
from results (the same history gives the same ratings, in any storage order), sides of several
members, draws, unrated and cancelled matches left out."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from engine.campaign import ladder
from engine.match import Match, Phase, Seat

RID = "dragons"


def _match(mid: str, seats: list[Seat], outcome: dict[str, Any] | None, **kw: Any) -> Match:
    return Match(
        id=mid,
        chat_id=-1,
        gm_user_id=9,
        ruleset=RID,
        ruleset_version="1",
        created_at=float(kw.pop("at", 1.0)),
        phase=Phase.FINISHED if outcome else Phase.RUNNING,
        seats=tuple(seats),
        state={"x": 1},
        outcome=outcome,
        **kw,
    )


def _seat(pid: str, user: int | None, side: str, name: str = "") -> Seat:
    return Seat(pid, name or f"U{user}", user_id=user, side=side, npc=user is None)


WING = [
    _seat("p1", 1, "A"),
    _seat("p2", 2, "A"),
    _seat("p3", 3, "B"),
    _seat("n1", None, "B", "Raider"),
]


def test_a_result_groups_seats_by_side_and_ranks_the_winners_first() -> None:
    m = _match("m1", WING, {"status": "win", "winners": ["p1", "p2"]}, at=5.0)
    r = ladder.result_of(m)
    assert r is not None and r["ranks"] == [1, 2]
    assert [[x["key"] for x in t] for t in r["teams"]] == [["u1", "u2"], ["u3", "npc:Raider"]]
    assert r["ended_at"] == 5.0


def test_no_result_for_running_cancelled_unrated_or_one_sided_matches() -> None:
    win = {"status": "win", "winners": ["p1"]}
    assert ladder.result_of(_match("m", WING, None)) is None
    assert ladder.result_of(replace(_match("m", WING, win), state=None)) is None  # a lobby
    assert ladder.result_of(_match("m", WING, win, ui={ladder.UNRATED: True})) is None
    one_side = [_seat("p1", 1, "A"), _seat("p2", 2, "A")]
    assert ladder.result_of(_match("m", one_side, win)) is None


def _results() -> list[dict[str, Any]]:
    duel = [_seat("p1", 1, ""), _seat("p2", 2, "")]
    out = []
    for i, winner in enumerate(["p1", "p1", "p2", "p1"]):
        r = ladder.result_of(_match(f"m{i}", duel, {"status": "win", "winners": [winner]}, at=i))
        assert r is not None
        out.append(r)
    draw = ladder.result_of(_match("m9", WING, {"status": "draw", "winners": []}, at=10))
    assert draw is not None
    return [*out, draw]


def test_the_same_history_gives_the_same_ratings_in_any_stored_order() -> None:
    results = _results()
    first = ladder.standings(results, RID)
    shuffled = results[:]
    random.Random(7).shuffle(shuffled)
    assert ladder.standings(shuffled, RID) == first
    top = first[0]
    assert top.key == "u1" and (top.matches, top.wins, top.draws) == (5, 3, 1)
    assert [s.key for s in ladder.players(first)] == [s.key for s in first if s.user_id]


def test_removing_the_last_result_gives_back_the_ratings_before_it() -> None:
    results = _results()
    before = ladder.standings(results[:-1], RID)
    assert ladder.standings(results, RID) != before
    assert ladder.standings(results[:-1], RID) == before


def test_newcomers_start_at_zero_and_a_win_raises_a_rating() -> None:
    duel = [_seat("p1", 1, ""), _seat("p2", 2, "")]
    r = ladder.result_of(_match("m", duel, {"status": "win", "winners": ["p2"]}))
    assert r is not None
    table = {s.key: s for s in ladder.standings([r], RID)}
    assert table["u2"].rating > 0 > table["u1"].rating
    assert ladder.standings([r], "pistol") == []
