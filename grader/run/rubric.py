"""rubric.yaml read into a :class:`Rubric` in three steps; each says every problem with its line
and the fix, and a rubric with any problem is refused as a whole (:class:`RubricError`).

1. **The schema** (:func:`grader.run.rubric_schema.unknown_keys`): every key is one the schema
   names, so a misspelt key is refused instead of ignored.
2. **Typed parts and checks** (:func:`typed_lines`): each line's values checked and typed, the
   defaults applied (a course whose checks are its test files gets its lines from their decorators
   here), then what the lines must agree on among themselves (:func:`agreement_problems`: unique
   ids and numbers, a code part's checks adding up to its points).
3. **Cross-checks against the assignment's registry** (:func:`registry_problems`): every check the
   assignment registers has a line and every line a check; every written checker named exists and
   is used.

What a rubric is (its parts, check lines, limits) is :mod:`grader.run.rubric_model`, whose names
this module gives too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from grader.common.paths import RUBRIC_PATH
from grader.run.course_tests import with_tests
from grader.run.rubric_model import (
    AUTO_GRADED,
    BUDGET_MARGIN_S,
    DEFAULT_BUDGET_S,
    DEFAULT_EXPLANATION,
    DEFAULT_TIMEOUT,
    GRADESCOPE_TIMEOUT_S,
    MAX_BUDGET_S,
    MAX_TIMEOUT,
    PART_KINDS,
    SECRET_VISIBILITIES,
    VISIBILITIES,
    VISIBILITY_ORDER,
    CheckSpec,
    Part,
    Rubric,
    RubricError,
    written_check,
)
from grader.run.rubric_schema import unknown_keys

__all__ = ["AUTO_GRADED", "BUDGET_MARGIN_S", "DEFAULT_BUDGET_S", "DEFAULT_EXPLANATION", "DEFAULT_TIMEOUT",
           "GRADESCOPE_TIMEOUT_S", "MAX_BUDGET_S", "MAX_TIMEOUT", "PART_KINDS", "SECRET_VISIBILITIES", "VISIBILITIES",
           "CheckSpec", "Part", "Rubric", "RubricError", "load_rubric", "written_check"]


def load_rubric(path: Path = RUBRIC_PATH, registered: set[str] | None = None,
                checkers: set[str] | None = None) -> Rubric:
    """Parse and validate ``path`` in the module's three steps.

    ``registered`` (check ids that exist in code) and ``checkers`` (written checker names) are
    cross-checked when given.
    """
    data, node = _read(path)
    problems = unknown_keys(data, node)                  # 1. the schema first: a misspelt key is never ignored
    if problems:
        raise RubricError(path, problems)
    lines = typed_lines(data, node, problems)            # 2. typed parts and checks, and their agreement
    problems += registry_problems(lines, registered, checkers)     # 3. against the assignment's registry
    if problems:
        raise RubricError(path, problems)
    return Rubric(lines.parts, lines.checks, path, lines.budget)


def _read(path: Path) -> tuple[dict[str, Any], yaml.Node]:
    """The rubric's data and its YAML nodes (for lines); refused when it is no YAML mapping."""
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise RubricError(path, [f"not valid YAML: {exc}"]) from None
    if not isinstance(data, dict):
        raise RubricError(path, ["the top level must be a mapping with keys 'defaults', 'parts', 'checks'"])
    return data, node


# -- 2. typed parts and checks ------------------------------------------------------------------

@dataclass(frozen=True)
class TypedLines:
    """The rubric's lines, typed (step 2), with what step 3 needs to say each mistake once."""

    parts: tuple[Part, ...]
    checks: tuple[CheckSpec, ...]
    budget: float
    lined: frozenset[str]
    """Every check id that has a line, valid or not: the registry step does not call it missing."""


@dataclass(frozen=True)
class Defaults:
    """rubric.yaml's ``defaults:``, for every line that does not set its own."""

    timeout: Any = DEFAULT_TIMEOUT
    visibility: Any = "visible"
    partial: Any = True
    explanation: Any = DEFAULT_EXPLANATION


def typed_lines(data: dict[str, Any], node: yaml.Node, problems: list[str]) -> TypedLines:
    """Step 2: the budget, the parts and the checks as typed objects, and what they must agree on;
    each problem is added to ``problems`` (a line with a problem is left out, said once)."""
    budget = data.get("budget", DEFAULT_BUDGET_S)
    if not _number(budget) or not 0 < budget <= MAX_BUDGET_S:
        problems.append(f"budget is {budget!r}; use the seconds one grading may take, in (0, {MAX_BUDGET_S:g}] "
                        f"(Gradescope's default timeout {GRADESCOPE_TIMEOUT_S:g} s less a margin: {DEFAULT_BUDGET_S:g})")
        budget = DEFAULT_BUDGET_S
    part_lines, check_lines = _lines(node, "parts"), _lines(node, "checks")
    if "tests" in data:      # a test-file assignment: its tests make the lines rubric.yaml does not write out
        data, part_lines, check_lines = with_tests(data, part_lines, check_lines, problems)
    given = data.get("defaults") or {}
    defaults = Defaults(given.get("timeout", DEFAULT_TIMEOUT), given.get("visibility", "visible"),
                        given.get("partial", True), given.get("explanation", DEFAULT_EXPLANATION))
    if defaults.explanation == "visible":
        problems.append("defaults: explanation is 'visible', which shows every written answer's verdict (its score, "
                        "what is wrong) as soon as it is submitted, so a few resubmissions find each key. Keep "
                        f"defaults' explanation {DEFAULT_EXPLANATION} and set explanation: visible on the items whose "
                        "verdict may be shown at once")
    parts, broken = _parts(zip(part_lines, data.get("parts") or []), defaults, problems)
    checks, lined, unsummed = _checks(zip(check_lines, data.get("checks") or []), parts, broken, defaults,
                                      problems)
    problems += agreement_problems(parts, checks, unsummed)
    return TypedLines(tuple(parts), tuple(checks), float(budget), frozenset(lined))


def _lines(node: yaml.Node, key: str) -> list[int]:
    """1-based line of each item of the sequence under ``key`` of a mapping node."""
    if not isinstance(node, yaml.MappingNode):
        return []
    for k, v in node.value:
        if k.value == key and isinstance(v, yaml.SequenceNode):
            return [item.start_mark.line + 1 for item in v.value]
    return []


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _visibility(entry: dict[str, Any], default: Any, where: str, what: str, points: Any,
                problems: list[str]) -> str:
    """The ``visibility`` of a check or written part (``what`` names it), validated: one of
    VISIBILITIES, and never hidden with points: Gradescope never shows a hidden test to students yet
    adds its points to the total they see, which gives its verdict away."""
    visibility = entry.get("visibility", default)
    if visibility not in VISIBILITIES:
        problems.append(f"{where}: {what} has visibility {visibility!r}; use one of {', '.join(VISIBILITIES)}")
    elif visibility == "hidden" and _number(points) and points > 0:
        problems.append(f"{where}: {what} is hidden but worth {points:g} point(s); Gradescope never shows a hidden "
                        "test to students yet adds its points to the total they see, which gives its verdict away. "
                        f"Use visibility: {SECRET_VISIBILITIES[0]} (or {SECRET_VISIBILITIES[1]}) to keep it secret "
                        "until then, or give it 0 points")
    return str(visibility)


def _timeout(entry: dict[str, Any], default: Any, where: str, what: str, problems: list[str]) -> float:
    """The ``timeout`` of a check or written part in seconds; DEFAULT_TIMEOUT, a problem said, when
    it is not a number in (0, MAX_TIMEOUT] (the entry still counts: one mistake, one problem)."""
    timeout = entry.get("timeout", default)
    if not _number(timeout) or not 0 < timeout <= MAX_TIMEOUT:
        problems.append(f"{where}: {what} has timeout {timeout!r}; use seconds in (0, {MAX_TIMEOUT:g}]")
        return DEFAULT_TIMEOUT
    return float(timeout)


def _verdict_problems(where: str, pid: str, auto: float, visibility: str, explanation: str) -> list[str]:
    """What would leak an auto-graded written item's verdict: its score goes in the entry its
    ``explanation`` shows (Gradescope hides the student's total while such an entry is held back,
    but adds a ``hidden`` entry's points to it), and no verdict is shown before the answer it judges."""
    if explanation == "hidden":
        return [f"{where}: written part {pid!r} has explanation 'hidden', but its verdict carries its {auto:g} "
                "auto-graded point(s), and Gradescope adds a hidden entry's points to the total students see, which "
                f"gives the verdict away. Use explanation: {SECRET_VISIBILITIES[0]} (or {SECRET_VISIBILITIES[1]})"]
    if visibility in VISIBILITY_ORDER and visibility != "hidden" and VISIBILITY_ORDER[explanation] < VISIBILITY_ORDER[visibility]:
        return [f"{where}: written part {pid!r} has explanation {explanation!r} but visibility {visibility!r}: its "
                "verdict would be shown before the answer it judges. Set explanation to "
                f"{visibility!r} (or later), or visibility to {explanation!r}"]
    return []


PART_KEYS = {"id", "kind", "points", "name", "files", "number", "auto", "checker", "visibility",
             "timeout", "partial", "explanation"}
WRITTEN_ONLY_KEYS = {"number", "auto", "checker", "visibility", "timeout", "partial", "explanation"}
_NUMBER = re.compile(r"^[0-9]+(\.[0-9]+)*$")


def _written_part(entry: dict[str, Any], where: str, defaults: Defaults, problems: list[str]) -> dict[str, Any]:
    """Validate a written part's grading keys; return the Part fields they give."""
    pid = entry["id"]
    fields: dict[str, Any] = {}
    number = entry.get("number")
    if number is None:
        problems.append(f"{where}: written part {pid!r} has no number; add one for Gradescope's ordering, "
                        'e.g. number: "6.2"')
    elif not _NUMBER.match(str(number)):
        problems.append(f"{where}: written part {pid!r} has number {number!r}; use dotted digits like \"6.2\"")
    else:
        fields["number"] = str(number)
    auto = entry.get("auto", 0)
    checker = entry.get("checker", "")
    if not _number(auto) or not 0 <= auto <= entry["points"]:
        problems.append(f"{where}: written part {pid!r} has auto {auto!r}; use the number of its "
                        f"{entry['points']:g} points the checker grades (0 to {entry['points']:g})")
        auto = 0
    elif auto > 0 and not checker:
        problems.append(f"{where}: written part {pid!r} has auto {auto:g} but no checker; name the written "
                        "checker that grades it (checker: <name>, a name the assignment registers with @written_check)")
    elif checker and auto == 0:
        problems.append(f"{where}: written part {pid!r} names checker {checker!r} but auto is 0; give the "
                        "points it grades (auto: n) or remove the checker")
    fields["auto"] = float(auto)
    fields["checker"] = str(checker or "")
    fields["visibility"] = _visibility(entry, defaults.visibility, where, f"written part {pid!r}", auto, problems)
    explanation = entry.get("explanation", defaults.explanation)
    if explanation not in VISIBILITIES:
        problems.append(f"{where}: written part {pid!r} has explanation {explanation!r}; use one of "
                        f"{', '.join(VISIBILITIES)} (when students see what is wrong and the expected form)")
    elif auto:
        problems += _verdict_problems(where, pid, float(auto), fields["visibility"], str(explanation))
    fields["explanation"] = str(explanation)
    fields["timeout"] = _timeout(entry, defaults.timeout, where, f"written part {pid!r}", problems)
    partial = entry.get("partial", defaults.partial)
    if not isinstance(partial, bool):
        problems.append(f"{where}: written part {pid!r} has partial {partial!r}; use true (points in "
                        "proportion to items right) or false (all or nothing)")
    fields["partial"] = bool(partial)
    return fields



def _parts(lines: Iterable[tuple[int, Any]], defaults: Defaults, problems: list[str]) -> tuple[list[Part], set[str]]:
    """The typed parts, and the ids of those whose line has a problem (said once, not again for each check)."""
    parts: list[Part] = []
    broken: set[str] = set()
    for line, entry in lines:
        where = f"line {line}" if line else f"the part of test file {entry.get('name')}"
        if not isinstance(entry, dict) or not {"id", "kind", "points"} <= set(entry):
            problems.append(f"{where}: a part needs id, kind and points, e.g. "
                            "{id: part1, kind: code, points: 12, files: [part1.py]}")
            continue
        if entry["kind"] not in PART_KINDS:
            problems.append(f"{where}: part {entry['id']!r} has kind {entry['kind']!r}; use one of {PART_KINDS}")
        if not _number(entry["points"]) or entry["points"] < 0:
            problems.append(f"{where}: part {entry['id']!r} has points {entry['points']!r}; use a number >= 0")
            broken.add(str(entry["id"]))
            continue
        fields: dict[str, Any] = {}
        if entry["kind"] == "written":
            fields = _written_part(entry, where, defaults, problems)
        elif set(entry) & WRITTEN_ONLY_KEYS:
            problems.append(f"{where}: code part {entry['id']!r} has {sorted(set(entry) & WRITTEN_ONLY_KEYS)}, "
                            "which only written parts take; a code part's points come from its checks")
        files = entry.get("files", [])
        files = (files,) if isinstance(files, str) else tuple(files)
        parts.append(Part(str(entry["id"]), entry["kind"], float(entry["points"]),
                          str(entry.get("name", entry["id"])), files, line=line, **fields))
    part_ids = [p.id for p in parts]
    for dup in sorted({p for p in part_ids if part_ids.count(p) > 1}):
        problems.append(f"part id {dup!r} appears more than once; part ids must be unique")
    return parts, broken


def _checks(lines: Iterable[tuple[int, Any]], parts: list[Part], broken: set[str], defaults: Defaults,
            problems: list[str]) -> tuple[list[CheckSpec], set[str], set[str]]:
    """The typed check lines; the ids of every line, valid or not; and the parts whose sum would only
    repeat a problem already said (one mistake, one problem)."""
    part_ids = [p.id for p in parts]
    checks: list[CheckSpec] = []
    lined, unsummed = set[str](), set[str]()
    for line, entry in lines:
        where = f"line {line}" if line else "its test file's decorators"
        if not isinstance(entry, dict):
            problems.append(f"{where}: each check must be a mapping with id, part, name, number, points")
            continue
        lined.add(cid := str(entry.get("id", "?")))
        missing = [k for k in ("id", "part", "name", "number", "points") if k not in entry]
        if missing:
            problems.append(f"{where}: check {cid!r} is missing {', '.join(missing)}")
            unsummed.add(str(entry.get("part", "")))
            continue
        if not _NUMBER.match(str(entry["number"])):
            problems.append(f"{where}: check {cid!r} has number {entry['number']!r}; use dotted digits like \"1.2\"")
        if entry["part"] not in part_ids and str(entry["part"]) not in broken:
            close = difflib.get_close_matches(str(entry["part"]), part_ids, n=1, cutoff=0.75)
            problems.append(f"{where}: check {cid!r} names part {entry['part']!r}, which is not under 'parts:'; "
                            + (f"did you mean {close[0]!r}?" if close else f"use one of {part_ids}"))
            unsummed.update(close)      # that part's sum would only repeat this mistake
        if not _number(entry["points"]) or entry["points"] < 0:
            problems.append(f"{where}: check {cid!r} has points {entry['points']!r}; use a number >= 0")
            unsummed.add(str(entry["part"]))
            continue
        checks.append(_check(entry, line, where, defaults, problems))
    return checks, lined, unsummed


def _check(entry: dict[str, Any], line: int, where: str, defaults: Defaults, problems: list[str]) -> CheckSpec:
    """One check line whose id, part, name, number and points are there, typed: its other values
    checked (a wrong one said, its default used)."""
    cid, points = str(entry["id"]), entry["points"]
    visibility = _visibility(entry, defaults.visibility, where, f"check {cid!r}", points, problems)
    timeout = _timeout(entry, defaults.timeout, where, f"check {cid!r}", problems)
    partial = entry.get("partial", defaults.partial)
    if not isinstance(partial, bool):
        problems.append(f"{where}: check {cid!r} has partial {partial!r}; use true (points "
                        "proportional to trials passed) or false (all or nothing)")
    tags, charge = entry.get("tags", []), entry.get("charge", "once")
    problems += [] if charge in ("once", "each") else [f"{where}: check {cid!r} has charge {charge!r}; use once or each"]
    return CheckSpec(cid, str(entry["part"]), str(entry["name"]), str(entry["number"]),
                     float(points), visibility, timeout, bool(partial), line,
                     tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (str(tags),),
                     charge="each" if charge == "each" else "once")


def agreement_problems(parts: list[Part], checks: list[CheckSpec], unsummed: set[str]) -> list[str]:
    """What the typed lines must agree on among themselves: unique check ids, unique Gradescope
    numbers (checks' and written parts' shares), and each code part's checks adding up to its points."""
    problems = []
    ids = [c.id for c in checks]
    for dup in sorted({c for c in ids if ids.count(c) > 1}):
        problems.append(f"check id {dup!r} appears more than once; check ids must be unique")
    numbers = [c.number for c in checks]
    for p in parts:
        if p.kind == "written" and p.number:
            if p.auto > 0:
                numbers.append(p.number)
            if p.manual_points > 0:
                numbers.append(p.manual_number)
    for dup in sorted({n for n in numbers if numbers.count(n) > 1}):
        problems.append(f"check number {dup!r} is used twice; Gradescope orders tests by number")
    for part in (p for p in parts if p.kind == "code" and p.id not in unsummed):
        total = sum(c.points for c in checks if c.part == part.id)
        if abs(total - part.points) > 1e-9:
            problems.append(f"part {part.id!r} is worth {part.points:g} points but its checks add up "
                            f"to {total:g}; change the checks' points or the part's")
    return problems


# -- 3. cross-checks against the assignment's registry -------------------------------------------

def registry_problems(lines: TypedLines, registered: set[str] | None, checkers: set[str] | None) -> list[str]:
    """Step 3: the lines against what the assignment registers (each skipped when not given)."""
    return ((_check_id_problems(lines, registered) if registered is not None else [])
            + (_checker_problems(lines.parts, checkers) if checkers is not None else []))


def _check_id_problems(lines: TypedLines, registered: set[str]) -> list[str]:
    """Every line names a registered check and every registered check has a line; a near miss is
    one typo, said once."""
    problems = []
    unlined = sorted(registered - {c.id for c in lines.checks} - lines.lined)
    for c in lines.checks:
        if c.id not in registered:
            close = difflib.get_close_matches(c.id, unlined, n=1, cutoff=0.75)
            if close:      # a typo: one problem, not two
                unlined.remove(close[0])
                problems.append(f"line {c.line}: check {c.id!r} is not registered by the assignment; did you mean "
                                f"{close[0]!r} (registered, with no rubric line)? Fix the id")
                continue
            problems.append(f"line {c.line}: check {c.id!r} is not registered by the assignment; fix the id or "
                            "write the check (a function under @check in one of the assignment's check modules)")
    for cid in unlined:
        problems.append(f"check {cid!r} is registered by the assignment but has no rubric line; "
                        "add it under 'checks:' with its points")
    return problems


def _checker_problems(parts: tuple[Part, ...], checkers: set[str]) -> list[str]:
    """Every written checker a part names is registered, and every registered one is used."""
    problems = []
    for p in parts:
        if p.kind == "written" and p.checker and p.checker not in checkers:
            problems.append(f"line {p.line}: written part {p.id!r} names checker {p.checker!r}, which is not "
                            f"registered by the assignment; use one of {sorted(checkers)}")
    used = {p.checker for p in parts if p.kind == "written"}
    for name in sorted(checkers - used):
        problems.append(f"written checker {name!r} is registered by the assignment but no written part "
                        "uses it; add checker: and auto: to its question's line under 'parts:'")
    return problems
