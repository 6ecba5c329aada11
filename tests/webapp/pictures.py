"""``make webapp-pictures``: the order pages and the proof page at 390x844 (a phone) in
docs/img/, taken in headless Chromium (tests/webapp/browser.py) over the sandbox's cast, in
English, a choice made on each page. ``python -m tests.webapp.pictures DIR``."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from handlers.telegram.harness import Harness
from handlers.webapp.server import serve
from tests.webapp import browser
from tests.webapp.conftest import Page
from tests.webapp.test_plans_page import PlansPage


def _settle(driver: Any, ready: Callable[[Any], Any], timeout: float = 20) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(ready)
    time.sleep(0.3)  # the last paint


def _shoot(driver: Any, page: Page, user: dict[str, Any], query: str, act: Any, out: Path) -> None:
    served = serve(page.webapp, lock=page.backend.lock)
    try:
        who = {k: user[k] for k in ("id", "first_name", "language_code")}
        browser.open_page(driver, served.url + query, page.init(user), who)
        act(driver)
        driver.save_screenshot(str(out))
    finally:
        served.close()


def pistol(driver: Any, directory: Path) -> Path:
    page = Page(Harness())
    page.duel.bob["last_name"] = "Smith"  # the tests' HTML-in-a-name case is not for the README
    page.duel.start()

    def act(d: Any) -> None:
        _settle(d, lambda d: len(d.find_elements("css selector", ".grid .cell")) == 121)
        d.find_element("css selector", '[data-move="-1"]').click()
        d.find_element("css selector", '.cell[data-x="-1"][data-y="1"]').click()

    out = directory / "webapp-pistol.png"
    _shoot(driver, page, page.duel.bob, "?m=m00001&p=p2", act, out)
    page.h.close()
    return out


def plans(driver: Any, directory: Path) -> Path:
    page = PlansPage(Harness())
    page.duel.bob["last_name"] = "Smith"
    page.duel.start()

    def act(d: Any) -> None:
        _settle(d, lambda d: d.find_elements("css selector", "#odds table.chances"))
        d.find_element("css selector", "#f-text").send_keys(
            "A burning sigil in the air, then I throw it at her blade"
        )

    out = directory / "webapp-plans.png"
    _shoot(driver, page, page.duel.bob, "?m=m00001&p=p2", act, out)
    page.h.close()
    return out


def dragons(driver: Any, directory: Path) -> Path:
    from tests.webapp.test_dragons_page import DragonsPage

    page = DragonsPage(Harness())
    page.battle.start()

    def act(d: Any) -> None:
        _settle(d, lambda d: d.find_elements("css selector", "#actions button"))
        browser.tap(d, d.find_element("css selector", 'circle.opt[data-move="climb:1"]'))
        _settle(d, lambda d: "climb 1" in d.find_element("css selector", "#move-text").text)
        enabled = d.find_elements("css selector", '#actions button[data-action*="attack"]:enabled')
        if enabled:
            browser.tap(d, enabled[0])
            _settle(d, lambda d: d.find_elements("css selector", '[aria-pressed="true"]'))
        d.execute_script("window.scrollTo(0, 0)")

    out = directory / "webapp-dragons.png"
    served = serve(page.webapp, lock=page.backend.lock)
    try:
        bob = page.battle.bob
        who = {k: bob[k] for k in ("id", "first_name", "language_code")}
        browser.open_page(driver, served.url + "?m=m00001&p=p2", page.init(bob), who)
        act(driver)
        driver.save_screenshot(str(out))
    finally:
        served.close()
    page.h.close()
    return out


def proof(driver: Any, directory: Path) -> Path:
    """The "📜 Proof" page of a finished duel (dice from a local test beacon, as in the
    sandbox), its details open."""
    from infra.beacon import LocalBeacon

    page = Page(Harness(beacon=LocalBeacon()))
    page.duel.bob["last_name"] = "Smith"
    page.duel.start()
    page.duel.play_out()

    def act(d: Any) -> None:
        _settle(d, lambda d: d.find_elements("css selector", "#verdict .verdict"))
        browser.tap(d, d.find_element("css selector", "#verdict details summary"))
        d.execute_script("window.scrollTo(0, 0)")
        time.sleep(0.3)

    out = directory / "webapp-proof.png"
    _shoot(driver, page, page.duel.bob, "?proof=m00001", act, out)
    page.h.close()
    return out


SCENES = (pistol, plans, dragons, proof)


def main(argv: list[str]) -> int:
    directory = Path(argv[0] if argv else "docs/img")
    directory.mkdir(parents=True, exist_ok=True)
    reason = browser.skip_reason()
    if reason is not None:
        print(f"cannot take the pictures: {reason}", file=sys.stderr)
        return 2
    with browser.chromium() as driver:
        for scene in SCENES:
            print(scene(driver, directory))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
