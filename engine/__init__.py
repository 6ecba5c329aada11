"""Sekundant's functional core: rules, match lifecycle and use cases.

Nothing in this package performs I/O or imports ``telegram`` or ``boto3`` (a test enforces it).
Adapters live in ``handlers/`` (Telegram, Lambda, CLI) and ``infra/`` (storage, settings).
"""

ENGINE_VERSION = "1"
