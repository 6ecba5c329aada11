"""``sekundant simulate`` and ``sekundant turn`` from the command line: output formats, and
bad input answered with exit 2 and one line naming the field (no traceback, nothing written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from handlers.cli import main

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RIFLE = {"weapon": "rifle", "perks": []}
PISTOL = {"weapon": "pistol", "perks": []}


def write(tmp_path: Path, doc: Any, name: str = "doc.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return str(path)


def setup_doc(**over: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "ruleset": "pistol",
        "config": {},
        "participants": [
            {"id": "a", "character": RIFLE, "orders": {"move": 0, "aim": [-1, 1]}},
            {"id": "b", "character": PISTOL, "orders": "random"},
        ],
        "turns": 6,
    }
    doc.update(over)
    return doc


def fails(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


# --------------------------------------------------------------------------- simulate


def test_simulate_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, setup_doc())
    assert main(["simulate", "--setup", path, "--n", "300", "--seed", "4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["n"] == 300 and out["seed"] == 4
    assert set(out["outcomes"]) == {"a", "b", "draw", "mutual"}
    assert sum(out["outcomes"].values()) == 300
    for key in ("hit:head", "hit:torso", "hit:arm", "hit:leg", "miss", "death"):
        assert key in out["events"]
    assert 1 <= out["turns_mean"] <= 6
    assert out["matches_per_second"] > 0


def test_simulate_same_seed_same_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, setup_doc())
    runs = []
    for _ in range(2):
        main(["simulate", "--setup", path, "--n", "200", "--seed", "9", "--json"])
        out = json.loads(capsys.readouterr().out)
        runs.append({k: out[k] for k in ("outcomes", "events", "turns_mean")})
    assert runs[0] == runs[1]


def test_simulate_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, setup_doc())
    assert main(["simulate", "--setup", path, "--n", "100", "--seed", "1", "--lang", "en"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("pistol: 100 matches, seed 1")
    assert "turns per match" in out
    # Sides named by character and weapon, every share with its 95% interval.
    assert "a (rifle) wins" in out and "b (pistol) wins" in out and "95% interval" in out
    # The orders played are explicit, and so is the mirror (on by default for two sides).
    assert "orders: mixed (a (rifle): fixed, b (pistol): random)" in out
    assert "mirror: each seed played twice" in out
    # Events by human name, not internal keys.
    assert "hit in the head" in out and "hit:head" not in out
    assert err == ""  # a short run shows no progress bar


def test_simulate_table_in_russian(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, setup_doc())
    assert main(["simulate", "--setup", path, "--n", "50", "--seed", "1", "--lang", "ru"]) == 0
    out = capsys.readouterr().out
    assert "побеждает a (rifle)" in out and "попадание в голову" in out
    assert "приказы: смешанные" in out


def run_json(capsys: pytest.CaptureFixture[str], path: str, *extra: str) -> dict[str, Any]:
    assert main(["simulate", "--setup", path, "--seed", "3", "--json", *extra]) == 0
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


def test_simulate_result_does_not_depend_on_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, setup_doc())
    one = run_json(capsys, path, "--n", "900", "--jobs", "1")
    two = run_json(capsys, path, "--n", "900", "--jobs", "2")
    assert one["jobs"] == 1 and two["jobs"] == 2 and one["chunks"] > 1
    for out in (one, two):
        del out["seconds"], out["matches_per_second"], out["jobs"]
    assert one == two


def test_simulate_mirror_plays_each_seed_with_characters_exchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both_fixed = setup_doc()
    both_fixed["participants"][1]["orders"] = {"move": 0, "aim": [-1, 1]}
    path = write(tmp_path, both_fixed)
    mirrored = run_json(capsys, path, "--n", "401")
    assert mirrored["mirror"] is True and mirrored["n"] == 402  # every seed twice
    assert mirrored["orders_mode"] == "fixed"
    plain = run_json(capsys, path, "--n", "401", "--no-mirror")
    assert plain["mirror"] is False and plain["n"] == 401
    # The mirror's half alone: the same seeds with rifle and pistol in each other's seat.
    swapped = dict(both_fixed, participants=both_fixed["participants"][::-1])
    swapped_out = run_json(capsys, write(tmp_path, swapped, "s.json"), "--n", "201", "--no-mirror")
    first = run_json(capsys, path, "--n", "201", "--no-mirror")
    for key in ("a", "b", "draw", "mutual"):
        assert mirrored["outcomes"][key] == first["outcomes"][key] + swapped_out["outcomes"][key]


def test_simulate_json_keeps_old_fields_and_adds_sides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_json(capsys, write(tmp_path, setup_doc()), "--n", "300")
    old = {"ruleset", "n", "seed", "outcomes", "reasons", "events", "turns_mean", "turns_max"}
    assert old <= set(out) and {"seconds", "matches_per_second"} <= set(out)
    sides = {s["side"]: s for s in out["sides"]}
    assert sides["a"]["label"] == "a (rifle)" and sides["a"]["orders"] == ["fixed"]
    assert sides["a"]["count"] == out["outcomes"]["a"]
    lo, hi = sides["a"]["interval"]
    assert lo < sides["a"]["share"] < hi
    total = sum(s["count"] for s in out["sides"]) + out["draw"]["count"] + out["mutual"]["count"]
    assert total == out["n"]


def test_simulate_dragons_side_shares_sum_to_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run_json(capsys, str(EXAMPLES / "dragons-2v2-random.json"), "--n", "20", "--jobs", "1")
    shares = [s["share"] for s in out["sides"]] + [out["draw"]["share"], out["mutual"]["share"]]
    assert [s["side"] for s in out["sides"]] == ["red", "blue"]
    assert sum(shares) == pytest.approx(1.0, abs=1e-3)
    assert out["sides"][0]["members"] == ["p1", "p2"]


def test_simulate_mirror_refused_when_sides_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(EXAMPLES / "dragons-ace-vs-raiders.json")
    err = fails(capsys, ["simulate", "--setup", path, "--n", "4", "--mirror"])
    assert "mirror" in err and "two sides of equal size" in err


@pytest.mark.parametrize("name", sorted(p.name for p in EXAMPLES.glob("pistol-*.json")))
def test_example_setups_run(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["simulate", "--setup", str(EXAMPLES / name), "--n", "50", "--seed", "1", "--json"])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["n"] == 50


def duel(a: Any = RIFLE, b: Any = PISTOL, orders: Any = None) -> dict[str, Any]:
    """A setup whose participant ``a`` has ``a`` as character and ``orders`` (or random)."""
    first = {"id": "a", "character": a, "orders": orders or "random"}
    return setup_doc(participants=[first, {"id": "b", "character": b}])


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("{not json", "--setup: "),
        ([1, 2], "setup: expected a JSON object"),
        (
            {"ruleset": "chess", "participants": [{"id": "a", "character": {}}]},
            "ruleset: unknown ruleset 'chess'",
        ),
        (
            duel(a={"weapon": "bazooka"}),
            "participants[0].character: unknown weapon 'bazooka' (expected one of: derringer, ",
        ),
        (
            duel(b={"weapon": "rifle", "perks": ["ninja"]}),
            "participants[1].character: unknown perk 'ninja' "
            "(expected one of: lucky, steady_hand, thick_skinned)",
        ),
        (
            duel(orders={"move": 5, "aim": [0, 0]}),
            "participants[0].orders.move: move out of range: expected -2..2, got 5",
        ),
        (
            duel(orders={"move": 0, "aim": [0, 7]}),
            "participants[0].orders.aim.B: aim out of window: expected -5..5, got 7",
        ),
        (duel(orders={"move": 0}), "participants[0].orders.aim: required but missing"),
        ({"participants": []}, "ruleset: required but missing"),
        (setup_doc(turns=0), "turns: expected >= 1"),
    ],
)
def test_simulate_bad_setup(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], doc: Any, message: str
) -> None:
    path = write(tmp_path, doc)
    before = sorted(tmp_path.iterdir())
    err = fails(capsys, ["simulate", "--setup", path, "--n", "10"])
    assert err.startswith("sekundant simulate: ") and message in err
    assert sorted(tmp_path.iterdir()) == before  # nothing written


def test_simulate_bad_n_and_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, setup_doc())
    assert "--n: expected an integer >= 1, got 0" in fails(
        capsys, ["simulate", "--setup", path, "--n", "0"]
    )
    missing = str(tmp_path / "nope.json")
    assert "--setup: cannot read" in fails(capsys, ["simulate", "--setup", missing, "--n", "5"])


# --------------------------------------------------------------------------- turn


def test_turn_worked_example_with_scripted_dice(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["turn", "--input", str(EXAMPLES / "turns" / "pistol-worked-example.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"events", "state", "outcome"} <= set(out)
    first = next(e for e in out["events"] if e["kind"] in ("hit", "miss"))
    assert (first["actor"], first["kind"], first["cell"]) == ("a", "miss", [3, -2])  # P10
    assert out["outcome"]["status"] == "running"
    assert out["dice_unused"] == 0
    assert out["state"]["turn"] == 2


def test_turn_from_a_stored_state_and_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = {
        "ruleset": "pistol",
        "participants": [{"id": "a", "character": RIFLE}, {"id": "b", "character": PISTOL}],
        "orders": {"a": {"move": 0, "aim": [5, 5]}, "b": {"move": 0, "aim": [5, 5]}},
        "seed": 3,
    }
    assert main(["turn", "--input", write(tmp_path, start)]) == 0
    first = json.loads(capsys.readouterr().out)
    # Feed the new state back, as the store would hold it; b sends nothing (default order).
    doc = {
        "ruleset": "pistol",
        "config": {},
        "state": first["state"],
        "orders": {"a": {"move": 1, "aim": "0:0"}},
        "dice": [6, 1, 1, 1, 100],
    }
    assert main(["turn", "--input", write(tmp_path, doc, "2.json")]) == 0
    second = json.loads(capsys.readouterr().out)
    assert second["turn"] == 2 and second["defaulted"] == ["b"]
    assert second["orders"]["b"] == {"move": 0, "aim": [0, 0]}
    # a first (6 + 0 - 1 vs 1 + 1): aims 0:0 at a still b, dice 1,1 -> (0, 0), the torso;
    # lethality 100 -> a wound; b's shot is not taken (P15).
    hit = next(e for e in second["events"] if e["kind"] == "hit")
    assert (hit["actor"], hit["cell"], hit["part"]) == ("a", [0, 0], "torso")
    assert second["dice_unused"] == 0
    assert second["outcome"] == {"status": "win", "winners": ["a"], "reason": "hit"}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"ruleset": "chess"}, "ruleset: unknown ruleset 'chess'"),
        (
            {"orders": {"a": {"move": 3, "aim": [0, 0]}}},
            "orders.a.move: move out of range: expected -2..2, got 3",
        ),
        (
            {"orders": {"a": {"move": 0, "aim": [-9, 0]}}},
            "orders.a.aim.A: aim out of window: expected -5..5, got -9",
        ),
        (
            {"orders": {"zed": {"move": 0, "aim": [0, 0]}}},
            "orders.zed: not acting this turn (expected one of: a, b)",
        ),
        ({"orders": None}, "orders: required"),
        ({"dice": [1]}, "dice: dice script exhausted after 1 faces"),
        ({"dice": ["six"]}, "dice: expected a list of die faces"),
        ({"participants": None, "state": {"turn": 1}}, "state: not a pistol state"),
        (
            {
                "participants": [
                    {"id": "a", "character": {"weapon": "laser"}},
                    {"id": "b", "character": RIFLE},
                ]
            },
            "participants[0].character: unknown weapon 'laser'",
        ),
    ],
)
def test_turn_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], message: str
) -> None:
    doc: dict[str, Any] = {
        "ruleset": "pistol",
        "participants": [{"id": "a", "character": RIFLE}, {"id": "b", "character": PISTOL}],
        "orders": {"a": {"move": 0, "aim": [0, 0]}},
        "seed": 1,
    }
    doc.update(change)
    if doc.get("participants") is None:
        doc.pop("participants")
    err = fails(capsys, ["turn", "--input", write(tmp_path, doc)])
    assert err.startswith("sekundant turn: ") and message in err


def test_turn_malformed_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = fails(capsys, ["turn", "--input", write(tmp_path, '{"ruleset": ')])
    assert "--input: " in err and "is not valid JSON (line 1" in err


def test_python_m_handlers_cli_answers_a_usage_error_in_one_line() -> None:
    """Under ``python -m handlers.cli`` the module ran twice (``__main__`` and
    ``handlers.cli``): a command's UsageError was not the one ``main`` caught, so a bad setting
    printed a traceback and exited 1."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "SEKUNDANT_STORE": "bogus", "TELEGRAM_BOT_TOKEN": ""}
    done = subprocess.run(
        [sys.executable, "-m", "handlers.cli", "run"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "SEKUNDANT_STORE" in done.stderr
