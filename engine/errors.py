"""Domain errors. A :class:`Rejection` is a reason a user can read: an error code plus
parameters, translated by the bot (``handlers/i18n``), never an English sentence."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel


class Rejection(Exception):  # noqa: N818 - a rejection is an answer, not a crash
    """Bad input from a user: nothing changed. ``code`` is a catalog key suffix."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code, params)
        self.code = code
        self.params: dict[str, Any] = params

    def __repr__(self) -> str:
        return f"Rejection({self.code!r}, {self.params!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rejection) and (self.code, self.params) == (
            other.code,
            other.params,
        )

    def __hash__(self) -> int:
        return hash(self.code)


class ConflictError(Exception):
    """A write lost an optimistic-concurrency race (the stored version moved on)."""


class ChatBusyError(ConflictError):
    """A match was created with the chat's lock while another unfinished match holds it
    (``MatchRepository.create(lock_chat=True)``); ``match_id`` names that one."""

    def __init__(self, match_id: str) -> None:
        super().__init__(match_id)
        self.match_id = match_id


class LeaseLostError(Exception):
    """A save carrying an owed item's delivery (``MatchRepository.save(entry=...)``) found the
    version it expected but not the item's lease: the item was replaced, or taken over by
    another deliverer. Nothing was written; unlike :class:`ConflictError` it is not retried
    (the delivery stops: ``handlers.telegram.shared.outbox.Superseded``)."""


class NotFoundError(Exception):
    """No such match (or record)."""


class CorruptRecordError(Exception):
    """A stored record could not be read; the match is flagged for the GM's attention."""

    def __init__(self, match_id: str, detail: str) -> None:
        super().__init__(f"match {match_id}: {detail}")
        self.match_id = match_id
        self.detail = detail


M = TypeVar("M", bound="BaseModel")


def parse_model(model: type[M], raw: Any, *, what: str = "order") -> M:
    """Validate ``raw`` into ``model``; a failure becomes a :class:`Rejection` naming the field
    and what was expected (code ``invalid_field``)."""
    # pydantic is imported on first use: the webhook's cold start does not validate anything
    # with it, and its import costs about a quarter of the cold-start baseline.
    from pydantic import ValidationError

    if isinstance(raw, model):
        return raw
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or what
        raise Rejection(
            "invalid_field", what=what, field=field, expected=_expected(first)
        ) from None


def _expected(error: Mapping[str, Any]) -> str:
    ctx = error.get("ctx") or {}
    kind = error.get("type", "")
    if kind == "missing":
        return "required"
    if kind == "extra_forbidden":
        return "no such field"
    if "expected" in ctx:
        return str(ctx["expected"])
    bounds = [f"{k.replace('_', ' ')} {v}" for k, v in ctx.items() if k in ("ge", "le", "gt", "lt")]
    if bounds:
        return ", ".join(bounds)
    return str(error.get("msg", kind))
