"""Modules every Telegram feature may import (and that import no feature)."""
