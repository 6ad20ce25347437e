"""The answer groups' files, written from :class:`grader.classroom.groups.batch_groups.GroupedBatch`
(``grader groups OUT``; also the last step of ``grader batch``) and from the marks.

Files written in OUT::

    answer_groups.csv        one row per written item and submission, with its group
    review_queue.csv         every item flagged for review, with the reason and the text read
    groups/groups.json       the grouping: every group, its fingerprint and its members
    groups/groups.csv        one row per group of a TA-graded item, with its marks, to mark
                             (groups/groups.new.csv when the old one could not be imported; a marked
                             one replaced is copied to marks/history/ first)
    groups/<question>.html   one page per written question; groups/index.html, groups/review.html

and ``grader points``' table (:func:`write_points`). Every CSV goes through the one CSV writer,
every file through the one atomic writer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from grader.classroom.groups.batch_groups import (
    ANSWER_GROUPS,
    GROUP_TABLE,
    GROUPS_DIR,
    HISTORY_DIR,
    NEW_TABLE,
    REVIEW_COLUMNS,
    REVIEW_QUEUE,
    GroupedBatch,
)
from grader.classroom.groups.cluster import Group
from grader.classroom.groups.marks import (
    ANSWER_COLUMNS,
    GROUP_COLUMNS,
    SNAPSHOT,
    PointsTable,
    answer_group_rows,
    group_table_rows,
    table_has_marks,
)
from grader.classroom.groups.store import MarkStore, now
from grader.classroom.reports.groups_html import write_pages
from grader.common.atomic import write_text
from grader.common.csvfile import write_csv


def write_group_files(batch: GroupedBatch) -> list[Path]:
    """Every file of the listing above, in its order; returns them."""
    out = batch.out
    table = out / GROUPS_DIR / GROUP_TABLE
    files = [write_answer_groups(batch.groups, out / ANSWER_GROUPS),
             write_snapshot(batch.grouped, out / GROUPS_DIR / SNAPSHOT)]
    if not batch.kept and table_has_marks(table):
        stamp = now().replace(":", "").replace("-", "")
        backup = batch.store.folder / HISTORY_DIR / f"groups-{stamp}.csv"
        backup.parent.mkdir(parents=True, exist_ok=True)
        backup.write_bytes(table.read_bytes())
    files.append(write_group_table(batch.grouped, batch.store, out / GROUPS_DIR / (NEW_TABLE if batch.kept else GROUP_TABLE)))
    rows = [[str(r.get(c, "")) for c in REVIEW_COLUMNS] for r in batch.reviews]
    files.append(write_csv(out / REVIEW_QUEUE, REVIEW_COLUMNS, rows))
    files += write_pages(batch.groups, batch.titles, batch.reviews, out / GROUPS_DIR)
    return files


def write_answer_groups(groups: Mapping[str, list[Group]], path: Path) -> Path:
    return write_csv(path, ANSWER_COLUMNS, answer_group_rows(groups))


def write_snapshot(groups: Sequence[Mapping[str, Any]], path: Path) -> Path:
    return write_text(path, json.dumps({"groups": list(groups)}, ensure_ascii=False, indent=1) + "\n")


def write_group_table(groups: Sequence[Mapping[str, Any]], store: MarkStore, path: Path) -> Path:
    """groups.csv: :func:`grader.classroom.groups.marks.group_table_rows`."""
    return write_csv(path, GROUP_COLUMNS, group_table_rows(groups, store))


def write_points(table: PointsTable, path: Path) -> Path:
    return write_csv(path, table.header, table.rows)
