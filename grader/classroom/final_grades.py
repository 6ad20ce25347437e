"""The one grade book (``grader grades DIR``, and the end of ``grader batch`` once marks exist):
per submission the autograder's score (with any TA override of an auto-graded verdict), the
points of each TA-graded item, the total, and the TA's comments; keyed like grades.csv.

Pure computation over a finished batch folder: grades.csv (the autograder's scores), the
grouping (``groups/groups.json``) and the marks store. Auto-graded items are never TA items
here, so nothing is counted twice; :mod:`grader.classroom.reports.final` writes the CSV and the feedback.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.classroom import check_overrides
from grader.classroom.gradebook import FAILED
from grader.classroom.groups.marks import SNAPSHOT, member_mark, new_members, points_table, read_snapshot, resolve, who_is_who
from grader.classroom.groups.store import OVERRIDE, MarkStore
from grader.run.rubric import Rubric

GROUPS_DIR = "groups"
GRADES_FILE = "grades.csv"


@dataclass(frozen=True)
class Override:
    """A TA's change of an auto-graded item's verdict for one submission."""

    slot: str
    auto: float          # what the autograder gave this item
    points: float        # what the TA gives instead
    reason: str
    who: str
    when: str = ""


@dataclass(frozen=True)
class FinalRow:
    submission: str
    names: str
    sids: str
    emails: str
    status: str
    auto: float                                  # the autograder's score, overrides applied
    ta: dict[str, float]                         # TA item -> points (marked ones only)
    comments: dict[str, str]                     # TA item -> the TA's comment
    overrides: tuple[Override, ...] = ()
    unmarked: tuple[str, ...] = ()               # TA items a TA has still to mark: pending

    @property
    def ta_total(self) -> float:
        return sum(self.ta.values())

    @property
    def total(self) -> float:
        """The points so far (a final grade only when nothing is :attr:`pending`)."""
        return round(self.auto + self.ta_total, 6)

    @property
    def pending(self) -> int:
        return len(self.unmarked)


@dataclass(frozen=True)
class GradeBook:
    ta_items: tuple[tuple[str, str, float], ...]     # (slot, name, points) of every TA-graded item
    auto_max: float
    rows: tuple[FinalRow, ...]
    unmarked_groups: dict[str, int] = field(default_factory=dict)
    new_answers: dict[str, int] = field(default_factory=dict)       # TA item -> answers new since marked
    new_overridden: dict[str, int] = field(default_factory=dict)    # auto item -> answers new since overridden

    @property
    def pending(self) -> int:
        """TA items without points, over every submission."""
        return sum(r.pending for r in self.rows)

    @property
    def ta_max(self) -> float:
        return sum(p for _, _, p in self.ta_items)

    @property
    def max_total(self) -> float:
        return self.auto_max + self.ta_max


def ta_items(rubric: Rubric) -> tuple[tuple[str, str, float], ...]:
    """Every TA-graded item: (slot as the groups name it, question name, points)."""
    return tuple((p.id + (".ta" if p.auto > 0 else ""), p.name, p.manual_points)
                 for p in rubric.written if p.manual_points > 0)


def _float(text: Any) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def overrides(groups: list[dict[str, Any]], store: MarkStore) -> dict[str, list[Override]]:
    """Submission -> the TA overrides of its auto-graded items: each applies to the answers the TA
    saw (an answer that joined the group later keeps the autograder's verdict)."""
    out: dict[str, list[Override]] = {}
    for g in groups:
        if g["ta"]:
            continue
        for m in g["members"]:
            mark = member_mark(store, g, m["text"], kind=OVERRIDE)
            if mark is None or mark.points is None:
                continue
            most = _float(m.get("max_score"))
            auto = _float(m.get("score")) / most * float(g["max_points"]) if most else 0.0
            out.setdefault(m["submission"], []).append(Override(g["slot"], round(auto, 6), mark.points,
                                                                mark.comment, mark.who, mark.when))
    return out


def grade_book(out: Path, rubric: Rubric, store: MarkStore) -> GradeBook:
    """The final grades of the batch in ``out``."""
    groups = read_snapshot(out / GROUPS_DIR / SNAPSHOT)
    grades = out / GRADES_FILE
    who = who_is_who(grades)
    table = points_table(groups, store, grades)
    items = ta_items(rubric)
    slots = table.header[4:-2]                  # the item columns (then total, pending)
    changed = overrides(groups, store)
    for key, found in check_overrides.overrides(out, store, (c.id for c in rubric.checks)).items():
        changed.setdefault(key, []).extend(Override(o.check, o.auto, o.points, o.reason, o.who, o.when) for o in found)
    auto_max = max((_float(r.get("max_total")) for r in who.values()), default=0.0) or \
        sum(c.points for c in rubric.checks + rubric.written_checks)
    rows = []
    for row in table.rows:
        key = row[0]
        info = who.get(key, {})
        ta = {s: float(v) for s, v in zip(slots, row[4:-2]) if v != ""}
        mine = tuple(changed.get(key, ()))
        auto = _float(info.get("total")) + sum(o.points - o.auto for o in mine)
        # Pending: an answer of this submission that no TA has marked; every item of a grading that
        # has not finished (it is graded again on resume). An unreadable upload has no answer to mark.
        waiting = set(table.pending.get(key, ()))
        if info.get("status") == FAILED:
            waiting |= {s for s, _, _ in items if s not in ta}
        rows.append(FinalRow(key, row[1], row[2], row[3], info.get("status", ""), round(auto, 6), ta,
                             table.comments.get(key, {}), mine, tuple(s for s, _, _ in items if s in waiting)))
    late: dict[str, int] = {}
    for g in groups:
        if not g["ta"] and (new := new_members(g, resolve(store, g, OVERRIDE))):
            late[g["slot"]] = late.get(g["slot"], 0) + len(new)
    return GradeBook(items, auto_max, tuple(rows), table.unmarked, table.new, late)
