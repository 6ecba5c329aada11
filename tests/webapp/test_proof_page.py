"""The "📜 Proof" page in a real browser (issue 25 point 6; headless Chromium as in
``test_browser.py``, skipped saying why without it):

- the page's verifier (``proof-bundle.js``, docs/fairness.md in JavaScript) gives
  ``sekundant verify``'s verdict on every dossier of ``tests/webapp/proof_cases.py``: honest
  matches of every ruleset, every tampering of ``tests/fairness/test_tampering.py`` on a pistol
  match, and the torsion variants of a real quicknet round (all in one page load);
- a player of a finished duel opens the proof and reads one line: every turn checked;
- a tampered dossier file picked in the page gets its "❌" line;
- a player of a running match may not have its dossier (``/dossier``'s rule)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from engine.beacon import QUICKNET, verify_signature
from handlers.webapp.server import serve
from tests.webapp import browser
from tests.webapp.conftest import Page
from tests.webapp.proof_cases import all_cases
from tests.webapp.test_browser import css, open_as, wait

SKIP = browser.skip_reason()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=str(SKIP))


RUN_ALL = """
const [texts, key, round, signatures, done] = arguments;
import("./proof-bundle.js").then((v) => {
  const verdict = (t) => { try { return v.verifyText(t).ok; } catch (e) { return false; } };
  const verdicts = texts.map(verdict);
  const beacons = signatures.map((s) => v.verifyBeacon(key, round, s));
  done({ verdicts, beacons });
}).catch((e) => done({ error: String(e) }));
"""


def test_the_page_gives_the_verdict_of_sekundant_verify_on_every_case(
    chromium: Any, page: Page
) -> None:
    from tests.fairness.test_beacon import ROUND, SIGNATURE
    from tests.fairness.test_subgroup import VARIANTS

    cases = all_cases()
    signatures = [SIGNATURE, *(v for _, v in VARIANTS)]
    served = serve(page.webapp, lock=page.backend.lock)
    try:
        open_as(chromium, served, page, page.duel.alice, "?verify")
        wait(chromium, lambda d: d.find_elements("css selector", "#proof-file"))
        chromium.set_script_timeout(240)
        got = chromium.execute_async_script(
            RUN_ALL, [text for _, text, _ in cases], QUICKNET.public_key, ROUND, signatures
        )
    finally:
        served.close()
    assert "error" not in got, got
    disagree = [
        (name, python_ok)
        for (name, _, python_ok), page_ok in zip(cases, got["verdicts"], strict=True)
        if page_ok != python_ok
    ]
    assert disagree == []
    assert got["beacons"] == [verify_signature(QUICKNET, ROUND, s) for s in signatures]
    assert got["beacons"][0] and not any(got["beacons"][1:])


def test_a_player_reads_the_proof_of_a_finished_duel(chromium: Any, page: Page) -> None:
    page.duel.start()
    page.duel.play_out()
    served = serve(page.webapp, lock=page.backend.lock)
    try:
        open_as(chromium, served, page, page.duel.bob, "?proof=m00001")
        line = wait(chromium, lambda d: d.find_elements("css selector", "#verdict .verdict"))[0]
        turns = len(page.h.deps.repo.history("m00001")) - 1
        assert line.text == (
            f"✅ Turns checked: {turns}. No order changed after sealing, no die chosen."
        )
        assert css(chromium, "#verdict").get_attribute("data-ok") == "true"
        assert css(chromium, "#title").text == "📜 Proof"
        details = css(chromium, "#verdict details")
        assert details.get_attribute("open") is None  # the details: one tap away
        browser.tap(chromium, css(chromium, "#verdict details summary"))
        assert "every die from the seed and the beacon" in details.text
    finally:
        served.close()


def test_a_tampered_file_picked_in_the_page_is_named(
    chromium: Any, page: Page, tmp_path: Path
) -> None:
    page.duel.start()
    page.duel.play_out()
    from engine.dossier import build_dossier

    m = page.h.deps.repo.load("m00001").match
    dossier = build_dossier(m, page.h.deps.repo.history("m00001"), (), generated_at=0)
    bad = copy.deepcopy(dossier)
    event = next(e for e in bad["turns"][1]["events"] if e["kind"] == "roll")
    event["faces"] = [7 - event["faces"][0]]  # a die turned over
    path = tmp_path / "dossier.json"
    path.write_text(json.dumps(bad, ensure_ascii=False), encoding="utf-8")
    served = serve(page.webapp, lock=page.backend.lock)
    try:
        open_as(chromium, served, page, page.duel.alice, "?verify")
        picker = wait(chromium, lambda d: d.find_elements("css selector", "#proof-file"))[0]
        picker.send_keys(str(path))
        line = wait(
            chromium, lambda d: d.find_elements("css selector", "#proof-file-out .verdict")
        )[0]
        assert line.text.startswith("❌ Ход 1: ")  # Alice reads Russian
        assert "кубики" in line.text
    finally:
        served.close()


def test_a_player_of_a_running_match_may_not_have_its_dossier(chromium: Any, page: Page) -> None:
    page.duel.start()
    served = serve(page.webapp, lock=page.backend.lock)
    try:
        open_as(chromium, served, page, page.duel.bob, "?proof=m00001")
        note = wait(chromium, lambda d: d.find_elements("css selector", "#note.error"))[0]
        assert note.text == (
            "Only the GM, or a player of the match once it is over, can open its record."
        )
        open_as(chromium, served, page, page.duel.gm, "?proof=m00001")  # the GM may, any time
        line = wait(chromium, lambda d: d.find_elements("css selector", "#verdict .verdict"))[0]
        assert line.text.startswith("✅ Turns checked: 0.")
    finally:
        served.close()


def test_a_plans_record_says_what_is_left_to_sekundant_verify(
    chromium: Any, page: Page, tmp_path: Path
) -> None:
    """Plans' turns are not replayed in the page: it checks the rest and says so."""
    name, text, ok = next(c for c in all_cases() if c[0].startswith("plans honest"))
    assert ok, name
    path = tmp_path / "plans.json"
    path.write_text(text, encoding="utf-8")
    served = serve(page.webapp, lock=page.backend.lock)
    try:
        open_as(chromium, served, page, page.duel.bob, "?verify")
        picker = wait(chromium, lambda d: d.find_elements("css selector", "#proof-file"))[0]
        picker.send_keys(str(path))
        out = wait(chromium, lambda d: d.find_elements("css selector", "#proof-file-out #verdict"))
        assert out[0].find_element("css selector", ".verdict").text.startswith("✅ Turns checked:")
        assert "replayed only by sekundant verify" in out[0].text
    finally:
        served.close()
