"""Honest defaults (issue 26, docs/fairness.md "Who can do what"): a match played without a
public beacon says so in every reveal, in the status and in the dossier, in Russian and in
English; ``verify`` notes every such turn and every undo (the GM got one more roll)."""

from __future__ import annotations

from typing import Any

import pytest

from engine import usecases as uc
from engine.dossier import build_dossier
from engine.verify import check
from handlers.telegram.i18n import Tr
from handlers.telegram.screens import dossier_md, render
from handlers.telegram.screens.fairness import reveal_proof
from infra.beacon import LocalBeacon
from infra.memory import MemoryRepository
from tests.fairness.posting import post
from tests.support.clock import FakeClock

GM, ANN, BOB = 100, 1, 2
WARNING = {
    "ru": "Кубики — только из зерна сервера: владелец сервера мог их выбрать.",
    "en": "Dice from the server's seed only — the operator could choose them.",
}

TAIL = {"ru": "владелец сервера мог их выбрать", "en": "the operator could choose them"}


def _play(beacon: LocalBeacon | None) -> tuple[uc.Deps, str]:
    clock = FakeClock()
    deps = uc.Deps(MemoryRepository(), clock, uc.SystemEntropy(), beacon=beacon)
    m = uc.create_match(deps, chat_id=-5, gm_user_id=GM, ruleset_id="coin", config={"target": 9})
    post(deps, m.id)
    uc.join(deps, m.id, ANN, "Ann")
    uc.join(deps, m.id, BOB, "Bob")
    uc.set_character(deps, m.id, ANN, "p1", {})
    uc.set_character(deps, m.id, BOB, "p2", {})
    clock.advance(5)
    uc.start(deps, m.id, GM)
    post(deps, m.id)
    for turn in (1, 2):
        clock.advance(5)
        uc.seal_order(deps, m.id, ANN, "p1", {"call": turn})
        post(deps, m.id)
        uc.seal_order(deps, m.id, BOB, "p2", {"call": 3})
        post(deps, m.id)
    clock.advance(5)
    uc.undo(deps, m.id, GM, "misclick", turn=3)
    post(deps, m.id)
    clock.advance(5)
    uc.seal_order(deps, m.id, ANN, "p1", {"call": 4})
    post(deps, m.id)
    uc.seal_order(deps, m.id, BOB, "p2", {"call": 4})
    post(deps, m.id)
    return deps, m.id


def _dossier(deps: uc.Deps, mid: str) -> dict[str, Any]:
    loaded = deps.repo.load(mid)
    return build_dossier(
        loaded.match,
        deps.repo.history(mid),
        list(loaded.orders.values()),
        generated_at=deps.clock(),
    )


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_without_a_beacon_every_reveal_the_status_and_the_dossier_say_so(lang: str) -> None:
    deps, mid = _play(None)
    tr = Tr(lang)
    match = deps.repo.load(mid).match
    for record in deps.repo.history(mid):
        assert WARNING[lang] in reveal_proof(tr, match, record), record.turn
    assert WARNING[lang] in render.status_text(tr, match, {}, None)
    md = dossier_md.render(_dossier(deps, mid), tr)
    kept_and_undone = len(deps.repo.history(mid)) + 1
    assert md.count(TAIL[lang]) >= kept_and_undone


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_with_the_beacon_nothing_warns(lang: str) -> None:
    deps, mid = _play(LocalBeacon())
    tr = Tr(lang)
    match = deps.repo.load(mid).match
    for record in deps.repo.history(mid):
        assert record.beacon is not None
        assert WARNING[lang] not in reveal_proof(tr, match, record)
    assert WARNING[lang] not in render.status_text(tr, match, {}, None)
    assert TAIL[lang] not in dossier_md.render(_dossier(deps, mid), tr)


def test_verify_notes_every_turn_without_a_public_beacon_and_every_undo() -> None:
    deps, mid = _play(None)
    report = check(_dossier(deps, mid))
    assert report.findings == []
    seed_only = [n for n in report.notes if "the operator could choose them" in n.what]
    # turns 0..2 kept, turn 2 also undone (then played again): four records, four notes
    assert sorted((n.turn, n.undone) for n in seed_only) == [
        (0, False),
        (1, False),
        (2, False),
        (2, True),
    ]
    undos = [n for n in report.notes if "one more roll" in n.what]
    assert [n.turn for n in undos] == [2]


def test_with_a_local_beacon_verify_notes_only_the_test_key_and_the_undo() -> None:
    deps, mid = _play(LocalBeacon())
    report = check(_dossier(deps, mid))
    assert report.findings == []
    assert not [n for n in report.notes if "the operator could choose them" in n.what]
    assert [n.turn for n in report.notes if "one more roll" in n.what] == [2]
    assert any("not a public beacon" in n.what for n in report.notes)
