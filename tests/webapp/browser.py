"""Headless Chromium from the system's packages (Debian's ``chromium`` and
``chromium-driver``; no browser is downloaded) driven by Selenium, with a stub
``window.Telegram.WebApp`` whose ``initData`` the test signs: what Telegram's client would
inject, with a visible main button (Telegram draws its own outside the page) so a test presses
it and a screenshot shows it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

WIDTH, HEIGHT = 390, 844  # a 6.1" phone's CSS pixels (the issue's screenshot size)


def binaries() -> tuple[str, str] | None:
    """(chromium, chromedriver), or None when either is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/lib/chromium/chromedriver"
        if Path("/usr/lib/chromium/chromedriver").exists()
        else None
    )
    if chromium is None or driver is None:
        return None
    return chromium, driver


def skip_reason() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    if binaries() is None:
        return (
            "Chromium and chromedriver are not installed: apt-get install chromium "
            "chromium-driver (.ci/run does)"
        )
    return None


STUB = """
(() => {
  const cfg = %(cfg)s;
  const clicks = [], backs = [];
  window.__tg = { haptics: [], mainButton: { text: "", visible: false, enabled: true } };
  function theme() {
    const root = document.documentElement;
    for (const [k, v] of Object.entries(cfg.theme)) {
      root.style.setProperty(`--tg-theme-${k.replace(/_/g, "-")}`, v);
    }
  }
  function bar() {
    let b = document.getElementById("tg-main-button");
    if (!b && document.body) {
      b = document.createElement("div");
      b.id = "tg-main-button";
      b.setAttribute("role", "button");
      Object.assign(b.style, {position: "fixed", left: "0", right: "0", bottom: "0", height: "56px",
        display: "none", alignItems: "center", justifyContent: "center", font: "600 16px system-ui",
        background: cfg.theme.button_color, color: cfg.theme.button_text_color, zIndex: 99});
      b.addEventListener("click", () => {
        if (window.__tg.mainButton.enabled) clicks.forEach((f) => f());
      });
      document.body.append(b);
    }
    if (b) {
      const s = window.__tg.mainButton;
      b.textContent = s.text;
      b.style.display = s.visible ? "flex" : "none";
      b.style.opacity = s.enabled ? "1" : "0.5";
    }
  }
  document.addEventListener("DOMContentLoaded", () => { theme(); bar(); });
  const mb = {
    setText(t) { window.__tg.mainButton.text = t; bar(); return mb; },
    show() { window.__tg.mainButton.visible = true; bar(); return mb; },
    hide() { window.__tg.mainButton.visible = false; bar(); return mb; },
    enable() { window.__tg.mainButton.enabled = true; bar(); return mb; },
    disable() { window.__tg.mainButton.enabled = false; bar(); return mb; },
    showProgress() { return mb; }, hideProgress() { return mb; },
    onClick(f) { clicks.push(f); return mb; },
  };
  window.Telegram = { WebApp: {
    initData: cfg.initData, initDataUnsafe: cfg.unsafe, platform: cfg.platform, version: "8.0",
    colorScheme: "light", themeParams: cfg.theme,
    ready() {}, expand() {}, close() {},
    MainButton: mb,
    BackButton: { show() {}, hide() {}, onClick(f) { backs.push(f); } },
    HapticFeedback: {
      notificationOccurred(k) { window.__tg.haptics.push(k); },
      impactOccurred(k) { window.__tg.haptics.push(k); },
      selectionChanged() {},
    },
  } };
})();
"""

THEME = {
    "bg_color": "#ffffff",
    "text_color": "#000000",
    "hint_color": "#707579",
    "link_color": "#3390ec",
    "button_color": "#3390ec",
    "button_text_color": "#ffffff",
    "secondary_bg_color": "#f4f4f5",
    "destructive_text_color": "#e53935",
}


def stub(init_data: str, user: dict[str, Any], platform: str = "android") -> str:
    cfg = {"initData": init_data, "unsafe": {"user": user}, "platform": platform, "theme": THEME}
    return STUB % {"cfg": json.dumps(cfg, ensure_ascii=False)}


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium at 390x844 CSS pixels, telegram.org blocked (the stub
    stands in for Telegram's script)."""
    reason = skip_reason()
    if reason is not None:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    found = binaries()
    assert found is not None
    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--lang=en-US",
        f"--window-size={WIDTH},{HEIGHT}",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(executable_path=found[1]), options=options)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*telegram.org*"]})
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": True},
        )
        yield driver
    finally:
        driver.quit()


def open_page(driver: Any, url: str, init_data: str, user: dict[str, Any]) -> None:
    """Open ``url`` with the Telegram stub signed for ``user`` in place before any script."""
    previous = getattr(driver, "_telegram_stub", None)
    if previous is not None:  # one Telegram per page: the last test's stub goes
        driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": previous})
    added = driver.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument", {"source": stub(init_data, user)}
    )
    driver._telegram_stub = added["identifier"]
    driver.get(url)


def tap(driver: Any, element: Any) -> None:
    """Click ``element`` scrolled to the middle of the screen (the stub's main button covers
    the bottom, as Telegram's covers nothing: it is outside the page)."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    element.click()
