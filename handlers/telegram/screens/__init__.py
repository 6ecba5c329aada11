"""Pure renderers: match state to text and keyboards (no python-telegram-bot import here)."""
