"""A worker process for the SQLite multi-process race: seals one order per task, released
together with the other process by a barrier."""

from __future__ import annotations

import traceback
from typing import Any


def work(path: str, barrier: Any, tasks: Any, results: Any) -> None:
    from engine import rulesets, usecases
    from infra.sqlite import SqliteRepository
    from tests.storage.helpers import make_deps
    from tests.support import coin

    rulesets.register(coin.RULESET)  # the toy ruleset, in this process too

    repo = SqliteRepository(path)
    deps = make_deps(repo)
    results.put(("ready", None))
    while True:
        task = tasks.get()
        if task is None:
            break
        match_id, user, pid, raw = task
        barrier.wait()
        try:
            result = usecases.seal_order(deps, match_id, user, pid, raw)
            results.put(("ok", result))
        except Exception:
            results.put(("error", traceback.format_exc()))
    repo.close()
