"""The TA's marking commands, `grader grades` and `grader review` (registered on the main group by
grader/cli.py): the grade book from the marks store, and marking in a browser."""

from __future__ import annotations

from pathlib import Path

import click

from grader import cli_output
from grader.cli_options import take
from grader.run.rubric import RubricError, load_rubric


def marked_store(batch_dir: Path, marked: Path | None):
    """The batch's grouping and its marks store, with the marks of the groups CSV added."""
    from grader.classroom.groups.batch_groups import GROUP_TABLE, GROUPS_DIR
    from grader.classroom.groups.marks import SNAPSHOT, MarksError, import_table, read_snapshot
    from grader.classroom.groups.store import MarkStore

    marked = marked or batch_dir / GROUPS_DIR / GROUP_TABLE
    groups = read_snapshot(batch_dir / GROUPS_DIR / SNAPSHOT)
    if not groups and not (batch_dir / GROUPS_DIR / SNAPSHOT).is_file():    # none at all: a course with no written part
        raise click.ClickException(f"{batch_dir / GROUPS_DIR / SNAPSHOT} is missing: run `grader groups {batch_dir}` "
                                   "first (it keeps the marks already in groups.csv)")
    store = MarkStore.open(batch_dir)
    try:
        added = import_table(marked, store, groups) if marked.is_file() else []
    except MarksError as exc:
        raise click.ClickException(str(exc)) from None
    if added:
        cli_output.console().print(f"{len(added)} mark{'s' if len(added) != 1 else ''} from {marked} added to "
                         f"{store.folder}", highlight=False)
    return groups, store


@click.command("grades")
@take("batch_dir", "grades_marked", "final", "allow_pending", "column", "title")
def grades_cmd(batch_dir: Path, marked: Path | None, final: bool, allow_pending: bool, chosen: tuple[str, ...],
               title: str | None) -> None:
    """The grade book: BATCH_DIR/final_grades.csv (autograder score, each TA item's points, total;
    keyed like grades.csv) and BATCH_DIR/feedback/<submission>.md with the TA's comments. A
    submission with TA items still to mark says "pending N items" instead of a total."""
    from grader.classroom import final_grades
    from grader.classroom.reports import decided, exports
    from grader.classroom.reports import final as book_files

    _, store = marked_store(batch_dir, marked)
    try:
        rubric = load_rubric()
    except RubricError as exc:
        raise click.ClickException(str(exc)) from None
    book = final_grades.grade_book(batch_dir, rubric, store)
    files = book_files.write(book, batch_dir)
    rebuilt = decided.write(book, batch_dir)
    console = cli_output.console()
    if rebuilt:
        console.print(f"{len(rebuilt)} results.json rebuilt with the TA's decisions on auto-graded items (what "
                      f"Gradescope shows: {batch_dir / decided.SUBMISSIONS_DIR}/<submission>/results.json)",
                      highlight=False)
    for slot, n in book.unmarked_groups.items():
        console.print(f"[yellow]{slot}: {n} group{'s' if n != 1 else ''} without points[/yellow]", highlight=False)
    for slot, n in book.new_answers.items():
        console.print(f"[yellow]{slot}: {n} answer{'s' if n != 1 else ''} new since marked (pending: mark "
                      f"{'them' if n != 1 else 'it'} in `grader review`, which suggests the earlier mark)[/yellow]",
                      highlight=False)
    for slot, n in book.new_overridden.items():
        console.print(f"[yellow]{slot}: {n} answer{'s' if n != 1 else ''} new since overridden (the autograder's "
                      "verdict stands until a TA overrides it too)[/yellow]", highlight=False)
    waiting = [r for r in book.rows if r.pending]
    if waiting:
        console.print(f"[yellow]pending: {book.pending} TA item{'s' if book.pending != 1 else ''} in all, in "
                      f"{len(waiting)} of {len(book.rows)} submissions (their total says \"pending N items\")[/yellow]",
                      highlight=False)
    console.print(f"wrote {files[0]}: {len(book.rows)} submissions, autograder out of {book.auto_max:g} + TA items "
                  f"out of {book.ta_max:g}; {len(files) - 1} feedback files in {batch_dir / book_files.FEEDBACK_DIR}",
                  highlight=False)
    if not final:
        if chosen or allow_pending or title:
            raise click.ClickException("--column, --title and --allow-pending shape the exports: add --final")
        return
    if waiting and not allow_pending:
        raise click.ClickException(
            f"{book.pending} TA item{'s' if book.pending != 1 else ''} in {len(waiting)} submission"
            f"{'s are' if len(waiting) != 1 else ' is'} still pending (column pending of {files[0]}): mark them "
            f"(`grader review {batch_dir}`), or export anyway with --final --allow-pending (pending cells stay empty)")
    try:
        written = exports.write_exports(book, batch_dir, chosen or exports.DEFAULT_COLUMNS,
                                        title=title or _assignment_name())
    except exports.ExportError as exc:
        raise click.ClickException(str(exc)) from None
    if waiting:
        console.print(f"[yellow]exported with {book.pending} item{'s' if book.pending != 1 else ''} pending: "
                      "their cells and totals are empty[/yellow]", highlight=False)
    console.print(f"wrote {written[0]} (Canvas gradebook import), {written[1]} (Gradescope score upload) and "
                  f"{len(written) - 2} feedback files in {written[0].parent / exports.FEEDBACK_DIR}, one per student",
                  highlight=False)


def _assignment_name() -> str:
    from grader import assignment

    try:
        return assignment.package_name()
    except Exception:   # only a column title: any failure falls back to a plain one
        return "Assignment"


@click.command("review")
@take("batch_dir", "port", "marker")
def review_cmd(batch_dir: Path, port: int, who: str | None) -> None:
    """Mark the answer groups of BATCH_DIR in a browser: serves them on 127.0.0.1 only, each question
    with its text, points and reference answer; rubric items per item (applied by a click or a key,
    re-scoring what carries one when it changes), a free adjustment and comment per group or answer;
    decisions on the code checks of the review list. Every mark goes to BATCH_DIR/marks/ and
    groups.csv; a batch that changes meanwhile is reloaded."""
    from grader.classroom.review import ReviewError, make_server

    try:
        server = make_server(batch_dir, port=port, who=who)
    except ReviewError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port} ({exc.strerror}); pass another --port") from None
    bound = server.server_address[1]
    cli_output.console().print(f"open http://127.0.0.1:{bound}/ to mark {batch_dir} (Ctrl-C to stop; marks are saved as you go)",
                     highlight=False)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
