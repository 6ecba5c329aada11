"""`verify` binds the whole dossier: every tampering below is rejected, each with its own
message, in the one convention "dossier says X, replay gives Y".

The match: coin (target 9: nobody can win before the rulings), a local test beacon, turn 1 all
sealed, turn 2 forced (Bob's default), turn 3 undone and replayed, a pause, Bob's seat handed
to Carl, two GM rulings, turn 5 won by Ann."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import usecases as uc
from engine.dossier import build_dossier
from engine.verify import NotADossierError, check, verify
from handlers.cli import main as cli
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.conftest import FakeClock
from tests.fairness.posting import ANN, BOB, CARL, COIN, GM, play, post, posting

Dossier = dict[str, Any]


def _deps() -> uc.Deps:
    return uc.Deps(
        repo=MemoryRepository(),
        clock=FakeClock(),
        entropy=uc.SystemEntropy(),
        beacon=LocalBeacon(),
    )


def _play(deps: uc.Deps, *, finish: bool = True) -> Dossier:
    """The suite's match (``posting.Script``) in the toy ruleset, locked without messages."""
    clock = deps.clock
    assert isinstance(clock, FakeClock)
    m = uc.create_match(deps, chat_id=-5, gm_user_id=GM, ruleset_id="coin", config={"target": 9})
    post(deps, m.id)
    mid = m.id
    uc.join(deps, mid, ANN, "Ann")
    uc.join(deps, mid, BOB, "Bob")
    uc.set_character(deps, mid, ANN, "p1", {})
    uc.set_character(deps, mid, BOB, "p2", {})
    clock.advance(7)
    uc.start(deps, mid, GM)
    post(deps, mid)
    play(deps, mid, COIN, posting(deps), finish=finish)
    loaded = deps.repo.load(mid)
    return build_dossier(
        loaded.match,
        deps.repo.history(mid),
        list(loaded.orders.values()),
        generated_at=clock(),
    )


@pytest.fixture(scope="module")
def finished() -> Dossier:
    return _play(_deps())


@pytest.fixture(scope="module")
def running() -> Dossier:
    return _play(_deps(), finish=False)


def test_the_played_match_verifies(finished: Dossier, running: Dossier) -> None:
    assert finished["match"]["phase"] == "finished"
    assert finished["match"]["outcome"]["winners"] == ["p1"]
    assert [t["turn"] for t in finished["undone"]] == [3]
    assert all(t["beacon"] for t in finished["turns"])
    assert verify(finished) == []
    assert verify(running) == []


def _turn(d: Dossier, n: int) -> dict[str, Any]:
    return d["turns"][n]


def _entry(d: Dossier, action: str, index: int = 0) -> dict[str, Any]:
    entries: list[dict[str, Any]] = [a for a in d["interventions"] if a["action"] == action]
    return entries[index]


def _sealed(d: Dossier, n: int, pid: str) -> dict[str, Any]:
    order: dict[str, Any] = next(o for o in _turn(d, n)["orders"] if o["pid"] == pid)
    return order


def _swap_winner(d: Dossier) -> None:
    d["match"]["outcome"]["winners"] = ["p2"]


def _unfinish(d: Dossier) -> None:
    d["match"]["phase"] = "running"


def _drop_last_turn(d: Dossier) -> None:
    d["turns"].pop()


def _drop_undo_entry(d: Dossier) -> None:
    d["interventions"].remove(_entry(d, "undo"))


def _drop_undone_record(d: Dossier) -> None:
    d["undone"].clear()


def _undone_order(d: Dossier) -> None:
    d["undone"][0]["orders"][0]["order"]["call"] = 6


def _undone_time(d: Dossier) -> None:
    d["undone"][0]["undone_at"] += 1


def _relabel_default(d: Dossier) -> None:
    order = _sealed(d, 1, "p2")
    order.update(default=True, salt="", fingerprint="", by_user=None, seq=1 << 30)
    order["order"] = {"call": 1}


def _forced_to_all_sealed(d: Dossier) -> None:
    _turn(d, 2)["reason"] = "all_sealed"


def _all_sealed_to_forced(d: Dossier) -> None:
    _turn(d, 4)["reason"] = "forced"


def _match_ruleset_version(d: Dossier) -> None:
    d["match"]["ruleset_version"] = "0"


def _engine_version(d: Dossier) -> None:
    d["engine_version"] = "9"


def _turn_engine_version(d: Dossier) -> None:
    _turn(d, 3)["engine_version"] = "9"


def _turn_ruleset_version(d: Dossier) -> None:
    _turn(d, 3)["ruleset_version"] = "0"


def _by_user(d: Dossier) -> None:
    _sealed(d, 1, "p1")["by_user"] = BOB


def _sealed_after_lock(d: Dossier) -> None:
    _sealed(d, 4, "p1")["sealed_at"] = _turn(d, 4)["resolved_at"] + 1


def _sealed_before_open(d: Dossier) -> None:
    _sealed(d, 3, "p2")["sealed_at"] = _turn(d, 2)["resolved_at"] - 1


def _format_version(d: Dossier) -> None:
    d["format_version"] = 99


def _renumber(d: Dossier) -> None:
    _turn(d, 4)["turn"] = 7


def _seed(d: Dossier) -> None:
    _turn(d, 2)["seed"] = "ab" * 32


def _commitment(d: Dossier) -> None:
    _turn(d, 4)["commitment"] = "cd" * 32


def _beacon_signature(d: Dossier) -> None:
    _turn(d, 1)["beacon"]["signature"] = _turn(d, 2)["beacon"]["signature"]


def _beacon_randomness(d: Dossier) -> None:
    _turn(d, 1)["beacon"]["randomness"] = "00" * 32


def _beacon_round(d: Dossier) -> None:
    _turn(d, 1)["beacon"]["round"] += 1


def _beacon_stripped(d: Dossier) -> None:
    _turn(d, 2)["beacon"] = None


def _locked_later(d: Dossier) -> None:
    _turn(d, 3)["locked_at"] += 0.001 + 3


def _beacon_network(d: Dossier) -> None:
    d["beacon_networks"]["local-test"]["public_key"] = "8" + "0" * 191


def _drop_ruling(d: Dossier) -> None:
    d["interventions"].remove(_entry(d, "edit", 0))


def _change_ruling(d: Dossier) -> None:
    _entry(d, "edit", 1)["new"] = 5


def _drop_force_entry(d: Dossier) -> None:
    d["interventions"].remove(_entry(d, "force_resolve"))


def _force_missing(d: Dossier) -> None:
    _entry(d, "force_resolve")["missing"] = ["p1"]


def _duplicate_order(d: Dossier) -> None:
    _turn(d, 4)["orders"].append(copy.deepcopy(_sealed(d, 4, "p1")))


def _drop_order(d: Dossier) -> None:
    _turn(d, 4)["orders"] = [o for o in _turn(d, 4)["orders"] if o["pid"] != "p2"]


def _order_turn(d: Dossier) -> None:
    _sealed(d, 3, "p1")["turn"] = 2


def _seq(d: Dossier) -> None:
    _sealed(d, 3, "p2")["seq"] = _sealed(d, 3, "p1")["seq"]


def _default_salt(d: Dossier) -> None:
    _sealed(d, 2, "p2")["salt"] = "00" * 8


def _state_after(d: Dossier) -> None:
    _turn(d, 5)["state_after"]["scores"][1] += 1


def _roll(d: Dossier) -> None:
    event = next(e for e in _turn(d, 4)["events"] if e["kind"] == "roll")
    event["faces"] = [7 - event["faces"][0]]


def _extra_event(d: Dossier) -> None:
    _turn(d, 4)["events"].append({"kind": "point", "actor": "p2", "face": 3})


def _open_turn_after_end(d: Dossier) -> None:
    d["current"] = {"turn": 6, "commitment": "00" * 32, "sealed": []}


def _replacement(d: Dossier) -> None:
    _entry(d, "replace")["old_user"] = CARL


def _resolved_earlier(d: Dossier) -> None:
    _turn(d, 4)["resolved_at"] = _turn(d, 3)["resolved_at"] - 1


def _config(d: Dossier) -> None:
    d["match"]["config"]["target"] = 8


def _sealed_order_content(d: Dossier) -> None:
    _sealed(d, 5, "p2")["order"]["call"] = 2


def _default_content(d: Dossier) -> None:
    _sealed(d, 2, "p2")["order"]["call"] = 4


def _setup_roll(d: Dossier) -> None:
    event = _turn(d, 0)["events"][0]
    event["faces"] = [7 - event["faces"][0]]


def _gm_end_claimed(d: Dossier) -> None:
    d["interventions"].append(
        {"at": 0, "by": GM, "action": "end", "turn": 6, "reason": "", "result": "draw"}
    )


def _shared_commitment_message(d: Dossier) -> None:
    _turn(d, 2)["commitment_message"] = _turn(d, 1)["commitment_message"]


def _null_commitment_message(d: Dossier) -> None:
    _turn(d, 4)["commitment_message"] = None


def _player_intervenes(d: Dossier) -> None:
    _entry(d, "pause")["by"] = ANN


def _seed_only_for_a_beacon_turn(d: Dossier) -> None:
    turn = _turn(d, 1)
    d["interventions"].append(
        {
            "at": turn["resolved_at"],
            "by": GM,
            "action": "seed_only",
            "turn": 1,
            "reason": "",
            "beacon_round": turn["beacon_round"],
        }
    )


def _seed_only_names_another_round(d: Dossier) -> None:
    turn = _turn(d, 2)
    turn["beacon"] = None
    d["interventions"].append(
        {
            "at": turn["resolved_at"],
            "by": GM,
            "action": "seed_only",
            "turn": 2,
            "reason": "",
            "beacon_round": turn["beacon_round"] + 5,
        }
    )


def _beacon_round_nulled(d: Dossier) -> None:
    _turn(d, 1)["beacon_round"] = None


def _default_sealed_early(d: Dossier) -> None:
    _sealed(d, 2, "p2")["sealed_at"] = _turn(d, 2)["resolved_at"] - 1


def _created_late(d: Dossier) -> None:
    d["match"]["created_at"] = _turn(d, 0)["opened_at"] + 1


def _hand_gm_forged(d: Dossier) -> None:
    d["match"]["gm_user_id"] = ANN


CASES: list[tuple[str, Callable[[Dossier], None], str]] = [
    ("commitment message shared", _shared_commitment_message, "turn 2: commitment message shared"),
    ("commitment message null", _null_commitment_message, "turn 4: commitment message of a turn"),
    ("GM entry by a player", _player_intervenes, "turn 4: who made the GM's pause entry"),
    ("seed_only for a beacon turn", _seed_only_for_a_beacon_turn, "turn 1: GM's seed_only entry"),
    ("seed_only names another round", _seed_only_names_another_round, "turn 2: round named by"),
    ("beacon_round nulled", _beacon_round_nulled, "turn 1: beacon round of a turn with a beacon"),
    ("default sealed early", _default_sealed_early, "turn 2: time of p2's default order"),
    ("created after turn 0 opened", _created_late, "dossier: match created after its turn 0"),
    ("GM replaced in the header", _hand_gm_forged, "turn 2: who made the GM's force_resolve"),
    ("winner swapped", _swap_winner, "dossier: outcome (from the replayed final state)"),
    ("finished -> running", _unfinish, "dossier: phase: dossier says running"),
    ("decisive turn deleted", _drop_last_turn, "dossier: phase: dossier says finished"),
    ("undo entry deleted", _drop_undo_entry, "dossier: undone turns"),
    ("undone record deleted", _drop_undone_record, "dossier: undone turns"),
    ("undone turn's order", _undone_order, "undone turn 3: fingerprint of p1's order"),
    ("time of the undo", _undone_time, "turn 3: time of the undo"),
    ("sealed relabelled default", _relabel_default, "turn 1: default orders in a turn"),
    ("forced -> all_sealed", _forced_to_all_sealed, "turn 2: default orders in a turn"),
    ("all_sealed -> forced", _all_sealed_to_forced, "turn 4: forced resolution without"),
    ("match ruleset version", _match_ruleset_version, "dossier: match ruleset version"),
    ("engine version", _engine_version, "dossier: engine version: dossier says 9"),
    ("turn engine version", _turn_engine_version, "turn 3: engine version of the turn"),
    ("turn ruleset version", _turn_ruleset_version, "turn 3: ruleset version of the turn"),
    ("by_user", _by_user, "turn 1: who sealed p1's order"),
    ("sealed after the lock", _sealed_after_lock, "turn 4: p1's order sealed outside"),
    ("sealed before the turn", _sealed_before_open, "turn 3: p2's order sealed before the turn's"),
    ("format version", _format_version, "dossier: format version"),
    ("turn renumbered", _renumber, "turn 7: turn numbering"),
    ("seed", _seed, "turn 2: seed does not match its commitment"),
    ("commitment", _commitment, "turn 4: seed does not match its commitment"),
    ("beacon signature", _beacon_signature, "turn 1: beacon signature of round"),
    ("beacon randomness", _beacon_randomness, "turn 1: beacon randomness"),
    ("beacon round", _beacon_round, "turn 1: beacon round the lock fixed"),
    ("beacon stripped", _beacon_stripped, "turn 2: resolved without its beacon round"),
    ("lock moved", _locked_later, "turn 3: beacon round after the lock"),
    ("beacon key", _beacon_network, "turn 0: beacon signature of round"),
    ("ruling deleted", _drop_ruling, "turn 5: state before the turn differs"),
    ("ruling changed", _change_ruling, "turn 5: state before the turn differs"),
    ("force entry deleted", _drop_force_entry, "turn 2: forced resolution without"),
    ("force's missing seats", _force_missing, "turn 2: default orders vs the seats"),
    ("duplicate order", _duplicate_order, "turn 4: seats with an order"),
    ("order deleted", _drop_order, "turn 4: seats with an order"),
    ("order's turn", _order_turn, "turn 3: turn of p1's order"),
    ("seq", _seq, "turn 3: sealing order (seq)"),
    ("default with a salt", _default_salt, "turn 2: default order of p2 carries"),
    ("state after", _state_after, "turn 5: state after the turn"),
    ("roll", _roll, "turn 4: event 1 (roll coin for p1)"),
    ("extra event", _extra_event, "turn 4: number of events"),
    ("open turn after the end", _open_turn_after_end, "dossier: open turn of a match"),
    ("replacement's old user", _replacement, "turn 1: who sealed p2's order"),
    ("resolved earlier", _resolved_earlier, "turn 4: resolved before the previous turn"),
    ("configuration", _config, "turn 0: state after the turn"),
    ("sealed order", _sealed_order_content, "turn 5: fingerprint of p2's order"),
    ("default order", _default_content, "turn 2: default order of p2"),
    ("setup roll", _setup_roll, "turn 0: event 1 (roll initiative for p1)"),
    ("GM end claimed", _gm_end_claimed, "dossier: outcome (the GM's recorded ruling)"),
]


def _first(d: Dossier, change: Callable[[Dossier], None]) -> str:
    bad = copy.deepcopy(d)
    change(bad)
    findings = [str(f) for f in verify(bad)]
    assert findings, "the tampering went unnoticed"
    return next((f for f in findings if "dossier says" in f or ":" in f), findings[0])


@pytest.mark.parametrize(("name", "change", "message"), CASES, ids=[c[0] for c in CASES])
def test_tampering_is_rejected(
    finished: Dossier, name: str, change: Callable[[Dossier], None], message: str
) -> None:
    bad = copy.deepcopy(finished)
    change(bad)
    findings = [str(f) for f in verify(bad)]
    assert any(f.startswith(message) for f in findings), (name, findings)


def test_at_least_30_tamperings_each_with_its_own_message(finished: Dossier) -> None:
    assert len(CASES) >= 30
    messages = {}
    for name, change, prefix in CASES:
        bad = copy.deepcopy(finished)
        change(bad)
        messages[name] = next(str(f) for f in verify(bad) if str(f).startswith(prefix))
    assert len(set(messages.values())) == len(CASES), messages


def test_every_mismatch_says_dossier_then_replay(finished: Dossier) -> None:
    for _, change, _ in CASES:
        bad = copy.deepcopy(finished)
        change(bad)
        for finding in verify(bad):
            text = str(finding)
            if finding.compares:
                assert "dossier says" in text and "replay gives" in text, text
                assert text.index("dossier says") < text.index("replay gives")


def test_long_differences_show_the_part_that_differs(finished: Dossier) -> None:
    bad = copy.deepcopy(finished)
    _state_after(bad)
    (finding,) = [f for f in verify(bad) if "state after" in str(f)]
    text = str(finding)
    says = text.split("dossier says ", 1)[1].split(", replay gives ", maxsplit=1)[0]
    gives = text.split(", replay gives ", 1)[1]
    assert says != gives and "scores" in says


def test_a_running_match_binds_its_open_turn(running: Dossier) -> None:
    bad = copy.deepcopy(running)
    bad["current"]["turn"] += 1
    assert any(str(f).startswith("dossier: current turn number") for f in verify(bad))
    bad = copy.deepcopy(running)
    del bad["current"]
    assert any(str(f).startswith("dossier: open turn of a running match") for f in verify(bad))


def test_not_a_dossier_is_its_own_error(finished: Dossier) -> None:
    for doc in ({"format": "other"}, {}, {"turns": []}):
        with pytest.raises(NotADossierError):
            check(doc)


@pytest.mark.parametrize(
    ("content", "code", "stream", "message"),
    [
        ('{"format": "something-else"}', 2, "err", "not a Sekundant dossier"),
        ('{"hello": 1}', 2, "err", "not a Sekundant dossier"),
        ("{not json", 2, "err", "not JSON"),
    ],
)
def test_exit_codes_for_what_is_not_a_dossier(
    tmp_path: Path, capsys: Any, content: str, code: int, stream: str, message: str
) -> None:
    path = tmp_path / "d.json"
    path.write_text(content)
    assert cli(["verify", str(path)]) == code
    out = capsys.readouterr()
    assert message in getattr(out, stream)


def test_exit_codes_ok_and_mismatch(finished: Dossier, tmp_path: Path, capsys: Any) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps(finished))
    assert cli(["verify", str(good)]) == 0
    out = capsys.readouterr().out
    assert "OK: 6 turns and 1 undone verified" in out
    assert "local-test" in out  # the note: not a public beacon
    bad = copy.deepcopy(finished)
    _swap_winner(bad)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    assert cli(["verify", str(path)]) == 1
    assert "dossier says" in capsys.readouterr().out


def test_a_deadline_turn_inside_a_pause_is_rejected(finished: Dossier) -> None:
    bad = copy.deepcopy(finished)
    pause = _entry(bad, "pause")
    turn = _turn(bad, 4)  # resolved after the resume: moved into the pause
    turn["reason"] = "deadline"
    turn["locked_at"] = pause["at"] + 1
    texts = [str(f) for f in verify(bad)]
    assert any(
        t.startswith("turn 4: resolved at the deadline while the match was paused") for t in texts
    ), texts


def test_a_version_1_dossier_still_verifies_as_server_seed_only() -> None:
    """A dossier written before the beacon (format 1: no lock, round, posting or undone
    records) verifies: its turns are server seed only."""
    deps = uc.Deps(repo=MemoryRepository(), clock=FakeClock(), entropy=uc.SystemEntropy())
    dossier = _play(deps)
    old = copy.deepcopy(dossier)
    old["format_version"] = 1
    old.pop("undone")
    old.pop("beacon_networks")
    for turn in old["turns"]:
        for key in (
            "opened_at",
            "locked_at",
            "beacon_round",
            "beacon",
            "commitment_message",
            "commitment_posted_at",
        ):
            turn.pop(key)
    for a in old["interventions"]:
        a.pop("old_user", None)
        a.pop("new_user", None)
        a.pop("winners", None)
    assert verify(old) == []
