"""What the load run plays: many matches at once in their own groups (pistol, plans and dragons,
2-4 players each), set up through the bot, then turn after turn every player of every match
seals at the same moment, and the outcome is checked:

- **lost**: a turn that did not resolve although every seal was answered 200, or a resolved
  turn whose record shows a default order for a player whose seal was answered 200;
- **doubled**: a chat that got the same message twice in one turn;
- **stale**: the status message still offering the resolved turn's panel.

The driver reads chats from the shared fake Bot API (under its lock) and the matches from the
same DynamoDB, with the production repository (unmetered).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from engine.match import Match, Phase
from handlers.telegram.fake_api import BOT_USERNAME, FakeMessage
from handlers.telegram.harness import Harness
from tests.bench.load.cluster import Cluster, Delivery

LANG = "en"


@dataclass(frozen=True)
class Plan:
    """One match of the run: its ruleset and number of players."""

    ruleset: str
    players: int


def plans(matches: int) -> list[Plan]:
    """``matches`` matches, a third of each ruleset; dragons cycle through 2, 3 and 4 riders."""
    dragons = itertools.cycle((2, 3, 4))
    kinds = itertools.cycle(("pistol", "plans", "dragons"))
    out = []
    for _ in range(matches):
        kind = next(kinds)
        out.append(Plan(kind, next(dragons) if kind == "dragons" else 2))
    return out


@dataclass
class Table:
    """One match being played: its group, users and id."""

    plan: Plan
    group: int
    users: list[dict[str, Any]]
    match_id: str = ""


@dataclass
class TurnOutcome:
    seals: list[tuple[Plan, Delivery]] = field(default_factory=list)
    resolves: list[tuple[Plan, dict[str, Any]]] = field(default_factory=list)  # the resolver's
    sweep: dict[str, Any] = field(default_factory=dict)
    resolved: int = 0
    lost: int = 0
    doubled: int = 0
    stale: int = 0
    group_messages: int = 0  # new messages in the groups this turn
    lost_details: list[str] = field(default_factory=list)  # what each lost turn was
    by_plan: Counter[Plan] = field(default_factory=Counter)  # resolved turns


class LoadHarness(Harness):
    """The bot harness over the cluster: updates go to the workers, chats are read from the
    shared fake Bot API. Thread-safe for one thread per match."""

    def __init__(self, cluster: Cluster, repo: Any) -> None:  # not Harness.__init__
        self.cluster = cluster
        self.api = cluster.server.api
        self.lock = cluster.server.lock
        self.repo = repo
        self._update_ids = itertools.count(500_000_000)
        self._cbq = itertools.count(1)
        self.deliveries: list[Delivery] = []

    def feed(self, update: dict[str, Any]) -> None:
        self.deliveries.append(self.cluster.deliver(update))

    def say(self, user: dict[str, Any], chat_id: int, text: str, **_: Any) -> None:
        self.feed(self.message_update(user, chat_id, text))

    def message_update(self, user: dict[str, Any], chat_id: int, text: str) -> dict[str, Any]:
        uid = int(user["id"])
        with self.lock:
            if chat_id == uid:
                self.api.started.add(uid)
            msg = FakeMessage(self.api.new_message_id(), chat_id, text, from_bot=False,
                              user_id=uid)  # fmt: skip
            self.api.chat(chat_id).messages.append(msg)
            body = self.api.message_json(msg)
        if text.startswith("/"):
            body["entities"] = [
                {"offset": 0, "length": len(text.split(maxsplit=1)[0]), "type": "bot_command"}
            ]
        return {"update_id": next(self._update_ids), "message": body}

    def click(self, user: dict[str, Any], message: FakeMessage, data: str) -> None:
        with self.lock:
            qid = f"q{next(self._cbq)}"
            self.api.note_callback(qid, int(user["id"]))
            body = self.api.message_json(message)
        self.feed(
            {
                "update_id": next(self._update_ids),
                "callback_query": {
                    "id": qid, "from": user, "message": body, "chat_instance": "1", "data": data
                },
            }
        )  # fmt: skip

    def button(self, chat_id: int, prefix: str, contains: str = "") -> tuple[FakeMessage, str]:
        """The newest bot message in ``chat_id`` with a button whose data starts with
        ``v1:<prefix>:`` (and contains ``contains``), and that button's data."""
        with self.lock:
            msgs = [m for m in self.api.chat(chat_id).messages if m.from_bot]
            for msg in reversed(msgs):
                for b in msg.buttons:
                    data = str(b.get("callback_data", ""))
                    if data.startswith(f"v1:{prefix}:") and contains in data:
                        return msg, data
        raise LookupError(f"no {prefix!r} button in chat {chat_id}")

    def join_link(self, chat_id: int) -> str:
        with self.lock:
            for msg in reversed(self.api.chat(chat_id).messages):
                for b in msg.buttons:
                    m = re.search(r"[?&]start=([A-Za-z0-9_-]+)", str(b.get("url", "")))
                    if m and BOT_USERNAME in b["url"]:
                        return m.group(1)
        raise LookupError(f"no join link in chat {chat_id}")


def make_tables(h: LoadHarness, plan: Sequence[Plan]) -> list[Table]:
    tables = []
    for i, p in enumerate(plan):
        group = -1_009_000_000 - i
        users = []
        for k in range(p.players):
            uid = 40_000_000 + i * 10 + k
            user = {"id": uid, "is_bot": False, "first_name": f"P{i}.{k}", "language_code": LANG}
            with h.lock:
                h.api.add_user(user)
            users.append(user)
        with h.lock:
            h.api.chat(group, "supergroup", f"Load {i}")
        tables.append(Table(p, group, users))
    return tables


def set_up(h: LoadHarness, t: Table) -> None:
    """/duel, the ruleset, everyone joins (sides for dragons), picks the first character, and
    the first player (the GM) starts."""
    gm = t.users[0]
    h.say(gm, t.group, "/duel")
    msg, data = h.button(t.group, "new", f":{t.plan.ruleset}:")
    h.click(gm, msg, data)
    payload = h.join_link(t.group)
    t.match_id = payload.removeprefix("join_")
    for k, user in enumerate(t.users):
        h.say(user, int(user["id"]), f"/start {payload}")
        if t.plan.ruleset == "dragons":
            msg, data = h.button(t.group, "nsd", f":{'AB'[k % 2]}:")
            h.click(user, msg, data)
        msg, data = h.button(int(user["id"]), "chr")
        h.click(user, msg, data)
    msg, data = h.button(t.group, "start")
    h.click(gm, msg, data)


def orders(match: Match, t: Table) -> list[tuple[dict[str, Any], str]]:
    """(user, typed command) for every seat a player seals: an order the bot itself proposes
    (``hints.order_example``), so every one is legal."""
    from handlers.telegram.hints import order_example
    from handlers.telegram.i18n import Tr

    tr = Tr(LANG)
    by_id = {int(u["id"]): u for u in t.users}
    return [
        (by_id[s.user_id], order_example(tr, match, s.pid))
        for s in match.seats
        if s.status == "active" and not s.npc and s.user_id in by_id
    ]


def play_turn(h: LoadHarness, tables: Sequence[Table], pool: ThreadPoolExecutor) -> TurnOutcome:
    """Every player of every running match seals at once; the turns they locked are resolved
    from the resolve queue when their rounds are due; then the sweeper runs once; then the
    outcome is checked."""
    out = TurnOutcome()
    before: dict[str, tuple[Match, int]] = {}
    jobs = []
    with h.lock:
        marks = {t.group: h.api._next_id for t in tables}
    for t in tables:
        match = h.repo.load(t.match_id).match
        if match.phase is not Phase.RUNNING:
            continue
        before[t.match_id] = (match, int(match.ui.get("status", 0)))
        jobs += [(t, h.message_update(u, int(u["id"]), text)) for u, text in orders(match, t)]
    futures = [(t, u, pool.submit(h.cluster.deliver, u)) for t, u in jobs]
    sealed: dict[str, list[Delivery]] = {}
    for t, _u, f in futures:
        d = f.result()
        out.seals.append((t.plan, d))
        sealed.setdefault(t.match_id, []).append(d)
    plan_of = {t.match_id: t.plan for t in tables}
    resolves = h.cluster.drain()
    out.sweep = h.cluster.sweep()
    resolves += h.cluster.drain()  # what the sweep sent to the queue (a deadline's lock)
    out.resolves = [(plan_of[r["match_id"]], r) for r in resolves if r["match_id"] in plan_of]
    for t in tables:
        if t.match_id in before:
            _check(h, t, before[t.match_id], sealed.get(t.match_id, []), marks[t.group], out)
    return out


def _check(
    h: LoadHarness,
    t: Table,
    before: tuple[Match, int],
    deliveries: list[Delivery],
    mark: int,
    out: TurnOutcome,
) -> None:
    match, status_id = before
    after = h.repo.load(t.match_id).match
    if after.turn == match.turn and after.phase is Phase.RUNNING:
        if all(d.ok for d in deliveries):  # every seal taken, yet no reveal
            out.lost += 1
            out.lost_details.append(_explain(h, t, match, after, deliveries, mark, "unresolved"))
        return
    out.resolved += 1
    out.by_plan[t.plan] += 1
    record = next(r for r in h.repo.history(t.match_id) if r.turn == match.turn)
    defaults = [o.pid for o in record.orders if o.default and not _npc(match, o.pid)]
    if defaults:
        out.lost += len(defaults)
        out.lost_details.append(
            _explain(h, t, match, after, deliveries, mark, f"default orders for {defaults}")
        )
    with h.lock:
        chats = [t.group, *(int(u["id"]) for u in t.users)]
        for chat_id in chats:
            new = [m for m in h.api.chat(chat_id).messages if m.from_bot and m.message_id > mark]
            texts = Counter(m.text for m in new if m.text)
            out.doubled += sum(n - 1 for n in texts.values())
            if chat_id == t.group:
                out.group_messages += len(new)
        status = h.api.message(t.group, status_id)
        # One status message per match (a quiet group): it goes on to the next turn, so
        # stale means it still offers a button of the resolved turn.
        out.stale += int(status is not None and _offers_turn(status.buttons, match.turn))


def _offers_turn(buttons: list[dict[str, Any]], turn: int) -> bool:
    """Whether a button's callback data (``v1:kind:match:turn:...``) is for ``turn``."""
    fields = (str(b.get("callback_data", "")).split(":") for b in buttons)
    return any(len(f) > 3 and f[3] == str(turn) for f in fields)


def _npc(match: Match, pid: str) -> bool:
    return any(s.pid == pid and (s.npc or s.status != "active") for s in match.seats)


def _explain(
    h: LoadHarness,
    t: Table,
    match: Match,
    after: Match,
    deliveries: list[Delivery],
    mark: int,
    what: str,
) -> str:
    """A lost turn in words: the match, what the checker saw, each seal's answers and what the
    bot said in each chat since the turn began."""
    lines = [f"{t.plan.ruleset}/{t.plan.players}p match {t.match_id} turn {match.turn}: {what};"
             f" now turn {after.turn}, {after.phase.value},"
             f" sealed {sorted(after.sealed)}"]  # fmt: skip
    for d in deliveries:
        text = d.update.get("message", {}).get("text", "")
        lines.append(f"  seal {text!r}: answers {[r['status'] for r in d.reports]}")
    with h.lock:
        for chat_id in [t.group, *(int(u["id"]) for u in t.users)]:
            for m in h.api.chat(chat_id).messages:
                if m.from_bot and m.message_id > mark:
                    lines.append(f"  chat {chat_id}: {(m.text or '')[:160]!r}")
    return "\n".join(lines)
