"""Rubric items per question (``grader review``): reusable marks a TA applies to answer groups and
single answers with a click or a key, as Gradescope's grading screen does.

An item is a description, a point delta and an optional comment to the student, numbered per item
of the rubric (``1a``, ``1d.ta``). A *target* (a group's fingerprint, or a single answer's) carries
the set of items applied to it, a free adjustment and a free comment; its points are the items'
deltas plus the adjustment, within the item's range. The points themselves live where every
other mark lives, in the marks store (:mod:`grader.classroom.groups.store`): applying items
records a mark there, and editing an item's points or wording records a new mark for every
target that carries it, so ``grader points`` and ``grader grades`` read them as any other mark.

Kept beside the marks store, in the same append-only, fsynced style::

    marks/rubric_items.jsonl   {"event": "item", slot, number, description, points, comment, who, when}
                               {"event": "apply", slot, fingerprint, items, adjust, comment, who, when}

The latest line about an item (slot, number) or a target (fingerprint) wins; nothing is rewritten.
A target whose mark in the store was later changed elsewhere (groups.csv) is left alone when an
item changes: that later mark wins, and the page says it was marked outside the rubric.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grader.classroom.groups.store import MARK, GroupPrint, Mark, MarkStore, _append, _read_lines, now

ITEMS_FILE = "rubric_items.jsonl"
SOURCE = "grader review"


class ItemError(ValueError):
    """An item or an application the TA got wrong; the message says what and the fix."""


@dataclass(frozen=True)
class Item:
    slot: str
    number: int
    description: str
    points: float
    comment: str = ""
    who: str = ""
    when: str = ""

    def label(self) -> str:
        return f"{self.description} ({self.points:+g})" + (f": {self.comment}" if self.comment else "")


@dataclass(frozen=True)
class Applied:
    """What a target carries: item numbers, a free adjustment and a free comment. ``alone``: the
    target is one answer taken out of its group's mark (a later mark of the group leaves it alone)."""

    slot: str
    fingerprint: str
    items: tuple[int, ...] = ()
    adjust: float | None = None
    comment: str = ""
    who: str = ""
    when: str = ""
    alone: bool = False


@dataclass
class ItemBook:
    """The rubric items and their applications of one batch folder."""

    out: Path
    items: dict[tuple[str, int], Item] = field(default_factory=dict)
    applied: dict[str, Applied] = field(default_factory=dict)

    @classmethod
    def open(cls, out: Path, store: MarkStore) -> ItemBook:
        book = cls(Path(out))
        for doc in _read_lines(store.folder / ITEMS_FILE):
            try:
                if doc.get("event") == "item":
                    it = Item(str(doc["slot"]), int(doc["number"]), str(doc["description"]), float(doc["points"]),
                              str(doc.get("comment", "")), str(doc.get("who", "")), str(doc.get("when", "")))
                    book.items[(it.slot, it.number)] = it
                elif doc.get("event") == "apply":
                    adjust = doc.get("adjust")
                    a = Applied(str(doc["slot"]), str(doc["fingerprint"]), tuple(int(n) for n in doc.get("items", ())),
                                None if adjust is None else float(adjust), str(doc.get("comment", "")),
                                str(doc.get("who", "")), str(doc.get("when", "")), bool(doc.get("alone", False)))
                    book.applied[a.fingerprint] = a
            except (KeyError, TypeError, ValueError):
                continue
        return book

    # -- reading ------------------------------------------------------------------------------

    def of(self, slot: str) -> list[Item]:
        """The items of ``slot`` by number."""
        return sorted((it for (s, _), it in self.items.items() if s == slot), key=lambda it: it.number)

    def score(self, a: Applied, most: float) -> tuple[float | None, str]:
        """The points and the comment to the student of a target carrying ``a`` (points within 0..most)."""
        chosen = [self.items[(a.slot, n)] for n in a.items if (a.slot, n) in self.items]
        if not chosen and a.adjust is None:
            return None, a.comment
        raw = sum(it.points for it in chosen) + (a.adjust or 0.0)
        points = round(min(max(raw, 0.0), most), 6)
        comment = "; ".join([*(it.label() for it in chosen), *([a.comment] if a.comment else [])])
        return points, comment

    def current(self, latest: Mapping[str, Mark], a: Applied | None, most: float) -> Applied | None:
        """``a`` if the latest mark recorded on its target is still what it gives (not changed
        elsewhere since, say in groups.csv), else None. ``latest``: :func:`latest_marks`."""
        if a is None:
            return None
        mark = latest.get(a.fingerprint)
        return a if mark is not None and mark.value == self.score(a, most) else None

    # -- writing ------------------------------------------------------------------------------

    def _write(self, store: MarkStore, docs: list[dict[str, Any]]) -> None:
        _append(store.folder / ITEMS_FILE, docs)

    def _keep_alone(self, store: MarkStore, slot: str, texts: set[str] | None, most: float,
                    latest: Mapping[str, Mark], who: str) -> list[Mark]:
        """Marks that record again the answers marked alone (of ``texts``; all of ``slot`` when None),
        so that their group's newer mark does not take them back."""
        out = []
        for a in self.applied.values():
            p = store.prints.get(a.fingerprint)
            if not a.alone or a.slot != slot or p is None or (texts is not None and not set(p.texts) <= texts):
                continue
            if self.current(latest, a, most) is not None:
                points, comment = self.score(a, most)
                out.append(Mark(slot, a.fingerprint, points, comment, who, now(), f"{SOURCE}: kept apart from its group"))
        return out

    def define(self, store: MarkStore, slot: str, description: str, points: float, comment: str, who: str,
               most: float, number: int | None = None) -> tuple[Item, int]:
        """Add an item (``number`` None) or change one; a change re-scores every target carrying it
        whose mark was not changed elsewhere since. Returns the item and how many marks changed."""
        description = " ".join(description.split())
        if not description:
            raise ItemError("a rubric item needs a description (what the answer does or misses)")
        if abs(points) > most:
            raise ItemError(f"{slot} is worth 0 to {most:g} points; an item of {points:+g} cannot apply")
        if number is None:
            number = 1 + max((n for s, n in self.items if s == slot), default=0)
        elif (slot, number) not in self.items:
            raise ItemError(f"{slot} has no rubric item {number}; reload the page")
        latest = latest_marks(store)
        carrying = [a for a in self.applied.values() if a.slot == slot and number in a.items
                    and self.current(latest, a, most) is not None]
        item = Item(slot, number, description, points, " ".join(comment.split()), who, now())
        self._write(store, [{"event": "item", **asdict(item)}])
        self.items[(slot, number)] = item
        marks = []
        for a in sorted(carrying, key=lambda a: a.alone):          # groups first, then answers alone
            after = self.score(a, most)
            if after != latest[a.fingerprint].value or a.alone:
                marks.append(Mark(slot, a.fingerprint, after[0], after[1], who, now(), f"{SOURCE}: item {number} changed"))
        changed = sum(1 for m in marks if m.value != latest[m.fingerprint].value)
        if any(not a.alone for a in carrying):
            done = {m.fingerprint for m in marks}
            marks += [m for m in self._keep_alone(store, slot, None, most, latest, who) if m.fingerprint not in done]
        store.record(marks)
        return item, changed

    def apply(self, store: MarkStore, slot: str, fingerprint: str, items: Iterable[int], adjust: float | None,
              comment: str, who: str, most: float, *, alone: bool = False) -> Mark:
        """Give a target these items, adjustment and comment; records its mark in the store (and
        again the marks of the answers in it marked alone, which a group's mark leaves alone)."""
        chosen = tuple(sorted(set(items)))
        unknown = [n for n in chosen if (slot, n) not in self.items]
        if unknown:
            raise ItemError(f"{slot} has no rubric item {', '.join(map(str, unknown))}; reload the page")
        a = Applied(slot, fingerprint, chosen, adjust, " ".join(comment.split()) if comment else "", who, now(), alone)
        chosen_points = sum(self.items[(slot, n)].points for n in chosen) + (adjust or 0.0)
        if (chosen or adjust is not None) and not -1e-9 <= chosen_points <= most + 1e-9:
            raise ItemError(f"{slot} is worth 0 to {most:g} points; got {chosen_points:g}"
                            + (" (the items chosen and the adjustment)" if chosen else ""))
        latest = latest_marks(store)
        points, text = self.score(a, most)
        self._write(store, [{"event": "apply", **asdict(a)}])
        self.applied[fingerprint] = a
        mark = Mark(slot, fingerprint, points, text, who, a.when, SOURCE, MARK)
        p = store.prints.get(fingerprint)
        kept = [] if alone or p is None else [
            m for m in self._keep_alone(store, slot, set(p.texts), most, latest, who) if m.fingerprint != fingerprint]
        return store.record([mark, *kept])[0]


def latest_marks(store: MarkStore) -> dict[str, Mark]:
    """Fingerprint -> the latest mark recorded on it (cleared ones included)."""
    out: dict[str, Mark] = {}
    for m in store.journal:
        if m.kind == MARK:
            out[m.fingerprint] = m
    return out


def answer_print(slot: str, text: str) -> GroupPrint:
    """The fingerprint of one answer marked alone (its item and its text)."""
    return GroupPrint.make(slot, "", [text])
