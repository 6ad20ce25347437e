"""pylatexenc's ``LatexWalker``, faster, giving the same nodes (tests/test_tex_walk.py compares both
on every LaTeX file of the corpora and on seeded mutations of them).

Two shortcuts: a context's specials are found from a table by first character
(:func:`specials_finder`), and where the node reader asks for a token, spaces and a run of plain
characters are read as one ``char`` token (:class:`Walker`). Used for a document's structure
(:mod:`grader.reading.tex_walk`) and a formula's nodes (:mod:`grader.reading.latex_normal`).
"""

from __future__ import annotations

import re
import sys
from typing import Any

from pylatexenc.latexwalker import LatexToken, LatexWalker


def specials_finder(db: Any) -> Any:
    """``db.test_for_specials`` answered from a table by first character: the same answer (the
    longest specials at ``pos``; of equal lengths, the one of the earliest category), without
    trying every specials of every category at every character (a third of a parse's time)."""
    table: dict[str, list[tuple[int, int, str, Any]]] = {}
    for rank, cat in enumerate(db.category_list):
        for chars, spec in db.d[cat]["specials"].items():
            table.setdefault(chars[0], []).append((-len(chars), rank, chars, spec))
    ordered = {ch: [(chars, spec) for _, _, chars, spec in sorted(found, key=lambda e: e[:2])]
               for ch, found in table.items()}

    def test_for_specials(s: str, pos: int, parsing_state: Any = None) -> Any:
        for chars, spec in ordered.get(s[pos:pos + 1], ()):
            if s.startswith(chars, pos):
                return spec
        return None
    return test_for_specials


def plain_run(db: Any, braces: tuple[tuple[str, str], ...] = ()) -> re.Pattern[str]:
    """Spaces, then a run of characters each of which pylatexenc reads as a one-character ``char``
    token: no character that starts a token of another kind (``\\ % { } $`` and the brace pairs
    ``braces`` the reader asks for, as ``[ ]`` inside an optional argument), none that starts one
    of ``db``'s specials, and spaces only between two such characters and with at most one line
    break (a blank line is a paragraph token)."""
    specials = {chars[0] for cat in db.category_list for chars in db.d[cat]["specials"]}
    others = set("\\%{}$") | specials | {ch for pair in braces for ch in pair}
    word = "[^\\s" + re.escape("".join(sorted(others))) + "]+"
    gap = "(?:[^\\S\n]*\n[^\\S\n]*|[^\\S\n]+)"
    return re.compile(f"(\\s*)({word}(?:{gap}{word})*)")


_RUNS: dict[tuple[int, tuple], tuple[Any, re.Pattern[str]]] = {}
"""The runs of each context a walker was given and the brace pairs asked for (the context by
identity: the contexts live as long as the process)."""


def run_of(db: Any, braces: tuple[tuple[str, str], ...] = ()) -> re.Pattern[str]:
    """:func:`plain_run` of ``db`` and ``braces``, built once."""
    key = (id(db), braces)
    kept = _RUNS.get(key)
    if kept is None or kept[0] is not db:
        kept = _RUNS[key] = (db, plain_run(db, braces))
    return kept[1]


class Walker(LatexWalker):
    """pylatexenc's walker, reading spaces and a run of plain characters as one ``char`` token where
    the node reader asks (it only appends a char token's text to the pending characters node, so the nodes
    are the same); everywhere else (a macro's argument, an expression) one character at a time,
    as pylatexenc does. pylatexenc's per-character tokens were most of a document's parse."""

    def get_token(self, pos: int, *args: Any, **kwargs: Any) -> Any:
        if sys._getframe(1).f_code is _NODE_READER:
            braces = kwargs.get("include_brace_chars", args[0] if args else None)
            run = run_of(self.default_parsing_state.latex_context,
                         tuple(map(tuple, braces)) if braces else ()).match(self.s, pos)
            # Spaces holding a blank line are a paragraph token: pylatexenc's own reading.
            if run is not None and run.end() - pos > 1 and "\n\n" not in run.group(1):
                return LatexToken(tok="char", arg=run.group(2), pos=run.start(2), len=run.end() - run.start(2),
                                  pre_space=run.group(1))
        return super().get_token(pos, *args, **kwargs)


_NODE_READER = next((c for c in LatexWalker.get_latex_nodes.__code__.co_consts
                     if getattr(c, "co_name", "") == "do_read"), None)
"""The node reader's code inside ``get_latex_nodes`` (None in a pylatexenc without it: no runs)."""
