"""Provable fairness: an honest dossier verifies; any tampering is detected and located."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import usecases as uc
from engine.dossier import build_dossier
from engine.verify import verify
from handlers.cli import main as cli
from tests.fairness.posting import post

GM, ANN, BOB = 100, 1, 2


def played(deps: uc.Deps, turns: int = 3) -> dict[str, Any]:
    match = uc.create_match(
        deps, chat_id=-5, gm_user_id=GM, ruleset_id="coin", config={"target": 9}
    )
    uc.join(deps, match.id, ANN, "Ann")
    uc.join(deps, match.id, BOB, "Bob")
    uc.set_character(deps, match.id, ANN, "p1", {})
    uc.set_character(deps, match.id, BOB, "p2", {})
    uc.start(deps, match.id, GM)
    post(deps, match.id)
    for t in range(turns):
        uc.seal_order(deps, match.id, ANN, "p1", {"call": 1 + t % 6})
        post(deps, match.id)
        if t == 1:
            uc.force_resolve(deps, match.id, GM, turn=t + 1)  # p2 gets the default order
        else:
            uc.seal_order(deps, match.id, BOB, "p2", {"call": 6 - t % 6})
            post(deps, match.id)
    uc.seal_order(deps, match.id, ANN, "p1", {"call": 2})  # sealed, not yet revealed
    post(deps, match.id)
    loaded = deps.repo.load(match.id)
    return build_dossier(
        loaded.match,
        deps.repo.history(match.id),
        list(loaded.orders.values()),
        generated_at=deps.clock(),
    )


def test_honest_dossier_verifies(deps: uc.Deps) -> None:
    assert verify(played(deps)) == []


def test_dossier_holds_no_unrevealed_order_or_seed(deps: uc.Deps) -> None:
    dossier = played(deps)
    loaded_orders = deps.repo.load(dossier["match"]["id"]).orders
    match = deps.repo.load(dossier["match"]["id"]).match
    text = json.dumps(dossier)
    assert loaded_orders["p1"].salt not in text
    assert match.turn_seed is not None and match.turn_seed not in text
    assert dossier["current"]["sealed"][0]["fingerprint"] == loaded_orders["p1"].fingerprint


def tamper_cases() -> list[tuple[str, Any, str]]:
    def order(d: dict[str, Any]) -> None:
        d["turns"][1]["orders"][0]["order"]["call"] = 5

    def salt(d: dict[str, Any]) -> None:
        d["turns"][3]["orders"][1]["salt"] = "00" * 8

    def seed(d: dict[str, Any]) -> None:
        d["turns"][2]["seed"] = "ab" * 32

    def roll(d: dict[str, Any]) -> None:
        ev = next(e for e in d["turns"][3]["events"] if e["kind"] == "roll")
        ev["faces"] = [7 - ev["faces"][0]]

    def event(d: dict[str, Any]) -> None:
        d["turns"][1]["events"].append({"kind": "point", "actor": "p1", "face": 1})

    def state(d: dict[str, Any]) -> None:
        d["turns"][3]["state_after"]["scores"][0] += 1

    def default(d: dict[str, Any]) -> None:
        d["turns"][2]["orders"][1]["order"]["call"] = 4

    def setup(d: dict[str, Any]) -> None:
        d["turns"][0]["events"][0]["faces"] = [7 - d["turns"][0]["events"][0]["faces"][0]]

    return [
        ("order", order, "turn 1: fingerprint of p1's order"),
        ("salt", salt, "turn 3: fingerprint of p2's order"),
        ("seed", seed, "turn 2: seed does not match its commitment"),
        ("roll", roll, "turn 3: event 1 (roll coin for p1)"),
        ("event", event, "turn 1: number of events"),
        ("state", state, "turn 3: state after the turn"),
        ("default", default, "turn 2: default order of p2"),
        ("setup", setup, "turn 0: event 1 (roll initiative for p1)"),
    ]


@pytest.mark.parametrize(
    ("name", "change", "located"), tamper_cases(), ids=lambda v: getattr(v, "__name__", str(v))
)
def test_any_tampering_is_detected_and_located(
    deps: uc.Deps, name: str, change: Any, located: str
) -> None:
    dossier = played(deps)
    bad = copy.deepcopy(dossier)
    change(bad)
    findings = [str(f) for f in verify(bad)]
    assert findings, f"tampered {name} went unnoticed"
    assert findings[0].startswith(located), findings


def test_tampered_state_breaks_the_chain(deps: uc.Deps) -> None:
    dossier = played(deps)
    dossier["turns"][2]["state_before"]["scores"][1] += 1
    assert any("previous turn" in str(f) for f in verify(dossier))


def test_verify_command_exit_codes(deps: uc.Deps, tmp_path: Path, capsys: Any) -> None:
    dossier = played(deps)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(dossier))
    assert cli(["verify", str(good)]) == 0
    assert "OK" in capsys.readouterr().out
    dossier["turns"][1]["seed"] = "00" * 32
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(dossier))
    assert cli(["verify", str(bad)]) == 1
    assert "turn 1: seed does not match its commitment" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("{not json", "not JSON"), ("[1, 2]", "expected a JSON object")],
)
def test_verify_command_bad_input(
    tmp_path: Path, capsys: Any, content: str | None, message: str
) -> None:
    path = tmp_path / "d.json"
    if content is not None:
        path.write_text(content)
    assert cli(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_verify_runs_in_a_fresh_process(deps: uc.Deps, tmp_path: Path) -> None:
    """A verifier in another process (no shared state) reaches the same verdict."""
    path = tmp_path / "d.json"
    path.write_text(json.dumps(played(deps)))
    code = (
        "import sys; from engine import rulesets; from tests.support import coin; "
        "rulesets.register(coin.RULESET); from handlers.cli import main; "
        f"sys.exit(main(['verify', {str(path)!r}]))"
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], check=False, cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
