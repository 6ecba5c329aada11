"""The chunked simulator run (engine/sim_batch.py): chunk seeds, the merge, the mirror, the
95% intervals and the report by side."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from engine import sim_batch
from engine.simulate import SetupError, parse_setup, prepare, simulate
from handlers.telegram.sandbox import Sandbox

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _prepared(name: str) -> Any:
    return prepare(parse_setup(json.loads((EXAMPLES / name).read_text())))


def _figures(result: Any) -> dict[str, Any]:
    out: dict[str, Any] = result.to_json()
    del out["seconds"], out["matches_per_second"]
    return {**out, "sides": result.sides, "turns_total": result.turns_total}


def test_the_merged_result_is_the_sum_of_the_chunks() -> None:
    batch = sim_batch.plan(_prepared("pistol-random.json"), 450, 5, mirror=False)
    assert [c for _, c in batch.chunks] == [100, 100, 100, 100, 50]
    chunks = [sim_batch.play_chunk(batch, i, count) for i, count in batch.chunks]
    whole = sim_batch.run(batch)
    assert whole.n == 450 == sum(c.n for c in chunks)
    for key in ("a", "b", "draw", "mutual"):
        assert whole.outcomes[key] == sum(c.outcomes[key] for c in chunks)
    assert whole.events == {
        k: sum(c.events.get(k, 0) for c in chunks) for k in set().union(*(c.events for c in chunks))
    }
    assert whole.turns_total == sum(c.turns_total for c in chunks)
    assert whole.turns_max == max(c.turns_max for c in chunks)
    # A chunk is seeded from the run's seed and its index only: played alone, the same.
    alone = simulate(batch.prepared, 100, sim_batch.chunk_seed(5, 3))
    assert _figures(alone) == _figures(chunks[3])


def test_chunks_played_in_any_order_or_place_give_the_same_figures() -> None:
    batch = sim_batch.plan(_prepared("plans-random.json"), 300, "s", mirror=None)
    in_order = sim_batch.run(batch)
    backwards = sim_batch.run(
        batch,
        map_chunks=lambda b, chunks: [sim_batch.play_chunk(b, i, n) for i, n in chunks[::-1]],
    )
    assert _figures(in_order) == _figures(backwards)


def test_the_mirror_exchanges_characters_and_keeps_the_seats_orders() -> None:
    setup = _prepared("pistol-rifle-vs-pistol.json").setup
    fixed = dict(setup.participants[0].orders or {})
    flipped = sim_batch.mirror_setup(setup)
    assert flipped is not None
    assert [p.pid for p in flipped.participants] == ["b", "a"]
    assert [p.character["weapon"] for p in flipped.participants] == ["pistol", "rifle"]
    assert flipped.participants[0].orders == fixed  # the seat keeps its order
    dragons = sim_batch.mirror_setup(_prepared("dragons-2v2-random.json").setup)
    assert dragons is not None
    assert [(p.pid, p.side) for p in dragons.participants] == [
        ("n1", "blue"),
        ("n2", "blue"),
        ("p1", "red"),
        ("p2", "red"),
    ]
    assert sim_batch.mirror_setup(_prepared("dragons-ace-vs-raiders.json").setup) is None


def test_mirror_on_a_symmetric_matchup_gives_equal_shares() -> None:
    batch = sim_batch.plan(_prepared("dragons-2v2-random.json"), 20, 1)
    assert batch.mirrored is not None  # two sides of equal size: on by default
    result = sim_batch.run(batch)
    assert result.sides["red"] == result.sides["blue"]  # the same two dragons on each side


def test_mirror_asked_for_where_it_cannot_be_played() -> None:
    with pytest.raises(SetupError) as exc:
        sim_batch.plan(_prepared("dragons-ace-vs-raiders.json"), 10, 1, mirror=True)
    assert exc.value.where == "mirror"
    assert sim_batch.plan(_prepared("dragons-ace-vs-raiders.json"), 10, 1).mirrored is None


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (0, 100, 0.0, 0.037),
        (100, 100, 0.963, 1.0),
        (1, 10, 0.0179, 0.4042),
    ],
)
def test_wilson_interval(k: int, n: int, low: float, high: float) -> None:
    lo, hi = sim_batch.wilson(k, n)
    assert lo == pytest.approx(low, abs=1e-3) and hi == pytest.approx(high, abs=1e-3)


def test_report_names_sides_and_their_shares_sum_to_one() -> None:
    batch = sim_batch.plan(_prepared("plans-random.json"), 200, 2)
    result = sim_batch.run(batch)
    rep = sim_batch.report(batch, result)
    assert [s["label"] for s in rep["sides"]] == ["fencer (Fencer)", "pyromancer (Pyromancer)"]
    assert rep["orders_mode"] == "random" and rep["mirror"] is True
    total = sum(s["share"] for s in rep["sides"]) + rep["draw"]["share"] + rep["mutual"]["share"]
    assert total == pytest.approx(1.0, abs=1e-3)


def test_odds_in_the_sandbox() -> None:
    out = io.StringIO()
    lines = "/duel\n1\n:as alice\n1\n:in private\n1\n:as bob\n:in group\n1\n:in private\n1\n"
    lines += ":as gm\n:in group\n:show\n"
    Sandbox(out, lang="en").run(lines.splitlines(), interactive=False)
    assert "🎲 Odds" in out.getvalue()
    number = next(
        line.split("]")[0].strip(" [")
        for line in reversed(out.getvalue().splitlines())
        if "🎲 Odds" in line
    )
    out2 = io.StringIO()
    Sandbox(out2, lang="en").run([*lines.splitlines(), number], interactive=False)
    answer = out2.getvalue().split("🎲 Odds of this matchup")[-1]
    assert "matches, random orders on both sides" in answer and "(rifle):" in answer
    assert "turns per match" in answer and "commonest ending" in answer
