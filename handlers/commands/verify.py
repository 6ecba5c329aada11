"""``sekundant verify DOSSIER.json``: exit 0 only when the dossier verifies."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from handlers.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dossier", type=Path, help="a dossier JSON file (from /dossier)")


def run(args: argparse.Namespace) -> int:
    from engine.verify import verify

    path: Path = args.dossier
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not JSON (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(doc, dict):
        raise UsageError(f"{path}: expected a JSON object (a dossier)")
    findings = verify(doc)
    turns = len(doc.get("turns") or [])
    if not findings:
        print(f"OK: {turns} turns verified (commitments, fingerprints, dice, resolutions)")
        return 0
    print(f"FAILED: {len(findings)} problem(s)")
    for finding in findings:
        print(f"  {finding}")
    return 1
