"""The journal of an outbox delivery (:mod:`handlers.telegram.shared.outbox`): what it sent,
recorded under what each message is, written before the next send or riding on a write the
delivery makes anyway (docs/deploy.md, "The outbox's writes")."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from telegram import Chat, Message

from engine.errors import LeaseLostError, NotFoundError
from engine.ports import MatchRepository, Owed, Remember


class Superseded(Exception):  # noqa: N818 - control flow, not an error
    """The item was replaced by a newer one of its key, or taken over by another deliverer
    (our lease ran out): stop without writing."""


class Journal:
    """The sends already made for one owed item, recorded as they happen, each under its
    identity (:func:`labelled`, the chat, the occurrence): ``sent[identity] = [chat, id, date]``.

    Only what cannot be made twice is recorded: a send (a new message each time). An edit
    (``repeatable``) is made again by a resumed delivery, rendered from the latest state: the
    same edit twice changes nothing. A send's entry is written just before the delivery's next
    send, or with the write that ends the delivery (done, or failed: one write fewer per item
    than writing it at once): at any moment at most one send is made but not yet recorded,
    as when each was written right after it - or one group of sends made at once, each to a
    chat of its own (``send.at_once``: a turn's builders), whose entries are written together
    before the next send. Each is named by its own chat, so identities do not depend on which
    answer came first; one refused records the others with the failure's write. (The lock
    message is recorded in the match, with the item's end, right after it is sent:
    ``shared.lock``.)

    The journal's writes ride on writes the delivery makes anyway (docs/deploy.md, "The
    outbox's writes"): a versioned save of the match made during the delivery carries the
    pending entry, or ends the item (:func:`with_save`); message ids remembered during it
    (``stale.remember``: :meth:`remember`) go with the journal's next write or the end.

    An edit that must not be made again once later sends depend on it, but is harmless made
    again until then (``redoable``: the lock message turned into the reveal picture, made
    again identically until the commitment's save records it) is recorded like a send, yet
    its entry does not force a write before the next send: it rides on the next write the
    delivery makes anyway."""

    def __init__(self, repo: MatchRepository, item: Owed) -> None:
        self.repo = repo
        self.item = item
        self.seen: dict[str, int] = {}
        self.unwritten = False  # ``item`` holds a send the store does not have yet
        self.redone = False  # ``item`` holds a redoable edit the store does not have yet
        self.ended = False  # a save ended the item (:func:`with_save`): nothing more to write
        self.remembering: Remember | None = None  # ids to remember with the next write

    def identity(self, chat_id: int | None) -> str:
        """The stable name of the next call: its label, its chat and how many calls of that
        label to that chat this run made before it (edits counted too, as ever, so a journal
        written before edits went unrecorded still names the same sends)."""
        base = f"{_LABEL.get()}@{'' if chat_id is None else chat_id}"
        n = self.seen.get(base, 0)
        self.seen[base] = n + 1
        return f"{base}#{n}"

    def write(self) -> None:
        """Write the send recorded but not written yet, if any (with the ids to remember);
        :class:`Superseded` when the item is no longer ours (then nothing more is sent for
        it)."""
        if self.unwritten:
            self.unwritten = self.redone = False
            if not self.update(self.item):
                raise Superseded

    @property
    def pending(self) -> bool:
        """Whether ``item`` holds an entry the store does not have yet (a send, or a
        redoable edit)."""
        return self.unwritten or self.redone

    def update(self, item: Owed) -> bool:
        """``update_owed(item)`` with the ids to remember riding on it; when the item is no
        longer ours they are written alone (False, as ``update_owed``)."""
        remember = self.remembering
        written = self.repo.update_owed(item, remember=remember)  # (raising: kept for the next)
        self.remembering = None
        if not written and remember is not None:
            self._remember_alone(remember)
        return written

    def remember(self, key: str, turn: int, items: Sequence[Sequence[int]]) -> None:
        """Remember ``items`` (``[chat, message]`` pairs of ``turn`` under ``key``) with the
        journal's next write or the end, instead of a write of their own
        (``MatchRepository.remember_messages``). The messages were just sent: their own
        entries ride on that same write, so a delivery stopped before it sends them again
        and remembers those."""
        pairs = tuple((int(c), int(m)) for c, m in items)
        if self.ended:  # no write of the item follows
            self._remember_alone(Remember(key, turn, pairs))
            return
        kept = self.remembering
        if kept is not None and (kept.key, kept.turn) != (key, turn):
            self.remembering = None
            self._remember_alone(kept)  # another key or turn: not merged (rare)
            kept = None
        old = () if kept is None else kept.items
        self.remembering = Remember(key, turn, old + tuple(p for p in pairs if p not in old))

    def _remember_alone(self, remember: Remember) -> None:
        with contextlib.suppress(NotFoundError):
            self.repo.remember_messages(
                self.item.match_id, remember.key, remember.turn, remember.items
            )

    def riding(self, end: bool) -> Owed | None:
        """The item to write with a save the delivery makes (:func:`with_save`): ended
        (``end``), or with the send not written yet; None when there is nothing to write. Ids
        to remember are written first, on their own (a save does not carry them)."""
        if self.remembering is not None:
            kept, self.remembering = self.remembering, None
            self._remember_alone(kept)
        if end:
            return replace(self.item, done=True, lease=0.0, error="")
        return self.item if self.pending else None

    def start(self) -> contextvars.Token[Journal | None]:
        """This journal records the sends of the running task (:func:`current`) until
        :meth:`stop` with the token returned."""
        return _JOURNAL.set(self)

    @staticmethod
    def stop(token: contextvars.Token[Journal | None]) -> None:
        _JOURNAL.reset(token)

    def rode(self, entry: Owed) -> None:
        """A save wrote ``entry`` (:meth:`riding`)."""
        self.unwritten = self.redone = False
        self.ended = entry.done

    async def run(
        self,
        call: Callable[[], Awaitable[Any]],
        chat_id: int | None = None,
        repeatable: bool = False,
        redoable: bool = False,
    ) -> Any:
        """One Bot API call of the delivery, or its recorded result when an earlier attempt
        made it already. ``repeatable``: an edit, made again rather than recorded;
        ``redoable``: an edit recorded, but with the next write made anyway (the class's
        docstring)."""
        key = self.identity(chat_id)
        kept = self.item.sent.get(key)
        if kept is not None:
            chat, message_id, *rest = kept
            date = datetime.fromtimestamp(int(rest[0]) if rest else 0, UTC)
            return Message(int(message_id), date, Chat(int(chat), "private"))
        if not repeatable:
            if self.ended:  # a send after the item's end could never be recorded
                raise RuntimeError(f"{key}: a send after the owed item was ended")
            if not redoable:
                self.write()  # the previous send is in the store before another one is made
        result = await call()
        if isinstance(result, Message) and not repeatable:
            stamp = int(result.date.timestamp())
            sent = {**self.item.sent, key: [result.chat_id, result.message_id, stamp]}
            self.item = replace(self.item, sent=sent)
            if redoable:
                self.redone = True
            else:
                self.unwritten = True
        return result


_LABEL: contextvars.ContextVar[str] = contextvars.ContextVar("sekundant_label", default="send")


@contextlib.contextmanager
def labelled(label: str) -> Iterator[None]:
    """The sends made inside are journaled as ``label`` (what they are: ``reveal:3``,
    ``status:4``, ``builder:4`` ...), so a resumed delivery finds each by identity."""
    token = _LABEL.set(label)
    try:
        yield
    finally:
        _LABEL.reset(token)


_JOURNAL: contextvars.ContextVar[Journal | None] = contextvars.ContextVar(
    "sekundant_journal", default=None
)


def current() -> Journal | None:
    """The journal of the delivery running in this task, if any."""
    return _JOURNAL.get()


T = TypeVar("T")


def with_save(save: Callable[[Owed | None], T], *, end: bool = False) -> T:
    """Make a versioned save of the match (``save(entry)``, e.g. ``usecases.lock_posted``)
    that carries the running delivery's journal (``entry``: passed to
    ``MatchRepository.save``), so no write of its own is needed before the next send; with
    ``end`` it ends the item too (what follows must be repeatable: edits, store work; a send
    raises). Outside a delivery, ``save(None)``. The save and the journal are written both
    or neither: a lost lease (``LeaseLostError``) stops the delivery (:class:`Superseded`);
    a conflict is retried by the use case with the same entry."""
    journal = current()
    entry = None if journal is None else journal.riding(end)
    try:
        result = save(entry)
    except LeaseLostError:
        raise Superseded from None
    if journal is not None and entry is not None:
        journal.rode(entry)
    return result
