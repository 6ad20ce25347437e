"""``grader similarity BATCH_DIR`` (and the last step of ``grader batch --similarity``): compare
the submissions of a batch with each other and with known folders; write what is similar.

Files written in BATCH_DIR::

    similarity.csv                 one row per pair at or above the threshold, best first
    similarity/index.html          every such pair, best first, linked to its page
    similarity/<pair>.html         the two files side by side, the shared regions marked
    summary.md                     one line: "N pairs above T; see similarity/index.html"

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
from grader.classroom.similarity import detect
from grader.classroom.similarity.sources import WRITTEN, Document, SimilarityError, check_known, class_documents, known_documents
from grader.common.paths import TEMPLATE_DIR

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
    threshold: float
    submissions: int
    known: int                    # known documents compared
    compared: int                 # pairs of documents compared
    seconds: float
    files: tuple[Path, ...]
    notes: tuple[str, ...] = ()

    @property
    def line(self) -> str:
        return f"{len(self.pairs)} pairs above {self.threshold:g}; see {PAGES_DIR}/{INDEX}"


@dataclass(frozen=True)
class SimilarityRequest:
    """``grader batch --similarity`` / ``--known``: what to run after the batch (checked first,
    by :meth:`check`, so that a missing folder stops the batch before it grades)."""

    known: tuple[Path, ...] = ()
    threshold: float = detect.DEFAULT_THRESHOLD

    def check(self) -> None:
        check_threshold(self.threshold)
        if not detect.copydetect_available():
            raise SimilarityError(detect.EXTRA_NOTE)
        check_known(self.known)

    def run(self, out: Path) -> SimilarityOutcome:
        return run_similarity(out, known=self.known, threshold=self.threshold)


def check_threshold(threshold: float) -> None:
    if not 0 < threshold <= 1:
        raise SimilarityError(f"--threshold is a share of a file's own code, above 0 and at most 1; got {threshold:g} "
                              f"(the default is {detect.DEFAULT_THRESHOLD:g})")


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


def run_similarity(batch_dir: Path, *, known: Sequence[Path] = (), threshold: float = detect.DEFAULT_THRESHOLD,
                   runner: Any = None) -> SimilarityOutcome:
    """Compare the batch in ``batch_dir`` and write the files listed above."""
    from grader.classroom.reports import similarity_html
    from grader.classroom.roster import discover
    from grader.run.rubric import load_rubric

    started = time.monotonic()
    batch_dir = Path(batch_dir)
    check_threshold(threshold)
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
    bases = detect.template_bases(TEMPLATE_DIR, [assignment.registry().question_title(q) for q in questions])
    pairs, compared = detect.find_pairs(docs, others, bases=bases, threshold=threshold, texts=texts)
    files = similarity_html.write_all(pairs, batch_dir, csv_name=CSV_FILE, pages=PAGES_DIR, index=INDEX,
                                      threshold=threshold, submissions=len(submissions), known=known)
    outcome = SimilarityOutcome(tuple(pairs), threshold, len(submissions), len(others), compared,
                                time.monotonic() - started, (), tuple(notes + read_notes))
    summary = batch_dir / SUMMARY_FILE
    if summary.is_file():
        lines = [line for line in summary.read_text(encoding="utf-8").splitlines() if not line.startswith(SUMMARY_PREFIX)]
        while lines and not lines[-1].strip():
            lines.pop()
        summary.write_text("\n".join([*lines, "", SUMMARY_PREFIX + outcome.line]) + "\n", encoding="utf-8")
        files += (summary,)
    return SimilarityOutcome(outcome.pairs, threshold, outcome.submissions, outcome.known, compared,
                             time.monotonic() - started, files, outcome.notes)
