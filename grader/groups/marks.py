"""The CSVs of answer groups, and marked groups turned into per-submission points.

``answer_groups.csv`` (the batch folder): one row per written item and submission (question,
item, submission, names, group, answer, read, where, verdict, review). ``groups/groups.csv``: one
row per group with an empty ``points`` column that a TA fills in (points for each member of the
group, out of ``max_points``). :func:`points_table` turns the marked groups into one row per
submission, keyed like grades.csv (``submission``, ``names``, ``sids``, ``emails``), one column
per marked item and their total.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader.atomic import atomic_path
from grader.groups.cluster import Group
from grader.rubric import Rubric

ANSWER_COLUMNS = ("question", "item", "submission", "names", "group", "answer", "read", "where", "verdict", "review")
GROUP_COLUMNS = ("question", "item", "group", "size", "kind", "verdict", "label", "max_points", "points",
                 "comment", "representative", "submissions")
POINT_KEYS = ("submission", "names", "sids", "emails")
SUGGESTION = "prose"


class MarksError(ValueError):
    """A marked groups CSV that cannot be used; the message says the row and the fix."""


def write_text_atomic(path: Path, text: str) -> None:
    with atomic_path(path, prefix=f".{path.name}.") as tmp:
        tmp.write_text(text, encoding="utf-8")


def _csv_text(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue()


def max_points(rubric: Rubric, question: str, item: str) -> float:
    """What one item is worth: a 3(f) sentence 3, a TA share its manual points, else the auto share."""
    part = next((p for p in rubric.parts if p.id == question), None)
    if part is None:
        return 0.0
    if item in ("i", "ii", "iii", "iv"):
        return part.auto / 4
    if item == "ta" or part.auto <= 0:
        return part.manual_points
    return part.auto


def write_answer_groups(groups: Mapping[str, list[Group]], path: Path) -> Path:
    rows = [(a.question, a.item, a.submission, a.names, g.id, a.text, a.read, a.where, a.verdict, a.review)
            for slot in groups for g in groups[slot] for a in g.members]
    rows.sort(key=lambda r: (list(groups).index(f"{r[0]}.{r[1]}" if r[1] else r[0]), r[2]))
    write_text_atomic(path, _csv_text(ANSWER_COLUMNS, rows))
    return path


def write_group_table(groups: Mapping[str, list[Group]], rubric: Rubric, path: Path,
                      previous: Mapping[str, tuple[str, str]] | None = None) -> Path:
    """groups.csv; ``previous`` (group id -> points, comment) keeps a TA's marks when regrouping
    gives the same group the same id and the same members."""
    rows = []
    for slot in groups:
        for g in groups[slot]:
            rep = g.representative.text if g.representative else ""
            members = " ".join(a.submission for a in g.members)
            points, comment = (previous or {}).get(f"{g.id} {members}", ("", ""))
            rows.append((g.question, g.item, g.id, g.size, g.kind, g.verdict, g.label,
                         f"{max_points(rubric, g.question, g.item):g}", points, comment, rep[:500], members))
    write_text_atomic(path, _csv_text(GROUP_COLUMNS, rows))
    return path


def previous_marks(path: Path) -> dict[str, tuple[str, str]]:
    """The points and comments already in a groups.csv (group id + members -> marks)."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            return {f"{r['group']} {r['submissions']}": (r.get("points", ""), r.get("comment", ""))
                    for r in csv.DictReader(f) if (r.get("points") or r.get("comment"))}
    except (OSError, KeyError, csv.Error):
        return {}


@dataclass(frozen=True)
class PointsTable:
    header: list[str]
    rows: list[list[str]]
    unmarked: dict[str, int]           # item -> groups without points


def _read_csv(path: Path, needs: Sequence[str] = ()) -> list[dict[str, str]]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in needs if c not in (reader.fieldnames or ())]
            if missing:
                raise MarksError(f"{path} has no column {', '.join(missing)}; it must keep the columns that "
                                 "`grader groups` wrote (add points in the points column only)")
            return list(reader)
    except OSError as exc:
        raise MarksError(f"{path} cannot be read ({exc.strerror})") from None


def points_table(marked: Path, answers: Path, grades: Path | None) -> PointsTable:
    """Per-submission points from the marked groups.csv and answer_groups.csv of one batch."""
    points: dict[str, float] = {}
    unmarked: dict[str, int] = {}
    slots: list[str] = []
    for n, row in enumerate(_read_csv(marked, ("question", "item", "group", "points")), start=2):
        slot = f"{row['question']}.{row['item']}" if row.get("item") else row["question"]
        if slot not in slots:
            slots.append(slot)
        value = (row.get("points") or "").strip()
        if not value:
            unmarked[slot] = unmarked.get(slot, 0) + 1
            continue
        try:
            got = float(value)
        except ValueError:
            raise MarksError(f"{marked}, line {n}: points must be a number; got {value!r} for group "
                             f"{row['group']}. Write a number (e.g. 1.5) or leave it empty") from None
        most = float(row.get("max_points") or "inf")
        if not 0 <= got <= most:
            raise MarksError(f"{marked}, line {n}: group {row['group']} is worth 0 to {most:g} points; got {got:g}. "
                             "Fix the points of that row")
        points[row["group"]] = got
    marked_slots = [s for s in slots if s not in unmarked or any(g.startswith(s + ":") for g in points)]
    per: dict[str, dict[str, float]] = {}
    order: list[str] = []
    for row in _read_csv(answers, ("question", "item", "submission", "group")):
        key = row["submission"]
        if key not in per:
            per[key] = {}
            order.append(key)
        if row["group"] in points:
            slot = f"{row['question']}.{row['item']}" if row.get("item") else row["question"]
            per[key][slot] = points[row["group"]]
    who = {r["submission"]: r for r in _read_csv(grades)} if grades is not None and grades.is_file() else {}
    order = list(who) + [k for k in order if k not in who]
    header = [*POINT_KEYS, *marked_slots, "total"]
    rows = []
    for key in order:
        mine = per.get(key, {})
        info = who.get(key, {})
        rows.append([key, info.get("names", ""), info.get("sids", ""), info.get("emails", ""),
                     *(f"{mine[s]:g}" if s in mine else "" for s in marked_slots),
                     f"{sum(mine.get(s, 0.0) for s in marked_slots):g}"])
    return PointsTable(header, rows, unmarked)


def write_points(table: PointsTable, path: Path) -> Path:
    write_text_atomic(path, _csv_text(table.header, table.rows))
    return path
