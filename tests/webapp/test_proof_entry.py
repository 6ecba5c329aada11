"""The "📜 Proof" page's ways in and its API (docs/bot.md "The proof page"): the group's final
message links to the private chat (Telegram opens no ``web_app`` button in a group), whose
``/start proof_<id>`` answers with the page's button; the JSON file of ``/dossier`` carries the
button too. ``/api/dossier`` follows ``/dossier``'s rule (the GM any time, a player once the
match is over) and never shows an unrevealed order."""

from __future__ import annotations

import json
from typing import Any

from tests.webapp.conftest import Page

BASE = "https://abc.execute-api.eu-west-1.amazonaws.com/app/"
PROOF = f"{BASE}?proof=m00001"


def _buttons(message: Any, kind: str) -> list[str]:
    return [b[kind]["url"] if kind == "web_app" else b[kind] for b in message.buttons if kind in b]


def test_the_final_message_links_to_the_proof_in_the_private_chat(page: Page) -> None:
    page.h.services.webapp_url = BASE
    page.duel.start()
    page.duel.play_out()
    group = page.h.api.chat(page.duel.g).messages
    final = next(m for m in reversed(group) if m.buttons and "📜" in m.buttons[0]["text"])
    assert "https://t.me/sekundant_bot?start=proof_m00001" in _buttons(final, "url")
    assert not any(_buttons(m, "web_app") for m in group if m.buttons)
    page.h.say(page.duel.bob, page.duel.b, "/start proof_m00001")
    answer = page.h.last(page.duel.b, with_buttons=True)
    assert _buttons(answer, "web_app") == [PROOF]
    assert answer.buttons[0]["text"] == "📜 Proof"
    assert "checks the match's record itself" in answer.text


def test_the_dossier_file_carries_the_proof_button(page: Page) -> None:
    page.h.services.webapp_url = BASE
    page.duel.start()
    page.duel.play_out()
    page.h.say(page.duel.alice, page.duel.a, "/dossier")
    files = [m for m in page.h.api.chat(page.duel.a).messages if m.document is not None]
    json_file = next(m for m in files if m.document.file_name.endswith(".json"))
    assert _buttons(json_file, "web_app") == [PROOF]
    assert json_file.buttons[0]["text"] == "📜 Проверка"


def test_without_a_page_no_proof_link(page: Page) -> None:
    page.duel.start()
    page.duel.play_out()
    group = page.h.api.chat(page.duel.g).messages
    assert not any(_buttons(m, "url") for m in group if m.buttons)


def test_the_dossier_api_follows_the_dossier_rule(page: Page) -> None:
    page.duel.start()
    page.duel.alice_seals(1, -1, 0)  # sealed, not revealed
    sealed = page.h.deps.repo.load("m00001").orders["p1"]
    bob = page.call("/api/dossier", {"match": "m00001"}, page.duel.bob)
    assert bob.status == 403
    assert bob.json()["error"] == (
        "Only the GM, or a player of the match once it is over, can open its record."
    )
    gm = page.call("/api/dossier", {"match": "m00001"}, page.duel.gm)
    assert gm.status == 200
    text = gm.json()["dossier"]
    dossier = json.loads(text)
    assert dossier["match"]["phase"] == "running"
    assert [s["pid"] for s in dossier["current"]["sealed"]] == ["p1"]
    assert sealed.salt not in text and '"aim": [-1, 0]' not in text  # never an unrevealed order
    stranger = {"id": 999, "first_name": "Eve", "language_code": "en"}
    assert page.call("/api/dossier", {"match": "m00001"}, stranger).status == 403
    assert page.call("/api/dossier", {"match": "../x"}, page.duel.gm).status == 400
    assert page.call("/api/dossier", {"match": "m00001"}, init="bad").status == 401
    page.h.say(page.duel.bob, page.duel.b, "/order move -1 aim 0:0")  # turn 1 resolves
    page.duel.play_out()
    assert page.h.deps.repo.load("m00001").match.phase.value == "finished"
    assert page.call("/api/dossier", {"match": "m00001"}, page.duel.bob).status == 200


def test_the_page_texts_come_without_initdata(page: Page) -> None:
    answer = page.webapp.handle("POST", "/api/strings", {}, b'{"lang": "en"}')
    assert answer.status == 200
    assert answer.json()["strings"]["webapp.proof.title"] == "📜 Proof"
    ru = page.webapp.handle("POST", "/api/strings", {}, b"{}").json()
    assert ru["lang"] == "ru" and ru["strings"]["webapp.proof.title"] == "📜 Проверка"
    assert page.webapp.handle("GET", "/api/strings", {}, b"").status == 404
