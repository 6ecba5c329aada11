"""The order page's API over the real bot (docs/bot.md "The order page"): the reader's view,
a seal that lands exactly like a chat seal, the seat and idempotency rules, the limits."""

from __future__ import annotations

from typing import Any

from handlers.telegram.harness import Harness
from handlers.webapp.api import CSP, MAX_BODY_BYTES, RateLimiter, WebApp
from tests.webapp.conftest import Page


def _seal(page: Page, user: dict[str, Any], order: dict[str, Any], key: str = "key-000001") -> Any:
    m = page.duel.match()
    body = {"match": m.id, "pid": "p1", "turn": m.turn, "order": order, "key": key}
    return page.call("/api/seal", body, user)


def test_the_view_is_the_readers_own_seat_with_every_aim_and_its_exact_odds(page: Page) -> None:
    page.duel.start()
    answer = page.call("/api/view", {"match": "m00001"}, page.duel.alice)
    assert answer.status == 200
    view = answer.json()
    assert (view["pid"], view["sealed"], view["lang"]) == ("p1", None, "ru")
    heat = {tuple(h["aim"]): h for h in view["pistol"]["heat"]}
    assert len(heat) == 121  # P8: every corner of the -5..5 window, the far ones too
    # Alice's rifle: zone 2. Aimed at -1:1 with Bob still, the zone covers -1..0 x 0..1:
    # head (0,1), torso (0,0), arm (-1,0) and one empty cell (P9-P11).
    corner = heat[(-1, 1)]
    assert corner["still"] == {"head": [1, 4], "torso": [1, 4], "arm": [1, 4]}
    assert corner["still_hit"] == [3, 4]
    assert view["strings"]["webapp.page.seal"].startswith("🔒")


def test_no_view_shows_another_seats_order(page: Page) -> None:
    page.duel.start()
    before = page.call("/api/view", {"match": "m00001"}, page.duel.alice).json()
    page.h.say(page.duel.bob, page.duel.b, "/order move -1 aim 2:3")
    bob = page.h.deps.repo.load("m00001").orders["p2"]
    answer = page.call("/api/view", {"match": "m00001"}, page.duel.alice)
    assert bob.salt not in answer.body.decode()
    after = answer.json()
    # Only that Bob sealed changed, as the group's status shows it; nothing of his order.
    assert [s["sealed"] for s in after.pop("seats")] == [False, True]
    before.pop("seats")
    assert after == before
    refused = page.call("/api/view", {"match": "m00001", "pid": "p2"}, page.duel.alice)
    assert refused.status == 403
    assert refused.json()["error"].startswith("Это не ваше место")


def _chat_seal() -> tuple[Any, str, str]:
    h = Harness()
    page = Page(h)
    page.duel.start()
    page.duel.alice_seals(1, -1, 0)
    loaded = h.deps.repo.load("m00001")
    return loaded.orders["p1"], h.texts(page.duel.a)[-1], page.duel.status_msg().text


def test_a_page_seal_lands_exactly_like_a_chat_seal(page: Page) -> None:
    chat_order, chat_receipt, chat_status = _chat_seal()
    page.duel.start()
    before = len(page.h.texts(page.duel.a))
    answer = _seal(page, page.duel.alice, {"move": 1, "aim": [-1, 0]})
    assert answer.status == 200, answer.body
    order = page.h.deps.repo.load("m00001").orders["p1"]
    assert order == chat_order  # same record: order, salt, fingerprint, time, sealer
    assert answer.json()["fingerprint"] == chat_order.fingerprint
    texts = page.h.texts(page.duel.a)
    assert len(texts) == before + 1 and texts[-1] == chat_receipt  # the same receipt, in chat
    assert page.duel.status_msg().text == chat_status


def test_a_double_tap_seals_once_and_a_new_draft_replaces_until_the_lock(page: Page) -> None:
    page.duel.start()
    first = _seal(page, page.duel.alice, {"move": 0, "aim": [0, 0]})
    again = _seal(page, page.duel.alice, {"move": 0, "aim": [0, 0]})
    assert first.status == again.status == 200
    assert again.json() == {**first.json(), "duplicate": True}
    match = page.h.deps.repo.load("m00001").match
    assert match.seal_seq == 1
    receipts = [t for t in page.h.texts(page.duel.a) if "Запечатано" in t]
    assert len(receipts) == 1
    changed = _seal(page, page.duel.alice, {"move": 2, "aim": [5, 5]}, key="key-000002")
    assert changed.status == 200 and changed.json()["fingerprint"] != first.json()["fingerprint"]
    assert page.h.deps.repo.load("m00001").orders["p1"].order == {"move": 2, "aim": [5, 5]}
    # Bob's typed order completes the turn: the page's order is the one revealed.
    page.h.say(page.duel.bob, page.duel.b, "/order move 0 aim 5:-5")  # both miss (P9)
    assert page.h.deps.repo.load("m00001").match.turn == 2
    body = {"match": "m00001", "pid": "p1", "turn": 1, "order": {"move": 0, "aim": [5, 5]}}
    late = page.call("/api/seal", {**body, "key": "key-000003"}, page.duel.alice)
    assert late.status == 409  # the page showed turn 1: over
    assert late.json()["error"] == "Ход 1 уже закончился."


def test_an_illegal_order_is_one_plain_sentence_in_the_readers_language(page: Page) -> None:
    page.duel.start()
    ru = _seal(page, page.duel.alice, {"move": 7, "aim": [0, 0]})
    assert ru.status == 409 and ru.json()["error"] == "Шаг должен быть от -2 до 2, а не 7."
    bob = page.duel.bob
    body = {"match": "m00001", "pid": "p2", "turn": 1, "order": {"move": 0}, "key": "key-000009"}
    en = page.call("/api/seal", body, bob).json()["error"]
    assert "<" not in en and en[0].isupper() and en.endswith(".")
    assert page.h.deps.repo.load("m00001").orders == {}


def test_the_gm_seals_no_players_seat(page: Page) -> None:
    page.duel.start()
    answer = _seal(page, page.duel.gm, {"move": 0, "aim": [0, 0]})
    assert answer.status == 403
    assert answer.json()["error"].startswith("That seat is not yours")


def test_limits_size_rate_and_methods(page: Page) -> None:
    page.duel.start()
    big = b'{"match": "m00001", "pad": "' + b"x" * MAX_BODY_BYTES + b'"}'
    assert page.call("/api/view", big, page.duel.alice).status == 413
    tight = WebApp(page.backend, limiter=RateLimiter(burst=2, per_second=0.0))
    init = page.init(page.duel.alice)
    codes = [
        tight.handle("POST", "/api/matches", {"Authorization": f"tma {init}"}, b"{}").status
        for _ in range(3)
    ]
    assert codes == [200, 200, 429]
    assert page.webapp.handle("GET", "/api/view", {}, b"").status == 405
    assert page.webapp.handle("POST", "/api/nothing", {}, b"").status == 404


def test_static_files_only_from_the_static_folder_with_a_csp(page: Page) -> None:
    index = page.webapp.handle("GET", "/app/", {}, b"")
    assert index.status == 200 and b'<script type="module" src="app.js">' in index.body
    assert index.headers["Content-Security-Policy"] == CSP
    assert "'unsafe-inline'" not in CSP and "'unsafe-eval'" not in CSP
    js = page.webapp.handle("GET", "/app/pistol.js", {}, b"")
    assert js.status == 200 and js.headers["Content-Type"].startswith("text/javascript")
    for path in ("/app/../api.py", "/app/%2e%2e/api.py", "/app/api.py", "/app/.hidden.js"):
        assert page.webapp.handle("GET", path, {}, b"").status == 404, path
    api = page.call("/api/matches", {}, page.duel.alice)
    assert api.headers["Content-Security-Policy"] == CSP


def test_the_menu_button_lists_the_readers_running_seats(page: Page) -> None:
    page.duel.start()
    listed = page.call("/api/matches", {}, page.duel.bob).json()
    assert listed["matches"] == [
        {
            "match": "m00001",
            "ruleset": "pistol",
            "title": "Pistol duel m00001: Алиса — Bob <b>Smith</b>",  # text, not HTML
            "seats": [{"pid": "p2", "name": "Bob <b>Smith</b>"}],
        }
    ]
    assert page.call("/api/matches", {}, page.duel.gm).json()["matches"] == []


def test_a_failed_receipt_still_answers_sealed_and_a_retry_seals_nothing_new(page: Page) -> None:
    page.duel.start()
    page.h.api.fail_next["sendMessage"] = [(500, {"description": "Internal Server Error"})] * 3
    first = _seal(page, page.duel.alice, {"move": 0, "aim": [0, 0]}, key="key-flaky-1")
    assert first.status == 200, first.body  # the order is stored: the page says so
    sealed = page.h.deps.repo.load("m00001").orders["p1"]
    assert first.json()["fingerprint"] == sealed.fingerprint
    page.h.api.fail_next.clear()
    again = _seal(page, page.duel.alice, {"move": 0, "aim": [0, 0]}, key="key-flaky-1")
    assert again.json() == {**first.json(), "duplicate": True}
    assert page.h.deps.repo.load("m00001").orders["p1"] == sealed


def test_a_replayed_seal_after_the_turn_seals_nothing(page: Page) -> None:
    page.duel.start()
    body = {"match": "m00001", "pid": "p1", "turn": 1, "order": {"move": 0, "aim": [5, 5]}}
    assert page.call("/api/seal", {**body, "key": "key-replay-1"}, page.duel.alice).status == 200
    page.h.say(page.duel.bob, page.duel.b, "/order move 0 aim 5:-5")  # turn 1 resolves
    replayed = page.call("/api/seal", {**body, "key": "key-replay-1"}, page.duel.alice)
    assert replayed.status == 409 and page.h.deps.repo.load("m00001").orders == {}
