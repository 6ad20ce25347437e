"""What ``grader similarity`` compares: documents, one per student file (or written answers) of a
submission or of a known folder.

A class document is read from the submission's upload (a folder or a zip, found as grading finds
it: :func:`grader.run.submission.student_files`). A known folder is walked at any depth (cloned
public repositories, last year's class): every file named like a student file is a document of
its own, and the written answers of one folder (its answers.md, or its .tex files together) are
one written document. Nothing of a known folder is copied anywhere: it is only read.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from grader import assignment
from grader.classroom.gradebook import BatchError, Submission
from grader.run.submission import MAX_STUDENT_FILE_BYTES, SubmissionError, student_files
from grader.run.written_inputs import read_written

#: The document name of the written answers (answers.md, or .tex files, read as text).
WRITTEN = "written answers"
WRITTEN_SUFFIXES = (".tex",)
#: Characters of one document compared (a file, or a submission's written answers as read): of a
#: longer one only the start is, and the pages say so. Real solutions hold a few thousand (the
#: reference's largest file 12,000, its answers 15,000). Fingerprinting costs about 80 bytes and
#: 30 us of CPU a character (pygments), so a hostile upload of megabytes costs some 10 MB and a
#: few seconds, not the gigabyte and minutes of reading it all.
MAX_COMPARED_CHARS = 128 * 1024
#: Folders never walked inside a known folder.
SKIPPED_DIRS = {".git", ".hg", ".svn", "__pycache__", "__MACOSX", "node_modules", ".venv", "venv"}


class SimilarityError(BatchError):
    """Similarity cannot run as asked; the message names what is wrong and the fix (a BatchError,
    so that `grader batch --similarity` reports it as its own errors)."""


@dataclass(frozen=True)
class Document:
    """One file (or one submission's written answers) to compare."""

    owner: str                 # the submission's key, or the known file's (or folder's) path
    file: str                  # a student file name, or WRITTEN
    text: str
    known: bool = False
    names: tuple[str, ...] = ()  # who submitted it (class documents, from the export's metadata)
    parts: tuple[tuple[str, str], ...] = ()  # written answers: (name, text) of each file read


def cut_note(doc: Document) -> str:
    """What the pages say of a document longer than MAX_COMPARED_CHARS."""
    if doc.file == WRITTEN:
        return (f"{doc.owner}: the written answers are longer than {MAX_COMPARED_CHARS} characters; only their first "
                f"{MAX_COMPARED_CHARS} were compared")
    return f"{doc.owner}: {doc.file} is longer than {MAX_COMPARED_CHARS} characters; only its first {MAX_COMPARED_CHARS} were compared"


def _read(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_STUDENT_FILE_BYTES:
            return None
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read(MAX_COMPARED_CHARS + 1)      # one more: the comparison notes a longer file
    except OSError:
        return None


def _written(owner: str, paths: Sequence[Path], root: Path, *, known: bool,
             names: tuple[str, ...] = ()) -> Document | None:
    """The written answers of ``paths``, read as grading reads them (the same caps on count and size)."""
    texts, _notes = read_written(paths)
    parts = tuple((name, t) for name, t in texts if t.strip())
    if not parts:
        return None
    return Document(owner, WRITTEN, "\n\n".join(t for _, t in parts)[:MAX_COMPARED_CHARS + 1], known, names, parts)


def class_documents(submissions: Iterable[Submission]) -> tuple[list[Document], list[str]]:
    """The documents of every submission, and a note per upload that could not be read."""
    docs: list[Document] = []
    notes: list[str] = []
    for sub in submissions:
        with tempfile.TemporaryDirectory(prefix="a2sim-") as scratch:
            try:
                code, written = student_files(sub.path, Path(scratch))
            except (SubmissionError, OSError) as exc:
                notes.append(f"{sub.key}: not compared ({exc})")
                continue
            for name, path in code.items():
                text = _read(path)
                if text and text.strip():
                    docs.append(Document(sub.key, name, text, False, sub.names))
            root = Path(os.path.commonpath([p.parent for p in written])) if written else Path(scratch)
            doc = _written(sub.key, written, root, known=False, names=sub.names)
            if doc is not None:
                docs.append(doc)
    return docs, notes


def check_known(folders: Sequence[Path]) -> None:
    """Raise SimilarityError, naming the folder, if one of ``folders`` is missing or holds nothing
    to compare (before a batch grades for an hour and then stops on it)."""
    known_documents(folders)


def known_documents(folders: Sequence[Path]) -> list[Document]:
    """Every student-named file and every folder's written answers under ``folders``, at any
    depth. A folder that does not exist, or holds none of them, is an error naming it."""
    docs: list[Document] = []
    for folder in folders:
        folder = Path(folder)
        if not folder.is_dir():
            raise SimilarityError(f"--known {folder}: no such folder (pass a folder of known solutions, "
                                  "e.g. cloned public repositories)")
        found: list[Document] = []
        for here, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not os.path.islink(os.path.join(here, d)))
            at = Path(here)
            for name in sorted(files):
                if name in assignment.student_files():
                    text = _read(at / name)
                    if text and text.strip():
                        found.append(Document(str(at / name), name, text, True))
            written = [at / n for n in sorted(files) if n == assignment.written_files()[0]]   # the template's written file
            written += [at / n for n in sorted(files) if n.endswith(WRITTEN_SUFFIXES)]
            doc = _written(str(at), written, at, known=True)
            if doc is not None:
                found.append(doc)
        if not found:
            raise SimilarityError(f"--known {folder}: holds no {', '.join(assignment.student_files())}, "
                                  f"{assignment.written_files()[0]} or .tex file at any depth (pass the folder the "
                                  "solutions were cloned or copied into)")
        docs += found
    return docs
