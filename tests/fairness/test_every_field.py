"""`verify` binds every field of the dossier (issue 26 point 5): each leaf of a played match's
dossier — every turn's and undone record's fields, every order's, every event's, every GM
entry's, the match header, the seats, the beacon networks — is changed in turn, and `verify`
must reject the change with a specific finding (never "malformed dossier").

The few fields nothing else records (a seat's display name, the match's language, whether the
bot can write to a player, the GM's free-text reason, a network's display name) cannot be bound
by any check: `docs/fairness.md` ("Fields that bind nothing") lists them, `verify` checks their
form, and this test requires the list in the docs to be exactly the one here. The match is the
tampering suite's (``test_tampering``), played by the bot's way of locking: each lock is a group
message whose date fixes the beacon round."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from engine import usecases as uc
from engine.verify import verify
from tests.fairness.posting import ANN, BOB, COIN, GM, dossier_of, play, started

Dossier = dict[str, Any]
ROOT = Path(__file__).resolve().parents[2]

# Containers checked as a whole (their content is the ruleset's: the replay binds it).
OPAQUE = ("state_before", "state_after", "config", "order", "character")

# Fields that bind nothing (see the module docstring); their form is still checked.
INFORMATIONAL = {
    "match.lang",
    "match.seats[].name",
    "match.seats[].reachable",
    "interventions[].reason",
    "interventions[].old",  # a first replace's old name (an edit's old value is bound)
    "beacon_networks.*.name",
}


# Read by the setup of the rulesets that use them (the replay of turn 0 binds them there:
# test_seat_fields_the_rules_read); the toy ruleset reads neither.
RULESET_READ = {"match.seats[].side", "match.seats[].character"}
# "format" is not a field to forge: without it the file is not a dossier (exit status 2).
INFORMATIONAL |= {"format"}


def _play() -> Dossier:
    deps, clock, bot, mid = started(config={"target": 9})
    play(deps, mid, COIN, bot.do)
    clock.advance(30)
    return dossier_of(deps, mid)


@pytest.fixture(scope="module")
def played() -> Dossier:
    d = _play()
    assert d["match"]["phase"] == "finished"
    assert all(t["lock_message"] for t in d["turns"][1:]), "every turn locked by a message"
    return d


Path_ = tuple[str | int, ...]


def _leaves(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    opaque = bool(path) and isinstance(path[-1], str) and path[-1] in OPAQUE
    if isinstance(value, dict) and not opaque:
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list) and not opaque and value:
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path


def _name(path: Path_) -> str:
    text = ""
    for i, part in enumerate(path):
        if isinstance(part, int):
            text += "[]"
        elif i == 1 and path[0] == "beacon_networks":
            text += ".*"
        else:
            text += ("." if text else "") + part
    return text


def _get(d: Any, path: Path_) -> Any:
    for part in path:
        d = d[part]
    return d


def _set(d: Any, path: Path_, value: Any) -> None:
    _get(d, path[:-1])[path[-1]] = value


TIMES = re.compile(r"(_at|^at)$")
IDS = ("commitment_message", "lock_message")


def _changes(path: Path_, value: Any, order: Mapping[str, Any]) -> list[Any]:
    """Other values a forger might write instead of ``value`` (``order``: a sealed order to
    forge into an empty list of orders)."""
    key = next(p for p in reversed(path) if isinstance(p, str))
    if key in OPAQUE:
        return [{"forged": True}] if isinstance(value, dict) else [[*value, 1]]
    if key == "orders" and value == []:
        return [[{**order, "turn": path[1]}]]
    if value is None:
        return [7]
    if key == "generated_at":
        return [value - 1000]  # a dossier generated later is still the same record
    if key == "seq":
        return [0, 2**30]
    if key in IDS:
        return [value - 1, value + 1]
    if isinstance(value, bool):
        return [not value]
    if TIMES.search(key) and isinstance(value, (int, float)):
        return [value - 1000, value + 1000]
    if isinstance(value, (int, float)):
        return [value + 1]
    if isinstance(value, str) and re.fullmatch(r"[0-9a-f]{8,}", value):
        return [value[:-1] + ("0" if value[-1] != "0" else "1")]
    if isinstance(value, str):
        return [value + "x", ""]
    if isinstance(value, list):
        return [[*value, 1]]
    raise AssertionError(f"no change for {path}: {value!r}")


def _cases(d: Dossier) -> list[tuple[str, Path_, Any]]:
    """One or two occurrences of every field (the first and the last), each changed."""
    by_name: dict[str, list[Path_]] = {}
    for path in _leaves(d):
        by_name.setdefault(_name(path), []).append(path)
    order = copy.deepcopy(d["turns"][1]["orders"][0])
    cases = []
    for name, paths in sorted(by_name.items()):
        for path in dict.fromkeys([paths[0], paths[-1]]):
            old = _get(d, path)
            cases += [(name, path, new) for new in _changes(path, old, order) if new != old]
    return cases


def test_the_played_match_verifies(played: Dossier) -> None:
    assert verify(played) == []


def test_every_field_is_bound(played: Dossier) -> None:
    last = len(played["turns"]) - 1
    ends = {  # the group's first and last message: nothing in the dossier is before/after
        (("turns", 0, "commitment_message"), repr(played["turns"][0]["commitment_message"] - 1)),
        (("turns", last, "lock_message"), repr(played["turns"][last]["lock_message"] + 1)),
    }
    unbound = []
    for name, path, new in _cases(played):
        if name in INFORMATIONAL | RULESET_READ or (path, repr(new)) in ends:
            continue
        bad = copy.deepcopy(played)
        _set(bad, path, new)
        try:
            findings = [str(f) for f in verify(bad)]
        except Exception as exc:  # reported below as the field's failure
            findings = [f"raised {type(exc).__name__}"]
        if not findings or "malformed" in findings[0] or "raised" in findings[0]:
            unbound.append(f"{'/'.join(map(str, path))} = {new!r}: {findings[:1]}")
    assert not unbound, "\n".join(unbound)


@pytest.mark.parametrize(
    ("rid", "field", "value"),
    [
        ("pistol", "character", {"weapon": "rifle", "perks": ["lucky"]}),
        ("plans", "character", {"forged": True}),
        ("dragons", "character", {"forged": True}),
        ("plans", "side", "north"),
        ("dragons", "side", "north"),
    ],
)
def test_seat_fields_the_rules_read(rid: str, field: str, value: Any) -> None:
    """A seat's side and character are bound by the setup's replay where the ruleset reads
    them (pistol has no sides: there ``side`` binds nothing; docs/fairness.md)."""
    from tests.fairness.test_gm_actions import play

    honest = play(rid, [], 1)
    assert verify(honest) == []
    seat = honest["match"]["seats"][0]
    assert seat[field] != value
    bad = copy.deepcopy(honest)
    bad["match"]["seats"][0][field] = value
    findings = [str(f) for f in verify(bad)]
    assert findings and findings[0].startswith("turn 0: "), findings


def test_the_fields_that_bind_nothing_are_the_documented_ones() -> None:
    text = (ROOT / "docs" / "fairness.md").read_text(encoding="utf-8")
    section = text.split("### Fields that bind nothing", 1)[1].split("\n#", 1)[0]
    listed = set(re.findall(r"^- `([^`]+)`", section, flags=re.MULTILINE))
    assert listed == INFORMATIONAL - {"format"}


@pytest.mark.parametrize(
    ("path", "value", "what"),
    [
        (("match", "lang"), "de", "dossier: language of the match"),
        (("match", "seats", 0, "name"), " ", "dossier: name of seat p1"),
        (("match", "seats", 0, "reachable"), "yes", "dossier: reachable of seat p1"),
        (("interventions", 0, "reason"), 5, "dossier: reason of the GM's force_resolve"),
        (("beacon_networks", "local-test", "name"), "quicknet", "dossier: name of beacon network"),
    ],
)
def test_the_fields_that_bind_nothing_still_have_their_form(
    played: Dossier, path: Path_, value: Any, what: str
) -> None:
    bad = copy.deepcopy(played)
    _set(bad, path, value)
    assert any(str(f).startswith(what) for f in verify(bad)), verify(bad)


def test_an_undone_turn_played_on_a_turn_undone_later_verifies() -> None:
    """Undo turn 3, then turn 2, and play on: the undone turn 3 was played on the first turn 2
    (undone later), not on the kept turn 2, which resolved after it (a false alarm the
    GM-action property test found once the undone records were checked like kept ones)."""
    deps, clock, bot, mid = started(config={"target": 99})

    def play_turn() -> None:
        clock.advance(7)
        bot.do(mid, lambda: uc.seal_order(deps, mid, ANN, "p1", {"call": 1}))
        bot.do(mid, lambda: uc.seal_order(deps, mid, BOB, "p2", {"call": 2}))

    for _ in range(3):
        play_turn()
    clock.advance(7)
    bot.do(mid, lambda: uc.undo(deps, mid, GM, "", turn=4))
    clock.advance(7)
    bot.do(mid, lambda: uc.undo(deps, mid, GM, "", turn=3))
    play_turn()
    play_turn()
    d = dossier_of(deps, mid)
    assert [t["turn"] for t in d["undone"]] == [3, 2]
    assert d["undone"][0]["resolved_at"] < d["turns"][2]["resolved_at"]
    assert verify(d) == []


def test_a_dossier_is_generated_after_every_time_it_records() -> None:
    """``generated_at`` bounds every time below it, a GM entry's ``at`` included."""
    from engine.verify_fields import _generated

    match = {"created_at": 5.0}
    assert _generated({"match": match, "generated_at": 30.0}, [], [{"at": 20.0}]) == []
    late = _generated({"match": match, "generated_at": 10.0}, [], [{"at": 20.0}])
    assert [f[1] for f in late] == ["dossier generated before what it records"]
    assert _generated({"match": match, "generated_at": "soon"}, [], [])[0][1] == (
        "time the dossier was generated"
    )
