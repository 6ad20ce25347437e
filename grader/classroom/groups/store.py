"""TA marks: data that nothing deletes.

A mark (points, a comment, who, when) is given to a group of answers, but the group's number
changes whenever the class changes (a late submission, a rerun, a regrouping). So a mark is stored
apart from everything grouping writes, in ``OUT/marks/``, keyed by the item and the group's
*fingerprint*, which names what the group is:

    marks/groups.jsonl   every group fingerprint ever shown to a TA: its item, its key (a formula
                         group's values at the fixed points, a 3(a) group's first wrong row, ...)
                         and the texts of its answers. Only ever appended to.
    marks/marks.jsonl    every mark ever given (or changed, or cleared), in order: the item, the
                         fingerprint, points, comment, who, when and from where (a CSV line, the
                         browser). Only ever appended to; the latest line about an answer wins.

A mark applies to the answers a TA saw, never to an answer that came later. The answers of a
marked group are those its fingerprint names: their normalised texts (a prose answer, a 3(a)
table as a whole, one 3(f) sentence's reading) and, for a formula group only, its values at the
fixed points (a key starting with :data:`VALUES`: another spelling with the same values is the
same answer). Each answer has the latest mark given to a group that held it. An answer that
joins a marked group later has no mark of its own: it is *new since marked*, the group waits for
a TA (the others' mark is only a suggestion), and points stay pending for it. When the answers
of a group were marked differently (a regrouping merged two groups), each keeps its own. A 3(a)
group's key (its first wrong row) never carries a mark: two different tables share it.
Nothing here reads or writes the groups CSV: :mod:`grader.classroom.groups.marks` does.
"""

from __future__ import annotations

import getpass
import hashlib
import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

MARKS_DIR = "marks"
JOURNAL = "marks.jsonl"
INDEX = "groups.jsonl"
MARK, OVERRIDE = "mark", "override"
VALUES = "values:"
"""How a formula group's key starts: its values at the fixed points, which name its answers."""
"""A TA's mark of a TA-graded item; a TA's override of an auto-graded item's verdict (with a reason)."""


def norm(text: str) -> str:
    """How answer texts are compared: case and runs of white space do not matter."""
    return " ".join(text.lower().split())


def fingerprint_of(slot: str, key: str, texts: Iterable[str]) -> str:
    """The name of a group: its item, its key and its answers' texts (never its number). Starts
    with letters so that a spreadsheet keeps it as text."""
    digest = hashlib.sha256(json.dumps([slot, key, sorted(set(texts))]).encode("utf-8")).hexdigest()
    return "fp" + digest[:14]


def who_am_i() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class GroupPrint:
    """What a group was when a TA saw it: enough to find its answers in any later grouping."""

    fingerprint: str
    slot: str
    key: str
    texts: tuple[str, ...]        # normalized, sorted

    @classmethod
    def make(cls, slot: str, key: str, texts: Iterable[str]) -> GroupPrint:
        normed = tuple(sorted({norm(t) for t in texts}))
        return cls(fingerprint_of(slot, key, normed), slot, key, normed)


@dataclass(frozen=True)
class Mark:
    """One line of the journal."""

    slot: str
    fingerprint: str
    points: float | None
    comment: str = ""
    who: str = ""
    when: str = ""
    source: str = ""
    kind: str = MARK

    @property
    def empty(self) -> bool:
        """A cleared mark: it hides the earlier ones and gives nothing."""
        return self.points is None and not self.comment

    @property
    def value(self) -> tuple[float | None, str]:
        return self.points, self.comment


@dataclass(frozen=True)
class Resolution:
    """The mark of a group now: ``mark`` when every answer in it has one and they agree;
    ``conflict`` (the different marks) when they do not; ``new`` the (normalised) texts of the
    answers that joined after the others were marked, with ``suggestion`` the mark the others
    share; nothing when none of its answers was ever marked."""

    mark: Mark | None = None
    conflict: tuple[Mark, ...] = ()
    new: tuple[str, ...] = ()
    suggestion: Mark | None = None

    @property
    def pending(self) -> bool:
        """Whether a TA still has to act on some answer of the group."""
        return self.mark is None or self.mark.points is None


@dataclass
class MarkStore:
    """The marks of one batch folder, read from ``OUT/marks/`` and appended to it."""

    out: Path
    prints: dict[str, GroupPrint] = field(default_factory=dict)
    journal: list[Mark] = field(default_factory=list)
    _by_text: dict[tuple[str, str, str], tuple[int, Mark]] = field(default_factory=dict)
    _by_values: dict[tuple[str, str, str], tuple[int, Mark]] = field(default_factory=dict)

    @classmethod
    def open(cls, out: Path) -> MarkStore:
        store = cls(Path(out))
        for doc in _read_lines(store.folder / INDEX):
            try:
                p = GroupPrint(str(doc["fingerprint"]), str(doc["slot"]), str(doc.get("key", "")),
                               tuple(str(t) for t in doc.get("texts", ())))
            except (KeyError, TypeError):
                continue
            store.prints.setdefault(p.fingerprint, p)
        for doc in _read_lines(store.folder / JOURNAL):
            try:
                points = doc.get("points")
                mark = Mark(str(doc["slot"]), str(doc["fingerprint"]), None if points is None else float(points),
                            str(doc.get("comment", "")), str(doc.get("who", "")), str(doc.get("when", "")),
                            str(doc.get("source", "")), str(doc.get("kind", MARK)))
            except (KeyError, TypeError, ValueError):
                continue
            store._index(mark)
        return store

    @property
    def folder(self) -> Path:
        return self.out / MARKS_DIR

    def _index(self, mark: Mark) -> None:
        entry = (len(self.journal), mark)
        self.journal.append(mark)
        p = self.prints.get(mark.fingerprint)
        if p is None:
            return
        for text in p.texts:
            self._by_text[(mark.kind, p.slot, text)] = entry
        if p.key.startswith(VALUES):
            self._by_values[(mark.kind, p.slot, p.key)] = entry

    def remember(self, prints: Iterable[GroupPrint]) -> None:
        """Add the fingerprints not yet known to the index (appended)."""
        new = [p for p in prints if p.fingerprint not in self.prints]
        for p in new:
            self.prints[p.fingerprint] = p
        _append(self.folder / INDEX, [{"fingerprint": p.fingerprint, "slot": p.slot, "key": p.key,
                                       "texts": list(p.texts)} for p in new])

    def record(self, marks: Iterable[Mark]) -> list[Mark]:
        """Append ``marks`` (their fingerprints must be known); returns them."""
        marks = list(marks)
        for m in marks:
            if m.fingerprint not in self.prints:
                raise KeyError(m.fingerprint)
        _append(self.folder / JOURNAL, [{k: v for k, v in asdict(m).items()} for m in marks])
        for m in marks:
            self._index(m)
        return marks

    def answer_mark(self, slot: str, key: str, text: str, kind: str = MARK) -> Mark | None:
        """The mark of one answer of a group with this key: the latest given to a group that held
        this text (or, for a formula group, these values); None if none, or cleared."""
        entry = self._answer_entry(slot, key, text, kind)
        return None if entry is None else entry[1]

    def _answer_entry(self, slot: str, key: str, text: str, kind: str) -> tuple[int, Mark] | None:
        found = [self._by_text.get((kind, slot, norm(text)))]
        if key.startswith(VALUES):
            found.append(self._by_values.get((kind, slot, key)))
        entries = [e for e in found if e is not None]
        if not entries:
            return None
        latest = max(entries, key=lambda e: e[0])
        return None if latest[1].empty else latest

    def text_mark(self, slot: str, text: str, kind: str = MARK) -> Mark | None:
        """The latest mark given to a group holding this answer text (None if none, or cleared)."""
        return self.answer_mark(slot, "", text, kind)

    def resolve(self, slot: str, key: str, texts: Iterable[str], kind: str = MARK) -> Resolution:
        """The mark of a group of ``slot`` with this key and these answer texts: ``mark`` only when
        every answer has one and they agree; else ``new`` names the answers without one (new
        since marked) and ``suggestion`` the mark the others share, or ``conflict`` theirs."""
        texts = list(dict.fromkeys(norm(t) for t in texts))
        entries = [(t, self._answer_entry(slot, key, t, kind)) for t in texts]
        given = sorted((e for _, e in entries if e is not None), key=lambda e: e[0])
        if not given:
            return Resolution()
        new = tuple(t for t, e in entries if e is None)
        distinct = {m.value: m for _, m in given}       # the latest of each value
        latest = given[-1][1]
        if len(distinct) == 1:
            return Resolution(None, (), new, latest) if new else Resolution(latest)
        return Resolution(None, tuple(distinct.values()), new)

    def count(self, kind: str = MARK) -> int:
        return sum(1 for m in self.journal if m.kind == kind)


def _read_lines(path: Path) -> list[dict]:
    """The JSON objects of a journal; a torn last line (a crash mid-append) is skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    docs = []
    for line in text.splitlines():
        try:
            doc = json.loads(line)
        except ValueError:
            continue
        if isinstance(doc, dict):
            docs.append(doc)
    return docs


def _append(path: Path, docs: list[dict]) -> None:
    """Append one line per document and flush it to disk: the journal is never rewritten."""
    if not docs:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    data = "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in docs)
    with open(path, "a", encoding="utf-8") as f:
        if f.tell() > 0:   # a torn last line (no newline) must not swallow the next one
            with open(path, "rb") as r:
                r.seek(-1, os.SEEK_END)
                if r.read(1) != b"\n":
                    f.write("\n")
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
