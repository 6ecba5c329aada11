"""The order pages in a real browser (issue 25 point 5): headless Chromium from the system's
packages, a stub ``window.Telegram.WebApp`` signed by the test, the real bot behind the local
server. For each ruleset: open the page, choose, seal, and the receipt arrives in the private
chat through the fake Bot API. A tampered ``initData`` is refused in the page. Skipped, saying
why, where Chromium is not installed (``.ci/run`` installs it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from handlers.webapp.server import Served, serve
from tests.webapp import browser
from tests.webapp.conftest import Page
from tests.webapp.test_plans_page import PlansPage

SKIP = browser.skip_reason()
pytestmark = pytest.mark.skipif(SKIP is not None, reason=str(SKIP))


def _serve(page: Page) -> Served:
    return serve(page.webapp, lock=page.backend.lock)


def wait(driver: Any, condition: Callable[[Any], Any], timeout: float = 20) -> Any:
    """``condition`` once it holds; an element the page replaced while it was looked at
    (stale: the page re-renders a list when the odds arrive) counts as not yet."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(
        driver, timeout, ignored_exceptions=(StaleElementReferenceException,)
    ).until(condition)


def tap_when(driver: Any, selector: str) -> None:
    """Tap the element ``selector`` finds, once there is one; found and tapped in one step,
    so a re-render between the two (a stale element) is simply tried again."""
    from selenium.common.exceptions import NoSuchElementException

    def tapped(d: Any) -> bool:
        try:
            browser.tap(d, css(d, selector))
        except NoSuchElementException:
            return False
        return True

    wait(driver, tapped)


def _identity(user: dict[str, Any]) -> dict[str, Any]:
    return {k: user[k] for k in ("id", "first_name", "language_code")}


def open_as(driver: Any, served: Served, page: Page, user: dict[str, Any], query: str) -> None:
    browser.open_page(driver, served.url + query, page.init(user), _identity(user))


def css(driver: Any, selector: str) -> Any:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.CSS_SELECTOR, selector)


def sealed_note(driver: Any) -> str:
    box = wait(driver, lambda d: css(d, "#note.ok") if css(d, "#note").text else False)
    return str(box.text)


def test_pistol_aim_on_the_silhouette_and_seal(chromium: Any, page: Page) -> None:
    page.duel.start()
    served = _serve(page)
    try:
        open_as(chromium, served, page, page.duel.alice, "?m=m00001&p=p1")
        wait(chromium, lambda d: len(d.find_elements("css selector", ".grid .cell")) == 121)
        browser.tap(chromium, css(chromium, '[data-move="1"]'))
        browser.tap(chromium, css(chromium, '.cell[data-x="-1"][data-y="0"]'))
        # Alice's rifle (zone 2) at -1:0 covers arm, torso, torso and one empty cell (P9).
        assert "75.0%" in css(chromium, "#odds").text
        css(chromium, "#tg-main-button").click()
        assert "Отпечаток" in sealed_note(chromium)
    finally:
        served.close()
    sealed = page.h.deps.repo.load("m00001").orders["p1"]
    assert sealed.order == {"move": 1, "aim": [-1, 0]}
    assert "Запечатано" in page.h.texts(page.duel.a)[-1]  # the receipt, in the private chat
    assert chromium.execute_script("return window.__tg.haptics") == ["success"]


def test_a_tampered_initdata_is_refused_in_the_page(chromium: Any, page: Page) -> None:
    page.duel.start()
    served = _serve(page)
    try:
        forged = page.init(page.duel.alice).replace("111111111", "222222222")
        browser.open_page(chromium, served.url + "?m=m00001", forged, _identity(page.duel.bob))
        error = wait(chromium, lambda d: css(d, "#note.error") if css(d, "#note").text else False)
        assert error.text == (
            "Подпись Telegram на этой странице не сходится: закройте её и откройте снова из чата."
        )
        assert not chromium.find_elements("css selector", ".grid .cell")
    finally:
        served.close()
    assert page.h.deps.repo.load("m00001").orders == {}


@pytest.fixture
def plans_page() -> Iterator[PlansPage]:
    from handlers.telegram.harness import Harness

    h = Harness()
    yield PlansPage(h)
    h.close()


def test_plans_the_form_with_its_odds_and_seal(chromium: Any, plans_page: PlansPage) -> None:
    pp = plans_page
    pp.duel.start()
    served = _serve(pp)
    try:
        open_as(chromium, served, pp, pp.duel.bob, "?m=m00001&p=p2")
        wait(chromium, lambda d: d.find_elements("css selector", "#odds table.chances"))
        css(chromium, "#f-text").send_keys("I draw a burning sigil in the air and throw it")
        wait(chromium, lambda d: d.execute_script("return window.__tg.mainButton.enabled"))
        css(chromium, "#tg-main-button").click()
        assert "Fingerprint" in sealed_note(chromium)
    finally:
        served.close()
    sealed = pp.h.deps.repo.load("m00001").orders["p2"]
    assert sealed.order["text"] == "I draw a burning sigil in the air and throw it"
    assert "Sealed" in pp.h.texts(pp.duel.b)[-1]


@pytest.fixture
def dragons_page() -> Iterator[Any]:
    from handlers.telegram.harness import Harness
    from tests.webapp.test_dragons_page import DragonsPage

    h = Harness()
    yield DragonsPage(h)
    h.close()


def test_dragons_move_in_the_sky_choose_an_action_and_seal(
    chromium: Any, dragons_page: Any
) -> None:
    dp = dragons_page
    dp.battle.start()
    served = serve(dp.webapp, lock=dp.backend.lock)
    try:
        bob = dp.battle.bob
        browser.open_page(chromium, served.url + "?m=m00001&p=p2", dp.init(bob), _identity(bob))
        wait(chromium, lambda d: d.find_elements("css selector", "#actions button"))
        tap_when(chromium, 'circle.opt[data-move="level:1"]')  # D11
        wait(chromium, lambda d: "level +1" in css(d, "#move-text").text)
        tap_when(chromium, '#actions button[data-action*="tail"]:enabled')
        wait(chromium, lambda d: css(d, '#actions button[aria-pressed="true"]'))
        css(chromium, "#tg-main-button").click()
        assert "Fingerprint" in sealed_note(chromium)
    finally:
        served.close()
    sealed = dp.h.deps.repo.load("m00001").orders["p2"]
    assert (sealed.order["move"], sealed.order["n"]) == ("level", 1)
    assert sealed.order["actions"][0]["type"] == "tail"
    assert "Sealed" in dp.h.texts(222)[-1]
