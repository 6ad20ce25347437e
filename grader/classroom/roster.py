"""Finding a class's submissions (``grader batch SUBMISSIONS``): one folder or .zip per
submission, or an unzipped Gradescope export, whose ``submission_metadata.yml`` gives names, SIDs
and emails."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from grader import assignment
from grader.classroom.gradebook import BatchError, Submission

METADATA_FILE = "submission_metadata.yml"
IGNORED_NAMES = frozenset({"__MACOSX", ".DS_Store"})


def _texts(values: Iterable[Any]) -> tuple[str, ...]:
    return tuple(str(v) for v in values if v not in (None, ""))


def _read_metadata(path: Path) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """Folder -> (names, sids, emails) from Gradescope's submission_metadata.yml."""
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BatchError(f"{path} cannot be read ({exc}); fix or remove it to grade the folders "
                         "without names") from None
    if not isinstance(doc, dict):
        raise BatchError(f"{path} should map each submission folder to its :submitters:, as "
                         f"Gradescope's export does; it holds a {type(doc).__name__}")
    people = {}
    for folder, entry in doc.items():
        submitters = entry.get(":submitters", []) if isinstance(entry, dict) else []
        submitters = [s for s in submitters if isinstance(s, dict)] if isinstance(submitters, list) else []
        people[str(folder)] = (_texts(s.get(":name") for s in submitters),
                               _texts(s.get(":sid") for s in submitters),
                               _texts(s.get(":email") for s in submitters))
    return people


def _looks_like_one_submission(folder: Path) -> bool:
    return any((folder / name).is_file() for name in assignment.student_files())


def discover(folder: Path, *, exclude: Path | None = None) -> list[Submission]:
    """The submissions in ``folder``: its sub-folders and .zip files, named from the metadata
    file when there is one (a folder the metadata lists but that is missing is kept: it grades
    as unreadable, so the class list stays complete)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise BatchError(f"{folder} is not a folder; pass the folder that holds one folder or .zip "
                         "per submission (or an unzipped Gradescope export)")
    if _looks_like_one_submission(folder):
        raise BatchError(f"{folder} holds the files of one submission; grade it with `grader grade "
                         f"{folder}`, or pass the folder that holds one folder or .zip per submission")
    excluded = exclude.resolve() if exclude is not None else None
    found: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.name in IGNORED_NAMES or path.name.startswith(".") or path.resolve() == excluded:
            continue
        if path.is_dir() or (path.is_file() and path.suffix.lower() == ".zip"):
            key = path.stem if path.is_file() else path.name
            while key in found:
                key += "_"
            found[key] = path
    metadata_path = folder / METADATA_FILE
    people = _read_metadata(metadata_path) if metadata_path.is_file() else {}
    for listed in people:
        if listed not in found:
            found[listed] = folder / listed
    submissions = [Submission(key, path, *people.get(key, ((), (), ())))
                   for key, path in sorted(found.items())]
    if not submissions:
        raise BatchError(f"no submissions in {folder}: expected one folder or .zip per submission")
    return submissions
