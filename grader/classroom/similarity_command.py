"""`grader similarity` and the similarity step of `grader batch`: the batch surveyed
(:mod:`grader.classroom.similarity.class_survey`, data), then its reports written
(:mod:`grader.classroom.reports.similarity_html`); the command line over both (registered on the
main group by grader/cli.py).

Files written in BATCH_DIR::

    similarity.csv                 one row per pair listed, strongest evidence first
    similarity/index.html          every such pair, strongest evidence first, linked to its page
    similarity/<pair>.html         the two files side by side, the shared regions marked
    summary.md                     one line: "N pairs unusually similar ...; see similarity/index.html"
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from grader import cli_output
from grader.classroom import gradebook
from grader.classroom.reports import similarity_html
from grader.classroom.similarity.class_survey import (
    CSV_FILE,
    INDEX,
    PAGES_DIR,
    SUMMARY_FILE,
    SUMMARY_PREFIX,
    SimilarityOutcome,
    SimilarityRequest,
    survey_batch,
)
from grader.classroom.similarity.detect import DEFAULT_THRESHOLD
from grader.cli_options import BASE_HELP
from grader.cli_output import print_notes


def run_similarity(batch_dir: Path, *, known: Sequence[Path] = (), threshold: float | None = None,
                   bases: Sequence[Path] = (), runner: Any = None) -> SimilarityOutcome:
    """Compare the batch in ``batch_dir`` and write the files listed above."""
    started = time.monotonic()
    batch_dir = Path(batch_dir)
    outcome = survey_batch(batch_dir, known=known, threshold=threshold, bases=bases, runner=runner)
    files = similarity_html.write_all(list(outcome.pairs), batch_dir, csv_name=CSV_FILE, pages=PAGES_DIR, index=INDEX,
                                      threshold=threshold, submissions=outcome.submissions, known=known,
                                      not_compared=list(outcome.not_compared), bases=[Path(b) for b in bases])
    summary = similarity_html.write_summary_line(batch_dir / SUMMARY_FILE, SUMMARY_PREFIX, outcome.line)
    files += (summary,) if summary is not None else ()
    return dataclasses.replace(outcome, seconds=time.monotonic() - started, files=files)


def run_request(request: SimilarityRequest, out: Path) -> SimilarityOutcome:
    """``grader batch --similarity`` / ``--known``: the request checked before the batch, run after it."""
    return run_similarity(out, known=request.known, threshold=request.threshold, bases=request.bases)


def similarity_request(known: tuple[Path, ...], threshold: float | None = None, bases: tuple[Path, ...] = ()) -> Any:
    request = SimilarityRequest(tuple(known), threshold, tuple(bases))
    try:
        request.check()
    except gradebook.BatchError as exc:
        raise click.ClickException(str(exc)) from None
    return request


def similarity_lines(outcome: Any, batch_dir: Path, console: Console) -> None:
    console.print(f"similarity: {outcome.submissions} submissions, {outcome.known} known files, {outcome.compared} "
                  f"pairs of files compared in {outcome.seconds:.1f} s: {outcome.line} (in {batch_dir})", highlight=False)
    print_notes(console, (*outcome.not_compared, *outcome.notes))


@click.command("similarity")
@click.argument("batch_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--known", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help="A folder of known solutions (cloned repositories, last year's class), at any depth; repeatable.")
@click.option("--base", "bases", multiple=True, type=click.Path(path_type=Path), metavar="DIR",
              help=BASE_HELP + "; repeatable")
@click.option("--threshold", type=float, default=None,
              help="List every pair whose score (the share of a file's student code found in the other) reaches "
                   f"this fixed value, e.g. {DEFAULT_THRESHOLD:g}, instead of the pairs that are unusual for their "
                   "file in this class  [default: calibrated per file]")
def similarity_cmd(batch_dir: Path, known: tuple[Path, ...], bases: tuple[Path, ...], threshold: float | None) -> None:
    """Compare the submissions of the batch in BATCH_DIR with each other and with known solutions,
    file by file, the starter code and the code common to the class left out: similarity.csv and
    similarity/index.html. Similar is not copied: the pages are for a person to read."""
    request = similarity_request(known, threshold, bases)
    try:
        outcome = run_similarity(batch_dir, known=request.known, threshold=request.threshold, bases=request.bases)
    except gradebook.BatchError as exc:     # SimilarityError is one
        raise click.ClickException(str(exc)) from None
    similarity_lines(outcome, batch_dir, cli_output.console())
