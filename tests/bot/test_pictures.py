"""A picture for every reveal (issue 16): sent with sendPhoto and a short caption before the
text reveal, a PNG under 150 KB drawn with the bundled font (Cyrillic names render); a failed
photo never costs the text reveal; the sandbox saves pictures; Pillow stays off the webhook's
cold path. Drawing time is a ``make bench`` figure, not asserted here."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from handlers.telegram.harness import GROUP_ID, plain
from handlers.telegram.picture_demo import RULESETS, play
from handlers.telegram.sandbox import Sandbox
from handlers.telegram.screens import pictures, render
from tests.bench.bench_lambda import WIRED
from tests.bot.conftest import Duel

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_reveal_comes_with_a_picture_before_its_text(ruleset: str) -> None:
    """Issue 24: the picture carries the story as its caption when the story fits Telegram's
    caption limit (else a short caption); the details and the proof follow it."""
    h = play(ruleset)
    group = [m for m in h.api.chat(GROUP_ID).messages if m.from_bot]
    photo = next(i for i, m in enumerate(group) if m.photo is not None)
    caption = group[photo].text
    assert render.shown_length(caption) <= render.MAX_CAPTION
    if caption != "Turn 1 at a glance":  # the story: who did what, and the turn counter
        assert "turn 1" in plain(caption) and "🔐" not in caption, caption
    reveal = group[photo + 1]  # the details and the proof right after the picture
    assert "<blockquote expandable>" in reveal.text and "🔐" in reveal.text
    png = group[photo].photo
    assert png is not None and len(png) <= pictures.MAX_BYTES
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG" and image.size == (pictures.WIDTH, pictures.HEIGHT)
    assert len(image.getcolors(256) or ()) > 3  # drawn, not blank
    h.close()


def test_the_bundled_font_draws_cyrillic_and_latin_and_has_its_licence() -> None:
    font = pictures.font(20)
    missing = font.getmask("\ufffe").getbbox()  # a code point no font draws
    for text in ("Алиса", "Смауг", "Bob Smith"):
        mask = font.getmask(text)
        assert mask.getbbox() and mask.getbbox() != missing, text
    licence = (pictures.FONT.parent / "LICENSE").read_text()
    assert "Bitstream" in licence and "DejaVu" in licence


def test_a_failed_photo_still_sends_the_text_reveal(duel: Duel) -> None:
    h = duel.h
    duel.start()
    h.api.fail_next["sendPhoto"] = [(400, {"description": "Bad Request: PHOTO_INVALID"})]
    duel.alice_seals(0, 3, 3)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    assert not h.api.photos(duel.g)
    assert any("<blockquote expandable>" in t and "reveal" in t for t in h.texts(duel.g))


def test_a_picture_that_cannot_be_drawn_still_sends_the_text_reveal(
    duel: Duel, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> bytes:
        raise OSError("no font")

    monkeypatch.setattr(pictures, "reveal_picture", broken)
    h = duel.h
    duel.start()
    duel.alice_seals(0, 3, 3)
    h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    assert not h.api.photos(duel.g)
    assert any("<blockquote expandable>" in t for t in h.texts(duel.g))


def test_the_sandbox_saves_pictures_and_prints_their_path(tmp_path: Path) -> None:
    out = io.StringIO()
    sb = Sandbox(out=out, pictures=tmp_path)
    duel = Duel(sb.h)
    duel.start()
    duel.alice_seals(0, 3, 3)
    sb.h.say(duel.bob, duel.b, "/order move 0 aim 5:5")
    sb.flush()
    saved = sorted(tmp_path.glob("*.png"))
    assert saved and f"[picture: {saved[0]}]" in out.getvalue()
    assert saved[0].read_bytes() == sb.h.api.photos(duel.g)[0]
    sb.h.close()


def test_wiring_the_webhook_does_not_import_pillow() -> None:
    done = subprocess.run(
        [sys.executable, "-c", WIRED + "\nimport sys\nprint('PIL' in sys.modules)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.splitlines()[-1] == "False"
