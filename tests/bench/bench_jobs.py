"""Every core: plans duels (fencer vs pyromancer, random plans) played by ``sekundant simulate``'s
chunked run on one process and on two (``--jobs 2``), by wall clock, best of a few runs.
Target: two jobs >= 1.8x one job on this 2-core machine. The figures of both runs are equal
(chunk seeds do not depend on the number of jobs): checked and printed. Asserts nothing.

Wall clock is the only honest measure of parallel speed, and the machine is shared: a run
during other work understates the speed-up, so the best of RUNS is taken for each."""

from __future__ import annotations

import os

from engine import sim_batch
from engine.simulate import parse_setup, prepare
from handlers.commands.simulate import play
from tests.bench import machine
from tests.bench.bench_plans import setup_doc

TARGET = 1.8
DUELS = 20_000  # a GM-sized run (seconds): the pool's fixed start-up cost is not the figure
RUNS = 3


def main() -> None:
    raw = setup_doc()
    batch = sim_batch.plan(prepare(parse_setup(raw)), DUELS, 1, None)
    walls: dict[int, float] = {}
    cpus: dict[int, float] = {}  # CPU seconds of the whole run: this process and its workers
    results = {}
    for jobs in (1, 2):
        best = float("inf")
        for _ in range(RUNS):
            before = os.times()
            result = play(batch, raw, None, jobs)
            after = os.times()
            if result.seconds < best:
                best = result.seconds
                cpus[jobs] = sum(after[:4]) - sum(before[:4])  # user, system, children's
        walls[jobs] = best
        out = result.to_json()
        del out["seconds"], out["matches_per_second"]
        results[jobs] = out
    ratio = walls[1] / walls[2]
    flag = "ok" if ratio >= TARGET else "BELOW TARGET"
    same = "equal" if results[1] == results[2] else "DIFFERENT (a bug)"
    print(f"   cores: {os.cpu_count()}; {batch.n} duels in {len(batch.chunks)} chunks (mirror)")
    print(f"   one job:  {walls[1]:6.2f} s wall  ({batch.n / walls[1]:7.0f} duels/s)")
    print(f"   two jobs: {walls[2]:6.2f} s wall  ({batch.n / walls[2]:7.0f} duels/s)")
    print(f"   speed-up: {ratio:5.2f}x  (target >= {TARGET}x: {flag}); figures {same}")
    got = cpus[2] / walls[2]
    print(
        f"   cores the two-job run had: {got:4.2f} of 2 (less: other work on the machine took"
        " the rest, and the speed-up with it)"
    )
    # What parallel play costs in CPU (processes, setup per worker, moving results), apart
    # from how busy the machine is: the speed-up two free cores would give.
    print(
        f"   CPU: one job {cpus[1]:5.2f} s, two jobs {cpus[2]:5.2f} s in all: with two free"
        f" cores the speed-up would be {2 * cpus[1] / cpus[2]:4.2f}x"
    )
    print(machine.reference())


if __name__ == "__main__":
    main()
