"""rubric.yaml: points, visibility and limits of every check, parsed once into typed objects.

The rubric is the one source of truth for scoring: check functions never hold points. Loading
validates every entry and reports problems with the line they are on and how to fix them.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader.common.paths import RUBRIC_PATH
from grader.run.rubric_schema import unknown_keys

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
#: Gradescope never shows a ``hidden`` test to students but adds its points to the total they see
#: (its specification keeps ``hidden`` for tests worth no points), so a hidden check with points
#: would give its verdict away; these keep a check secret until the deadline or publication.
SECRET_VISIBILITIES = ("after_due_date", "after_published")
PART_KINDS = ("code", "written")
DEFAULT_EXPLANATION = "after_due_date"
"""When students see a written item's explanation if rubric.yaml's defaults name none."""
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 1800.0
GRADESCOPE_TIMEOUT_S = 600.0
"""Gradescope's default autograder timeout (the assignment's Autograder Settings): 10 minutes."""
BUDGET_MARGIN_S = 60.0
"""Kept from the container's timeout for starting the grader, the sandbox's set-up and writing results."""
DEFAULT_BUDGET_S = GRADESCOPE_TIMEOUT_S - BUDGET_MARGIN_S
"""The time one grading may take when rubric.yaml states no ``budget``."""
MAX_BUDGET_S = 6 * 3600.0


class RubricError(ValueError):
    """rubric.yaml is malformed; the message lists every problem with its line."""

    def __init__(self, path: Path, problems: list[str]):
        self.problems = problems
        if len(problems) == 1:       # one problem, one line
            super().__init__(f"{path}, {problems[0]}" if problems[0].startswith("line ") else f"{path}: {problems[0]}")
        else:
            super().__init__(f"{path}: {len(problems)} problems:\n" + "\n".join(f"  {p}" for p in problems))


@dataclass(frozen=True)
class Part:
    """An assignment part (a code file's share or a written question) and its points.

    A written part's ``auto`` points are graded by its written ``checker`` (a2/written/);
    the rest (``manual_points``) is listed for TAs and never counted by the autograder.
    """

    id: str
    kind: str
    points: float
    name: str
    files: tuple[str, ...] = ()
    number: str = ""
    auto: float = 0.0
    checker: str = ""
    visibility: str = "visible"
    timeout: float = DEFAULT_TIMEOUT
    partial: bool = True
    line: int = 0
    explanation: str = DEFAULT_EXPLANATION
    """Who sees the auto share's explanation (what is wrong, the expected form: it implies the key) and
    when; the verdict itself has ``visibility``."""

    @property
    def manual_points(self) -> float:
        return round(self.points - self.auto, 6)

    @property
    def manual_number(self) -> str:
        """Gradescope number of the TA-graded share: the part's own, or ``<number>.1`` after an auto share."""
        return f"{self.number}.1" if self.auto > 0 else self.number


@dataclass(frozen=True)
class CheckSpec:
    """What one scored item is worth and who sees it: a code check's rubric line, or the
    auto-graded share of a written question (``kind="written"``, graded by its ``checker``;
    made by :func:`written_check` when the rubric is loaded)."""

    id: str
    part: str
    name: str
    number: str
    points: float
    visibility: str
    timeout: float
    partial: bool
    line: int = 0
    kind: str = "code"
    checker: str = ""
    tags: tuple[str, ...] = ()  # more tags for Gradescope (a test file's ``@tags``, or the line's ``tags``)
    charge: str = "once"  # "each": always its own loss (grader.run.settle.settle_dependencies)

    @property
    def student_visible(self) -> bool:
        """Whether `grader check` (students, locally) runs this check."""
        return self.visibility == "visible"


AUTO_GRADED = " (auto-graded)"
"""Added to a written question's name for its auto-graded share."""


def written_check(part: Part) -> CheckSpec | None:
    """The auto-graded share of a written part as a check spec (None when it has none)."""
    if part.kind != "written" or part.auto <= 0:
        return None
    return CheckSpec(part.id, part.id, part.name + AUTO_GRADED, part.number, part.auto, part.visibility,
                     part.timeout, part.partial, part.line, kind="written", checker=part.checker)


@dataclass(frozen=True)
class Rubric:
    """The parsed rubric: ``checks`` are the code checks' lines, ``written_checks`` the auto-graded
    shares of written questions (derived from ``parts``); both are scored the same way."""

    parts: tuple[Part, ...]
    checks: tuple[CheckSpec, ...]
    path: Path = field(default=RUBRIC_PATH)
    budget: float = DEFAULT_BUDGET_S
    """Seconds one whole grading may take (``budget:``); see :mod:`grader.run.budget`."""
    written_checks: tuple[CheckSpec, ...] = field(init=False)

    def __post_init__(self) -> None:
        specs = (written_check(part) for part in self.parts)
        object.__setattr__(self, "written_checks", tuple(spec for spec in specs if spec is not None))

    def check(self, check_id: str) -> CheckSpec:
        for spec in self.checks + self.written_checks:
            if spec.id == check_id:
                return spec
        raise KeyError(check_id)

    def part(self, part_id: str) -> Part:
        for part in self.parts:
            if part.id == part_id:
                return part
        raise KeyError(part_id)

    @property
    def code_points(self) -> float:
        return sum(p.points for p in self.parts if p.kind == "code")

    @property
    def written(self) -> tuple[Part, ...]:
        return tuple(p for p in self.parts if p.kind == "written")


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


PART_KEYS = {"id", "kind", "points", "name", "files", "number", "auto", "checker", "visibility",
             "timeout", "partial", "explanation"}
WRITTEN_ONLY_KEYS = {"number", "auto", "checker", "visibility", "timeout", "partial", "explanation"}
_NUMBER = re.compile(r"^[0-9]+(\.[0-9]+)*$")


def _written_part(entry: dict[str, Any], where: str, defaults: tuple[Any, ...],
                  problems: list[str]) -> dict[str, Any]:
    """Validate a written part's grading keys; return the Part fields they give."""
    pid = entry["id"]
    d_timeout, d_visibility, d_partial, d_explanation = defaults
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
    fields["visibility"] = _visibility(entry, d_visibility, where, f"written part {pid!r}", auto, problems)
    explanation = entry.get("explanation", d_explanation)
    if explanation not in VISIBILITIES:
        problems.append(f"{where}: written part {pid!r} has explanation {explanation!r}; use one of "
                        f"{', '.join(VISIBILITIES)} (when students see what is wrong and the expected form)")
    fields["explanation"] = str(explanation)
    fields["timeout"] = _timeout(entry, d_timeout, where, f"written part {pid!r}", problems)
    partial = entry.get("partial", d_partial)
    if not isinstance(partial, bool):
        problems.append(f"{where}: written part {pid!r} has partial {partial!r}; use true (points in "
                        "proportion to items right) or false (all or nothing)")
    fields["partial"] = bool(partial)
    return fields


def load_rubric(path: Path = RUBRIC_PATH, registered: set[str] | None = None,
                checkers: set[str] | None = None) -> Rubric:
    """Parse and validate ``path``.

    ``registered`` (check ids that exist in code) and ``checkers`` (written checker names) are
    cross-checked when given.
    """
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise RubricError(path, [f"not valid YAML: {exc}"]) from None
    if not isinstance(data, dict):
        raise RubricError(path, ["the top level must be a mapping with keys 'defaults', 'parts', 'checks'"])
    problems = unknown_keys(data, node)      # the schema first: a misspelt key is never ignored
    if problems:
        raise RubricError(path, problems)
    budget = data.get("budget", DEFAULT_BUDGET_S)
    if not _number(budget) or not 0 < budget <= MAX_BUDGET_S:
        problems.append(f"budget is {budget!r}; use the seconds one grading may take, in (0, {MAX_BUDGET_S:g}] "
                        f"(Gradescope's default timeout {GRADESCOPE_TIMEOUT_S:g} s less a margin: {DEFAULT_BUDGET_S:g})")
        budget = DEFAULT_BUDGET_S

    part_lines, check_lines = _lines(node, "parts"), _lines(node, "checks")
    if "tests" in data:      # a test-file assignment: its tests make the lines rubric.yaml does not write out
        from grader.testfiles.tests import with_tests  # noqa: PLC0415 - a test-file assignment only

        data, part_lines, check_lines = with_tests(data, part_lines, check_lines, problems)
    defaults = data.get("defaults") or {}
    d_timeout = defaults.get("timeout", DEFAULT_TIMEOUT)
    d_visibility = defaults.get("visibility", "visible")
    d_partial = defaults.get("partial", True)
    d_explanation = defaults.get("explanation", DEFAULT_EXPLANATION)

    parts: list[Part] = []
    broken: set[str] = set()        # parts whose line has a problem, said once (not again for each check)
    for line, entry in zip(part_lines, data.get("parts") or []):
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
            fields = _written_part(entry, where, (d_timeout, d_visibility, d_partial, d_explanation), problems)
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

    checks: list[CheckSpec] = []
    lined, unsummed = set[str](), set[str]()   # one mistake, one problem: checks named, parts not summed
    for line, entry in zip(check_lines, data.get("checks") or []):
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
        points = entry["points"]
        if not _number(points) or points < 0:
            problems.append(f"{where}: check {cid!r} has points {points!r}; use a number >= 0")
            unsummed.add(str(entry["part"]))
            continue
        visibility = _visibility(entry, d_visibility, where, f"check {cid!r}", points, problems)
        timeout = _timeout(entry, d_timeout, where, f"check {cid!r}", problems)
        partial = entry.get("partial", d_partial)
        if not isinstance(partial, bool):
            problems.append(f"{where}: check {cid!r} has partial {partial!r}; use true (points "
                            "proportional to trials passed) or false (all or nothing)")
        tags, charge = entry.get("tags", []), entry.get("charge", "once")
        problems += [] if charge in ("once", "each") else [f"{where}: check {cid!r} has charge {charge!r}; use once or each"]
        checks.append(CheckSpec(str(cid), str(entry["part"]), str(entry["name"]), str(entry["number"]),
                                float(points), visibility, timeout, bool(partial), line,
                                tags=tuple(str(t) for t in tags) if isinstance(tags, list) else (str(tags),),
                                charge="each" if charge == "each" else "once"))

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

    if registered is not None:
        unlined = sorted(registered - set(ids) - lined)
        for c in checks:
            if c.id not in registered:
                close = difflib.get_close_matches(c.id, unlined, n=1, cutoff=0.75)
                if close:      # a typo: one problem, not two
                    unlined.remove(close[0])
                    problems.append(f"line {c.line}: check {c.id!r} is not registered by the assignment; did you mean "
                                    f"{close[0]!r} (registered, with no rubric line)? Fix the id")
                    continue
                problems.append(f"line {c.line}: check {c.id!r} is not registered by the assignment; "
                                "fix the id or write the check (see a2/checks/__init__.py)")
        for cid in unlined:
            problems.append(f"check {cid!r} is registered by the assignment but has no rubric line; "
                            "add it under 'checks:' with its points")

    if checkers is not None:
        for p in parts:
            if p.kind == "written" and p.checker and p.checker not in checkers:
                problems.append(f"line {p.line}: written part {p.id!r} names checker {p.checker!r}, which is not "
                                f"registered by the assignment; use one of {sorted(checkers)}")
        used = {p.checker for p in parts if p.kind == "written"}
        for name in sorted(checkers - used):
            problems.append(f"written checker {name!r} is registered by the assignment but no written part "
                            "uses it; add checker: and auto: to its question's line under 'parts:'")

    if problems:
        raise RubricError(path, problems)
    return Rubric(tuple(parts), tuple(checks), path, float(budget))
