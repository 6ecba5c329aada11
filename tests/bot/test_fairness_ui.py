"""Provable fairness through the real Application: the seed commitment is public before the
first seal of its turn; receipts hold the order, salt and full fingerprint; a changed order
shows a new fingerprint; the reveal publishes the seed and every salt; /dossier sends JSON that
engine.verify accepts, and a Markdown version in the reader's language."""

from __future__ import annotations

import json
from typing import Any

from engine.dice import seed_commitment
from engine.match import order_fingerprint
from engine.verify import verify
from handlers.telegram.harness import plain
from tests.bot.conftest import Duel

MID = "m00001"


def test_commitment_is_posted_before_the_first_seal_of_every_turn(duel: Duel) -> None:
    h = duel.h
    duel.lobby()
    duel.h.press_text(duel.gm, duel.lobby_msg, "Start")
    duel.play_out()
    history = h.deps.repo.history(MID)
    assert len(history) >= 2
    calls = h.api.calls

    def first(pred: Any) -> int:
        return next(i for i, c in enumerate(calls) if pred(c))

    def in_group(needle: str) -> Any:
        return lambda c: (
            int(c.params.get("chat_id", 0)) == duel.g and needle in str(c.params.get("text", ""))
        )

    # Turn 0 (setup rolls): committed in the lobby, before the GM pressed Start.
    t0 = history[0]
    assert seed_commitment(bytes.fromhex(t0.seed)) == t0.commitment
    assert first(in_group(t0.commitment)) < first(in_group("starting now"))
    for record in history[1:]:
        committed = first(in_group(record.commitment))
        sealed = [o for o in record.orders if not o.default]
        assert sealed
        for o in sealed:
            # The sealer's receipt (a private message) carries the full fingerprint.
            receipt = first(lambda c, fp=o.fingerprint: fp in str(c.params.get("text", "")))
            assert int(calls[receipt].params["chat_id"]) > 0
            assert committed < receipt, record.turn
        assert seed_commitment(bytes.fromhex(record.seed)) == record.commitment


def test_receipt_holds_order_salt_and_full_fingerprint_and_a_change_shows_a_new_one(
    duel: Duel,
) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(0, 0, 0)
    receipt = h.last(duel.a)
    loaded = h.deps.repo.load(MID)
    order = loaded.orders["p1"]
    assert order.salt in receipt.text and order.fingerprint in receipt.text
    assert "0:0" in plain(receipt.text)
    assert order_fingerprint(MID, 1, "p1", order.order, order.salt) == order.fingerprint
    status = duel.status_msg()
    assert order.fingerprint[:8] in status.text and order.fingerprint not in status.text
    h.press_text(duel.alice, receipt, "Изменить")  # Alice's client is Russian
    duel.h.press(duel.alice, h.last(duel.a, with_buttons=True), 1 + 2)
    duel.h.press(duel.alice, h.last(duel.a, with_buttons=True), (3 - 1) * 7 + (1 + 3))
    duel.h.press_text(duel.alice, h.last(duel.a, with_buttons=True), "🔒")
    changed = h.deps.repo.load(MID).orders["p1"]
    assert changed.fingerprint != order.fingerprint and changed.salt != order.salt
    assert changed.fingerprint[:8] in duel.status_msg().text
    assert order.fingerprint[:8] not in duel.status_msg().text


def test_withdraw_on_the_receipt_takes_the_order_back(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(0, 0, 0)
    h.press_text(duel.alice, h.last(duel.a), "Отозвать")
    m = h.deps.repo.load(MID).match
    assert m.sealed == () and m.turn == 1
    assert "Алиса is thinking" in plain(duel.status_msg().text)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    assert h.deps.repo.load(MID).match.turn == 1  # still waiting for Alice


def test_reveal_publishes_the_seed_and_every_salt(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    record = h.deps.repo.history(MID)[1]
    reveal = next(t for t in h.reveals(duel.g) if "Turn 1 — reveal" in t)
    assert record.seed in reveal and record.commitment in reveal
    for o in record.orders:
        assert o.salt in reveal and o.fingerprint in reveal
        # The orders in words (issue 24): no JSON in the group.
        assert json.dumps(dict(o.order), sort_keys=True, separators=(",", ":")) not in reveal
    assert "aim corner -3:3" in plain(reveal.split("<blockquote expandable>")[-2])


def _documents(duel: Duel, uid: int) -> dict[str, bytes]:
    return {d.file_name.rsplit(".", 1)[-1]: d.content for d in duel.h.api.documents(uid)}


def test_dossier_after_the_match_is_a_file_that_verifies(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.play_out()
    summary = h.last(duel.g, with_buttons=True)
    assert "Final" in summary.text
    h.press_text(duel.alice, summary, "Dossier")
    files = _documents(duel, duel.a)
    assert set(files) == {"json", "md"}
    dossier = json.loads(files["json"])
    assert verify(dossier) == []
    assert dossier["match"]["id"] == MID and len(dossier["turns"]) >= 2
    md = files["md"].decode()
    assert md.startswith("# Досье Секунданта") and "## Ход 1" in md  # Alice reads Russian
    assert dossier["turns"][1]["orders"][0]["salt"] in md
    # A participant also gets it by command, in their language.
    h.say(duel.bob, duel.b, f"/dossier {MID}")
    assert _documents(duel, duel.b)["md"].decode().startswith("# Sekundant dossier")


def test_dossier_refused_to_outsiders_and_to_players_before_the_end(duel: Duel) -> None:
    h = duel.h
    duel.start()
    duel.alice_seals(0, -3, 3)  # sealed, not revealed
    dave = h.user(444444444, "Dave", lang="en")
    h.say(dave, duel.g, "/dossier")
    assert "for the GM, and for participants once the match is over" in h.texts(duel.g)[-1]
    h.say(duel.bob, duel.b, f"/dossier {MID}")
    assert "for the GM" in h.texts(duel.b)[-1]
    assert h.api.documents(444444444) == [] and h.api.documents(duel.b) == []
    # The GM may have it at any time: the open turn shows fingerprints only.
    h.say(duel.gm, duel.g, "/dossier")
    files = _documents(duel, int(duel.gm["id"]))
    dossier = json.loads(files["json"])
    assert verify(dossier) == []
    secret = h.deps.repo.load(MID).orders["p1"]
    assert dossier["current"]["sealed"][0]["fingerprint"] == secret.fingerprint
    assert secret.salt not in files["json"].decode() and secret.salt not in files["md"].decode()
    assert "sent to Carol privately" in h.texts(duel.g)[-1]
