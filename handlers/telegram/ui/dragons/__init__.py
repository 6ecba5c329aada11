"""Telegram UI of the ``dragons`` ruleset (``docs/rules/dragons.md``, D1-D36).

Lobby: options (turn cap D35, edition, melee range D21, takeover D34, terrain D24), presets and
typed stat blocks (D1-D2), sides and GM-run NPC dragons (buttons in
:mod:`handlers.telegram.npc`).

Order builder (private chat; state in the callback args, no storage). The args after the pid
are compact tokens, so a three-action order fits Telegram's 64 bytes:

- movement (D11-D13): ``l<n>`` level with Speed change n, ``c<n>`` climb, ``d<n>`` dive, a
  trailing ``a`` for aerobatics (D33); ``~`` is the movement screen in aerobatics mode;
- actions (D3, at most ``max_actions``): ``a<weapon index><target>`` attack, ``t<target>``
  tail, ``f<u|d>[c|d]`` force (D27, with the choice on a raise), ``b[<pursuer>]`` break a tail
  (D28), ``p`` use a power (D34a);
- a last pending token picks the next step: ``+`` action menu, ``+a`` weapon, ``+a<i>``
  target, ``+t`` tail target, ``+f`` / ``+f<u|d>`` force choices, ``+b`` pursuer, ``!`` confirm.

Every movement button shows the resulting Speed and Altitude; illegal ones are not offered and
are listed with the reason (the ruleset's :func:`movement_options`). Attack targets show
whether the attack is possible after the chosen movement and the range band
(:func:`attack_check`). The multi-action penalty is shown as actions are added.

Reveal (D36): initiative order, each activation with its movement, rolls (trait die, Wild Die,
aces, modifiers, result, raises), damage and effects; a status table and the sky chart.

Modules (the shape of every ruleset UI): :mod:`.lobby`, :mod:`.sheet`, :mod:`.typed`,
:mod:`.reveal`, :mod:`.builder` (each a layer of :class:`DragonsUI`), :mod:`.common`.
"""

from __future__ import annotations

from handlers.telegram.ui.dragons.builder import DragonsBuilder


class DragonsUI(DragonsBuilder):
    ruleset = "dragons"
    help_key = "help.dragons"


UI = DragonsUI()

__all__ = ["UI", "DragonsUI"]
