"""Grade a submission's written answers: scored CheckResults for the auto share, ManualItems for TAs.

Runs in the trusted process. The writeup files are read here (size-capped) and everything that
parses their text runs through a :mod:`a2.written.process` runner (a
:class:`grader.sandbox.Runner`) with a time limit per request. Each auto share is scored by
:func:`grader.run.results.score` from its check spec (:func:`grader.run.rubric.written_check`), as code
checks are. Whatever the text does, every written part of the rubric ends up in the report: an
answer that is missing, unreadable or too slow to read scores 0 on its auto share with a message
that says which, and is still listed for TAs.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from a2.written.checker_registry import MISSING, UNREADABLE
from a2.written.csv_tables import is_table_file
from a2.written.process import INTERNAL, ChildProcess, InProcess
from a2.written.sections import pretty
from grader import assignment
from grader.run.budget import Budget, BudgetExhausted, BudgetRunner
from grader.run.results import (
    FAILED,
    TIMEOUT,
    CheckResult,
    ManualItem,
    Outcome,
    ProgressHook,
    WrittenRead,
    internal_error,
    not_run_outcome,
    score,
)
from grader.run.rubric import Part, written_check
from grader.run.written_inputs import read_written
from grader.sandbox import ProbeError, ProbeResult, Runner

LOCATE_TIMEOUT = 30.0
"""Seconds allowed to find the sections of all written files."""
MAX_MANUAL_CHARS = 6000
"""Characters of an answer shown to TAs (the rest is cut, and said so)."""
NO_WRITEUP = "No written answers found (upload answers.md, answers.txt or .tex)."
MAX_RAW_CHARS = 1500
"""Characters of the text read kept for TA review (report.json, results.json)."""


def _names(paths: list[Path]) -> dict[Path, str]:
    """Each file's name as the student sees it: its path inside the upload (``tex/q1.tex``)."""
    if not paths:
        return {}
    top = min((p.parent for p in paths), key=lambda d: len(d.parts))
    return {p: (p.relative_to(top).as_posix() if p.is_relative_to(top) else p.name) for p in paths}


UNREAD_KINDS = {".pdf": "a PDF", ".xlsx": "a spreadsheet", ".xls": "a spreadsheet", ".csv": "a spreadsheet",
                ".ods": "a spreadsheet", ".numbers": "a spreadsheet", ".docx": "a Word document",
                ".doc": "a Word document", ".odt": "a text document", ".rtf": "a text document",
                ".pages": "a Pages document", ".typ": "a Typst document", ".adoc": "an AsciiDoc document",
                ".asciidoc": "an AsciiDoc document", ".latex": "a LaTeX file under another suffix than .tex",
                ".ltx": "a LaTeX file under another suffix than .tex", ".lyx": "a LyX document"}
"""What a file the reader cannot read is, by suffix (any other: an image)."""
_FILE_LABEL = re.compile(r"(?:^|[^a-z0-9])(?:q|p|part|problem)?[ _.-]?([1-3])(?:[ _.-]?\(?([a-f])\)?)?(?![0-9a-z])", re.I)


def unread_files(paths: Iterable[Path]) -> list[Path]:
    """The uploaded files that may hold written answers but cannot be read (.pdf, .xlsx, images)."""
    return [p for p in paths if not assignment.is_written(p.name) and assignment.is_unread_written(p.name)
            and not is_table_file(p.name)]


def unread_kind(name: str) -> str:
    return UNREAD_KINDS.get(Path(name).suffix.lower(), "an image")


def might_answer(name: str, question: str) -> bool:
    """Whether a file the reader cannot read may answer ``question`` (1b_i): its name's label
    (``p3.a.xlsx`` -> 3(a), ``q2.pdf`` -> part 2) fits it, or its name has no label."""
    m = _FILE_LABEL.search(Path(name).name.rsplit(".", 1)[0])
    if m is None:
        return True
    return question.startswith(m.group(1) + (m.group(2) or "").lower())


def read_writeups(paths: Iterable[Path]) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, text) of each written file, answers.md first then by name, and notes about what was
    not read: the framework's one rule for reading uploads (:func:`grader.run.written_inputs.read_written`);
    files that cannot be read (:func:`unread_files`) are left out (grade_written names them)."""
    paths = list(paths)
    unread = set(unread_files(paths))
    return read_written([p for p in paths if p not in unread])


def _ask(calls: Runner, probe: str, args: dict, timeout: float) -> ProbeResult:
    """One request to the reader; whatever goes wrong in sending it (a text too large to send, a
    runner that raises) is this request's reading problem, returned as an error, never raised
    (running out of the grading's time budget aside)."""
    try:
        return calls.call(probe, args, timeout=timeout)
    except BudgetExhausted:
        raise
    except Exception as exc:  # noqa: BLE001 - a reading error costs its item, never the grading
        return ProbeResult("error", error=ProbeError(type(exc).__name__, f"the text could not be sent to the reader ({exc})"[:500]))


def _no_section(question: str, names: list[str]) -> str:
    """"No answer found" in the terms of the files uploaded (LaTeX template or Markdown headings)."""
    label = pretty(question)
    if names and all(n.lower().endswith(".tex") for n in names):
        return (f"No answer found for {label}: no part of your .tex files answers {label} (the course template's "
                f"\\part/\\subpart for it, with its answer in \\answer{{...}}, was not found).")
    return f"No answer found for {label}: no section of your writeup is headed {label} (e.g. '### {label}')."


def _problem(reply: ProbeResult) -> str:
    """Why a request to the reader failed, for a student."""
    return reply.error.message if reply.error is not None else reply.status


def _outcome(reply: ProbeResult, part: Part, notes: list[str]) -> Outcome:
    """The Outcome of a checker's reply (or of its failure)."""
    if not reply.ok:
        if reply.status == "timeout":
            return Outcome(0, 1, (f"Reading your answer to {pretty(part.id)} took longer than {part.timeout:g} s "
                                  "and was stopped; write the final answer on its own, in plain LaTeX.",), status=TIMEOUT)
        if reply.error is not None and reply.error.type == INTERNAL:
            return internal_error(reply.error.traceback, during="while reading this answer")
        return Outcome(0, 1, (f"Your answer to {pretty(part.id)} could not be read: {_problem(reply)}.",),
                       status=FAILED)
    verdict = reply.value["verdict"]
    lines = tuple(verdict["feedback"]) + read_whole(verdict) + tuple(f"Note: {n}" for n in notes)
    status = FAILED if verdict["status"] in (MISSING, UNREADABLE) else ""
    return Outcome(int(verdict["passed"]), max(1, int(verdict["total"])), lines, status=status)


READ_WHOLE = "The answer was read whole, in the expected place and form."
READ_IN_DOUBT = "The answer was not read whole, or not with confidence: a TA will look at it."
READ_UNSURE = "The answer's place or file was not read with full confidence: a TA will look at it if it does not earn full marks"


def read_whole(verdict: dict) -> tuple[str, ...]:
    """Shown at once beside what was read: whether it was read whole (its verdict, and what is wrong,
    go with the explanation: rubric.yaml's ``explanation``, after the due date by default)."""
    if verdict["status"] in (MISSING, UNREADABLE):
        return ()
    return (READ_IN_DOUBT if verdict.get("review") else READ_WHOLE,)


def reading_lines(reply: ProbeResult | None, section: dict | None, outcome: Outcome, files: list[str],
                  unread: list[str]) -> tuple[str, ...]:
    """What a student is told at once of one item's reading, never its verdict: what was read, from
    which file and place, whether it was read whole (the reader's own doubts about the file, the
    place or the form, known before the answer is judged: the checker's review weighs the answer
    against the key, so it is shown only with the verdict), and the files read and
    not read. An answer that was not judged (none found, unreadable, too slow) says why."""
    verdict = reply.value["verdict"] if reply is not None and reply.ok else None
    if verdict is None or verdict["status"] in (MISSING, UNREADABLE):
        lines = list(outcome.feedback)
    else:
        where = verdict.get("where") or (section or {}).get("where", "")
        doubt = verdict.get("doubt") or (section or {}).get("unread") or (section or {}).get("doubt")
        lines = [f"Read{f' from {where}' if where else ''}: {verdict.get('read') or '(no formula)'}",
                 f"{READ_UNSURE} ({doubt})." if doubt else READ_WHOLE,
                 *(f"Note: {n}" for n in (section or {}).get("notes", ()))]
    cannot = "; could not read: " + ", ".join(f"{n} ({unread_kind(n)})" for n in unread) if unread else ""
    return (*lines, f"Files read: {', '.join(files) or 'none'}{cannot}.")


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_RAW_CHARS else text[:MAX_RAW_CHARS] + f" [... {len(text) - MAX_RAW_CHARS} more]"


def written_read(reply: ProbeResult | None, section: dict | None, locate_problem: str) -> WrittenRead:
    """The text read for one auto-graded item, where, and why a TA should look (if they should).

    Review: an answer exists but could not be judged with confidence: reading failed or timed
    out, the checker could not read it (unreadable), or the section has text but no final answer
    the checker recognises; and whatever the checker itself flags (conflicting answers, ...).
    No section at all, or an empty one, is "no answer", not a review.
    """
    body = str(section.get("body", "")) if section else ""
    where = str(section.get("where", "")) if section else ""
    has_text = bool(body.strip())
    if locate_problem:
        review = locate_problem if locate_problem != NO_WRITEUP else ""
        return WrittenRead("", "", "", review)
    if section is None or reply is None:
        return WrittenRead()
    if not reply.ok:
        return WrittenRead(_cut(body), "", where,
                           f"reading this answer failed ({reply.status}: {_problem(reply)})" if has_text else "")
    verdict = reply.value["verdict"]
    raw = _cut(verdict.get("raw") or body)
    review = str(verdict.get("review", ""))
    if not review and has_text:
        if verdict.get("status") == UNREADABLE:
            first = next((f for f in verdict.get("feedback", ()) if not f.startswith("read:")), "")
            review = "the answer could not be read" + (f": {first}" if first else "")
        elif verdict.get("status") == MISSING:
            review = "the section has text but no final answer the grader recognises"
    return WrittenRead(raw, str(verdict.get("read", "")), str(verdict.get("where") or where), review,
                       tuple(str(line) for line in verdict.get("why", ())))


def _no_answer(section: dict | None, reply: ProbeResult | None) -> bool:
    """Whether no answer was read for an item (no section, an empty one, or none the checker found)."""
    if section is None or not str(section.get("body", "")).strip() or reply is None:
        return True
    return reply.ok and reply.value["verdict"].get("status") == MISSING


def _manual(part: Part, section: dict | None, locate_problem: str) -> ManualItem:
    points = f"{part.manual_points:g} point{'s' if part.manual_points != 1 else ''}"
    name = f"{part.name} (for TA grading: {points}, not in the autograder's score)"
    if section is None or not section.get("body", "").strip():
        text = locate_problem or f"No answer found for {pretty(part.id)}."
        return ManualItem(part.id, name, part.manual_number, part.manual_points, part.visibility, text, False)
    body = section["body"].strip()
    if len(body) > MAX_MANUAL_CHARS:
        body = body[:MAX_MANUAL_CHARS] + f"\n[... {len(body) - MAX_MANUAL_CHARS} more characters in the writeup]"
    return ManualItem(part.id, name, part.manual_number, part.manual_points, part.visibility, body, True,
                      section.get("where", ""), tuple(section.get("notes", ())))


def grade_written(paths: Iterable[Path], parts: Iterable[Part], seed: int, *,
                  runner: Runner | None = None, progress: ProgressHook | None = None,
                  budget: Budget | None = None) -> tuple[list[CheckResult], list[ManualItem], list[str]]:
    """Auto-graded results, TA items and notes for the written ``parts`` of a submission; within
    ``budget`` when given (an auto share it cannot afford is not run)."""
    parts = list(parts)
    paths = list(paths)
    files, notes = read_writeups(paths)
    unread = [_names(paths)[p] for p in unread_files(paths)]
    if files:
        notes.append("Written files read: " + ", ".join(name for name, _ in files) + ".")
    for name in unread:
        notes.append(f"{name} is {unread_kind(name)}, which the grader cannot read: an answer only in it is "
                     "not graded automatically, and the questions it may answer are listed for a TA.")
    results: list[CheckResult] = []
    manual: list[ManualItem] = []
    if not parts:
        return results, manual, notes
    own_runner = runner is None
    runner = runner or ChildProcess()
    calls: Runner = runner if budget is None else BudgetRunner(runner, budget)
    try:
        sections: dict[str, dict] = {}
        locate_problem = ""
        ran_out = False
        if not files:
            locate_problem = NO_WRITEUP
        else:
            try:
                reply = _ask(calls, "locate", {"files": files, "questions": [p.id for p in parts]}, LOCATE_TIMEOUT)
            except BudgetExhausted:
                ran_out, reply = True, ProbeResult("ok", {"sections": {}})
            if reply.ok:
                sections = reply.value["sections"]
                notes += reply.value.get("notes", [])
            else:
                locate_problem = ("Your written answers could not be read: "
                                  + ("finding the sections took too long" if reply.status == "timeout"
                                     else _problem(reply)) + ".")
        for part in parts:
            section = sections.get(part.id)
            spec = written_check(part)
            if spec is not None:
                t0 = time.monotonic()
                section_notes = list(section.get("notes", [])) if section else []
                check_reply: ProbeResult | None = None
                if ran_out:
                    outcome = not_run_outcome()
                elif locate_problem:
                    outcome = Outcome(0, 1, (locate_problem,), status=FAILED)
                elif section is None:
                    outcome = Outcome(0, 1, (_no_section(part.id, [name for name, _ in files]),), status=FAILED)
                else:
                    try:
                        check_reply = _ask(calls, "check", {"checker": spec.checker, "question": part.id,
                                                            "section": section, "seed": seed}, spec.timeout)
                        outcome = _outcome(check_reply, part, section_notes)
                    except BudgetExhausted:
                        ran_out, outcome = True, not_run_outcome()
                read = replace(written_read(check_reply, section, locate_problem), why_visibility=spec.visibility,
                               read_visibility=part.visibility,
                               reading=reading_lines(check_reply, section, outcome, [n for n, _ in files], unread))
                maybe = [n for n in unread if might_answer(n, part.id)]
                if maybe and not read.review and outcome.trials_passed < outcome.trials_total and _no_answer(section, check_reply):
                    read = replace(read, review=f"no answer to {pretty(part.id)} was read in the text files, "
                                                f"but {', '.join(maybe)} ({unread_kind(maybe[0])}) may hold it",
                                   where=read.where or maybe[0], raw=read.raw or ", ".join(maybe))
                result = replace(score(spec, outcome, time.monotonic() - t0), written=read)
                results.append(result)
                if progress:
                    progress(spec, result)
            if part.manual_points > 0:
                manual.append(_manual(part, section, locate_problem))
    finally:
        if own_runner:
            runner.close()
    return results, manual, notes


__all__ = ["grade_written", "read_writeups", "unread_files", "might_answer", "InProcess", "ChildProcess", "NO_WRITEUP"]
