"""Command-line output shared by every command (the repository's and the student kit's): the
console they print to and how they print notes (one yellow line each, as written)."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console


def console() -> Console:
    """Standard output, no highlighting of numbers or paths, long lines kept whole."""
    return Console(stderr=False, highlight=False, soft_wrap=False)


def print_notes(out: Console, notes: Iterable[str]) -> None:
    """Notes of a command's outcome (groups, similarity, a batch): in yellow, their text never read
    as markup, wrapped by the terminal rather than cut."""
    for note in notes:
        out.print(note, style="yellow", markup=False, highlight=False, soft_wrap=True)
