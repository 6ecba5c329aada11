"""Simulator reports in the reader's language: the ``simulate`` table and the chat's odds
answer. Pure text from a :class:`~engine.simulate.Result` and its batch report
(:func:`engine.sim_batch.report`); messages live in ``handlers/telegram/locale/sim.<lang>.po``.
"""

from __future__ import annotations

from typing import Any

from engine.sim_batch import commonest
from engine.simulate import Result
from handlers.telegram.i18n import catalog, t


def _plain(lang: str, key: str, /, **params: Any) -> str:
    """A message for the terminal: no HTML escaping."""
    text = catalog(lang).gettext(key)
    return text.format(**params) if params else text


def _named(lang: str, area: str, key: str) -> str:
    """The human name of an event or reason key; an unknown key (a new ruleset's) as is."""
    text = catalog(lang).gettext(f"sim.{area}.{key}")
    return key if text == f"sim.{area}.{key}" else text


def event_name(lang: str, key: str) -> str:
    return _named(lang, "event", key)


def reason_name(lang: str, key: str) -> str:
    return _named(lang, "reason", key)


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _orders_line(lang: str, rep: dict[str, Any]) -> str:
    mode = rep["orders_mode"]
    if mode != "mixed":
        return _plain(lang, f"sim.report.orders.{mode}")
    detail = ", ".join(
        f"{s['label']}: " + "/".join(_plain(lang, f"sim.orders.{o}") for o in s["orders"])
        for s in rep["sides"]
    )
    return _plain(lang, "sim.report.orders.mixed", detail=detail)


def table(result: Result, rep: dict[str, Any], lang: str = "en", jobs: int = 1) -> list[str]:
    """The ``simulate`` report: what was played, results by side with 95% intervals, how
    matches ended, events per match with their names."""
    n = result.n
    lines = [
        _plain(
            lang,
            "sim.report.run",
            ruleset=result.ruleset,
            n=n,
            seed=result.seed,
            seconds=f"{result.seconds:.2f}",
            rate=f"{result.matches_per_second:,.0f}",
            jobs=jobs,
        ),
        _plain(lang, "sim.report.turns", mean=f"{result.turns_mean:.2f}", max=result.turns_max),
        _orders_line(lang, rep),
        _plain(lang, "sim.report.mirror" if rep["mirror"] else "sim.report.no_mirror"),
    ]
    if rep["orders_mode"] != "fixed":
        lines.append(_plain(lang, "sim.report.random_note"))
    rows = [(_plain(lang, "sim.outcome.wins", side=s["label"]), s) for s in rep["sides"]]
    rows += [
        (_plain(lang, f"sim.outcome.{k}"), rep[k])
        for k in ("draw", "mutual")
        if k == "draw" or rep[k]["count"]  # mutual: only in rulesets that have it
    ]
    reasons = sorted(result.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    events = sorted(result.events.items())
    names = [name for name, _ in rows]
    names += [reason_name(lang, k) for k, _ in reasons] + [event_name(lang, k) for k, _ in events]
    w = max(40, *(len(name) + 2 for name in names))  # the first column fits every name
    count, share = _plain(lang, "sim.col.count"), _plain(lang, "sim.col.share")
    lines += [
        "",
        f"{_plain(lang, 'sim.col.result'):<{w}}{count:>9}{share:>8}  "
        f"{_plain(lang, 'sim.col.interval')}",
    ]
    for name, s in rows:
        lo, hi = s["interval"]
        lines.append(f"{name:<{w}}{s['count']:>9}{_pct(s['share']):>8}  {_pct(lo)}–{_pct(hi)}")
    lines += ["", f"{_plain(lang, 'sim.col.reason'):<{w}}{count:>9}{share:>8}"]
    for key, c in reasons:
        lines.append(f"{reason_name(lang, key):<{w}}{c:>9}{_pct(c / n):>8}")
    lines += [
        "",
        f"{_plain(lang, 'sim.col.event'):<{w}}{count:>9}{_plain(lang, 'sim.col.per_match'):>11}",
    ]
    for key, c in events:
        lines.append(f"{event_name(lang, key):<{w}}{c:>9}{c / n:>11.3f}")
    return lines


def odds_text(result: Result, rep: dict[str, Any], lang: str) -> str:
    """The chat's short odds answer (HTML): win shares by side with intervals, draws, mean
    turns, the commonest ending, what random orders mean."""
    lines = [t(lang, "odds.title", n=result.n), ""]
    for s in rep["sides"]:
        lo, hi = s["interval"]
        lines.append(
            t(lang, "odds.side", label=s["label"], share=_pct(s["share"]), lo=_pct(lo), hi=_pct(hi))
        )
    for key in ("draw", "mutual"):
        s = rep[key]
        if s["count"]:
            lo, hi = s["interval"]
            lines.append(t(lang, f"odds.{key}", share=_pct(s["share"]), lo=_pct(lo), hi=_pct(hi)))
    lines.append(t(lang, "odds.turns", mean=f"{result.turns_mean:.1f}"))
    if result.reasons:
        reason, count = commonest(result.reasons)
        lines.append(
            t(lang, "odds.ending", reason=reason_name(lang, reason), share=_pct(count / result.n))
        )
    lines += ["", f"<i>{t(lang, 'odds.note')}</i>"]
    return "\n".join(lines)
