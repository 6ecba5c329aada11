"""Per-ruleset user interface, registered by ruleset id.

Adding a built-in ruleset's Telegram UI is adding one package here and one line in
:data:`_MODULES`: the package exposes ``UI = <RulesetUI subclass instance>``. A plug-in (a
ruleset living elsewhere) calls :func:`register` at run time, with its own catalogs. A ruleset
without a UI gets :class:`RulesetUI` itself: typed orders only (``/order key value ...``) and a
plain event list as its reveal, so a new ruleset is playable before anyone draws its keyboards.

A ruleset whose Telegram flow goes beyond the order builder (``plans``: ``/plan`` and the GM's
veto) plugs it in through :meth:`RulesetUI.flow`; the wiring adds every registered UI's flow
(:func:`flows`). A built-in's flow module is named in :data:`_FLOWS` and imported without its UI
(it must not import its ruleset: the webhook's cold start wires it).

The UI never talks to Telegram or storage: it returns :class:`Screen` values (HTML text and
rows of :class:`Button`), builds order dicts from button arguments or typed words, and renders
revealed turns. Builder state travels in the callback data (``Callback("b", args=...)``), so a
half-built order needs no storage and a stale builder simply fails the turn check.
"""

from __future__ import annotations

import html
import importlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.errors import Rejection
from engine.match import Match, TurnRecord
from handlers.telegram.callbacks import Callback
from handlers.telegram.i18n import Tr, add_catalogs
from handlers.telegram.ui.words import ALIAS_DIR as ALIAS_DIR  # the typed words, re-exported
from handlers.telegram.ui.words import alias_words as alias_words
from handlers.telegram.ui.words import aliases as aliases
from handlers.telegram.ui.words import bare_name as bare_name
from handlers.telegram.ui.words import leading_phrase as leading_phrase
from handlers.telegram.ui.words import parse_words as parse_words
from handlers.telegram.ui.words import shown_names as shown_names

if TYPE_CHECKING:
    from handlers.telegram.shared.routing import Flow

_MODULES: dict[str, str] = {
    "pistol": "handlers.telegram.ui.pistol",
    "dragons": "handlers.telegram.ui.dragons",
    "plans": "handlers.telegram.ui.plans",
}
# Built-in UIs' flows (:meth:`RulesetUI.flow`): modules with a ``flow()``, kept light.
_FLOWS: dict[str, str] = {
    "plans": "handlers.telegram.ui.plans.flow",
}
_LOADED: dict[str, RulesetUI] = {}
_PLUGINS: dict[str, RulesetUI] = {}  # UIs registered at run time (register)


@dataclass(frozen=True, slots=True)
class Button:
    """An inline button: a callback press, a URL, or a Mini App page (``web_app``: its URL;
    Telegram allows those in private chats only)."""

    label: str
    cb: Callback | None = None
    url: str | None = None
    web_app: str | None = None


@dataclass(frozen=True, slots=True)
class Screen:
    """A message: HTML text and inline keyboard rows."""

    text: str
    rows: Sequence[Sequence[Button]] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class Option:
    """A lobby option the GM cycles with one button: pressing sets ``patch`` on the config."""

    name: str  # short id, travels in callback data
    label: str  # translated, shown on the button with the current value
    patch: Mapping[str, Any]  # the config change the press applies (the next value)


_TAG = re.compile(r"</?[a-z]+(?: [^>]*)?>")


def label(text: str) -> str:
    """A button label as plain text. Telegram shows button text verbatim, so catalog markup
    (``<b>``, ``<code>``) is dropped and escaped parameters (names) read as typed. Every
    keyboard the bot sends goes through this (``bot.markup``)."""
    if "<" not in text and "&" not in text:
        return text
    return html.unescape(_TAG.sub("", text))


def esc(text: Any) -> str:
    return html.escape(str(text))


def names_of(match: Match) -> dict[str, str]:
    """Participant names by pid, HTML-escaped (names are user-provided)."""
    return {s.pid: esc(s.name) for s in match.seats}


class RulesetUI:
    """The fallback UI, and the base class of every ruleset's UI."""

    ruleset = ""
    help_key = "help.generic"

    # --- the hook of the Telegram shell ---

    def flow(self) -> Flow | None:
        """The ruleset's Telegram flow beyond the order builder (commands, buttons, seal and
        GM-change hooks), wired with every other handler when the bot is built; none by
        default. A built-in UI also names its flow module in :data:`_FLOWS`, so the wiring
        need not load the UI itself."""
        module = _FLOWS.get(self.ruleset)
        return importlib.import_module(module).flow() if module else None

    # --- lobby ---

    def options(self, tr: Tr, match: Match) -> list[Option]:
        """Lobby options the GM can change with buttons (besides the language)."""
        return []

    def turn_limit(self, match: Match) -> int | None:
        """The last turn of the match, when the ruleset has one ("turn k of N")."""
        return None

    def lobby_extra(self, tr: Tr, match: Match) -> Screen:
        """Extra lobby text and button rows (e.g. sides and NPCs); none by default."""
        return Screen("")

    def character_label(self, tr: Tr, character: Mapping[str, Any]) -> str:
        """A short HTML description of a character sheet."""
        return esc(", ".join(f"{k}={_show(v)}" for k, v in character.items()) or "—")

    def preset_label(self, tr: Tr, preset_id: str, character: Mapping[str, Any]) -> str:
        return preset_id

    def sheet_name(self, tr: Tr, name: str) -> str:
        """A sheet's name as the reader sees it: a preset's own name in the reader's words
        (docs/glossary.md), any other name as given."""
        return name

    def character_example(self) -> str:
        """A typed ``/character`` example for the character screen ("": built from a preset)."""
        return ""

    def parse_character(self, words: Sequence[str]) -> dict[str, Any]:
        """A typed character: a JSON object, or ``key value`` / ``key=value`` words."""
        return parse_words(words, what="character")

    def character_words(self, match: Match) -> str:
        """A filled-in typed character (the words after ``/character``) that
        :meth:`parse_character` and the ruleset accept: :meth:`character_example`, else the
        first preset as ``key=value`` words."""
        if example := self.character_example():
            return example.removeprefix("/character").strip()
        rules = match.rules
        for ch in rules.presets(rules.config(match.config)).values():
            parts = []
            for k, v in ch.items():
                val = ",".join(map(str, v)) if isinstance(v, list | tuple) else str(v)
                if val and " " not in val:
                    parts.append(f"{k}={val}")
            return " ".join(parts)
        return ""

    # --- orders ---

    def builder(self, tr: Tr, match: Match, pid: str, state: Sequence[str]) -> Screen:
        """The order builder screen for builder ``state`` (callback args after the pid). The
        fallback has no buttons: it explains the typed syntax."""
        return Screen(tr("builder.typed_only", turn=match.turn))

    def order_from_args(self, args: Sequence[str]) -> dict[str, Any]:
        """The order a seal button carries (its callback args after the pid)."""
        raise Rejection("invalid_button")

    def order_for(self, match: Match, pid: str, args: Sequence[str]) -> dict[str, Any]:
        """The order a seal button carries, when decoding it needs the match (e.g. weapon
        indexes); by default :meth:`order_from_args`."""
        return self.order_from_args(args)

    # Orders with free text: the confirmation's "✍️" button (``text_reply.KIND``) carries the
    # builder tokens, and a reply to that message supplies the text (handlers/telegram/
    # text_reply.py). ``reply_alert_key``: the catalog key of the hint that button shows.
    reply_alert_key = "err.invalid_button"

    def order_with_text(
        self, match: Match, pid: str, args: Sequence[str], text: str
    ) -> dict[str, Any]:
        """The order a "✍️" button's ``args`` (after the pid) stand for, completed with
        ``text``. Rulesets whose orders carry no text draw no such button."""
        raise Rejection("invalid_button")

    def parse_typed(self, words: Sequence[str]) -> dict[str, Any]:
        """A typed order (the words after ``/order``): JSON or ``key value`` pairs."""
        return parse_words(words, what="order")

    def parse_typed_in(self, match: Match, words: Sequence[str]) -> dict[str, Any]:
        """:meth:`parse_typed` for ``match``: rulesets whose orders name participants accept
        the names the bot shows for them (not only p1, n1)."""
        return self.parse_typed(words)

    def typed_example(self) -> str:
        return "key value"

    def example_candidates(self, tr: Tr, match: Match, pid: str) -> Iterable[str]:
        """Typed orders (words after the command) to show ``pid`` as an example, best first
        (may be lazy); :func:`handlers.telegram.hints.order_words` shows the first the ruleset
        accepts."""
        return [self.typed_example()]

    def order_text(self, tr: Tr, order: Mapping[str, Any]) -> str:
        """An order in words (receipts, confirmation screens, the reveal)."""
        return esc(", ".join(f"{k} {_show(v)}" for k, v in order.items()))

    # --- results ---

    def reveal_parts(self, tr: Tr, match: Match, record: TurnRecord) -> tuple[list[str], list[str]]:
        """A resolved turn as (story, details): the story is what a player reads on a phone
        (orders, who was hit, who is out, the result, no dice); the details every die and
        modifier, shown collapsed (``handlers.telegram.reveal``). By default every event is
        a detail."""
        names = names_of(match)
        details = [self.event_text(tr, names, e.kind, e.actor, e.data) for e in record.events]
        return self.order_lines(tr, names, record), [d for d in details if d]

    def render_reveal(self, tr: Tr, match: Match, record: TurnRecord) -> str:
        """The reveal of a resolved turn: the story, then the details collapsed."""
        from handlers.telegram.reveal import expandable

        story, details = self.reveal_parts(tr, match, record)
        return "\n".join(story).strip() + "\n\n" + expandable(details)

    def order_lines(self, tr: Tr, names: Mapping[str, str], record: TurnRecord) -> list[str]:
        """A reveal's title and one line per revealed order (a default order says so)."""
        lines = [tr("reveal.title", turn=record.turn)]
        for o in record.orders:
            key = "reveal.order_default" if o.default else "reveal.order"
            order = self.reveal_order_text(tr, o.order, names)
            lines.append(tr(key, name=_raw(names.get(o.pid, o.pid)), order=_raw(order)))
        return lines

    def reveal_order_text(self, tr: Tr, order: Mapping[str, Any], names: Mapping[str, str]) -> str:
        """An order in the reveal: :meth:`order_text`, unless the ruleset's orders name other
        participants (targets), which the reveal can show by name."""
        return self.order_text(tr, order)

    def event_text(
        self,
        tr: Tr,
        names: Mapping[str, str],
        kind: str,
        actor: str | None,
        data: Mapping[str, Any],
    ) -> str:
        who = _raw(names.get(actor or "", actor or ""))
        if kind == "roll":
            return tr(
                "reveal.roll",
                who=who,
                purpose=purpose_label(tr, str(data.get("purpose"))),
                dice=_raw(dice_text(data)),
            )
        detail = ", ".join(f"{k}={_show(v)}" for k, v in data.items())
        return tr("reveal.event", who=who, kind=kind, detail=detail)

    def outcome_text(self, tr: Tr, match: Match) -> str:
        """The final result line; a result the GM declared says so."""
        out = match.outcome or {}
        names = names_of(match)
        winners = [names.get(p, p) for p in out.get("winners", [])]
        status = str(out.get("status", ""))
        if status == "win" and winners:
            text = tr("outcome.win", names=_raw(", ".join(winners)))
        elif status == "mutual":
            text = tr("outcome.mutual")
        else:
            text = tr("outcome.draw")
        return self.by_gm(tr, match, text)

    @staticmethod
    def by_gm(tr: Tr, match: Match, text: str) -> str:
        """``text`` marked as the GM's ruling when the GM ended the match with it."""
        return (
            tr("outcome.gm_ruling", result=_raw(text))
            if (match.outcome or {}).get("by_gm")
            else text
        )

    def result_choices(self, tr: Tr, match: Match) -> list[tuple[str, str]]:
        """The winners the GM can declare (button label, callback argument): by default each
        participant still in the match."""
        return [
            (tr("gm.btn_winner", name=s.name), s.pid) for s in match.seats if s.status == "active"
        ]

    def result_winners(self, match: Match, choice: str) -> tuple[str, ...]:
        """The participants a :meth:`result_choices` argument declares winners."""
        return (match.seat(choice).pid,)


def _raw(text: str) -> Any:
    from handlers.telegram.i18n import Raw

    return Raw(text)


def _show(value: Any) -> str:
    if isinstance(value, list | tuple):
        if len(value) == 2 and all(isinstance(v, int) for v in value):
            return f"{value[0]}:{value[1]}"
        return ",".join(_show(v) for v in value)
    return str(value)


def dice_text(data: Mapping[str, Any]) -> str:
    """``d6: 4`` / ``d6!: 6+2 = 8`` for a roll event's data."""
    faces = [int(f) for f in data.get("faces", [])]
    sides = data.get("sides", "?")
    ace = "!" if data.get("mode") == "ace" else ""
    if len(faces) == 1:
        return f"d{sides}{ace}: <b>{faces[0]}</b>"
    return f"d{sides}{ace}: {'+'.join(map(str, faces))} = <b>{sum(faces)}</b>"


def purpose_label(tr: Tr, purpose: str) -> str:
    """A translated roll purpose when the catalog has one (``purpose.<id>``), else the id."""
    key = f"purpose.{purpose}"
    return tr(key) if tr.has(key) else purpose


def get_ui(ruleset_id: str) -> RulesetUI:
    """The UI registered for ``ruleset_id`` (the fallback when there is none)."""
    ui = _LOADED.get(ruleset_id)
    if ui is not None:
        return ui
    module = _MODULES.get(ruleset_id)
    ui = importlib.import_module(module).UI if module else RulesetUI()
    _LOADED[ruleset_id] = ui
    return ui


def flows() -> list[Flow]:
    """Every registered UI's flow (:meth:`RulesetUI.flow`), for the wiring: the built-ins'
    from their flow modules (their UIs stay unloaded), then the plug-ins' (registered before
    the application is built)."""
    found = [importlib.import_module(module).flow() for module in _FLOWS.values()]
    for ruleset_id, ui in _PLUGINS.items():
        flow = None if ruleset_id in _FLOWS else ui.flow()
        if flow is not None:
            found.append(flow)
    return found


def has_ui(ruleset_id: str) -> bool:
    return ruleset_id in _MODULES or ruleset_id in _PLUGINS


def register(ruleset_id: str, ui: RulesetUI, catalogs: Path | None = None) -> None:
    """Register a UI object directly (a plug-in, or a test's stand-in). ``catalogs``: a
    directory of the plug-in's own ``<area>.<lang>.po`` files (its ``ruleset.<id>`` name, its
    help and every message it shows), added to every language's catalog."""
    _LOADED[ruleset_id] = ui
    _PLUGINS[ruleset_id] = ui
    if catalogs is not None:
        add_catalogs(catalogs)


def unregister(ruleset_id: str) -> None:
    """Forget a UI registered with :func:`register` (a test's clean-up)."""
    _LOADED.pop(ruleset_id, None)
    _PLUGINS.pop(ruleset_id, None)
