"""The group's ladder: one result per finished match, and ratings computed from the results
(docs/campaign.md "Ladder").

Ratings are never stored: :func:`standings` replays a group's results in the order the matches
ended (then by id), so the same history always gives the same ratings, and undoing a final turn
or changing a result (the result replaced or removed) recomputes them. The rating model is
OpenSkill's Plackett-Luce (the ``openskill`` library), which rates sides of several members (a
dragons wing) as well as duels; a member's rating is the conservative estimate ``mu - 3 sigma``
(0 for a newcomer), so a few lucky wins do not top the ladder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

RESULT_SCHEMA = 1
UNRATED = "unrated"  # the match's ``ui`` flag a GM sets in the lobby


def _member(seat: Any) -> dict[str, Any]:
    if seat.npc or seat.user_id is None:
        return {"key": f"npc:{seat.name}", "name": seat.name, "user_id": None}
    return {"key": f"u{seat.user_id}", "name": seat.name, "user_id": seat.user_id}


def result_of(match: Any) -> dict[str, Any] | None:
    """The ladder result of a finished match, or None: not finished, never started (a lobby
    cancelled), marked unrated, or fewer than two sides. Sides are the seats' sides (a seat
    without one is its own side); the winners' side ranks 1, the others 2; a draw ranks all 1."""
    outcome = match.outcome or {}
    status = outcome.get("status")
    if (
        match.phase.value != "finished"
        or match.state is None
        or status
        not in (
            "win",
            "draw",
            "mutual",
        )
    ):
        return None
    if match.ui.get(UNRATED):
        return None
    sides: dict[str, list[Any]] = {}
    for seat in match.seats:
        sides.setdefault(seat.side or seat.pid, []).append(seat)
    if len(sides) < 2:
        return None
    winners = set(outcome.get("winners", ())) if status == "win" else set()
    teams, ranks = [], []
    for seats in sides.values():
        teams.append([_member(s) for s in seats])
        won = bool(winners) and any(s.pid in winners for s in seats)
        ranks.append(1 if won or not winners else 2)
    return {
        "schema": RESULT_SCHEMA,
        "match_id": match.id,
        "chat_id": match.chat_id,
        "ruleset": match.ruleset,
        "ended_at": _ended_at(match),
        "teams": teams,
        "ranks": ranks,
    }


def _ended_at(match: Any) -> float:
    """When the match ended, as far as the match itself tells: its last turn's opening or the
    GM's last intervention (the same match always gives the same time)."""
    times = [float(a.get("at", 0)) for a in match.audit]
    times += [float(match.turn_opened_at or 0), float(match.created_at)]
    return max(times)


@dataclass(frozen=True, slots=True)
class Standing:
    """One member's line on the ladder."""

    key: str
    name: str
    user_id: int | None
    rating: float
    mu: float
    sigma: float
    matches: int
    wins: int
    draws: int


def ordered(results: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Results in the order they are replayed: by end time, then match id."""
    return sorted(results, key=lambda r: (float(r["ended_at"]), str(r["match_id"])))


def standings(results: Iterable[Mapping[str, Any]], ruleset: str) -> list[Standing]:
    """Everyone rated in ``ruleset`` (players and named NPCs), best first (ties by name)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    seen: dict[str, dict[str, Any]] = {}
    tally: dict[str, list[int]] = {}  # key -> [matches, wins, draws]
    for r in ordered(x for x in results if x.get("ruleset") == ruleset):
        teams = [[ratings.get(m["key"]) or model.rating() for m in t] for t in r["teams"]]
        new = model.rate(teams, ranks=list(r["ranks"]))
        best = min(r["ranks"])
        all_tied = len(set(r["ranks"])) == 1
        for team, rated, rank in zip(r["teams"], new, r["ranks"], strict=True):
            for m, rating in zip(team, rated, strict=True):
                ratings[m["key"]] = rating
                seen[m["key"]] = m
                t = tally.setdefault(m["key"], [0, 0, 0])
                t[0] += 1
                t[1] += int(rank == best and not all_tied)
                t[2] += int(all_tied)
    out = [
        Standing(
            key,
            str(seen[key]["name"]),
            seen[key]["user_id"],
            round(float(rt.ordinal()), 2),
            round(float(rt.mu), 3),
            round(float(rt.sigma), 3),
            *tally[key],
        )
        for key, rt in ratings.items()
    ]
    return sorted(out, key=lambda s: (-s.rating, s.name.casefold(), s.key))


def players(table: Sequence[Standing]) -> list[Standing]:
    """The ladder as shown: players only (NPCs are rated, not listed)."""
    return [s for s in table if s.user_id is not None]


def rulesets(results: Iterable[Mapping[str, Any]]) -> list[str]:
    """The rulesets a group has results in, the most recently played first."""
    latest: dict[str, float] = {}
    for r in results:
        rid = str(r["ruleset"])
        latest[rid] = max(latest.get(rid, 0.0), float(r["ended_at"]))
    return sorted(latest, key=lambda rid: (-latest[rid], rid))
