"""Build every answer-group file of a finished batch folder (``grader groups OUT``; also the last
step of ``grader batch``). Nothing is regraded: the answers come from the reports, and formulas
are evaluated in the writeup reader's child process.

Files written in OUT::

    answer_groups.csv        one row per written item and submission, with its group
    review_queue.csv         every item flagged for review, with the reason and the text read
    groups/groups.csv        one row per group, a points column for TAs (kept when regrouping)
    groups/<question>.html   one page per written question; groups/index.html, groups/review.html
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.groups.cluster import PROSE_EXTRA_NOTE, Fingerprinter, Group, child_fingerprinter, group_all, prose_similarity_available
from grader.groups.collect import collect
from grader.groups.marks import _csv_text, previous_marks, write_answer_groups, write_group_table, write_text_atomic
from grader.rubric import Rubric, load_rubric

ANSWER_GROUPS = "answer_groups.csv"
REVIEW_QUEUE = "review_queue.csv"
GROUPS_DIR = "groups"
GROUP_TABLE = "groups.csv"
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

    def counts(self) -> dict[str, int]:
        """Groups per item."""
        return {slot: len(gs) for slot, gs in self.groups.items()}


def build_groups(out: Path, rubric: Rubric | None = None, *, fingerprint: Fingerprinter | None = None) -> GroupsOutcome:
    """Group the written answers of the batch in ``out`` and write the files listed above."""
    started = time.monotonic()
    out = Path(out)
    if not (out / "submissions").is_dir():
        raise GroupsError(f"{out} holds no batch (no submissions/ folder); run `grader batch SUBMISSIONS "
                          f"--out {out}` first")
    rubric = rubric or load_rubric()
    answers, reviews, keys = collect(out, rubric)
    runner: Any = None
    if fingerprint is None:
        from grader.written.process import ChildProcess

        runner = ChildProcess()
        fingerprint = child_fingerprinter(runner)
    try:
        groups = group_all(answers, fingerprint)
    finally:
        if runner is not None:
            runner.close()
    titles = {p.id: p.name for p in rubric.parts}
    table = out / GROUPS_DIR / GROUP_TABLE
    files = [write_answer_groups(groups, out / ANSWER_GROUPS),
             write_group_table(groups, rubric, table, previous_marks(table))]
    rows = [[str(r.get(c, "")) for c in REVIEW_COLUMNS] for r in reviews]
    write_text_atomic(out / REVIEW_QUEUE, _csv_text(REVIEW_COLUMNS, rows))
    files.append(out / REVIEW_QUEUE)
    from grader.reports.groups_html import write_pages

    files += write_pages(groups, titles, reviews, out / GROUPS_DIR)
    notes = () if prose_similarity_available() else (PROSE_EXTRA_NOTE,)
    return GroupsOutcome(groups, reviews, len(keys), time.monotonic() - started, tuple(files), notes)
