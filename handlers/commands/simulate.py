"""``sekundant simulate --setup FILE.json --n N [--seed S] [--jobs J] [--[no-]mirror]
[--lang L] [--json]``: play N whole matches through the live ruleset code, on every core, and
print results by side with 95% intervals and event statistics (``docs/simulator.md``).

Bad input (unreadable or malformed file, unknown ruleset, weapon or perk, illegal fixed order,
N < 1) exits with status 2 and one line naming the field and what was expected.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

from engine import sim_batch
from engine.errors import Rejection
from engine.simulate import Result, SetupError, parse_setup, prepare
from handlers.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--setup", required=True, metavar="FILE.json", help="the setup document")
    parser.add_argument("--n", type=int, default=1000, help="how many matches (default 1000)")
    parser.add_argument("--seed", default=None, help="dice seed (default: random, printed)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 1,
        help="processes to play on (default: the machine's cores); figures do not depend on it",
    )
    parser.add_argument(
        "--mirror",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="play every seed twice, the sides' characters exchanging seats and orders "
        "(default: on for two sides of equal size)",
    )
    parser.add_argument(
        "--lang",
        choices=("en", "ru"),
        default=None,
        help="language of the table (default: from LANG, else en)",
    )


def run(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise UsageError(f"--n: expected an integer >= 1, got {args.n}")
    if args.jobs < 1:
        raise UsageError(f"--jobs: expected an integer >= 1, got {args.jobs}")
    raw = load_json(args.setup, "--setup")
    seed = _seed(args.seed)
    try:
        batch = sim_batch.plan(prepare(parse_setup(raw)), args.n, seed, args.mirror)
    except SetupError as exc:
        raise UsageError(describe(exc.where, exc.reason)) from None
    jobs = min(args.jobs, len(batch.chunks))
    with _Progress(batch.n) as bar:
        result = play(batch, raw, args.mirror, jobs, bar)
    rep = sim_batch.report(batch, result)
    if args.json:
        print(json.dumps({**result.to_json(), **rep, "jobs": jobs}, ensure_ascii=False))
    else:
        lang = args.lang or ("ru" if os.environ.get("LANG", "").startswith("ru") else "en")
        from handlers.sim_render import table

        print("\n".join(table(result, rep, lang, jobs)))
    return 0


# --------------------------------------------------------------------------- every core


def play(
    batch: sim_batch.Plan,
    raw: Any,
    mirror: bool | None,
    jobs: int,
    progress: Any = None,
) -> Result:
    """Play ``batch`` (built from the setup document ``raw``) on ``jobs`` processes; the
    result's ``seconds`` is the wall clock of the whole run."""
    started = time.perf_counter()
    result = None
    if jobs > 1:
        args = (raw, batch.n, batch.seed, mirror)
        try:
            with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=args) as pool:
                result = sim_batch.run(
                    batch, map_chunks=lambda b, chunks: _pooled(pool, chunks), progress=progress
                )
        except (OSError, NotImplementedError) as exc:  # no processes here (a sandbox, no shm)
            print(f"--jobs {jobs}: cannot start processes ({exc}); one job", file=sys.stderr)
    if result is None:
        result = sim_batch.run(batch, progress=progress)
    result.seconds = time.perf_counter() - started
    return result


_WORKER: list[sim_batch.Plan] = []  # the batch of this worker process (built once)


def _init_worker(raw: Any, n: int, seed: int | str, mirror: bool | None) -> None:
    """A worker builds the same batch from the same input (deterministic), once."""
    _WORKER.append(sim_batch.plan(prepare(parse_setup(raw)), n, seed, mirror))


def _play(index: int, seeds: int) -> Result:
    return sim_batch.play_chunk(_WORKER[0], index, seeds)


def _pooled(pool: ProcessPoolExecutor, chunks: list[tuple[int, int]]) -> Iterator[Result]:
    """Chunk results as they finish (the merge is a sum: order does not matter)."""
    futures = [pool.submit(_play, index, seeds) for index, seeds in chunks]
    for future in as_completed(futures):
        yield future.result()


class _Progress:
    """A progress bar on stderr (tqdm), shown only once a run has lasted a second: a short
    run prints nothing extra. tqdm: small, no dependencies, its ``delay`` does exactly this."""

    def __init__(self, total: int) -> None:
        from tqdm import tqdm  # type: ignore[import-untyped]

        self._bar = tqdm(
            total=total, delay=1.0, file=sys.stderr, unit=" matches", leave=False, smoothing=0.1
        )

    def __enter__(self) -> _Progress:
        return self

    def __call__(self, matches: int) -> None:
        self._bar.update(matches)

    def __exit__(self, *exc: object) -> None:
        self._bar.close()


def _seed(raw: str | None) -> int | str:
    if raw is None:
        return secrets.randbelow(1 << 32)
    return int(raw) if raw.lstrip("-").isdigit() else raw


# --------------------------------------------------------------------------- shared helpers


def load_json(path: str, option: str) -> Any:
    """Read a JSON file; any problem is a :class:`UsageError` naming the option and place."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{option}: cannot read {path}: {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(
            f"{option}: {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None


_SIGN = {"ge": ">= ", "le": "<= ", "gt": "> ", "lt": "< "}
_BOUND = re.compile(r"\b(ge|le|gt|lt) ")


def describe(where: str, reason: Rejection) -> str:
    """One line for a rejection: the field path, then what was wrong and what was expected."""
    p = reason.params
    code = reason.code
    if code == "invalid_field":
        field = str(p.get("field", ""))
        path = where if not field or where.endswith(field) else f"{where}.{field}"
        expected = str(p.get("expected"))
        if expected == "required":
            return f"{path}: required but missing"
        if expected == "no such field":
            return f"{path}: no such field"
        return f"{path}: expected {_BOUND.sub(lambda m: _SIGN[m.group(1)], expected)}"
    if code == "unknown_ruleset":
        return f"{where}: unknown ruleset {p['ruleset']!r} (expected one of: {p.get('allowed')})"
    if code.startswith("unknown_") and "allowed" in p:
        what = code.removeprefix("unknown_")
        return f"{where}: unknown {what} {p.get(what)!r} (expected one of: {p['allowed']})"
    if "min" in p and "max" in p and "got" in p:
        if "field" in p:
            field = f".{p['field']}"
        elif code.endswith("_out_of_range"):  # move_out_of_range -> the field is "move"
            field = "." + code.removesuffix("_out_of_range")
        else:
            field = ""
        return (
            f"{where}{field}: {code.replace('_', ' ')}: expected {p['min']}..{p['max']}, "
            f"got {p['got']}"
        )
    details = ", ".join(f"{k}={v}" for k, v in p.items())
    return f"{where}: {code.replace('_', ' ')}" + (f" ({details})" if details else "")
