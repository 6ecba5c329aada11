"""Pictures that tell the turn (issue 24 point 4), checked on turns played through the bot
(``handlers.telegram.picture_demo``) and on the layouts the renderers expose: the dragons' sky
shows every attack (hit, miss, wound), tail, fall and the dragons that left, with the text's
axes and labels that never overlap; each participant keeps one colour in every picture."""

from __future__ import annotations

import io
import random

import pytest
from PIL import Image

from engine import usecases
from engine.match import Match, TurnRecord
from engine.rulesets.dragons.view import sky_chart
from handlers.telegram.harness import Harness
from handlers.telegram.i18n import Tr
from handlers.telegram.picture_demo import play
from handlers.telegram.screens import pictures
from handlers.telegram.screens.canvas import PALETTE, font, participant_colours
from handlers.telegram.screens.pictures import dragons
from handlers.telegram.screens.pictures.sky import Frame, SkyLayout, Spot, overlaps, sky_layout
from tests.bot.conftest import Duel


def _turns(h: Harness) -> tuple[Match, list[TurnRecord]]:
    match = h.deps.repo.load("m00001").match
    return match, [r for r in usecases.history(h.deps, match.id) if r.turn >= 1]


@pytest.fixture(scope="module")
def dragons_battle() -> tuple[Match, list[TurnRecord]]:
    h = play("dragons")
    out = _turns(h)
    h.close()
    return out


def _assert_apart(sky: SkyLayout) -> None:
    """No label box overlaps another label, a dot or a fall arrow, or leaves the chart."""
    boxes = [box for _, _, box in sky.labels]
    for i, a in enumerate(boxes):
        assert sky.frame.holds(a), a
        assert not any(overlaps(a, m) for m in sky.marks), a
        for b in boxes[i + 1 :]:
            assert not overlaps(a, b), (a, b)


def test_the_sky_shows_every_attack_as_hit_miss_or_wound(
    dragons_battle: tuple[Match, list[TurnRecord]],
) -> None:
    _, (first, second) = dragons_battle
    # turn 1: Алиса's claws wound Смауг (who then retreats); turn 2: Bob's breath hits
    # Wingman and his bite misses
    assert dragons.Attack("p1", "n2", "wound") in dragons.attacks(first.events)
    assert dragons.attacks(second.events) == [
        dragons.Attack("p2", "n1", "hit"),
        dragons.Attack("p2", "n1", "miss"),
    ]


def test_the_demo_turn_has_an_attack_a_tail_a_fall_and_labels_apart(
    dragons_battle: tuple[Match, list[TurnRecord]],
) -> None:
    match, records = dragons_battle
    tr = Tr("ru")
    for record in records:
        sky = dragons.layout(tr, match, record)
        _assert_apart(sky)
        assert {pid for pid, _, _ in sky.labels} == set(sky.dots)  # room for every name
    last = match.rules.load_state(records[-1].state_after)
    assert any(g.tail_of for g in last.dragons) and any(g.falling for g in last.dragons)
    gone = dragons.layout(tr, match, records[0])
    assert "n2" in gone.dots  # Смауг left in turn 1: drawn (as a cross) where he was


def test_the_sky_has_the_text_charts_axes(dragons_battle: tuple[Match, list[TurnRecord]]) -> None:
    match, records = dragons_battle
    record = records[-1]
    state = match.rules.load_state(record.state_after)
    chart = sky_chart(state).splitlines()
    speeds = [
        int(v) for v in chart[next(i for i, ln in enumerate(chart) if "└" in ln) + 1].split()[:-1]
    ]
    alts = [int(ln.split("│")[0]) for ln in chart[1:] if "│" in ln]
    sky = dragons.layout(Tr("en"), match, record)
    assert list(sky.columns) == speeds  # Speed S grows to the right, as in the text
    assert list(sky.rows) == alts  # Altitude H, highest first
    assert Tr("en")("pic.speed_axis").endswith("S") and Tr("ru")("pic.altitude_axis") == "Высота В"


def test_labels_never_overlap_in_crowded_skies() -> None:
    rng = random.Random(24)
    frame = Frame(70, 84, 600, 440)
    width = font(17).getlength
    for case in range(300):
        n = rng.randint(1, 12)
        spots = [
            Spot(
                f"d{i}",
                rng.choice([0, 3, 6, 8, 12][: rng.randint(1, 5)]),
                rng.randint(8, 10),
                rng.random() < 0.3,
            )
            for i in range(n)
        ]
        texts = {
            s.pid: rng.choice(["Алиса", "Bob", "Смауг Ужасный", "Wingman", "Ёж"]) for s in spots
        }
        sky = sky_layout(spots, texts, width, frame, line=22)
        assert set(sky.dots) == {s.pid for s in spots}, case
        _assert_apart(sky)


@pytest.fixture(scope="module")
def plans_duel() -> tuple[Match, list[TurnRecord]]:
    """A plans duel played to its end with typed plans."""
    from engine.match import Phase

    h = play("plans")
    alice, bob = h.user(111, "Алиса", lang="ru"), h.user(222, "Bob", lang="en")
    for _ in range(30):
        if h.deps.repo.load("m00001").match.phase is not Phase.RUNNING:
            break
        guess = "guess:magical/pyromancy/precise"
        h.say(alice, 111, f"/plan physical fencing strong {guess} -- выпад снизу в бедро")
        guess = "guess:physical/fencing/strong"
        h.say(bob, 222, f"/plan magical pyromancy strong {guess} -- a fire whip lash")
    out = _turns(h)
    h.close()
    return out


def _near(image: Image.Image, colour: str) -> bool:
    want = tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return any(
        sum(abs(a - b) for a, b in zip(rgb, want, strict=True)) < 24
        for _, rgb in image.getcolors(1 << 16) or ()
    )


def test_a_participant_keeps_one_colour_in_every_picture(
    plans_duel: tuple[Match, list[TurnRecord]],
) -> None:
    match, records = plans_duel
    colours = participant_colours(match)
    assert [colours[s.pid] for s in match.seats] == list(PALETTE[: len(match.seats)])
    roles = set()
    for record in records:
        reveal = next(e.data for e in record.events if e.kind == "reveal")
        png = pictures.reveal_picture(Tr("ru"), match, record)
        assert png is not None
        image = Image.open(io.BytesIO(png)).convert("RGB")
        for half, pid in enumerate((reveal["attacker"], reveal["defender"])):
            name_band = image.crop((half * 480, 48, half * 480 + 300, 84))
            assert _near(name_band, colours[pid]), (record.turn, pid)
            other = next(p for p in colours if p != pid)
            assert not _near(name_band, colours[other]), (record.turn, pid)
        roles.add(reveal["attacker"])
    assert len(roles) == 2  # the roles swapped, the colours did not


def test_the_plans_final_picture_names_the_real_result(
    plans_duel: tuple[Match, list[TurnRecord]],
) -> None:
    from engine.match import Phase
    from handlers.telegram.screens.pictures.plans import result_lines

    match, records = plans_duel
    out = match.outcome or {}
    assert match.phase is Phase.FINISHED and out.get("status") == "win", out
    final = [text for text, _ in result_lines(Tr("ru"), match, records[-1])]
    winner = next(s.name for s in match.seats if s.pid in out["winners"])
    reason = Tr("ru")(f"plans.reason.{out['reason']}")
    assert final[-1] == f"Победа: {winner} — {reason}", final
    assert not any(line.startswith("Ничья") for line in final)
    earlier = [text for text, _ in result_lines(Tr("ru"), match, records[0])]
    assert not any(line.startswith(("Победа", "Ничья")) for line in earlier)  # not over yet


def test_the_odds_chart_paints_each_side_in_its_participants_colour(duel: Duel) -> None:
    from PIL import Image

    from handlers.telegram.features import odds
    from tests.bot.test_odds_ui import _latin_lobby

    odds._CACHE.clear()
    _latin_lobby(duel)
    duel.h.press_text(duel.gm, duel.lobby_msg, "Odds")
    png = duel.h.last(duel.g).photo
    assert png is not None
    image = Image.open(io.BytesIO(png)).convert("RGB")
    seen = {f"#{r:02x}{g:02x}{b:02x}" for _, (r, g, b) in image.getcolors(1 << 16) or ()}
    match = duel.h.deps.repo.active_in_chat(duel.g)[0]
    colours = participant_colours(match)
    # Bob (the first seat) and Dave: the colours their reveal pictures will draw them in
    assert {colours[s.pid] for s in match.seats} == set(PALETTE[:2])
    assert set(PALETTE[:2]) <= seen
