"""``sekundant verify DOSSIER.json``: exit 0 when the dossier verifies, 1 on any mismatch,
2 when the file is unreadable or not a dossier."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from handlers.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dossier", type=Path, help="a dossier JSON file (from /dossier)")


def run(args: argparse.Namespace) -> int:
    from engine.verify import NotADossierError, check

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
    try:
        report = check(doc)
    except NotADossierError as exc:
        raise UsageError(f"{path}: {exc}") from None
    for note in report.notes:
        print(f"note: {note}")
    if not report.findings:
        undone = f" and {report.undone} undone" if report.undone else ""
        print(
            f"OK: {report.turns} turns{undone} verified (commitments, beacon rounds, "
            "fingerprints, who sealed when, dice, resolutions, interventions, outcome)"
        )
        return 0
    print(f"FAILED: {len(report.findings)} problem(s)")
    for finding in report.findings:
        print(f"  {finding}")
    return 1
