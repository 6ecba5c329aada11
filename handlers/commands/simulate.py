"""``sekundant simulate --setup FILE.json --n N [--seed S] [--json]``: play N whole matches
through the live ruleset code and print outcome and event statistics (``docs/simulator.md``).

Bad input (unreadable or malformed file, unknown ruleset, weapon or perk, illegal fixed order,
N < 1) exits with status 2 and one line naming the field and what was expected.
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
from pathlib import Path
from typing import Any

from engine.errors import Rejection
from engine.simulate import Result, SetupError, parse_setup, prepare, simulate
from handlers.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--setup", required=True, metavar="FILE.json", help="the setup document")
    parser.add_argument("--n", type=int, default=1000, help="how many matches (default 1000)")
    parser.add_argument("--seed", default=None, help="dice seed (default: random, printed)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise UsageError(f"--n: expected an integer >= 1, got {args.n}")
    raw = load_json(args.setup, "--setup")
    seed = _seed(args.seed)
    try:
        prepared = prepare(parse_setup(raw))
        result = simulate(prepared, args.n, seed)
    except SetupError as exc:
        raise UsageError(describe(exc.where, exc.reason)) from None
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False))
    else:
        print("\n".join(table(result)))
    return 0


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


def table(result: Result) -> list[str]:
    """A readable report of a simulation."""
    n = result.n
    lines = [
        f"{result.ruleset}: {n} matches, seed {result.seed}, {result.seconds:.2f} s "
        f"({result.matches_per_second:,.0f} matches/s)",
        f"turns per match: mean {result.turns_mean:.2f}, max {result.turns_max}",
        "",
        f"{'outcome':<24}{'count':>10}{'share':>9}",
    ]
    for key, count in sorted(result.outcomes.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"{key:<24}{count:>10}{count / n:>9.1%}")
    lines += ["", f"{'event':<24}{'count':>10}{'per match':>11}"]
    for key, count in sorted(result.events.items()):
        lines.append(f"{key:<24}{count:>10}{count / n:>11.3f}")
    return lines
