"""``grader groups OUT`` (and the last step of ``grader batch``): the answers of a finished batch
grouped (:mod:`grader.classroom.groups.batch_groups`, data), then written
(:mod:`grader.classroom.reports.group_files`, which lists the files)."""

from __future__ import annotations

import time
from pathlib import Path

from grader.classroom.groups.batch_groups import GroupsOutcome, group_batch
from grader.classroom.groups.cluster import Fingerprinter
from grader.classroom.reports.group_files import write_group_files
from grader.run.rubric import Rubric


def build_groups(out: Path, rubric: Rubric | None = None, *, fingerprint: Fingerprinter | None = None) -> GroupsOutcome:
    """Group the written answers of the batch in ``out`` and write their files."""
    batch = group_batch(out, rubric, fingerprint=fingerprint)
    files = write_group_files(batch)
    return GroupsOutcome(batch.groups, batch.reviews, batch.submissions, time.monotonic() - batch.started,
                         tuple(files), batch.notes, batch.imported)
