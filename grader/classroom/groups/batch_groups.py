"""The answer groups of a finished batch folder, as data (:func:`group_batch`; the files are
written by :mod:`grader.classroom.reports.group_files`, both run by
:func:`grader.classroom.groups_command.build_groups`). Nothing is regraded: the answers come from
the reports, and formulas are evaluated in the writeup reader's child process.

Marks are never lost: before regrouping, the marks in groups/groups.csv are imported into the
marks store (``marks/``, :mod:`grader.classroom.groups.store`), which grouping only ever appends to; the new
groups.csv is written with every mark the store gives its groups (a marked groups.csv replaced is
copied to ``marks/history/`` first). A groups.csv that cannot be imported (a mark that is not a
number) is left as it is, and the new table goes to groups/groups.new.csv.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import assignment
from grader.classroom.groups.cluster import (
    PROSE_EXTRA_NOTE,
    Fingerprinter,
    Group,
    child_fingerprinter,
    group_all,
    prose_similarity_available,
)
from grader.classroom.groups.collect import collect
from grader.classroom.groups.marks import (
    SNAPSHOT,
    MarksError,
    import_table,
    new_members,
    prints_of,
    read_snapshot,
    resolve,
    snapshot,
)
from grader.classroom.groups.store import MARK, OVERRIDE, MarkStore
from grader.run.rubric import Rubric, load_rubric

ANSWER_GROUPS = "answer_groups.csv"
REVIEW_QUEUE = "review_queue.csv"
GROUPS_DIR = "groups"
GROUP_TABLE = "groups.csv"
NEW_TABLE = "groups.new.csv"
HISTORY_DIR = "history"
REVIEW_COLUMNS = ("submission", "names", "id", "name", "score", "max_score", "reason", "where", "raw")


class GroupsError(ValueError):
    """The folder is not a finished batch; the message says what is missing and the fix."""


@dataclass(frozen=True)
class GroupsOutcome:
    groups: dict[str, list[Group]]
    reviews: list[dict]
    submissions: int
    seconds: float
    files: tuple[Path, ...]
    notes: tuple[str, ...] = ()
    imported: int = 0              # marks read from groups/groups.csv into the store

    def counts(self) -> dict[str, int]:
        """Groups per item."""
        return {slot: len(gs) for slot, gs in self.groups.items()}


@dataclass(frozen=True)
class GroupedBatch:
    """A batch's answers grouped (:func:`group_batch`), with what its files are made of."""

    out: Path
    groups: dict[str, list[Group]]
    grouped: list[dict[str, Any]]       # the snapshot: every group as plain data (groups/groups.json)
    reviews: list[dict]
    submissions: int
    titles: dict[str, str]              # question id -> its title, for the pages
    store: MarkStore
    kept: bool                          # groups.csv could not be imported: it is kept, the table goes beside it
    imported: int
    notes: tuple[str, ...]
    started: float                      # time.monotonic() when grouping began


def group_batch(out: Path, rubric: Rubric | None = None, *, fingerprint: Fingerprinter | None = None) -> GroupedBatch:
    """Group the written answers of the batch in ``out`` (the marks of its groups.csv imported into
    the store first, the new groups' fingerprints remembered there); write nothing else."""
    started = time.monotonic()
    out = Path(out)
    if not (out / "submissions").is_dir():
        raise GroupsError(f"{out} holds no batch (no submissions/ folder); run `grader batch SUBMISSIONS "
                          f"--out {out}` first")
    rubric = rubric or load_rubric()
    store, imported, kept, notes = import_marks(out)
    answers, reviews, keys = collect(out, rubric)
    runner: Any = None
    if fingerprint is None:
        runner = assignment.registry().reader_process()
        fingerprint = child_fingerprinter(runner)
    try:
        groups = group_all(answers, fingerprint)
    finally:
        if runner is not None:
            runner.close()
    grouped = snapshot(groups, rubric)
    store.remember(prints_of(grouped))
    if not prose_similarity_available():
        notes.append(PROSE_EXTRA_NOTE)
    notes += new_since_marked_notes(grouped, store, out)
    return GroupedBatch(out, groups, grouped, reviews, len(keys), {p.id: p.name for p in rubric.parts}, store, kept,
                        imported, tuple(notes), started)


def new_since_marked_notes(grouped: list[dict[str, Any]], store: MarkStore, out: Path) -> list[str]:
    """One line when answers joined marked (or overridden) groups after the TA acted: they wait."""
    marked = overridden = 0
    for g in grouped:
        new = len(new_members(g, resolve(store, g, MARK if g["ta"] else OVERRIDE)))
        marked, overridden = (marked + new, overridden) if g["ta"] else (marked, overridden + new)
    lines = []
    if marked:
        lines.append(f"{marked} answer{'s' if marked != 1 else ''} joined groups after they were marked: pending "
                     f"(no points) until a TA marks them; `grader review {out}` shows them first, the earlier "
                     "mark filled in")
    if overridden:
        lines.append(f"{overridden} answer{'s' if overridden != 1 else ''} joined overridden groups after the "
                     "override: they keep the autograder's verdict until a TA overrides them too")
    return lines


def import_marks(out: Path, marked: Path | None = None) -> tuple[MarkStore, int, bool, list[str]]:
    """Read the marks of ``marked`` (default: the batch's groups/groups.csv) into the store.

    Returns the store, how many marks changed, whether the CSV could not be imported (it is then
    kept as it is) and the note that says so.
    """
    store = MarkStore.open(out)
    table = marked or out / GROUPS_DIR / GROUP_TABLE
    if not table.is_file():
        return store, 0, False, []
    try:
        return store, len(import_table(table, store, read_snapshot(out / GROUPS_DIR / SNAPSHOT))), False, []
    except MarksError as exc:
        return store, 0, True, [f"{exc}. Nothing of it was imported and it was left as it is; the groups now are "
                                f"in {out / GROUPS_DIR / NEW_TABLE}. Fix that line, then run `grader groups {out}`"]
