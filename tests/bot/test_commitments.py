"""Issue 18: each turn's commitment is its own group message, never edited, its id and time
in the dossier; no order is sealed before the group has it; Start reveals turn 0's seed."""

from __future__ import annotations

import json
from typing import Any

from engine.verify import verify
from tests.bot.conftest import Duel

MID = "m00001"


def never_edited_after_the_commitment(h: Any, chat: int, message_id: int, record: Any) -> bool:
    """The message carrying a turn's commitment (its own, or the reveal or start it is
    folded into: issue 24) was sent with it or got it in its last edit (repeated identically
    by a resumed delivery at most)."""
    edits = []
    for c in h.api.calls:  # a text's edits, a caption's, a picture's (editMessageMedia)
        if c.method not in ("editMessageText", "editMessageCaption", "editMessageMedia"):
            continue
        if int(c.params["chat_id"]) != chat or int(c.params["message_id"]) != message_id:
            continue
        media = c.params.get("media")
        media = json.loads(media) if isinstance(media, str) else media or {}
        edits.append(str(c.params.get("text") or c.params.get("caption") or media.get("caption")))
    carrying = [i for i, text in enumerate(edits) if record.commitment in text]
    if not carrying:
        return not edits
    return len(set(edits[carrying[0] :])) == 1


def test_every_commitment_is_in_a_message_never_edited_after_it_recorded_in_the_dossier(
    duel: Duel,
) -> None:
    h = duel.h
    duel.start()
    duel.play_out()
    history = h.deps.repo.history(MID)
    assert len(history) >= 2
    for record in history:
        assert record.commitment_message is not None, record.turn
        posted = h.api.message(duel.g, record.commitment_message)
        assert record.commitment in posted.text
        assert never_edited_after_the_commitment(h, duel.g, record.commitment_message, record)
        assert posted.buttons == []
        assert record.commitment_posted_at is not None
        for order in record.orders:
            if not order.default:
                assert order.sealed_at >= record.commitment_posted_at
    # Start reveals the seed of turn 0 (the setup rolls) in the group.
    assert any(history[0].seed in t for t in h.texts(duel.g))
    h.press_text(duel.alice, h.last(duel.g, with_buttons=True), "Dossier")
    doc = next(d for d in h.api.documents(duel.a) if d.file_name.endswith(".json"))
    dossier: dict[str, Any] = json.loads(doc.content)
    assert verify(dossier) == []
    assert all(t["commitment_message"] and t["commitment_posted_at"] for t in dossier["turns"])


def test_an_order_waits_until_the_commitment_reached_the_group(duel: Duel) -> None:
    h = duel.h
    duel.lobby()
    refused = (400, {"description": "Bad Request: chat write forbidden"})
    # Turn 1's commitment at Start: folded into the start message (the lobby, edited), then
    # posted on its own when that fails.
    h.api.fail_next["editMessageText"] = [refused]
    h.api.fail_next["sendMessage"] = [refused]
    h.press_text(duel.gm, duel.lobby_msg, "Start")
    match = h.deps.repo.load(MID).match
    assert match.turn == 1 and match.commitment_posted_at is None
    h.api.fail_next["sendMessage"] = [refused]  # the retry when Bob sends his order
    h.say(duel.bob, duel.b, "/order move -1 aim 0:0")
    assert h.deps.repo.load(MID).match.sealed == ()
    assert "commitment" in h.last(duel.b).text
    h.say(duel.bob, duel.b, "/order move -1 aim 0:0")  # Telegram takes it this time
    match = h.deps.repo.load(MID).match
    assert match.sealed == ("p2",) and match.commitment_message is not None
    posted = h.api.message(duel.g, match.commitment_message)
    assert match.commitment is not None and match.commitment in posted.text


def test_an_order_sealed_before_its_commitment_was_posted_is_rejected(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.play_out()
    h.press_text(duel.alice, h.last(duel.g, with_buttons=True), "Dossier")
    doc = next(d for d in h.api.documents(duel.a) if d.file_name.endswith(".json"))
    dossier: dict[str, Any] = json.loads(doc.content)
    turn = dossier["turns"][1]
    turn["commitment_posted_at"] = turn["orders"][0]["sealed_at"] + 0.5
    texts = [str(f) for f in verify(dossier)]
    assert any("sealed before the turn's commitment was posted" in t for t in texts), texts


def test_a_turn_locks_until_its_beacon_round_is_out_then_the_sweep_reveals() -> None:
    from handlers.telegram.harness import Harness
    from infra.beacon import LocalBeacon

    times: list[float] = []
    h = Harness(beacon=LocalBeacon(lambda: times[0]), default_lang="en")
    times.append(h.now)
    try:
        duel = Duel(h)
        duel.start()
        duel.alice_seals(1, -1, 0)
        h.say(duel.bob, duel.b, "/order move -1 aim 0:0")
        match = h.deps.repo.load(MID).match
        assert match.turn == 1 and match.locked_at is not None
        assert f"public random round {match.beacon_round}" in duel.status_msg().text
        h.say(duel.bob, duel.b, "/order move 1 aim 0:0")  # too late: the turn is locked
        assert "locked" in h.last(duel.b).text
        h.now += 4
        times[0] = h.now
        h.sweep()
        after = h.deps.repo.load(MID).match
        assert after.turn == 2
        record = h.deps.repo.history(MID)[1]
        assert record.beacon is not None and record.beacon.round == match.beacon_round
        assert any(record.seed in t for t in h.texts(duel.g))  # the reveal went out
    finally:
        h.close()


def test_a_silent_beacon_is_shown_to_the_group_and_the_gm_resolves_seed_only() -> None:
    from handlers.telegram.harness import Harness
    from infra.beacon import LocalBeacon

    beacon = LocalBeacon(up=False)
    h = Harness(beacon=beacon, default_lang="en")
    try:
        duel = Duel(h)
        duel.start()  # turn 0: seed only (the beacon is down), audited
        duel.alice_seals(1, -1, 0)
        h.say(duel.bob, duel.b, "/order move -1 aim 0:0")
        assert h.deps.repo.load(MID).match.locked_at is not None
        h.now += h.deps.beacon_patience
        h.sweep()
        notice = h.last(duel.g, with_buttons=True)
        assert "cannot be reached" in notice.text
        h.sweep()  # said once per turn
        assert h.last(duel.g, with_buttons=True).message_id == notice.message_id
        h.press_text(duel.gm, notice, "Resolve now")
        record = h.deps.repo.history(MID)[1]
        assert record.beacon is None and record.beacon_round is not None
        assert any("server seed only" in t for t in h.texts(duel.g))
    finally:
        h.close()
