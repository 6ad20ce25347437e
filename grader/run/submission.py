"""Turn an upload (a folder or a .zip) into the private folder student code runs in.

The run folder holds the support files (``utils/``, ``data/``) copied from the student
template, overlaid with the student's own files. It never contains the reference, the rubric
or anything of the grader's. Zip archives are unpacked defensively: only the files the grader
reads (the student files and written answers, at the top level or in one folder) are
extracted; entries with absolute paths, ``..`` or links, and files over the size limit (counted
in real bytes, whatever the archive's header claims) are skipped with a note, so that one bad
entry costs only the part it holds and the rest is still graded.
"""

from __future__ import annotations

import shutil
import stat
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from grader import assignment
from grader.common.paths import TEMPLATE_DIR
from grader.run.written_inputs import MAX_WRITTEN_FILES

MAX_ZIP_ENTRIES = 2000
MAX_UNPACKED_BYTES = 200 * 1024 * 1024
"""Most bytes extracted from one archive, all files together."""
MAX_STUDENT_FILE_BYTES = 5 * 1024 * 1024
"""Largest student file (or written answer) that is graded."""
MAX_FOLDER_DEPTH = 2
"""Files are looked for at the top of an upload or in one folder inside it."""
READ_CHUNK_BYTES = 1 << 20
IGNORED_NAMES = {"__MACOSX", ".DS_Store", "__pycache__"}


class SubmissionError(ValueError):
    """The upload cannot be graded at all (not a folder or zip, or not a usable archive)."""


@dataclass(frozen=True)
class PreparedSubmission:
    run_dir: Path                 # where the worker runs: support files + student files
    present: tuple[str, ...]      # student files found
    missing: tuple[str, ...]      # student files not found (or refused: see refused)
    notes: tuple[str, ...]        # things worth telling (skipped files, nested folder...)
    written: tuple[Path, ...]     # written answers (answers.md, *.tex) in the upload
    refused: Mapping[str, str] = field(default_factory=dict)
    """Student files that were in the upload but are not graded, each with why (a clause:
    "sgd.py is 6000000 bytes; the limit is 5242880")."""


def _wanted(name: str) -> bool:
    """Whether the grader reads a file of this name (so it is worth extracting); a notebook of a
    student file is extracted only to be named in the feedback (:func:`_notebook_problem`)."""
    return (name in assignment.student_files() or assignment.is_written(name) or assignment.is_unread_written(name)
            or assignment.is_fallback_written(name) or name in notebooks())


def notebooks() -> dict[str, str]:
    """word2vec.ipynb -> word2vec.py: notebooks that students upload instead of the file."""
    return {name[:-3] + ".ipynb": name for name in assignment.student_files()}


def _notebook_problem(root: Path, name: str) -> str | None:
    """"found word2vec.ipynb: upload word2vec.py" when the upload has the notebook, not the file."""
    notebook = name[:-3] + ".ipynb"
    found = [p for p in (root.iterdir() if root.is_dir() else ()) if p.name.lower() == notebook.lower()]
    if not found:
        return None
    return (f"found {found[0].name}: upload {name} (the grader runs .py files, not notebooks; in Jupyter, "
            "File > Save and Export Notebook As > Executable Script)")


def _member_name(info: zipfile.ZipInfo) -> str:
    # Archives made on Windows may separate folders with backslashes.
    return info.filename.replace("\\", "/")


def _member_problem(info: zipfile.ZipInfo) -> str | None:
    """Why an archive entry must not be extracted, or None."""
    name = _member_name(info)
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return "it is an absolute path"
    if ".." in PurePosixPath(name).parts:
        return "it leaves the archive's folder ('..')"
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "it is a symbolic link"
    if stat.S_IFMT(mode) not in (0, stat.S_IFREG, stat.S_IFDIR):
        return "it is not a regular file"
    return None


def _too_big(name: str, size: int, *, declared: int | None = None) -> str:
    claim = f" (its header claimed {declared})" if declared is not None and declared != size else ""
    return f"{name} unpacks to more than {size} bytes{claim}; the limit is {MAX_STUDENT_FILE_BYTES}"


def _extract(zf: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, budget: int) -> int | None:
    """Copy one entry to ``target``, stopping past MAX_STUDENT_FILE_BYTES or ``budget`` real
    bytes; return the bytes written, or None (and no file) if it was too big."""
    limit = min(MAX_STUDENT_FILE_BYTES, budget)
    written = 0
    target.parent.mkdir(parents=True, exist_ok=True)
    with zf.open(info) as src, open(target, "wb") as out:
        while chunk := src.read(READ_CHUNK_BYTES):
            written += len(chunk)
            if written > limit:
                break
            out.write(chunk)
    if written > limit:
        target.unlink()
        return None
    return written


def unpack_zip(archive: Path, dest: Path) -> tuple[list[str], dict[str, str]]:
    """Extract the entries of ``archive`` that the grader reads into ``dest``.

    Return (notes, refused): a note per skipped entry, and the files (by their path in the
    archive) that were skipped because they are too large. Folders are recreated (two levels
    deep) so that the layout can still be recognised. Raise SubmissionError only when the
    archive cannot be read at all.
    """
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SubmissionError(f"{archive.name} is not a readable zip archive ({exc})") from None
    notes: list[str] = []
    refused: dict[str, str] = {}
    with zf:
        infos = zf.infolist()
        if len(infos) > MAX_ZIP_ENTRIES:
            raise SubmissionError(f"{archive.name} has {len(infos)} entries; the limit is "
                                  f"{MAX_ZIP_ENTRIES} (zip only your .py files and answers)")
        state = _Unpacking(MAX_UNPACKED_BYTES)
        groups: dict[str, list[zipfile.ZipInfo]] = {}
        for info in infos:
            groups.setdefault("/".join(PurePosixPath(_member_name(info)).parts), []).append(info)
        for key, entries in groups.items():
            # One name, several entries: the last that can be extracted is kept (unzip keeps the last).
            failures: list[tuple[str, str, str]] = []
            kept = 0
            for position in range(len(entries), 0, -1):
                kind, name, message = _unpack_entry(zf, entries[position - 1], dest, state, archive.name)
                if kind == "done":
                    kept = position
                    break
                failures.append((kind, name, message))
            if failures and not kept:
                kind, name, message = failures[0]
                if kind == "refused":
                    refused[name] = message
                else:
                    notes.append(message)
            if len(entries) > 1 and not entries[-1].is_dir():
                which = (f"entry {kept} of {len(entries)} was used (the last one that could be extracted)" if kept
                         else "none could be extracted")
                notes.append(f"{key} appears {len(entries)} times in {archive.name}; {which}")
    notes += [f"{reason}, so it was not graded" for reason in refused.values()]
    if state.skipped_written:
        notes.append(f"{archive.name} holds {state.written_entries + state.skipped_written} written files; only "
                     f"the first {MAX_WRITTEN_FILES} were extracted (the limit)")
    return notes, refused


@dataclass
class _Unpacking:
    budget: int
    written_entries: int = 0
    skipped_written: int = 0


def _unpack_entry(zf: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path, state: _Unpacking,
                  archive: str) -> tuple[str, str, str]:
    """Extract one entry if the grader reads it: ("done", name, "") when it was extracted or is not
    needed, ("refused", name, why) for a student file or written answer that was not extracted,
    ("note", name, note) for another entry that was skipped."""
    name = _member_name(info)
    problem = _member_problem(info)
    if problem:
        if _wanted(PurePosixPath(name).name):
            return "refused", name, f"{name} in {archive} was skipped: {problem}"
        return "note", name, f"{name!r} in {archive} was skipped: {problem}"
    parts = PurePosixPath(name).parts
    folders = parts if info.is_dir() else parts[:-1]
    if folders:
        dest.joinpath(*folders[:MAX_FOLDER_DEPTH]).mkdir(parents=True, exist_ok=True)
    if info.is_dir() or len(parts) > MAX_FOLDER_DEPTH or not _wanted(parts[-1]):
        return "done", name, ""
    if info.file_size > MAX_STUDENT_FILE_BYTES:
        return "refused", name, _too_big(name, info.file_size)
    if _is_written(parts[-1]) and parts[-1] not in assignment.written_files():  # answers.md always
        if state.written_entries >= MAX_WRITTEN_FILES:
            state.skipped_written += 1
            return "done", name, ""
        state.written_entries += 1
    target = dest.joinpath(*parts)
    try:
        written = _extract(zf, info, target, state.budget)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        target.unlink(missing_ok=True)
        return "refused", name, f"{name} could not be extracted ({exc})"
    if written is None:
        return "refused", name, _too_big(name, min(MAX_STUDENT_FILE_BYTES, state.budget), declared=info.file_size)
    state.budget -= written
    return "done", name, ""


def _is_written(name: str) -> bool:
    """A written answer, readable or not (a PDF, a spreadsheet, an image: the written grader names them)."""
    return ((assignment.is_written(name) or assignment.is_unread_written(name))
            and name not in assignment.student_files() and name not in notebooks())


def _find_root(folder: Path) -> tuple[Path, list[str]]:
    """The folder holding the student's files: ``folder`` or its single nested top folder."""
    wanted = set(assignment.student_files()) | set(assignment.written_files()) | set(notebooks())
    entries = [p for p in folder.iterdir() if p.name not in IGNORED_NAMES]
    if any(p.name in wanted for p in entries):
        return folder, []
    dirs = [p for p in entries if p.is_dir() and not p.is_symlink()]
    files = [p for p in entries if p.is_file()]
    code = set(assignment.student_files()) | set(notebooks())
    holding = [d for d in dirs if any((d / name).is_file() for name in code)]
    if len(holding) == 1:        # a writeup at the top (a2_answer.md, report.tex) beside the code's folder
        return holding[0], [f"files were read from the folder {holding[0].name}/ inside the upload"]
    if len(dirs) == 1 and not any(f.suffix == ".py" for f in files):
        return dirs[0], [f"files were read from the folder {dirs[0].name}/ inside the upload"]
    return folder, []


def _file_problem(path: Path, name: str) -> str | None:
    """Why an uploaded student file is not graded, or None if it is (missing is not a
    problem here: it is reported as missing)."""
    if path.is_symlink():
        return f"{name} is a symbolic link (upload the file itself)"
    if not path.exists():
        return None
    if not path.is_file():
        return f"{name} is not a regular file"
    size = path.stat().st_size
    if size > MAX_STUDENT_FILE_BYTES:
        return f"{name} is {size} bytes; the limit is {MAX_STUDENT_FILE_BYTES}"
    return None


def _upload_written(source: Path, root: Path) -> list[Path]:
    """The written files of an upload whose code is in ``root``: when that is a folder inside the
    upload, the writeup beside that folder (``a2_answer.md`` at the top, the code in ``a2/``) is read
    too, one level deeper."""
    return _written_files(root) if root == source else _written_files(source, depth=MAX_FOLDER_DEPTH + 1)


def _written_files(root: Path, *, depth: int = MAX_FOLDER_DEPTH) -> list[Path]:
    """Written answers at the top of the upload and in its folders (``tex/q1.tex``), two levels
    deep, never through a link; top-level files first. Any Markdown, text or LaTeX file that is not
    course code, whatever its name, and the files that may hold answers the reader cannot read
    (a spreadsheet, a PDF, an image: the written grader names them). A README is read only when
    nothing else is (the answers kept in the repository's README.md below its run logs)."""
    found: list[Path] = []
    fallback: list[Path] = []
    folders = [root]
    for _depth in range(depth):
        nested: list[Path] = []
        for folder in folders:
            for p in sorted(folder.iterdir()):
                if p.is_symlink() or p.name in IGNORED_NAMES or p.name in assignment.support_dirs():
                    continue
                if p.is_dir():
                    nested.append(p)
                elif p.is_file() and _is_written(p.name):
                    found.append(p)
                elif p.is_file() and assignment.is_fallback_written(p.name):
                    fallback.append(p)
        folders = nested
    if not any(assignment.is_written(p.name) for p in found):
        found += fallback
    return found


def student_files(upload: Path, scratch: Path) -> tuple[dict[str, Path], tuple[Path, ...]]:
    """The student files (by name) and written answers of ``upload``, found as ``prepare`` finds
    them (a zip is unpacked into ``scratch`` the same defensive way), without a run folder.
    Used by ``grader similarity``, which reads the files and runs nothing."""
    upload = Path(upload)
    if upload.is_file() and upload.suffix.lower() == ".zip":
        source = scratch / "upload"
        source.mkdir(parents=True)
        unpack_zip(upload, source)
    elif upload.is_dir():
        source = upload
    else:
        raise SubmissionError(f"{upload} is neither a folder nor a .zip file")
    root, _ = _find_root(source)
    code = {name: root / name for name in assignment.student_files()
            if (root / name).is_file() and _file_problem(root / name, name) is None}
    return code, tuple(p for p in _upload_written(source, root)
                       if assignment.is_written(p.name) or assignment.is_fallback_written(p.name))


def prepare(upload: Path, workdir: Path) -> PreparedSubmission:
    """Build the run folder for ``upload`` inside ``workdir`` (a fresh private folder)."""
    upload = Path(upload)
    notes: list[str] = []
    refused_in_zip: dict[str, str] = {}
    if upload.is_file() and upload.suffix.lower() == ".zip":
        unpacked = workdir / "upload"
        unpacked.mkdir()
        zip_notes, refused_in_zip = unpack_zip(upload, unpacked)
        notes += zip_notes
        source = unpacked
    elif upload.is_dir():
        source = upload
    else:
        raise SubmissionError(f"{upload} is neither a folder nor a .zip file; pass the folder "
                              "with your .py files or a zip of it")
    root, found_notes = _find_root(source)
    notes += found_notes
    in_archive = "" if root == source else f"{root.name}/"

    run_dir = workdir / "run"
    run_dir.mkdir()
    for name in assignment.support_dirs():
        shutil.copytree(TEMPLATE_DIR / name, run_dir / name,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    present: list[str] = []
    missing: list[str] = []
    refused: dict[str, str] = {}
    for name in assignment.student_files():
        src = root / name
        problem = refused_in_zip.get(in_archive + name) or _file_problem(src, name)
        if problem:
            refused[name] = problem
            if f"{problem}, so it was not graded" not in notes:
                notes.append(f"{problem}, so it was not graded")
            missing.append(name)
        elif src.is_file():
            shutil.copyfile(src, run_dir / name)
            present.append(name)
        else:
            missing.append(name)
            if notebook := _notebook_problem(root, name):
                refused[name] = notebook
                notes.append(notebook)
    for support in assignment.support_dirs():
        changed = changed_support_files(root / support, TEMPLATE_DIR / support)
        if changed is None:        # its files were not unpacked (a zip): nothing to compare
            notes.append(f"your {support}/ folder was ignored: the grader provides its own copy")
        elif changed:
            shown = ", ".join(f"{support}/{c}" for c in changed[:3]) + (" ..." if len(changed) > 3 else "")
            notes.append(f"your {support}/ folder differs from the starter's ({shown}): the grader uses its own "
                         "copy, so changes there are not used")
    return PreparedSubmission(run_dir, tuple(present), tuple(missing), tuple(notes),
                              tuple(_upload_written(source, root)),
                              refused)


def changed_support_files(theirs: Path, ours: Path, *, limit: int = 2000) -> list[str] | None:
    """The files of a student's support folder that are not the grader's own copy (changed or
    added; caches and hidden files aside), as paths relative to it: [] for an untouched starter's
    folder or none at all; None for a folder holding no file to compare (a zip's, whose support
    files are not unpacked). At most ``limit`` files are compared."""
    if not theirs.is_dir() or theirs.is_symlink():
        return []
    if not any(p.is_file() for p in theirs.rglob("*")):
        return None
    changed = []
    for n, path in enumerate(sorted(theirs.rglob("*"))):
        if n >= limit:
            break
        rel = path.relative_to(theirs)
        if (path.is_dir() or path.is_symlink() or path.suffix == ".pyc"
                or any(part.startswith(".") or part == "__pycache__" for part in rel.parts)):
            continue
        mine = ours / rel
        try:
            same = mine.is_file() and mine.stat().st_size == path.stat().st_size and \
                mine.read_bytes() == path.read_bytes()
        except OSError:
            same = False
        if not same:
            changed.append(rel.as_posix())
    return changed
