"""Turn an upload (a folder or a .zip) into the private folder student code runs in.

The run folder holds the support files (``utils/``, ``data/``) copied from the student
template, overlaid with the student's own files. It never contains the reference, the rubric
or anything of the grader's. Zip archives are unpacked defensively: absolute paths, ``..``
entries and links are refused, and sizes are capped.
"""

from __future__ import annotations

import shutil
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from grader.paths import STUDENT_FILES, SUPPORT_DIRS, TEMPLATE_DIR, WRITTEN_FILES

MAX_ZIP_ENTRIES = 2000
MAX_UNPACKED_BYTES = 200 * 1024 * 1024
MAX_STUDENT_FILE_BYTES = 5 * 1024 * 1024
IGNORED_NAMES = {"__MACOSX", ".DS_Store", "__pycache__"}


class SubmissionError(ValueError):
    """The upload cannot be graded at all (not a folder or zip, or an unsafe archive)."""


@dataclass(frozen=True)
class PreparedSubmission:
    run_dir: Path                 # where the worker runs: support files + student files
    present: tuple[str, ...]      # student files found
    missing: tuple[str, ...]      # student files not found
    notes: tuple[str, ...]        # things worth telling (skipped files, nested folder...)
    written: tuple[Path, ...]     # written answers (answers.md, *.tex) in the upload


def _check_member(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    path = PurePosixPath(name)
    if name.startswith("/") or (len(name) > 1 and name[1] == ":") or "\\" in name:
        return f"{name!r} is an absolute path"
    if ".." in path.parts:
        return f"{name!r} leaves the archive's folder ('..')"
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return f"{name!r} is a symbolic link"
    return None


def unpack_zip(archive: Path, dest: Path) -> list[str]:
    """Extract ``archive`` into ``dest`` after validating every entry; return notes."""
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SubmissionError(f"{archive.name} is not a readable zip archive ({exc})") from None
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ZIP_ENTRIES:
            raise SubmissionError(f"{archive.name} has {len(infos)} entries; the limit is {MAX_ZIP_ENTRIES}")
        problems = [p for p in map(_check_member, infos) if p]
        if problems:
            raise SubmissionError(f"{archive.name} was refused: " + "; ".join(problems[:5]))
        total = sum(i.file_size for i in infos)
        if total > MAX_UNPACKED_BYTES:
            raise SubmissionError(f"{archive.name} unpacks to {total} bytes; the limit is "
                                  f"{MAX_UNPACKED_BYTES} (remove data files and checkpoints)")
        written = 0
        for info in infos:
            target = dest / info.filename
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, open(target, "wb") as out:
                # Count real bytes: the header's file_size can lie (zip bombs).
                while chunk := src.read(1 << 20):
                    written += len(chunk)
                    if written > MAX_UNPACKED_BYTES:
                        raise SubmissionError(f"{archive.name} unpacks to more than "
                                              f"{MAX_UNPACKED_BYTES} bytes; refused")
                    out.write(chunk)
    return []


def _find_root(folder: Path) -> tuple[Path, list[str]]:
    """The folder holding the student's files: ``folder`` or its single nested top folder."""
    wanted = set(STUDENT_FILES) | set(WRITTEN_FILES)
    entries = [p for p in folder.iterdir() if p.name not in IGNORED_NAMES]
    if any(p.name in wanted for p in entries):
        return folder, []
    dirs = [p for p in entries if p.is_dir() and not p.is_symlink()]
    files = [p for p in entries if p.is_file()]
    if len(dirs) == 1 and not any(f.suffix == ".py" for f in files):
        return dirs[0], [f"files were read from the folder {dirs[0].name}/ inside the upload"]
    return folder, []


def prepare(upload: Path, workdir: Path) -> PreparedSubmission:
    """Build the run folder for ``upload`` inside ``workdir`` (a fresh private folder)."""
    upload = Path(upload)
    notes: list[str] = []
    if upload.is_file() and upload.suffix.lower() == ".zip":
        unpacked = workdir / "upload"
        unpacked.mkdir()
        notes += unpack_zip(upload, unpacked)
        source = unpacked
    elif upload.is_dir():
        source = upload
    else:
        raise SubmissionError(f"{upload} is neither a folder nor a .zip file; pass the folder "
                              "with your .py files or a zip of it")
    root, found_notes = _find_root(source)
    notes += found_notes

    run_dir = workdir / "run"
    run_dir.mkdir()
    for name in SUPPORT_DIRS:
        shutil.copytree(TEMPLATE_DIR / name, run_dir / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    present, missing = [], []
    for name in STUDENT_FILES:
        src = root / name
        if src.is_file() and not src.is_symlink():
            if src.stat().st_size > MAX_STUDENT_FILE_BYTES:
                notes.append(f"{name} is larger than {MAX_STUDENT_FILE_BYTES} bytes and was not graded")
                missing.append(name)
                continue
            shutil.copyfile(src, run_dir / name)
            present.append(name)
        else:
            if src.is_symlink():
                notes.append(f"{name} is a symbolic link and was ignored")
            missing.append(name)
    for support in SUPPORT_DIRS:
        if (root / support).exists():
            notes.append(f"your {support}/ folder was ignored: the grader provides its own copy")
    written = tuple(p for p in sorted(root.iterdir())
                    if p.is_file() and not p.is_symlink() and (p.name in WRITTEN_FILES or p.suffix == ".tex"))
    return PreparedSubmission(run_dir, tuple(present), tuple(missing), tuple(notes), written)
