"""The answer groups as files, the TA's groups CSV in and out, and marks as points per submission.

``answer_groups.csv`` (the batch folder): one row per written item and submission (question,
item, submission, names, group, answer, read, where, verdict, review). ``groups/groups.json``: the
grouping now (every group with its fingerprint and members), which the review server, ``grader
points`` and ``grader grades`` read. ``groups/groups.csv``: one row per group of a **TA-graded**
item (auto-graded items have their points already: they are never marked here, which would count
them twice), with the marks the store holds and empty ``points`` where a TA has still to mark.

A TA marks in that CSV (or in ``grader review``): :func:`import_table` reads it back, whatever
the spreadsheet did (a byte-order mark, rows sorted or filtered, columns moved, ``1,5`` for 1.5),
matching rows by their ``fingerprint`` (else by group number in the grouping that wrote it), and
appends what changed to the marks store (:mod:`grader.classroom.groups.store`). An empty cell never clears
a mark. :func:`points_table` turns the marks into one row per submission, keyed like grades.csv.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.classroom.groups.cluster import Group
from grader.classroom.groups.store import MARK, GroupPrint, Mark, MarkStore, Resolution, norm, now, who_am_i
from grader.common.csvfile import read_dicts
from grader.run.rubric import Rubric

ANSWER_COLUMNS = ("question", "item", "submission", "names", "group", "answer", "read", "where", "verdict", "review")
GROUP_COLUMNS = ("question", "item", "group", "fingerprint", "size", "kind", "label", "max_points", "points",
                 "comment", "marked_by", "marked_at", "new_since_marked", "suggested", "representative", "submissions")
POINT_KEYS = ("submission", "names", "sids", "emails")
PENDING = "pending"
SNAPSHOT = "groups.json"
CONFLICT = "marks differ"


class MarksError(ValueError):
    """A marked groups CSV that cannot be used; the message says the row and the fix."""


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


def is_ta_item(rubric: Rubric, question: str, item: str) -> bool:
    """Whether TAs mark this item: the TA share of a question, never an auto-graded item."""
    part = next((p for p in rubric.parts if p.id == question), None)
    return part is not None and (item == "ta" or (item == "" and part.auto <= 0))


def answer_group_rows(groups: Mapping[str, list[Group]]) -> list[tuple[Any, ...]]:
    """The rows of answer_groups.csv (its columns: ANSWER_COLUMNS), by item then submission."""
    rows: list[tuple[Any, ...]] = [(a.question, a.item, a.submission, a.names, g.id, a.text, a.read, a.where, a.verdict, a.review)
            for slot in groups for g in groups[slot] for a in g.members]
    rows.sort(key=lambda r: (list(groups).index(f"{r[0]}.{r[1]}" if r[1] else r[0]), r[2]))
    return rows


# -- the grouping now ----------------------------------------------------------------------------


def snapshot(groups: Mapping[str, list[Group]], rubric: Rubric) -> list[dict[str, Any]]:
    """Every group as plain data, with its fingerprint and whether TAs mark it."""
    out = []
    for slot, gs in groups.items():
        for g in gs:
            p = GroupPrint.make(slot, g.key, (a.text for a in g.members))
            out.append({"id": g.id, "slot": slot, "question": g.question, "item": g.item, "kind": g.kind,
                        "key": g.key, "fingerprint": p.fingerprint, "label": g.label, "verdict": g.verdict,
                        "suggestion": g.suggestion, "ta": is_ta_item(rubric, g.question, g.item),
                        "max_points": max_points(rubric, g.question, g.item),
                        "representative": g.representative.text if g.representative else "",
                        "members": [{"submission": a.submission, "names": a.names, "text": a.text, "read": a.read,
                                     "where": a.where, "verdict": a.verdict, "review": a.review,
                                     "score": a.score, "max_score": a.max_score} for a in g.members]})
    return out


def prints_of(groups: Sequence[Mapping[str, Any]]) -> list[GroupPrint]:
    return [GroupPrint.make(g["slot"], g["key"], (m["text"] for m in g["members"])) for g in groups]


def read_snapshot(path: Path) -> list[dict[str, Any]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [g for g in doc.get("groups", []) if isinstance(g, dict)] if isinstance(doc, dict) else []


def resolve(store: MarkStore, group: Mapping[str, Any], kind: str = MARK) -> Resolution:
    return store.resolve(group["slot"], group["key"], (m["text"] for m in group["members"]), kind)


def member_mark(store: MarkStore, group: Mapping[str, Any], text: str, resolution: Resolution | None = None,
                kind: str = MARK) -> Mark | None:
    """A member's mark: the one given to a group that held its answer (never its group's now:
    an answer that joined a marked group later has none until a TA marks it). ``resolution`` (the
    group's) is not used: it is accepted so that older callers keep working."""
    return store.answer_mark(group["slot"], group["key"], text, kind)


def new_members(group: Mapping[str, Any], resolution: Resolution) -> list[dict[str, Any]]:
    """The members of a group whose answers joined it after it was marked (none if it never was)."""
    if not resolution.new:
        return []
    new = set(resolution.new)
    return [m for m in group["members"] if norm(m["text"]) in new]


def suggested(resolution: Resolution) -> str:
    """The earlier mark offered for a group's new answers: "2 (comment)", or ""."""
    m = resolution.suggestion
    if m is None:
        return ""
    points = "" if m.points is None else f"{m.points:g}"
    return f"{points} ({m.comment})" if m.comment and points else points or m.comment


def pending_line(n: int) -> str:
    """What a grade that waits for a TA says instead of a number."""
    return f"{PENDING} {n} item{'s' if n != 1 else ''}"


def group_table_rows(groups: Sequence[Mapping[str, Any]], store: MarkStore) -> list[tuple[Any, ...]]:
    """The rows of groups.csv (its columns: GROUP_COLUMNS): the TA-graded groups with the marks the store gives them. A group with answers
    new since it was marked has no points (it waits for a TA): ``new_since_marked`` counts them and
    ``suggested`` holds the earlier mark, to copy into ``points`` if it fits them too."""
    rows = []
    for g in groups:
        if not g["ta"]:
            continue
        res = resolve(store, g)
        m = res.mark
        points = "" if m is None or m.points is None else f"{m.points:g}"
        comment = m.comment if m is not None else ""
        if res.conflict:
            comment = f"{CONFLICT}: " + "; ".join(f"{c.points:g}" if c.points is not None else c.comment
                                                  for c in res.conflict)
            points, comment = "", f"({comment}; each answer keeps its own until the group is marked)"
        new = new_members(g, res)
        rows.append((g["question"], g["item"], g["id"], g["fingerprint"], len(g["members"]), g["kind"], g["label"],
                     f"{g['max_points']:g}", points, comment, m.who if m else "", m.when if m else "",
                     len(new) or "", suggested(res),
                     g["representative"][:500], " ".join(x["submission"] for x in g["members"])))
    return rows


def table_has_marks(path: Path) -> bool:
    try:
        rows = _read_csv(path)
    except MarksError:
        return path.is_file()
    return any((r.get("points") or "").strip() for r in rows)


# -- a marked CSV back in -----------------------------------------------------------------------


def _read_csv(path: Path, needs: Sequence[str] = ()) -> list[dict[str, str]]:
    """The rows of a CSV as saved by a spreadsheet: a byte-order mark, padded headers and
    another encoding than UTF-8 (Excel's "CSV" is Windows-1252) are all read."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise MarksError(f"{path} cannot be read ({exc.strerror})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")
    try:
        names, table = read_dicts(text)
    except csv.Error as exc:
        raise MarksError(f"{path} is not a readable CSV ({exc}); save it as CSV from the spreadsheet") from None
    fields = [f.strip().lstrip("\ufeff").lower() for f in names]
    missing = [c for c in needs if c not in fields]
    if missing:
        raise MarksError(f"{path} has no column {', '.join(missing)}; it must keep the columns that "
                         "`grader groups` wrote (add points in the points column only)")
    rows = []
    for row in table:
        rows.append({(k or "").strip().lstrip("\ufeff").lower(): (v if isinstance(v, str) else "")
                     for k, v in row.items()})
    return rows


def _number(text: str) -> float:
    text = text.strip().replace(" ", "")
    if text.count(",") == 1 and "." not in text:    # 1,5 from a spreadsheet in another locale
        text = text.replace(",", ".")
    return float(text)


def import_table(path: Path, store: MarkStore, groups: Sequence[Mapping[str, Any]], *,
                 source: str | None = None) -> list[Mark]:
    """Append to ``store`` the marks of a marked groups CSV that differ from what it holds.

    Rows are found by fingerprint (any grouping ever written), else by group number in the
    grouping now; all rows are checked before any mark is recorded.
    """
    rows = _read_csv(path, ("points",))
    by_id = {g["id"]: g for g in groups}
    by_fp = {g["fingerprint"]: g for g in groups}
    todo: list[Mark] = []
    who = who_am_i()
    for n, row in enumerate(rows, start=2):
        value, comment = (row.get("points") or "").strip(), (row.get("comment") or "").strip()
        if not value and not comment:
            continue                     # an empty cell never clears a mark
        fp = (row.get("fingerprint") or "").strip()
        group = by_fp.get(fp)
        if fp and group is None and fp not in store.prints:
            raise MarksError(f"{path}, line {n}: fingerprint {fp!r} names no group of this batch; keep the "
                             "fingerprint column as `grader groups` wrote it")
        if not fp:
            group = by_id.get((row.get("group") or "").strip())
            if group is None:
                raise MarksError(f"{path}, line {n}: group {row.get('group', '')!r} is not a group of this batch; "
                                 "mark the groups.csv that `grader groups` wrote")
            listed = set((row.get("submissions") or "").split())
            if listed and listed != {m["submission"] for m in group["members"]}:   # renumbered since
                raise MarksError(f"{path}, line {n}: group {row.get('group', '')!r} holds other answers now than "
                                 "when this file was written (a late submission or a regrouping renumbered the "
                                 "groups), and the row has no fingerprint to find its own: mark the groups.csv "
                                 "that `grader groups` wrote last, keeping its fingerprint column")
            fp = group["fingerprint"]
        slot = group["slot"] if group is not None else store.prints[fp].slot
        if group is not None and not group["ta"]:
            raise MarksError(f"{path}, line {n}: {slot} is auto-graded (its points are in grades.csv); marking "
                             "it would count it twice. To change a verdict, override it in `grader review`")
        points = None
        if value:
            try:
                points = _number(value)
            except ValueError:
                raise MarksError(f"{path}, line {n}: points must be a number; got {value!r} for group "
                                 f"{row.get('group', fp)}. Write a number (e.g. 1.5) or leave it empty") from None
            most = float(group["max_points"]) if group is not None else float(row.get("max_points") or "inf")
            if not 0 <= points <= most:
                raise MarksError(f"{path}, line {n}: group {row.get('group', fp)} is worth 0 to {most:g} points; "
                                 f"got {points:g}. Fix the points of that row")
        if comment.startswith(f"({CONFLICT}"):
            comment = ""
        if points is None and not comment:
            continue
        p = store.prints.get(fp)
        current = (resolve(store, group) if group is not None
                   else store.resolve(slot, p.key, p.texts) if p is not None else Resolution()).mark
        if current is not None and current.value == (points, comment):
            continue
        named = (row.get("marked_by") or "").strip()
        if current is not None and named == current.who:    # the cell we wrote: whoever changed the mark
            named = ""
        todo.append(Mark(slot, fp, points, comment, named or who, now(), source or f"{path.name}, line {n}"))
    missing = {m.fingerprint for m in todo} - set(store.prints)
    store.remember(p for p in prints_of(groups) if p.fingerprint in missing)
    return store.record(todo)


# -- marks as points per submission ---------------------------------------------------------------


@dataclass(frozen=True)
class PointsTable:
    header: list[str]
    rows: list[list[str]]
    unmarked: dict[str, int]           # item -> groups with an answer a TA has still to mark (never marked, or new)
    comments: dict[str, dict[str, str]]   # submission -> item -> the TA's comment
    pending: dict[str, tuple[str, ...]] = field(default_factory=dict)  # submission -> TA items without points
    new: dict[str, int] = field(default_factory=dict)  # item -> answers new since their group was marked

    @property
    def pending_items(self) -> int:
        return sum(len(v) for v in self.pending.values())


def who_is_who(grades: Path | None) -> dict[str, dict[str, str]]:
    """Submission key -> its grades.csv row (names, sids, emails), in grades.csv's order."""
    if grades is None or not grades.is_file():
        return {}
    return {r["submission"]: r for r in _read_csv(grades) if "submission" in r}


def points_table(groups: Sequence[Mapping[str, Any]], store: MarkStore, grades: Path | None,
                 order: Sequence[str] = ()) -> PointsTable:
    """Per-submission points of the TA-graded items from the marks in ``store``: each answer has
    the mark given to a group that held it when it was marked; an answer no TA has marked (new
    since its group was marked, or never marked) is pending: its cell stays empty, the ``pending``
    column counts it and the total says so."""
    unmarked: dict[str, int] = {}
    new_counts: dict[str, int] = {}
    per: dict[str, dict[str, float]] = {}
    comments: dict[str, dict[str, str]] = {}
    pending: dict[str, list[str]] = {}
    slots: list[str] = []
    seen: list[str] = list(order)
    for g in groups:
        for m in g["members"]:
            if m["submission"] not in seen:
                seen.append(m["submission"])
        if not g["ta"]:
            continue
        slot = g["slot"]
        res = resolve(store, g)
        if res.new:
            new_counts[slot] = new_counts.get(slot, 0) + len(new_members(g, res))
        empty = False     # a group is without points when one of its answers is (never for marks that differ:
        for member in g["members"]:      # a group mark and an answer marked alone each give points)
            mark = member_mark(store, g, member["text"])
            if mark is None or mark.points is None:
                pending.setdefault(member["submission"], []).append(slot)
                empty = True
            if mark is None:
                continue
            if mark.points is not None:
                per.setdefault(member["submission"], {})[slot] = mark.points
                if slot not in slots:
                    slots.append(slot)
            if mark.comment:
                comments.setdefault(member["submission"], {})[slot] = mark.comment
        if empty or not g["members"]:
            unmarked[slot] = unmarked.get(slot, 0) + 1
    slot_order = list(dict.fromkeys(g["slot"] for g in groups))
    slots.sort(key=slot_order.index)
    who = who_is_who(grades)
    keys = list(who) + [k for k in seen if k not in who]
    header = [*POINT_KEYS, *slots, "total", PENDING]
    rows = []
    for key in keys:
        mine = per.get(key, {})
        info = who.get(key, {})
        waiting = pending.get(key, ())
        total = pending_line(len(waiting)) if waiting else f"{sum(mine.get(s, 0.0) for s in slots):g}"
        rows.append([key, info.get("names", ""), info.get("sids", ""), info.get("emails", ""),
                     *(f"{mine[s]:g}" if s in mine else "" for s in slots), total, " ".join(waiting)])
    return PointsTable(header, rows, unmarked, comments, {k: tuple(v) for k, v in pending.items()}, new_counts)
