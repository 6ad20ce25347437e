"""Reading the written answers of an upload: the one rule by which grading, the batch and the
similarity run read them, within fixed caps on how many files and how many bytes are read, so that
what is read (and later encoded for the writeup reader) is bounded whatever was uploaded."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from grader import assignment
from grader.run.text_encoding import decode_text

MAX_WRITTEN_FILES = 20
"""Most written files read from one upload (grading, batch and similarity alike)."""
MAX_WRITTEN_FILE_BYTES = 1024 * 1024
"""Bytes read from one written file (its start; the rest is not read, and the note says so)."""
MAX_WRITTEN_BYTES = 4 * 1024 * 1024
"""Bytes read from all the written files of one upload together. With the two caps above, the
writeup reader's request stays far under its frame limit whatever the text (JSON writes a control
character or an unreadable byte as six bytes: 4 MiB become at most 24 MiB)."""


def _shown_names(paths: list[Path]) -> dict[Path, str]:
    """Each file's name as the student sees it: its path inside the upload (``tex/q1.tex``)."""
    if not paths:
        return {}
    top = min((p.parent for p in paths), key=lambda d: len(d.parts))
    return {p: (p.relative_to(top).as_posix() if p.is_relative_to(top) else p.name) for p in paths}


def read_written(paths: Iterable[Path]) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, text) of the written files ``paths`` (the assignment's written file first), and
    notes on what was not read: the one rule by which grading, the batch and similarity read
    written answers. At most :data:`MAX_WRITTEN_FILES` files, :data:`MAX_WRITTEN_FILE_BYTES` of
    each and :data:`MAX_WRITTEN_BYTES` in all are read, so what is read is bounded whatever was
    uploaded; a file that cannot be read is skipped with a note."""
    paths = list(paths)
    names = _shown_names(paths)
    first = set(assignment.written_files()[:1])
    ordered = sorted(paths, key=lambda p: (p.name not in first, names[p]))
    files: list[tuple[str, str]] = []
    notes: list[str] = []
    room = MAX_WRITTEN_BYTES
    for path in ordered[:MAX_WRITTEN_FILES]:
        want = min(MAX_WRITTEN_FILE_BYTES, room)
        try:
            if path.is_symlink() or not path.is_file():
                raise OSError("not a regular file")
            with open(path, "rb") as f:
                data = f.read(want + 1)
        except OSError as exc:
            notes.append(f"{names[path]} could not be read ({exc}); it was skipped")
            continue
        if len(data) > want:
            cap = ("the limit per file" if want == MAX_WRITTEN_FILE_BYTES
                   else f"what is left of the {MAX_WRITTEN_BYTES} bytes read from all written files")
            notes.append(f"{names[path]} is larger than {want} bytes ({cap}); only its start was read")
            data = data[:want]
        room -= len(data)
        text, encoding = decode_text(data)
        if encoding:
            notes.append(f"{names[path]} is not UTF-8: it was read as {encoding}")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        files.append((names[path], text))
        if room <= 0:
            break
    if len(ordered) > len(files) and room <= 0:
        notes.append(f"{len(ordered) - len(files)} more written files were not read: {MAX_WRITTEN_BYTES} bytes are "
                     "read from all written files together")
    elif len(ordered) > MAX_WRITTEN_FILES:
        notes.append(f"{len(ordered)} written files were uploaded; only {MAX_WRITTEN_FILES} were read")
    return files, notes
