"""The Mini App's HTTP surface, framework-free: :meth:`WebApp.handle` takes a method, a path,
the headers and the body and returns a :class:`Response`. The Lambda entry
(:mod:`handlers.webapp.lambda_entry`) and the local server (:mod:`handlers.webapp.server`)
both call it, so production and the tests run the same code.

Routes (docs/bot.md "The order page"):

- ``GET /app/`` and ``GET /app/<file>``: the page and its assets (``static/``; any file there,
  so other pages can be added; no path outside it);
- ``POST /api/matches``: the reader's running matches and seats (the menu button's list);
- ``POST /api/view``: the reader's view of one seat (:mod:`handlers.webapp.views`);
- ``POST /api/odds``: the exact odds of a draft order (plans, dragons);
- ``POST /api/seal``: seal (:mod:`handlers.webapp.seal`);
- ``POST /api/dossier``: a match's dossier for the proof page (:mod:`handlers.webapp.proof`);
- ``POST /api/strings``: the page's texts in a language, without ``initData`` (the proof page
  checks a dossier file outside Telegram too; nothing but the catalogs' texts).

Security: every API call carries Telegram's ``initData`` in ``Authorization: tma <initData>``,
validated (:mod:`handlers.webapp.initdata`); the user id comes only from it; a seat is used
only by the user who controls it (``Match.controlled_by``: their own, or the GM's NPCs);
bodies over :data:`MAX_BODY_BYTES` are refused unread; a content security policy on every
answer; a per-user rate limit (:class:`RateLimiter`); an idempotency key on a seal. Every
refusal is one plain sentence in the user's language, and changes nothing.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from telegram import User

from engine.errors import NotFoundError, Rejection
from handlers.telegram.i18n import Tr, normalize
from handlers.webapp import initdata, proof
from handlers.webapp.seal import Backend

log = logging.getLogger("sekundant.webapp")

STATIC_DIR = Path(__file__).with_name("static")
MAX_BODY_BYTES = 32 * 1024  # a plan's 4,000-character text in Cyrillic fits twice over
MAX_KEY_LENGTH = 64  # the idempotency key: the page's UUID
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
}
_STATIC_NAME = re.compile(r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.[a-z0-9]+$")
_ID = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
# Telegram's script is the only foreign origin; the page is framed by Telegram's web clients.
CSP = (
    "default-src 'self'; script-src 'self' https://telegram.org; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'self' https://web.telegram.org https://*.telegram.org"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Refused(Exception):  # noqa: N818 - control flow: answer with this status and sentence
    def __init__(self, status: int, key: str, **params: Any) -> None:
        super().__init__(key)
        self.status = status
        self.key = key
        self.params = params


@dataclass
class RateLimiter:
    """A token bucket per user: ``burst`` calls at once, refilled at ``per_second``. In
    memory (per process or Lambda container; the HTTP API's own throttling caps the total)."""

    burst: float = 30.0
    per_second: float = 1.0
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[int, tuple[float, float]] = field(default_factory=dict)

    def allow(self, user_id: int) -> bool:
        now = self.clock()
        tokens, then = self._buckets.get(user_id, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.per_second)
        if len(self._buckets) > 10_000:  # forget idle users rather than grow without end
            self._buckets.clear()
        if tokens < 1:
            self._buckets[user_id] = (tokens, now)
            return False
        self._buckets[user_id] = (tokens - 1, now)
        return True


def _answer(status: int, payload: Any) -> Response:
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    headers = {"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"}
    return Response(status, {**headers, **SECURITY_HEADERS}, body)


def _loose_lang(init_data: str, default: str) -> str:
    """The language of an initData not (yet) validated: only to word a refusal."""
    try:
        user = json.loads(dict(parse_qsl(init_data[: initdata.MAX_LENGTH])).get("user", "{}"))
        code = user.get("language_code") if isinstance(user, dict) else None
    except ValueError:
        code = None
    return normalize(code if isinstance(code, str) else None, default)


class WebApp:
    """The handler, bound to a running bot (:class:`~handlers.webapp.seal.Backend`)."""

    def __init__(
        self,
        backend: Backend,
        *,
        max_age: float = initdata.MAX_AGE_SECONDS,
        limiter: RateLimiter | None = None,
        default_lang: str = "ru",
    ) -> None:
        self.backend = backend
        self.max_age = max_age
        self.limiter = limiter or RateLimiter()
        self.default_lang = default_lang

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Response:
        path = path.split("?", 1)[0]
        if path in ("/app", "/app/"):
            path = "/app/index.html"
        if path.startswith("/app/"):
            if method not in ("GET", "HEAD"):
                return self._refuse(Refused(405, "webapp.err.method"), self.default_lang)
            return self._static(path.removeprefix("/app/"))
        lower = {str(k).lower(): str(v) for k, v in headers.items()}
        auth = lower.get("authorization", "")
        init = auth[4:].strip() if auth.lower().startswith("tma ") else ""
        lang = _loose_lang(init, self.default_lang)
        if path == "/api/strings" and method == "POST":
            return self._strings(body)
        try:
            route = ROUTES.get(path)
            if route is None:
                raise Refused(404, "webapp.err.not_found")
            if method != "POST":
                raise Refused(405, "webapp.err.method")
            user = self._user(init)
            lang = self._lang(user)
            if not self.limiter.allow(user.id):
                raise Refused(429, "webapp.err.rate")
            data = self._body(body, lower)
            return _answer(200, route(self, user, Tr(lang), data))
        except Refused as exc:
            return self._refuse(exc, lang)
        except Rejection as exc:
            from handlers.telegram.plain import rejection_text
            from handlers.webapp.text import plain

            return _answer(409, {"error": plain(rejection_text(Tr(lang), exc)), "code": exc.code})
        except NotFoundError:
            return self._refuse(Refused(404, "webapp.err.no_match"), lang)
        except Exception:
            log.exception("webapp %s %s failed", method, path)
            return self._refuse(Refused(500, "webapp.err.internal"), lang)

    # --- pieces ---

    def _strings(self, body: bytes) -> Response:
        """The page's texts in the asked language (no user: nothing but the catalogs)."""
        from handlers.webapp.views import strings

        try:
            asked = json.loads(body[:256].decode("utf-8")).get("lang") if body else None
        except (ValueError, UnicodeDecodeError, AttributeError):
            asked = None
        lang = normalize(asked if isinstance(asked, str) else None, self.default_lang)
        return _answer(200, {"lang": lang, "strings": strings(lang)})

    def _refuse(self, exc: Refused, lang: str) -> Response:
        return _answer(exc.status, {"error": Tr(lang)(exc.key, **exc.params), "code": exc.key})

    def _static(self, name: str) -> Response:
        suffix = Path(name).suffix
        target = (STATIC_DIR / name).resolve()
        if (
            not _STATIC_NAME.match(name)
            or suffix not in CONTENT_TYPES
            or not target.is_relative_to(STATIC_DIR.resolve())
            or not target.is_file()
        ):
            return Response(404, {"Content-Type": "text/plain", **SECURITY_HEADERS}, b"not found")
        cache = "no-cache" if suffix == ".html" else "max-age=300"
        headers = {"Content-Type": CONTENT_TYPES[suffix], "Cache-Control": cache}
        return Response(200, {**headers, **SECURITY_HEADERS}, target.read_bytes())

    def _user(self, init: str) -> User:
        try:
            found = initdata.validate(
                init, self.backend.token, self.backend.deps.clock(), self.max_age
            )
        except initdata.InitDataError as exc:
            raise Refused(401, f"webapp.err.{exc.reason}") from None
        return User(
            found.id, found.first_name or "?", is_bot=False, language_code=found.language_code
        )

    def _lang(self, user: User) -> str:
        from handlers.telegram.shared.context import SERVICES

        return str(self.backend.app.bot_data[SERVICES].user_lang(user))

    @staticmethod
    def _body(body: bytes, headers: Mapping[str, str]) -> dict[str, Any]:
        if len(body) > MAX_BODY_BYTES:
            raise Refused(413, "webapp.err.too_large")
        try:
            data = json.loads(body.decode("utf-8")) if body else {}
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise Refused(400, "webapp.err.bad_json") from None
        if not isinstance(data, dict):
            raise Refused(400, "webapp.err.bad_json")
        return data

    # --- routes ---

    def matches(self, user: User, tr: Tr, data: Mapping[str, Any]) -> dict[str, Any]:
        from handlers.webapp.views import matches_list, strings

        found = self.backend.deps.repo.active_for_user(user.id)
        return {
            "matches": matches_list(found, user.id, tr),
            "lang": tr.lang,
            "strings": strings(tr.lang),
        }

    def _seat(self, user: User, data: Mapping[str, Any]) -> Any:
        """The match and the seat named in ``data``, if ``user`` controls that seat now."""
        mid, pid = data.get("match"), data.get("pid")
        if not isinstance(mid, str) or not _ID.match(mid):
            raise Refused(400, "webapp.err.field", field="match")
        loaded = self.backend.deps.repo.load(mid)
        match = loaded.match
        if pid is None:  # the reader's own seat, else their first
            mine = match.controlled_by(user.id)
            own = match.seat_of_user(user.id)
            pid = own.pid if own is not None and own in mine else (mine[0].pid if mine else "")
        if not isinstance(pid, str) or not _ID.match(pid or "-"):
            raise Refused(400, "webapp.err.field", field="pid")
        if all(s.pid != pid for s in match.controlled_by(user.id)):
            raise Refused(403, "webapp.err.not_your_seat")
        from handlers.webapp.views import PAGES

        if match.ruleset not in PAGES:
            raise Refused(404, "webapp.err.no_page")
        return loaded, pid

    def view(self, user: User, tr: Tr, data: Mapping[str, Any]) -> dict[str, Any]:
        from handlers.webapp.views import reader_view, strings

        loaded, pid = self._seat(user, data)
        out = reader_view(loaded.match, loaded.orders, user.id, pid, tr)
        out["lang"] = tr.lang
        out["strings"] = strings(tr.lang)
        return out

    def odds(self, user: User, tr: Tr, data: Mapping[str, Any]) -> dict[str, Any]:
        from handlers.webapp.views import draft_odds

        loaded, pid = self._seat(user, data)
        order = data.get("order")
        if not isinstance(order, dict):
            raise Refused(400, "webapp.err.field", field="order")
        return draft_odds(loaded.match, pid, order, tr)

    def seal(self, user: User, tr: Tr, data: Mapping[str, Any]) -> dict[str, Any]:
        from handlers.webapp import seal

        loaded, pid = self._seat(user, data)
        order, key, turn = data.get("order"), data.get("key"), data.get("turn")
        if not isinstance(order, dict):
            raise Refused(400, "webapp.err.field", field="order")
        if not isinstance(key, str) or not 8 <= len(key) <= MAX_KEY_LENGTH:
            raise Refused(400, "webapp.err.field", field="key")
        if not isinstance(turn, int) or isinstance(turn, bool):
            raise Refused(400, "webapp.err.field", field="turn")
        if turn != loaded.match.turn:
            raise Rejection("stale_turn", turn=turn)
        done = seal.seal(self.backend, user, loaded.match, pid, order, key)
        return {"sealed": True, "fingerprint": done.fingerprint, "duplicate": done.duplicate}

    def dossier(self, user: User, tr: Tr, data: Mapping[str, Any]) -> dict[str, Any]:
        """The match's record for the proof page (:mod:`handlers.webapp.proof`)."""
        from handlers.telegram.screens.render import match_title
        from handlers.webapp.text import plain
        from handlers.webapp.views import strings

        mid = data.get("match")
        if not isinstance(mid, str) or not _ID.match(mid):
            raise Refused(400, "webapp.err.field", field="match")
        try:
            match, text = proof.dossier_text(self.backend.deps, mid, user.id)
        except proof.NotAllowedError:
            raise Refused(403, "webapp.err.no_dossier") from None
        return {
            "dossier": text,
            "title": plain(match_title(tr, match)),
            "ruleset": tr(f"ruleset.{match.ruleset}"),
            "lang": tr.lang,
            "strings": strings(tr.lang),
        }


Route = Callable[[WebApp, User, Tr, Mapping[str, Any]], dict[str, Any]]
ROUTES: dict[str, Route] = {
    "/api/matches": WebApp.matches,
    "/api/view": WebApp.view,
    "/api/odds": WebApp.odds,
    "/api/seal": WebApp.seal,
    "/api/dossier": WebApp.dossier,
}
