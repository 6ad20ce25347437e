"""`grader kit`: the student kit, a zip that is the folder a student works in.

Unzipped, it holds the starter files of ``student_template/`` and what ``pip install .`` needs to
install a ``grader`` command (``grader check``) that runs the visible code checks on the student's
laptop without the reference: the kit's packages are a subset of the repository's own modules
(:func:`kit_modules`: the framework's engine, sandbox and worker, the assignment's checks and
probes), so the kit and
``grader check`` judge with the same code. What the checks ask of the reference is recorded
here, at build time, for a few seeds (``grader/run/replay.py``), and answered from that table in the
kit. Never shipped: ``reference/``, the grader's own correct PartialParse and minibatch_parse
(the assignment's ``KIT_NEVER``), the written answers' checkers (they hold the answer key), and the
code of checks students may not see (removed from their modules by ``strip_checks``).
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import tempfile
import time
import tomllib
import zipfile
from collections.abc import Callable, Iterable, Sequence
from importlib.metadata import version as dist_version
from pathlib import Path
from typing import Any

import yaml

from grader import assignment
from grader.cli_options import KIT_SEEDS
from grader.common import paths
from grader.reports.student import auto_points, course_points
from grader.run.check_api import all_checks
from grader.run.engine import grade
from grader.run.replay import RecordingRef
from grader.run.rubric import load_rubric
from grader.run.settings import GradingSettings
from grader.testfile_registry import KIT_TESTS
from grader.testfiles import kit as test_kit

#: The framework's modules the kit ships (paths from the repository's root); with the assignment's
#: (its registry's ``KIT_MODULES``), nothing else goes in: see :func:`kit_modules`.
FRAMEWORK_KIT_MODULES = (
    "grader/__init__.py", "grader/assignment.py", "grader/check_command.py", "grader/cli_output.py",
    "grader/cli_options.py",
    "grader/kit/__init__.py", "grader/kit/kit_command.py",
    "grader/common/__init__.py", "grader/common/numerics.py", "grader/common/paths.py", "grader/common/shown.py",
    "grader/run/__init__.py", "grader/run/budget.py", "grader/run/check_api.py", "grader/run/compare.py",
    "grader/run/engine.py", "grader/run/replay.py",
    "grader/run/results.py", "grader/run/rubric.py", "grader/run/rubric_model.py", "grader/run/rubric_schema.py",
    "grader/run/settings.py", "grader/run/settle.py", "grader/run/submission.py", "grader/run/text_encoding.py", "grader/run/workers.py",
    "grader/run/written_inputs.py",
    "grader/reports/__init__.py", "grader/reports/jsonout.py", "grader/reports/student.py",
    "grader/sandbox/frames.py", "grader/sandbox/portable.py", "grader/sandbox/runner.py", "grader/sandbox/sweep.py",
    "grader/untrusted/__init__.py", "grader/untrusted/probes.py", "grader/untrusted/wire.py", "grader/untrusted/worker.py",
    "grader/untrusted/probes_testfiles.py",
    # the test-file assignment (rubric.yaml's tests:), which the door and the rubric reach for any course
    "grader/testfiles/__init__.py", "grader/testfile_registry.py", "grader/run/course_tests.py",
    "grader/testfiles/checks.py", "grader/testfiles/outcome.py",
)
#: Never in the kit, whatever the lists say (a test checks both), with the assignment's ``KIT_NEVER``.
#: The Linux sandbox stays out too: the kit runs student code with the portable runner on every system.
FRAMEWORK_NEVER = ("grader/cli.py", "grader/package/", "grader/kit/assemble.py", "grader/classroom/", "grader/reading/",
                   "grader/sandbox/worker_process.py", "grader/sandbox/isolation.py", "grader/sandbox/confine.py")
#: The kit's grader/sandbox/__init__.py (the repository's imports the Linux sandbox).
KIT_SANDBOX_INIT = '''"""The student kit's process boundary: runner.py (the interface), frames.py, portable.py."""
'''


def kit_modules() -> tuple[str, ...]:
    """Every module the kit ships: the framework's and the assignment's (paths from the repository's root)."""
    return FRAMEWORK_KIT_MODULES + tuple(assignment.registry().KIT_MODULES)


def never_shipped() -> tuple[str, ...]:
    """Paths (a trailing / for a folder) that never go into the kit."""
    return FRAMEWORK_NEVER + tuple(assignment.registry().KIT_NEVER)


def not_recorded() -> frozenset[str]:
    """Visible checks whose expected values are not recorded (they never ask the reference)."""
    value = assignment.registry().KIT_NOT_RECORDED     # a frozenset of its own kind may hold every id
    return value if isinstance(value, frozenset) else frozenset(value)


def kit_stripped() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    """Module path -> (functions made stubs, names emptied) in the kit's copy: the assignment's
    bug-shape catalogues and the near-solution formulas they compute (``KIT_STRIPPED``)."""
    return dict(assignment.registry().KIT_STRIPPED)


#: The course's packages and the grader's own that the kit installs (from pyproject's lines). Not
#: torch: the kit runs in the student's course environment, whose torch it must never replace (a
#: pinned torch makes pip fetch a multi-GB CUDA build on Linux); `grader check` says when it is missing.
KIT_REQUIREMENTS = ("numpy", "tqdm", "matplotlib", "pyyaml", "click", "rich")
DEFAULT_SEEDS = KIT_SEEDS
Progress = Callable[[str], None]


class KitError(RuntimeError):
    """The kit cannot be built (e.g. a solution line would go in)."""


def strip_checks(source: str, keep: Iterable[str]) -> str:
    """``source`` without the functions registered with ``@check("id", ...)`` for ids not in ``keep``."""
    keep = set(keep)
    lines = source.splitlines(keepends=True)
    drop: list[tuple[int, int]] = []
    for node in ast.parse(source).body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for deco in node.decorator_list:
            if (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) and deco.func.id == "check"
                    and deco.args and isinstance(deco.args[0], ast.Constant) and deco.args[0].value not in keep):
                start = min(d.lineno for d in node.decorator_list)
                drop.append((start - 1, node.end_lineno or node.lineno))
    for start, end in sorted(drop, reverse=True):
        del lines[start:end]
    return "".join(lines)


def strip_solution_math(source: str, stubs: dict[str, str], emptied: dict[str, str]) -> str:
    """``source`` with each top-level function named in ``stubs`` replaced by a stub returning its
    value, and each top-level assignment to a name in ``emptied`` replaced by that value; a name
    listed but not found is an error (the kit must not keep it by a rename)."""
    lines = source.splitlines(keepends=True)
    swaps: list[tuple[int, int, str]] = []
    found: set[str] = set()
    for node in ast.parse(source).body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        end = node.end_lineno or node.lineno
        if isinstance(node, ast.FunctionDef) and node.name in stubs:
            found.add(node.name)
            swaps.append((start, end, f"def {node.name}(*_args: Any, **_kwargs: Any) -> Any:\n"
                                      f"    return {stubs[node.name]}  # the full grader only\n"))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [tg.id for tg in targets if isinstance(tg, ast.Name) and tg.id in emptied]
            if names:
                found.update(names)
                swaps.append((start, end, f"{names[0]}: Any = {emptied[names[0]]}  # the full grader only\n"))
    missing = (set(stubs) | set(emptied)) - found
    if missing:
        raise KitError(f"names to strip from the kit were not found: {sorted(missing)}")
    for start, end, text in sorted(swaps, reverse=True):
        lines[start:end] = [text]
    out = "".join(lines)
    if "from typing import" not in out or " Any" not in out.split("from typing import", 1)[1].splitlines()[0]:
        out = out.replace("from __future__ import annotations\n", "from __future__ import annotations\n\n"
                          "from typing import Any\n", 1)
    return out


def kit_rubric(text: str) -> tuple[str, float]:
    """The rubric as the kit ships it, and the autograder's points of the whole assignment: the
    checks students may not see yet are left out (their names and points too), and each code
    part's points lose theirs, so that the copy still loads. The rubric's entries are one flow
    mapping a line; the result is proven to parse to exactly the filtered rubric."""
    full = yaml.safe_load(text)
    rubric = load_rubric(paths.RUBRIC_PATH, registered=set(all_checks()))
    hidden = {s.id: s for s in rubric.checks if not s.student_visible}
    less: dict[str, float] = {}
    for spec in hidden.values():
        less[spec.part] = less.get(spec.part, 0.0) + spec.points
    out = []
    for line in text.splitlines(keepends=True):
        entry = line.strip()
        if entry.startswith("- {"):
            item = yaml.safe_load(entry)[0]
            if item.get("id") in hidden and "kind" not in item:    # a check's line (a test's may hold only its id)
                continue
            if item.get("id") in less and item.get("kind") == "code":
                new = item["points"] - less[item["id"]]
                line = line.replace(f"points: {item['points']},", f"points: {new:g},", 1)
        out.append(line)
    result = "".join(out)
    expected = dict(full)
    expected["checks"] = [c for c in full["checks"] if c["id"] not in hidden]
    expected["parts"] = [{**p, "points": p["points"] - less[p["id"]]} if p["id"] in less else p
                         for p in full["parts"]]
    if yaml.safe_load(result) != expected:
        raise KitError("the rubric's copy for the kit does not parse to the rubric without its held-back "
                       "checks (is an entry written over several lines?)")
    return result, auto_points(rubric)


def _rubric_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def recording_set(corpus: bool = True) -> list[Path]:
    """The submissions graded to gather the reference's answers: the reference's files and the
    template (both branches of most checks), and the known-bug corpus of the tests (the branches
    a check takes only when a function is wrong, e.g. negative sampling on a wrong sigmoid)."""
    found = [paths.REFERENCE_DIR, paths.TEMPLATE_DIR]
    buggy = paths.REPO_ROOT / "tests" / "submissions" / "buggy"
    if corpus and buggy.is_dir():
        found += sorted(p for p in buggy.iterdir() if p.is_dir() and any(p.glob("*.py")))  # code bugs only
    return found


def record(seeds: Sequence[int], submissions: Sequence[Path], progress: Progress | None = None) -> dict[str, Any]:
    """The reference's answers to every question the visible checks ask, for each seed, gathered
    by grading each of ``submissions`` (see ``recording_set``) with a recording ``ctx.ref``; a
    submission holding only some of the files is graded on the checks of those files only."""
    registry = all_checks()
    rubric = load_rubric(registered=set(registry))
    ids = [s.id for s in rubric.checks if s.student_visible and s.id not in not_recorded()]
    if not ids:      # the visible checks ask the reference nothing (a test-file assignment's tests)
        return {"seeds": list(seeds), "modules": [], "checks": {}, "conflicts": 0}
    reference = assignment.registry().load_reference()
    checks: dict[str, dict[str, dict[str, Any]]] = {cid: {str(s): {} for s in seeds} for cid in ids}
    conflicts = 0
    for seed in seeds:
        for submission in submissions:
            books: list[tuple[str, RecordingRef]] = []

            def provider(check_id: str, _seed: int, books: list[tuple[str, RecordingRef]] = books) -> RecordingRef:
                rec = RecordingRef(reference)
                books.append((check_id, rec))
                return rec

            t0 = time.monotonic()
            present = {p.name for p in submission.iterdir()}
            wanted = [cid for cid in ids if set(registry[cid].files) <= present]
            grade(submission, GradingSettings(rubric=rubric, seed=seed, visible_only=True, only=wanted,
                                              ref_provider=provider, include_written=False))
            for check_id, rec in books:
                table = checks[check_id][str(seed)]
                for key, value in rec.table.items():
                    if key in table and table[key] != value:
                        table[key] = "conflict"
                        conflicts += 1
                    else:
                        table[key] = value
            if progress:
                progress(f"recorded seed {seed} on {submission.name} ({time.monotonic() - t0:.1f} s)")
    modules = assignment.registry().reference_modules()
    return {"seeds": list(seeds), "modules": modules, "checks": checks, "conflicts": conflicts}


def _kit_pyproject(version: str) -> str:
    framework = paths.REPO_ROOT if (paths.REPO_ROOT / "pyproject.toml").is_file() else paths.INSTALL_ROOT
    project = tomllib.loads((framework / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    deps = [d for d in project["dependencies"]
            if d.split("=")[0].split(">")[0].split("<")[0].split("[")[0].strip().lower()
            in (*KIT_REQUIREMENTS, *getattr(assignment.registry(), "KIT_REQUIRES", ()))]
    tops = sorted({rel.split("/", 1)[0] for rel in kit_modules()})
    course = assignment.registry()
    # hatchling builds the wheel straight from the folder: `pip install .` leaves no build/ or
    # *.egg-info in the student's working folder (setuptools leaves both).
    return "\n".join([
        "# The student kit's package: `pip install .` here installs the `grader` command.",
        "[build-system]", 'requires = ["hatchling>=1.18"]', 'build-backend = "hatchling.build"', "",
        "[project]", f'name = "{course.KIT_DIST}"', f'version = "{version}"',
        f'description = "{course.KIT_DESCRIPTION}"',
        'requires-python = ">=3.11"', "dependencies = [" + ", ".join(json.dumps(d) for d in deps) + "]", "",
        "[project.scripts]", 'grader = "grader.kit.kit_command:main"', "",
        "[tool.hatch.build.targets.wheel]", "packages = " + json.dumps(tops),
        'exclude = ["**/__pycache__", "**/*.pyc"]', "",
    ])




def _copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "saved_params_*", "results"))


def stage_kit(root: Path, recorded: dict[str, Any], version: str) -> Path:
    """Lay the kit's folder out under ``root``; returns it."""
    rubric = load_rubric(registered=set(all_checks()))
    visible = {s.id for s in rubric.checks if s.student_visible}
    kit = root / assignment.registry().KIT_FOLDER
    _copy_tree(paths.TEMPLATE_DIR, kit)
    source = paths.INSTALL_ROOT
    stripped = kit_stripped()
    for rel in kit_modules():
        if any(rel == never or (never.endswith("/") and rel.startswith(never)) for never in never_shipped()):
            raise KitError(f"{rel} is in the kit's modules but must never ship")
        text = (source / rel).read_text(encoding="utf-8")
        if not rel.startswith("grader/"):     # the assignment's: its held-back checks stay behind
            text = strip_checks(text, visible)
        if rel in stripped:
            text = strip_solution_math(text, *stripped[rel])
        target = kit / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (kit / "grader" / "sandbox" / "__init__.py").write_text(KIT_SANDBOX_INIT, encoding="utf-8")
    data = kit / "grader" / "kit_data"
    _copy_tree(paths.TEMPLATE_DIR, data / "starter")
    rubric_text, total = kit_rubric(paths.RUBRIC_PATH.read_text(encoding="utf-8"))
    (data / "rubric.yaml").write_text(rubric_text, encoding="utf-8")
    if hasattr(assignment.registry(), "TESTS"):     # a test-file assignment: its visible tests and their list
        test_kit.stage(data / KIT_TESTS, visible)
    (data / "replay.json").write_text(json.dumps(recorded, separators=(",", ":")), encoding="utf-8")
    info = {"version": version, "rubric_sha256": _rubric_digest(paths.RUBRIC_PATH),
            "built": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seeds": recorded["seeds"],
            "auto_points": total, "course_points": course_total()}
    (data / "kit.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    (kit / "KIT.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    (kit / "pyproject.toml").write_text(_kit_pyproject(version), encoding="utf-8")
    (kit / "KIT_README.md").write_text(assignment.registry().KIT_README.rstrip("\n") + "\n\n" + upload_section(),
                                       encoding="utf-8")
    return kit


def course_total() -> float:
    """The whole assignment's points (the kit's rubric copy lacks the held-back checks' points)."""
    return course_points(load_rubric(paths.RUBRIC_PATH))


def upload_section(code: Sequence[str] | None = None, written: Sequence[str] | None = None,
                   support: Sequence[str] | None = None) -> str:
    """KIT_README's last section: which files to upload, from the assignment's own lists (or those
    given): the code, the written part's file if the course has one, never the support folders."""
    code = assignment.student_files() if code is None else code
    written = assignment.written_files() if written is None else written
    support = assignment.support_dirs() if support is None else support
    own = ", ".join(f"`{top}/`" for top in sorted({rel.split("/", 1)[0] for rel in kit_modules()}))
    files = ", ".join(f"`{name}`" for name in code)
    answers = f",\nand your written answers, `{written[0]}`" if written else ""
    kept = "".join(f"`{d}/`, " for d in support)
    return (f"## What to upload\n\nUpload these files, as they are in this folder (not in a sub-folder): "
            f"{files}{answers}.\nDo not upload {kept}the kit's own files\n"
            f"({own}, `pyproject.toml`, `KIT.json`, this README): the grader uses its own copies.\n")


def build_kit(out: Path, *, seeds: Sequence[int] = DEFAULT_SEEDS, progress: Progress | None = None,
              corpus: bool = True) -> Path:
    """Record, stage and zip the kit to ``out`` (``corpus=False``: record on the reference and the
    template only, faster, and fewer wrong answers judged in full)."""
    recorded = record(seeds, recording_set(corpus), progress)
    with tempfile.TemporaryDirectory(prefix="a2kit-") as tmp:
        kit = stage_kit(Path(tmp), recorded, dist_version("a2grader"))
        out.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(kit.rglob("*")):
                if path.is_file():
                    zf.write(path, path.relative_to(Path(tmp)).as_posix())
    return out
