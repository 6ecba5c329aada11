"""Bot: median in-process processing time per update (memory store, fake Bot API; target
<= 3 ms), Bot API calls per sealed order (target <= 3) and the calls that take a resolved
turn's buttons away (budget: one per remembered private message, docs/bot.md), over whole
pistol duels."""

from __future__ import annotations

import statistics
import time

from handlers.telegram.harness import GROUP_ID, Harness

DUELS = 10


def play_duels(h: Harness, seal_calls: list[int] | None = None,
               cleanup_calls: list[int] | None = None) -> None:  # fmt: skip
    """:data:`DUELS` pistol duels (Alice by buttons, Bob typed), each in its own group;
    ``seal_calls``/``cleanup_calls`` get the Bot API calls of a non-final seal and the
    ``editMessageReplyMarkup`` calls of a resolving one."""
    gm = h.user(333333333, "Carol", lang="en")
    alice = h.user(111111111, "Алиса", lang="ru")
    bob = h.user(222222222, "Bob", last_name="<b>Smith</b>", lang="en")
    a, b = int(alice["id"]), int(bob["id"])
    for i in range(DUELS):
        g = GROUP_ID - i
        h.group(g)
        h.say(gm, g, "/duel")
        h.press(gm, h.last(g, with_buttons=True), 0)
        lobby = h.last(g, with_buttons=True)
        h.press(alice, lobby, 0)
        h.press(bob, lobby, 0)
        h.press(alice, h.last(a, with_buttons=True), 0)
        h.say(bob, b, "/character weapon=rifle")
        h.press(gm, lobby, h.find_button(lobby, "Start"))
        for _turn in range(6):
            active = h.deps.repo.active_in_chat(g)
            if not active:
                break
            h.press(alice, h.last(a, with_buttons=True), 4)  # move +2
            h.press(alice, h.last(a, with_buttons=True), 0)  # aim -3:3 (far)
            before = len(h.api.calls)
            h.press(alice, h.last(a, with_buttons=True), 0)  # seal (not the last order)
            if seal_calls is not None:
                seal_calls.append(len(h.api.calls) - before)
            before = len(h.api.calls)
            h.say(bob, b, "/order move 0 aim 5:5")  # resolves the turn
            resolved = h.api.calls[before:]
            if cleanup_calls is not None:
                cleanup_calls.append(sum(c.method == "editMessageReplyMarkup" for c in resolved))


def main() -> None:
    h = Harness()
    timings: list[float] = []
    cpu: list[float] = []  # this thread's CPU time: steadier than wall time on a shared machine
    seal_calls: list[int] = []
    cleanup_calls: list[int] = []  # editMessageReplyMarkup when a turn resolves
    original = h.feed

    def timed(update: dict) -> None:  # type: ignore[type-arg]
        started, cpu_started = time.perf_counter(), time.thread_time()
        original(update)
        timings.append(time.perf_counter() - started)
        cpu.append(time.thread_time() - cpu_started)

    h.feed = timed  # type: ignore[method-assign]
    play_duels(h, seal_calls, cleanup_calls)
    h.close()
    median_ms = statistics.median(timings) * 1000
    p95_ms = sorted(timings)[int(len(timings) * 0.95)] * 1000
    print(f"   updates processed: {len(timings)} in {DUELS} duels")
    print(f"   median per update: {median_ms:.2f} ms (p95 {p95_ms:.2f} ms)   target <= 3 ms")
    print(f"   CPU time per update: median {statistics.median(cpu) * 1000:.2f} ms")
    print(
        f"   Bot API calls per sealed order: {statistics.mean(seal_calls):.1f} "
        f"(max {max(seal_calls)})   target <= 3"
    )
    print(
        f"   calls removing a resolved turn's buttons: {statistics.mean(cleanup_calls):.1f} "
        f"per turn (max {max(cleanup_calls)})   budget <= 1 per private message with buttons"
    )
