"""Play one turn of each ruleset through the real bot (fake Bot API, memory store) and keep
the reveal pictures it sends: the examples in ``docs/img/`` (``make pictures``) and the
drawing-time figures of ``make bench``.

    python -m handlers.telegram.picture_demo docs/img
"""

from __future__ import annotations

import sys
from pathlib import Path

from handlers.telegram.harness import GROUP_ID, Harness

RULESETS = ("pistol", "dragons", "plans")


def play(ruleset: str, lang: str = "en") -> Harness:
    """A harness where one turn of ``ruleset`` was played to its reveal (GM Carol, players
    Алиса and Bob; the group's language ``lang``)."""
    h = Harness(default_lang=lang)
    gm = h.user(333, "Carol", lang=lang)
    alice = h.user(111, "Алиса", lang="ru")
    bob = h.user(222, "Bob", lang="en")
    g = h.group(GROUP_ID)
    h.say(gm, 333, "/start")
    h.say(gm, g, "/duel")
    picker = h.last(g, with_buttons=True)
    h.press(gm, picker, _index(picker.buttons, ruleset))
    lobby = h.last(g, with_buttons=True)
    h.press(alice, lobby, 0)
    h.press(bob, lobby, 0)
    if ruleset == "pistol":
        h.say(alice, 111, "/character weapon=revolver perks=lucky")
        h.say(bob, 222, "/character weapon=rifle perks=steady_hand")
        h.press(gm, lobby, _index(lobby.buttons, "start"))
        h.say(alice, 111, "/order move 1 aim 2:3")
        h.say(bob, 222, "/order move -2 aim 3:-1")
    elif ruleset == "dragons":
        h.say(alice, 111, "/character young")
        h.say(bob, 222, "/character war speed=6")
        h.say(alice, 111, "/side A")
        h.say(bob, 222, "/side B")
        h.say(gm, g, "/npc raider A Wingman")
        h.say(gm, g, "/npc raider B Смауг")
        h.press(gm, lobby, _index(lobby.buttons, "start"))
        # Turn 1: a wound that sends Смауг home, Bob gets on Wingman's tail. Turn 2 (the
        # picture): Алиса climbs to Speed 0 and falls, Bob breathes on Wingman (a hit) and
        # bites (a miss) from its tail.
        turns = [
            ("level 0; attack claws n2", "level 0; tail n1", "level 0; attack claws p2", "climb 2"),
            ("climb 2", "level 0; attack breath n1; attack bite n1", "level 0", None),
        ]
        for a, b, n1, n2 in turns:
            h.say(alice, 111, f"/order {a}")
            h.say(bob, 222, f"/order {b}")
            h.say(gm, 333, f"/npcorder n1 {n1}")
            if n2 is not None:
                h.say(gm, 333, f"/npcorder n2 {n2}")
    else:
        h.say(alice, 111, "/character preset=fencer")
        h.say(bob, 222, "/character preset=pyromancer name=Ember")
        h.press(gm, lobby, _index(lobby.buttons, "start"))
        h.say(
            alice,
            111,
            "/plan physical fencing strong guess:magical/pyromancy/precise -- выпад снизу",
        )
        h.say(
            bob, 222, "/plan magical pyromancy precise guess:physical/feint/strong -- a fire whip"
        )
    return h


def _index(buttons: list[dict[str, str]], kind: str) -> int:
    return next(i for i, b in enumerate(buttons) if f":{kind}:" in b.get("callback_data", ""))


def main(argv: list[str]) -> int:
    out = Path(argv[0] if argv else "docs/img")
    out.mkdir(parents=True, exist_ok=True)
    for ruleset in RULESETS:
        h = play(ruleset)
        photos = h.api.photos(GROUP_ID)
        h.close()
        if not photos:
            print(f"{ruleset}: no picture was sent", file=sys.stderr)
            return 1
        path = out / f"reveal-{ruleset}.png"
        path.write_bytes(photos[-1])
        print(f"{path} ({len(photos[-1]) // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
