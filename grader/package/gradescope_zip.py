"""Build the autograder zip that Gradescope expects (``grader package``).

Gradescope unpacks the zip into ``/autograder/source``, runs ``setup.sh`` there once, as root,
when it builds the grading image, and then, for every submission, runs ``run_autograder`` with
the student's files in ``/autograder/submission``; it reads ``/autograder/results/results.json``.

What goes in (an allowlist: tests/, .venv, .git and the rest of the repository never do):

    setup.sh            Python >= 3.11, a virtual environment readable by every user with
                        PyTorch's CPU build and the pinned requirements, the sandbox user
    run_autograder      grades the submission; writes a valid results.json whatever happens
    requirements.txt    gradescope/requirements.lock: every runtime dependency pinned, resolved for
                        the image (Linux x86_64, Python 3.11) by tools/lock_requirements.py
    grader/ reference/ student_template/ rubric.yaml pyproject.toml

Caches and run artifacts inside those folders are left out; large files are flagged; a copy of
the solution anywhere but ``reference/`` (the one folder the grader keeps from student code)
stops the build. ``plan_package`` says all of that without writing anything (``--check``).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from rich.console import Console
from rich.table import Table
from rich.text import Text

from grader import assignment
from grader.common.atomic import atomic_path
from grader.common.paths import INSTALL_ROOT, REPO_ROOT
from grader.package.scripts import (
    PackageError,
    pinned_requirements,
    requirements_txt,
    run_autograder,
    setup_sh,
    timeout_advice,
)
from grader.package.template import MD_BEGIN, PY_BEGIN
from grader.run.rubric import DEFAULT_BUDGET_S, RubricError, load_rubric

#: Folders and files of the repository that go into the zip, as they are, with the assignment's
#: package (the folder rubric.yaml's ``assignment:`` names): see :func:`package_dirs`.
PACKAGE_DIRS = ("grader", "reference", "student_template")
PACKAGE_FILES = ("rubric.yaml", "pyproject.toml")
#: The only folder allowed to hold the solution.
SOLUTION_DIR = "reference"
#: Folders whose files are compared with the solution by content only: the grader's own code
#: names the solution markers (the template generator), so a marker line there is no leak (the
#: assignment's package is exempt too).
MARKER_EXEMPT_DIRS = ("grader",)

KIB = 1024
MIB = 1024 * KIB
#: A file above this size is flagged (it still goes in): the bundled data is under 4 MiB, and
#: every megabyte is unpacked into every grading container.
LARGE_FILE_BYTES = 10 * MIB

#: Folder names never packaged: caches, and what running the code leaves behind.
SKIPPED_DIR_NAMES = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache",
                               ".ipynb_checkpoints", "results", ".git"})
#: File names never packaged (compiled files, editor litter, saved parameters of a run, the formula
#: parser's DFA a machine built for itself: setup.sh builds the image's own).
SKIPPED_FILE_PATTERNS = tuple(re.compile(p) for p in (
    r".*\.py[co]$", r"^\.DS_Store$", r".*~$", r".*\.sw[op]$",
    r"^saved_params_\d+\.npy$", r"^saved_state_\d+\.pickle$", r".*\.weights$", r"^formula_dfa\.pickle$"))

#: Permissions of the zip's entries (Gradescope runs setup.sh and run_autograder directly).
EXECUTABLE_MODE = 0o755
FILE_MODE = 0o644
#: Every entry gets this timestamp, so that the same tree always gives the same zip.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
GENERATED = ("setup.sh", "run_autograder", "requirements.txt")

Severity = Literal["left out", "warning", "error"]


@dataclass(frozen=True)
class Entry:
    """One file of the zip: its path there, its size, and where its bytes come from."""

    path: str
    size: int
    source: Path | None = None     # a repository file, or None for a generated one
    content: bytes = b""           # the bytes of a generated file
    executable: bool = False

    def data(self) -> bytes:
        return self.source.read_bytes() if self.source is not None else self.content


@dataclass(frozen=True)
class Finding:
    """Something about a file worth telling: left out, suspicious (warning) or fatal (error)."""

    path: str
    severity: Severity
    reason: str


@dataclass(frozen=True)
class PackagePlan:
    """What ``grader package`` would put in the zip, and what it noticed on the way."""

    root: Path
    entries: tuple[Entry, ...]
    findings: tuple[Finding, ...]
    budget: float = DEFAULT_BUDGET_S
    """rubric.yaml's budget for one grading, which run_autograder and the advice are made for."""

    @property
    def errors(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> tuple[Finding, ...]:
        return tuple(f for f in self.findings if f.severity == "warning")

    @property
    def ok(self) -> bool:
        """Whether the package can be built (no errors; warnings and left-out files are fine)."""
        return not self.errors

    @property
    def total_bytes(self) -> int:
        return sum(e.size for e in self.entries)


# -- choosing the files ------------------------------------------------------------------------


def _skipped_file(name: str) -> bool:
    return any(p.match(name) for p in SKIPPED_FILE_PATTERNS)


def _walk(root: Path, folder: str, entries: list[Entry], findings: list[Finding]) -> None:
    """Add the files of ``root/folder`` to ``entries``; note what is left out and why."""
    for current, dirs, files in os.walk(root / folder):
        here = Path(current)
        rel_dir = here.relative_to(root).as_posix()
        for name in sorted(dirs):
            if name in SKIPPED_DIR_NAMES or name.endswith(".egg-info"):
                findings.append(Finding(f"{rel_dir}/{name}/", "left out",
                                        "a cache or the output of a run"))
            elif (here / name).is_symlink():
                findings.append(Finding(f"{rel_dir}/{name}/", "left out", "a symbolic link"))
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIR_NAMES
                         and not d.endswith(".egg-info") and not (here / d).is_symlink())
        for name in sorted(files):
            path, rel = here / name, f"{rel_dir}/{name}"
            if _skipped_file(name):
                findings.append(Finding(rel, "left out", "a compiled file, editor file or saved run output"))
            elif path.is_symlink():
                findings.append(Finding(rel, "left out", "a symbolic link"))
            else:
                entries.append(Entry(rel, path.stat().st_size, source=path))


def _solution_digests(root: Path) -> dict[str, str]:
    """sha256 -> the solution file it belongs to (reference/'s student and answer files)."""
    digests = {}
    for name in (*assignment.student_files(), *assignment.written_files()):
        path = root / SOLUTION_DIR / name
        if path.is_file():
            digests[hashlib.sha256(path.read_bytes()).hexdigest()] = f"{SOLUTION_DIR}/{name}"
    return digests


def _has_marker(path: Path) -> int:
    """The first line (1-based) holding a solution marker, or 0."""
    if path.suffix not in (".py", ".md", ".tex", ".ipynb"):
        return 0
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return 0
    for number, line in enumerate(lines, 1):
        if PY_BEGIN.match(line) or MD_BEGIN.match(line):
            return number
    return 0


def _solution_findings(root: Path, entries: list[Entry]) -> list[Finding]:
    digests = _solution_digests(root)
    findings = []
    for entry in entries:
        top = PurePosixPath(entry.path).parts[0]
        if entry.source is None or top == SOLUTION_DIR:
            continue
        digest = hashlib.sha256(entry.source.read_bytes()).hexdigest()
        if digest in digests:
            findings.append(Finding(entry.path, "error", (
                f"a copy of the solution {digests[digest]} outside {SOLUTION_DIR}/, the only folder "
                "the grader keeps from student code; delete it")))
        elif top not in (*MARKER_EXEMPT_DIRS, *package_dirs(root)[len(PACKAGE_DIRS):]) and (line := _has_marker(entry.source)):
            findings.append(Finding(entry.path, "error", (
                f"line {line} is a solution marker: solution code outside {SOLUTION_DIR}/; "
                "regenerate student_template/ with `grader template` or delete the file")))
    return findings


def package_dirs(root: Path) -> tuple[str, ...]:
    """The folders that go into the zip: :data:`PACKAGE_DIRS` and the assignment's package, as named
    by ``root``/rubric.yaml (none when it names none: the missing rubric is a finding of its own)."""
    try:
        return (*PACKAGE_DIRS, *assignment.course_folders(root / "rubric.yaml"))
    except assignment.AssignmentError:
        return PACKAGE_DIRS


def _framework(root: Path) -> Path:
    """Where the framework's files (grader/, pyproject.toml, the lock) come from: the course's
    repository when it holds them, else the checkout this grader runs from (a course of its own)."""
    return root if (root / "grader").is_dir() else INSTALL_ROOT


def plan_package(root: Path = REPO_ROOT) -> PackagePlan:
    """What the zip of ``root`` would hold, and every finding; builds nothing."""
    root = Path(root)
    entries: list[Entry] = []
    findings: list[Finding] = []
    framework = _framework(root)
    for folder in package_dirs(root):
        home = framework if folder == "grader" else root
        if (home / folder).is_dir():
            _walk(home, folder, entries, findings)
        else:
            findings.append(Finding(f"{folder}/", "error", f"missing: the grader needs {folder}/ "
                                    f"(is {root} the repository's root?)"))
    for name in PACKAGE_FILES:
        path = (framework if name == "pyproject.toml" else root) / name
        if path.is_file():
            entries.append(Entry(name, path.stat().st_size, source=path))
        else:
            findings.append(Finding(name, "error", f"missing: the package needs {name}"))
    findings += [Finding(e.path, "warning", f"{e.size / MIB:.1f} MiB, above {LARGE_FILE_BYTES // MIB} "
                         "MiB: unpacked into every grading container; is it needed?")
                 for e in entries if e.size > LARGE_FILE_BYTES]
    findings += _solution_findings(root, entries)
    budget = DEFAULT_BUDGET_S
    try:
        budget = load_rubric(root / "rubric.yaml").budget
    except (OSError, RubricError) as exc:
        findings.append(Finding("rubric.yaml", "error", f"cannot be read: {exc}"))
    if (framework / "pyproject.toml").is_file():
        try:
            torch, _ = pinned_requirements(framework)
            generated = {"setup.sh": setup_sh(torch), "run_autograder": run_autograder(budget),
                         "requirements.txt": requirements_txt(framework)}
        except PackageError as exc:
            findings.append(Finding("requirements.txt", "error", str(exc)))
        else:
            for name, text in generated.items():
                data = text.encode("utf-8")
                entries.append(Entry(name, len(data), content=data,
                                     executable=name != "requirements.txt"))
    entries.sort(key=lambda e: (e.source is not None, e.path))
    return PackagePlan(root, tuple(entries), tuple(findings), budget)


# -- writing the zip ---------------------------------------------------------------------------


def _zip_info(entry: Entry) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(entry.path, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    mode = EXECUTABLE_MODE if entry.executable else FILE_MODE
    info.external_attr = (stat.S_IFREG | mode) << 16
    return info


def build_package(out: Path, *, root: Path = REPO_ROOT) -> PackagePlan:
    """Write the autograder zip to ``out`` (atomically); PackageError if the plan has errors."""
    plan = plan_package(root)
    if not plan.ok:
        raise PackageError("the package was not built:\n" + "\n".join(
            f"  {f.path}: {f.reason}" for f in plan.errors))
    with atomic_path(out, prefix=".autograder-", suffix=".zip") as tmp, zipfile.ZipFile(tmp, "w") as zf:
        for entry in plan.entries:
            zf.writestr(_zip_info(entry), entry.data())
    return plan


# -- telling the instructor --------------------------------------------------------------------

_SEVERITY_STYLE = {"left out": "dim", "warning": "yellow", "error": "red"}


def _size(n: int) -> str:
    return f"{n / MIB:.1f} MiB" if n >= MIB else f"{n / KIB:.1f} KiB" if n >= KIB else f"{n} B"


def render_plan(plan: PackagePlan, console: Console, *, list_files: bool) -> None:
    """Print the plan: every file when ``list_files``, then what was left out and why."""
    if list_files:
        table = Table(title=f"autograder.zip from {plan.root}", expand=False)
        table.add_column("file")
        table.add_column("size", justify="right", no_wrap=True)
        table.add_column("", no_wrap=True)
        for entry in plan.entries:
            table.add_row(entry.path, _size(entry.size),
                          "generated" + (", executable" if entry.executable else "")
                          if entry.source is None else "")
        console.print(table)
    console.print(f"{len(plan.entries)} files, {_size(plan.total_bytes)} before compression.")
    console.print(timeout_advice(plan.budget))
    for finding in plan.findings:
        if finding.severity == "left out" and not list_files:
            continue
        style = _SEVERITY_STYLE[finding.severity]
        console.print(Text(f"{finding.severity}: {finding.path}: {finding.reason}", style=style))
