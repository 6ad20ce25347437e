"""What ``grader similarity BATCH_DIR`` (and ``grader batch --similarity``) finds, as data
(:func:`survey_batch`): the submissions of a batch compared with each other and with known folders.
The files are written by :mod:`grader.classroom.reports.similarity_html`, both run by
:func:`grader.classroom.similarity_command.run_similarity`.

A pair is listed when its score is an outlier for its file in this class (calibrated, the
default) or, with ``threshold``, when it reaches that fixed threshold
(:mod:`grader.classroom.similarity.calibrate`). The starter code of the template and of every
``bases`` folder (other versions of it) is removed first.

The submissions are read from the uploads the batch graded (``batch.json`` names their folder);
known folders are only read, never copied anywhere.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import assignment
from grader.classroom.roster import discover
from grader.classroom.similarity import detect
from grader.classroom.similarity.sources import WRITTEN, Document, SimilarityError, check_known, class_documents, known_documents
from grader.common.paths import TEMPLATE_DIR
from grader.run.rubric import load_rubric

CSV_FILE = "similarity.csv"
PAGES_DIR = "similarity"
INDEX = "index.html"
SUMMARY_FILE = "summary.md"
SUMMARY_PREFIX = "**Similarity:** "
#: Written questions left out: every right answer to them is the same text (the parse table of
#: 3(a), the four readings of 3(f)), so they would make every two right submissions similar.
SKIPPED_QUESTIONS = ("3a", "3f")
#: Seconds the writeup reader may take to find the sections of one submission's answers.
LOCATE_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class SimilarityOutcome:
    pairs: tuple[detect.Pair, ...]
    threshold: float | None       # None: calibrated per file
    submissions: int
    known: int                    # known documents compared
    compared: int                 # pairs of documents compared
    seconds: float
    files: tuple[Path, ...]
    notes: tuple[str, ...] = ()
    not_compared: tuple[str, ...] = ()   # "sgd.py: 2 lines of student code ..., not compared"

    @property
    def line(self) -> str:
        return f"{listed_line(len(self.pairs), self.threshold)}; see {PAGES_DIR}/{INDEX}"


def listed_line(pairs: int, threshold: float | None) -> str:
    if threshold is None:
        return f"{pairs} pair{'s' if pairs != 1 else ''} unusually similar for their file in this class"
    return f"{pairs} pair{'s' if pairs != 1 else ''} above {threshold:g}"


@dataclass(frozen=True)
class SimilarityRequest:
    """``grader batch --similarity`` / ``--known``: what to run after the batch (checked first,
    by :meth:`check`, so that a missing folder stops the batch before it grades)."""

    known: tuple[Path, ...] = ()
    threshold: float | None = None
    bases: tuple[Path, ...] = ()

    def check(self) -> None:
        check_threshold(self.threshold)
        if not detect.copydetect_available():
            raise SimilarityError(detect.EXTRA_NOTE)
        check_known(self.known)
        check_bases(self.bases)


def check_bases(bases: Sequence[Path]) -> None:
    """Raise SimilarityError, naming the folder, if a --base folder is missing or holds no student file."""
    for base in bases:
        if not Path(base).is_dir():
            raise SimilarityError(f"--base {base}: no such folder (pass a folder of starter code: another "
                                  f"version of {TEMPLATE_DIR.name}/)")
        if not any((Path(base) / name).is_file() for name in assignment.student_files()):
            raise SimilarityError(f"--base {base}: holds no {', '.join(assignment.student_files())} at its top "
                                  "(pass the folder the starter files are in)")


def check_threshold(threshold: float | None) -> None:
    if threshold is not None and not 0 < threshold <= 1:
        raise SimilarityError(f"--threshold is a share of a file's own code, above 0 and at most 1; got {threshold:g} "
                              f"(without it, pairs are calibrated per file; {detect.DEFAULT_THRESHOLD:g} was the old fixed default)")


def _source(batch_dir: Path) -> Path:
    settings = batch_dir / "batch.json"
    try:
        source = Path(json.loads(settings.read_text(encoding="utf-8"))["source"])
    except (OSError, ValueError, KeyError, TypeError):
        raise SimilarityError(f"{batch_dir} holds no batch (no readable batch.json); run `grader batch SUBMISSIONS "
                              f"--out {batch_dir}` first") from None
    if not source.is_dir():
        raise SimilarityError(f"the submissions of the batch in {batch_dir} were read from {source}, which is not "
                              "there any more; similarity reads the uploads themselves")
    return source


def written_texts(docs: Sequence[Document], questions: Sequence[str], runner: Any) -> tuple[dict[int, str], list[str]]:
    """The answers of each written document as the grader reads them (question by question, a
    LaTeX answer block without its prompt), found by ``runner`` (the writeup reader's child
    process); by ``id(doc)``. A document whose sections cannot be found is compared as written."""
    pretty = assignment.registry().question_title
    texts: dict[int, str] = {}
    notes: list[str] = []
    for doc in docs:
        if doc.file != WRITTEN:
            continue
        reply = runner.call("locate", {"files": [list(p) for p in doc.parts], "questions": list(questions)},
                            timeout=LOCATE_TIMEOUT_S)
        if not reply.ok:
            notes.append(f"{doc.owner}: the written answers were compared whole (their sections could not be found)")
            continue
        sections = reply.value["sections"]
        texts[id(doc)] = "\n\n".join(f"{pretty(q)}\n{sections[q]['body'].strip()}" for q in questions
                                     if q in sections and sections[q]["body"].strip())
    return texts, notes


def survey_batch(batch_dir: Path, *, known: Sequence[Path] = (), threshold: float | None = None,
                 bases: Sequence[Path] = (), runner: Any = None) -> SimilarityOutcome:
    """Compare the batch in ``batch_dir``; write nothing (the outcome's ``files`` are empty)."""
    started = time.monotonic()
    batch_dir = Path(batch_dir)
    check_threshold(threshold)
    check_bases(bases)
    if not detect.copydetect_available():
        raise SimilarityError(detect.EXTRA_NOTE)
    others = known_documents(known) if known else []
    submissions = discover(_source(batch_dir), exclude=batch_dir)
    docs, notes = class_documents(submissions)
    questions = [p.id for p in load_rubric().written if p.id not in SKIPPED_QUESTIONS]
    own_runner = runner is None
    if own_runner:
        runner = assignment.registry().reader_process()
    try:
        texts, read_notes = written_texts([*docs, *others], questions, runner)
    finally:
        if own_runner:
            runner.close()
    starters = detect.template_bases([TEMPLATE_DIR, *map(Path, bases)],
                                     [assignment.registry().question_title(q) for q in questions])
    found = detect.survey(docs, others, bases=starters, threshold=threshold, texts=texts)
    return SimilarityOutcome(tuple(found.pairs), threshold, len(submissions), len(others), found.compared,
                             time.monotonic() - started, (), tuple(notes + read_notes + found.notes),
                             tuple(found.not_compared))
