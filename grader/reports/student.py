"""What `grader check` prints for a student: the details of what failed first, then the summary
last, where the eye lands (one line per part, the total, what to do next, what was checked).

It formats a GradeReport and the rubric's parts; it computes nothing but sums and lists.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader import assignment
from grader.run.results import NOT_IMPLEMENTED, PASSED, CheckResult, GradeReport
from grader.run.rubric import Part, Rubric

#: The stub message as results.stub_outcome words it: "sgd.py: sgd is not implemented yet (it still raises ...".
_STUB_LINE = re.compile(r"^(?:(?P<file>[\w.]+\.py): )?(?P<name>\S+) is not implemented yet \(it still raises")
_MISSING = ("No answer found", "No written answers found")
HELD = "scored after the due date"
"""What `grader check` says of an item whose verdict is held back (a written answer, rubric.yaml's
``explanation``): it shows what was read, never the score or a ✓/✗."""
FORMULA = "a formula"
PROSE = "a few sentences"


def is_missing_answer(result: CheckResult) -> bool:
    return result.kind == "written" and bool(result.outcome.feedback) and \
        result.outcome.feedback[0].startswith(_MISSING)


def progress_line(result: CheckResult) -> bool:
    """Whether a finished check gets a progress line: not for stubs and missing answers (the
    summary lists them by name), so an untouched template fits one screen."""
    return result.status != NOT_IMPLEMENTED and not is_missing_answer(result)


def progress_hook(console: Console) -> Callable[[Any, CheckResult], None]:
    """The line `grader check` prints as each check finishes (see progress_line), in the
    repository and in the student kit alike."""
    def hook(spec: Any, result: CheckResult) -> None:
        if progress_line(result) and result.held_back:
            console.print(f"  · {spec.number} {spec.name}: read, {HELD} ({result.seconds:.1f} s)", highlight=False)
        elif progress_line(result):
            mark = "✓" if result.passed else "✗"
            console.print(f"  {mark} {spec.number} {spec.name} ({result.seconds:.1f} s)", highlight=False)
    return hook


def _stubs(checks: Iterable[CheckResult]) -> dict[str, list[str]]:
    """Functions still raising NotImplementedError, by file, in the order the checks met them."""
    found: dict[str, list[str]] = {}
    for c in checks:
        if c.status != NOT_IMPLEMENTED:
            continue
        for line in c.outcome.feedback:
            m = _STUB_LINE.search(line)
            if m:
                names = found.setdefault(m.group("file") or "your files", [])
                if m.group("name") not in names:
                    names.append(m.group("name"))
    return found


def _label(part: Part) -> str:
    return part.name.split(" ")[0]


def _shape(part: Part) -> str:
    if part.checker in assignment.registry().ANSWER_SHAPES:
        return assignment.registry().ANSWER_SHAPES[part.checker]
    return FORMULA if part.auto else PROSE


def _missing_written(report: GradeReport, rubric: Rubric) -> list[Part]:
    by_id = {p.id: p for p in rubric.parts}
    ids = [c.part for c in report.checks if is_missing_answer(c)]
    ids += [m.id.split(".")[0] if m.id not in by_id else m.id for m in report.manual if not m.found]
    return [by_id[i] for i in dict.fromkeys(ids) if i in by_id]


def next_to_do(report: GradeReport, rubric: Rubric) -> list[str]:
    stubs: dict[str, list[str]] = {}
    for entry in report.stubs:
        file, _, name = entry.partition(": ")
        stubs.setdefault(file, []).append(name)
    for file, names in _stubs(report.checks).items():  # a stub of another shape, met by a check
        stubs.setdefault(file, []).extend(n for n in names if n not in stubs.get(file, []))
    lines = [f"{file}: {', '.join(names)} (not implemented yet)" for file, names in stubs.items()]
    missing = _missing_written(report, rubric)
    groups: dict[str, list[str]] = {}
    for part in missing:
        groups.setdefault(_shape(part), []).append(_label(part))
    for shape, labels in groups.items():
        lines.append(f"{assignment.written_files()[0]}: no answer found for {', '.join(labels)} ({shape}"
                     f"{' each' if len(labels) > 1 and shape in (FORMULA, PROSE) else ''})")
    failing = [c for c in report.checks if not c.passed and c.status != NOT_IMPLEMENTED and not is_missing_answer(c)
               and not c.held_back]
    if failing:
        lines.append("fix: " + ", ".join(c.number for c in failing) + " (details above)")
    return lines


def checked_line(checked: float, course: float) -> str:
    """What the run's total counts, against the whole assignment's points (never a word about
    checks the student does not see)."""
    return f"checked here: {checked:g} of the assignment's {course:g} points; the rest is graded when you submit"


def course_points(rubric: Rubric) -> float:
    """Every point of the assignment: code, written answers, TA-graded ones too."""
    return sum(p.points for p in rubric.parts)


def auto_points(rubric: Rubric) -> float:
    """Every point the autograder scores: the code checks and the written answers' auto shares."""
    return sum(s.points for s in rubric.checks) + sum(p.auto for p in rubric.parts if p.kind == "written")


def render_check(report: GradeReport, rubric: Rubric, console: Console, *, details: bool = True,
                 total: float | None = None) -> None:
    """Details of each failing check (not of stubs or missing answers), then the summary;
    ``total``: the whole assignment's points when ``rubric`` is not all of it (the kit's copy)."""
    if details:
        for c in report.checks:
            if c.held_back and progress_line(c) and c.written is not None:
                console.print(f"\n[bold]{c.number} {c.name}[/bold] — {HELD}")
                for line in c.written.reading:
                    console.print(Text(line))
                continue
            if c.passed or not progress_line(c):
                continue
            console.print(f"\n[bold]{c.number} {c.name}[/bold] — {c.score:g}/{c.max_score:g}")
            for line in c.outcome.feedback:
                console.print(Text(line))
    for note in report.notes:
        console.print(Text(f"Note: {note}"))
    parts = {p.id: p for p in rubric.parts}
    table = Table(title="Summary", title_justify="left", show_lines=False, expand=False, show_edge=False)
    table.add_column("part")
    table.add_column("points", justify="right", no_wrap=True)
    table.add_column("state", no_wrap=True)
    for part_id in dict.fromkeys(c.part for c in report.checks):
        rows = [c for c in report.checks if c.part == part_id]
        score, top = sum(c.score for c in rows), sum(c.max_score for c in rows)
        stubs = sum(c.status == NOT_IMPLEMENTED or is_missing_answer(c) for c in rows)
        state = ("not started" if stubs == len(rows) else HELD if any(c.held_back for c in rows) else
                 "done" if all(c.status == PASSED for c in rows) else
                 f"{sum(c.status == PASSED for c in rows)}/{len(rows)} checks pass")
        name = parts[part_id].name if part_id in parts else part_id
        table.add_row(name, f"–/{top:g}" if any(c.held_back for c in rows) else f"{score:g}/{top:g}", state)
    console.print()
    console.print(table)
    shown = [c for c in report.checks if not c.held_back]
    held = sum(c.max_score for c in report.checks if c.held_back)
    console.print(f"[bold]Total: {sum(c.score for c in shown):g} / {sum(c.max_score for c in shown):g}[/bold]   "
                  f"({sum(c.passed for c in shown)}/{len(shown)} checks passed, {report.seconds:.1f} s; "
                  f"replay with --seed {report.seed})")
    if held:
        console.print(f"Written answers {HELD}: {held:g} points (what was read is shown above).", soft_wrap=True)
    todo = next_to_do(report, rubric)
    if todo:
        console.print("[bold]Next to do:[/bold]")
        for line in todo:
            console.print(Text(f"  {line}"), soft_wrap=True)
    console.print(checked_line(report.max_score, course_points(rubric) if total is None else total),
                  soft_wrap=True)
