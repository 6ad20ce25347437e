"""rubric.yaml: points, visibility and limits of every check, parsed once into typed objects.

The rubric is the one source of truth for scoring: check functions never hold points. Loading
validates every entry and reports problems with the line they are on and how to fix them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from grader.paths import RUBRIC_PATH

VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
PART_KINDS = ("code", "written")
DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 1800.0


class RubricError(ValueError):
    """rubric.yaml is malformed; the message lists every problem with its line."""

    def __init__(self, path: Path, problems: list[str]):
        self.problems = problems
        super().__init__(f"{path}: {len(problems)} problem(s):\n" + "\n".join(f"  {p}" for p in problems))


@dataclass(frozen=True)
class Part:
    """An assignment part (a code file's share or a written question) and its points."""

    id: str
    kind: str
    points: float
    name: str
    files: tuple[str, ...] = ()


@dataclass(frozen=True)
class CheckSpec:
    """One rubric line: how much a check is worth and who sees it."""

    id: str
    part: str
    name: str
    number: str
    points: float
    visibility: str
    timeout: float
    partial: bool
    line: int = 0

    @property
    def student_visible(self) -> bool:
        """Whether `grader check` (students, locally) runs this check."""
        return self.visibility == "visible"


@dataclass(frozen=True)
class Rubric:
    parts: tuple[Part, ...]
    checks: tuple[CheckSpec, ...]
    path: Path = field(default=RUBRIC_PATH)

    def check(self, check_id: str) -> CheckSpec:
        for spec in self.checks:
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


def load_rubric(path: Path = RUBRIC_PATH, registered: set[str] | None = None) -> Rubric:
    """Parse and validate ``path``; ``registered`` (check ids that exist in code) is cross-checked."""
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        raise RubricError(path, [f"not valid YAML: {exc}"]) from None
    if not isinstance(data, dict):
        raise RubricError(path, ["the top level must be a mapping with keys 'defaults', 'parts', 'checks'"])
    problems: list[str] = []
    unknown_top = set(data) - {"defaults", "parts", "checks"}
    if unknown_top:
        problems.append(f"unknown top-level key(s) {sorted(unknown_top)}; allowed: defaults, parts, checks")

    defaults = data.get("defaults") or {}
    d_timeout = defaults.get("timeout", DEFAULT_TIMEOUT)
    d_visibility = defaults.get("visibility", "visible")
    d_partial = defaults.get("partial", True)

    parts: list[Part] = []
    for line, entry in zip(_lines(node, "parts"), data.get("parts") or []):
        where = f"line {line}"
        if not isinstance(entry, dict) or not {"id", "kind", "points"} <= set(entry):
            problems.append(f"{where}: a part needs id, kind and points, e.g. "
                            "{id: word2vec, kind: code, points: 12, files: [word2vec.py]}")
            continue
        if entry["kind"] not in PART_KINDS:
            problems.append(f"{where}: part {entry['id']!r} has kind {entry['kind']!r}; use one of {PART_KINDS}")
        if not _number(entry["points"]) or entry["points"] < 0:
            problems.append(f"{where}: part {entry['id']!r} has points {entry['points']!r}; use a number >= 0")
            continue
        files = entry.get("files", [])
        files = (files,) if isinstance(files, str) else tuple(files)
        parts.append(Part(str(entry["id"]), entry["kind"], float(entry["points"]),
                          str(entry.get("name", entry["id"])), files))
    part_ids = [p.id for p in parts]
    for dup in sorted({p for p in part_ids if part_ids.count(p) > 1}):
        problems.append(f"part id {dup!r} appears more than once; part ids must be unique")

    allowed = {"id", "part", "name", "number", "points", "visibility", "timeout", "partial"}
    checks: list[CheckSpec] = []
    for line, entry in zip(_lines(node, "checks"), data.get("checks") or []):
        where = f"line {line}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: each check must be a mapping with id, part, name, number, points")
            continue
        cid = entry.get("id", "?")
        missing = [k for k in ("id", "part", "name", "number", "points") if k not in entry]
        if missing:
            problems.append(f"{where}: check {cid!r} is missing {', '.join(missing)}")
            continue
        extra = set(entry) - allowed
        if extra:
            problems.append(f"{where}: check {cid!r} has unknown key(s) {sorted(extra)}; "
                            f"allowed: {', '.join(sorted(allowed))}")
        if entry["part"] not in part_ids:
            problems.append(f"{where}: check {cid!r} names part {entry['part']!r}, which is not "
                            f"under 'parts:'; use one of {part_ids}")
        points = entry["points"]
        if not _number(points) or points < 0:
            problems.append(f"{where}: check {cid!r} has points {points!r}; use a number >= 0")
            continue
        visibility = entry.get("visibility", d_visibility)
        if visibility not in VISIBILITIES:
            problems.append(f"{where}: check {cid!r} has visibility {visibility!r}; "
                            f"use one of {', '.join(VISIBILITIES)}")
        timeout = entry.get("timeout", d_timeout)
        if not _number(timeout) or not 0 < timeout <= MAX_TIMEOUT:
            problems.append(f"{where}: check {cid!r} has timeout {timeout!r}; use seconds in (0, {MAX_TIMEOUT:g}]")
            continue
        partial = entry.get("partial", d_partial)
        if not isinstance(partial, bool):
            problems.append(f"{where}: check {cid!r} has partial {partial!r}; use true (points "
                            "proportional to trials passed) or false (all or nothing)")
        checks.append(CheckSpec(str(cid), str(entry["part"]), str(entry["name"]), str(entry["number"]),
                                float(points), str(visibility), float(timeout), bool(partial), line))

    ids = [c.id for c in checks]
    for dup in sorted({c for c in ids if ids.count(c) > 1}):
        problems.append(f"check id {dup!r} appears more than once; check ids must be unique")
    numbers = [c.number for c in checks]
    for dup in sorted({n for n in numbers if numbers.count(n) > 1}):
        problems.append(f"check number {dup!r} is used twice; Gradescope orders tests by number")

    for part in parts:
        if part.kind != "code":
            continue
        total = sum(c.points for c in checks if c.part == part.id)
        if abs(total - part.points) > 1e-9:
            problems.append(f"part {part.id!r} is worth {part.points:g} points but its checks add up "
                            f"to {total:g}; change the checks' points or the part's")

    if registered is not None:
        for c in checks:
            if c.id not in registered:
                problems.append(f"line {c.line}: check {c.id!r} is not registered in grader/checks; "
                                "fix the id or write the check (see grader/checks/__init__.py)")
        for cid in sorted(registered - set(ids)):
            problems.append(f"check {cid!r} is registered in grader/checks but has no rubric line; "
                            "add it under 'checks:' with its points")

    if problems:
        raise RubricError(path, problems)
    return Rubric(tuple(parts), tuple(checks), path)
