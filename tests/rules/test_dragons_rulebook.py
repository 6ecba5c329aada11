"""Rulebook cases for ``dragons``: one small scripted-dice case per situation of the spec
(``shared/rules/dragon-dogfight.md``), in the manner of diplomacy's DATC tests. Each test is
named by the rule it checks; the cases here are the corners ``test_dragons.py`` does not cover
(several of them were divergences, fixed with the test)."""

from __future__ import annotations

from tests.rules.test_dragons import of, play, put, two

TAIL = {"type": "tail", "target": "b"}


# --------------------------------------------------------------------------- tailing


def test_D26_D27_a_pursuer_copies_a_forced_speed_up_stopped_at_top_speed() -> None:
    # b is forced to speed up (+2) but stops at its Top Speed 10 (+1): the pursuer copies
    # the movement b made (+1), not the +2 asked, and stays on the tail.
    state = put(put(two(), "a", tail_of="b", speed=9), "b", speed=9)
    force = {"type": "force", "choice": "up", "raise_choice": None}
    new, events = play(state, {"a": {"actions": [force]}, "b": {}}, [7, 1, 3, 2])
    assert new.dragon("b").speed == 10
    assert new.dragon("a").speed == 10 and new.dragon("a").tail_of == "b"
    (copied,) = [e for e in of(events, "move") if e.data.get("copied_from") == "b"]
    assert (copied.data["move"], copied.data["n"]) == ("level", 1)
    assert not of(events, "tail_broken")
