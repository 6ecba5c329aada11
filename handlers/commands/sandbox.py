"""``sekundant sandbox``: the offline sandbox (no token, no network); ``--demo`` plays a whole
pistol duel and prints every chat's transcript."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--demo", action="store_true", help="play a whole pistol duel and exit")
    parser.add_argument(
        "--lang",
        choices=("ru", "en"),
        default=None,
        help="the bot's and every sandbox user's language, the GM's too (else SEKUNDANT_LANG)",
    )


def run(args: argparse.Namespace) -> int:
    from handlers.telegram import sandbox

    if args.demo:
        return sandbox.demo(lang=args.lang)
    return interactive(args.lang)


def interactive(lang: str | None = None) -> int:
    """The interactive sandbox on stdin/stdout; end of input exits with status 0."""
    from handlers.cli import settings_or_usage
    from handlers.telegram.sandbox import Sandbox

    settings = settings_or_usage()
    sb = Sandbox(lang=lang or settings.lang, demo=False, user_lang=lang)
    return sb.run(sys.stdin, interactive=sys.stdin.isatty())
