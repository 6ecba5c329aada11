"""The ``sekundant`` command. Each subcommand lives in ``handlers/commands/<name>.py`` with
``add_arguments(parser)`` and ``run(args) -> int``; they are imported only when used, so a
quick command does not pay for Telegram or AWS imports.

Bad input exits with status 2 and a one-line message naming what was wrong (no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from infra.settings import Settings

COMMANDS: dict[str, str] = {
    "run": "Run the bot: long polling with TELEGRAM_BOT_TOKEN, else the offline sandbox",
    "sandbox": "The offline sandbox: play GM and players in the terminal (--demo: a whole duel)",
    "simulate": "Play N matches from a setup file and print outcome statistics",
    "turn": "Resolve one turn from a JSON document and print events and the new state",
    "verify": "Verify a match dossier: commitments, fingerprints, dice and every resolution",
    "setup_webhook": "Point Telegram at a deployed stack and register the bot's commands",
}


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit status 2."""


def settings_or_usage() -> Settings:
    """Settings, or a one-line usage error naming the bad setting (exit 2)."""
    from infra.settings import SettingsError, load_settings

    try:
        return load_settings()
    except SettingsError as exc:
        raise UsageError(f"invalid settings: {exc}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="sekundant", description="Sekundant, the duel referee bot"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    # Build only the chosen subcommand's parser: importing every module would be slow.
    args_list = list(sys.argv[1:] if argv is None else argv)
    chosen = args_list[0].replace("-", "_") if args_list else None
    for name, help_text in COMMANDS.items():
        p = sub.add_parser(name.replace("_", "-"), help=help_text, description=help_text)
        if name == chosen:
            _module(name).add_arguments(p)
    args = parser.parse_args(args_list)
    name = args.command.replace("-", "_")
    try:
        return int(_module(name).run(args))
    except UsageError as exc:
        print(f"sekundant {args.command}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _module(name: str):  # type: ignore[no-untyped-def]
    return importlib.import_module(f"handlers.commands.{name}")


if __name__ == "__main__":
    # Under ``python -m handlers.cli`` this file runs as ``__main__``, a second copy of the
    # module: the commands raise ``handlers.cli.UsageError``, which this copy's ``main`` would
    # not catch (a traceback instead of the one-line message). Run the real module's.
    from handlers.cli import main as cli_main

    sys.exit(cli_main())
