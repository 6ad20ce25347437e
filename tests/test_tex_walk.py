"""grader/reading/tex_walk.py (with tex_walker.py) reads LaTeX faster than pylatexenc alone, with the same nodes.

Two shortcuts are checked against pylatexenc itself on every LaTeX file of the corpora (the wild
and real writeups, the generated template writeups) and on seeded mutations of them:
- :class:`tex_walker.Walker` reads spaces and a run of plain characters as one ``char`` token where
  the node reader asks, and must give pylatexenc's ``LatexWalker`` nodes exactly;
- :func:`tex_walk.fragment` of a text known to be a range of a parsed document (an answer block, a
  part, an item) gives the document's own nodes, moved, and they must be that text's own parse.
Each has a planted control that shows the comparison can fail.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from pylatexenc.latexwalker import LatexWalker

from grader.reading import tex_walk, tex_walker

TESTS = Path(__file__).parent
sys.path.insert(0, str(TESTS))
import written_corpus as wc  # noqa: E402

REAL = Path("/work/shared/writeups")          # present on the developers' machine only


def _tex_files() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted((TESTS / "writeups").rglob("*.tex"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(REAL.rglob("*.tex"))] if REAL.exists() else []
    for seed in range(40):
        texts += [text for name, text in wc.make(seed).files if name.endswith(".tex")]
    return texts


TEXTS = _tex_files()
INSERTS = list("\\{}[]()<>$%&~'`!?-^_#@*/=+,.;:|\"0123456789 \n\t") + [
    "\\frac", "\\'", "\\textbf", "\\begin{answer}", "\\end{answer}", "\\part", "\\[", "\\]", "$$", "\n\n",
    "\\c ", "\\v", "\\part[2]", "\\ifans{", "``", "--", " \n \n", "\r\n\r\n"]


def mutants(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        text = rng.choice(TEXTS)
        if len(text) > 2500:
            k = rng.randrange(len(text) - 2500)
            text = text[k:k + 2500]
        for _ in range(rng.randint(1, 10)):
            k = rng.randrange(len(text) + 1)
            text = text[:k] + rng.choice(INSERTS) + text[k:]
        out.append(text)
    return out


def structure(node):
    """A node and everything under it, as plain data (kind, place, names, text, math mode)."""
    if node is None:
        return None
    argd = getattr(node, "nodeargd", None)
    return (type(node).__name__, node.pos, node.len, getattr(node, "macroname", None),
            getattr(node, "environmentname", None), getattr(node, "chars", None),
            getattr(node, "comment", None), getattr(node, "delimiters", None),
            getattr(node, "macro_post_space", None),
            node.parsing_state.in_math_mode if node.parsing_state is not None else None,
            tuple(structure(c) for c in (getattr(node, "nodelist", None) or ())),
            tuple(structure(a) for a in (getattr(argd, "argnlist", None) or ())) if argd is not None else None)


def parse_with(walker_class, text: str):
    walker = walker_class(text, latex_context=tex_walk._context(), tolerant_parsing=True)
    found, pos, length = walker.get_latex_nodes(pos=0)
    return tuple(structure(n) for n in found), pos, length


def walker_disagreements(texts: list[str]) -> list[str]:
    return [t for t in texts if parse_with(LatexWalker, t) != parse_with(tex_walker.Walker, t)]


def test_the_corpora_are_here():
    assert len(TEXTS) >= 40 and sum(map(len, TEXTS)) > 150_000


def test_runs_of_plain_characters_give_pylatexenc_s_nodes():
    assert walker_disagreements(TEXTS) == []


def test_mutated_latex_gives_pylatexenc_s_nodes():
    assert walker_disagreements(mutants(400, seed=5)) == []


def test_a_run_that_swallows_math_or_specials_is_caught(monkeypatch):
    """Planted control: a run that may hold ``$`` or a special's first character reads math and
    ``--`` as plain characters."""
    import re
    monkeypatch.setattr(tex_walker, "run_of", lambda db, braces=(): re.compile(r"(\s*)([^\s\\%{}]+)"))
    planted = ["the cost $J=x$ here\n", "pages 1--2 and ``quoted''\n"]
    assert walker_disagreements(planted) == planted


def test_a_run_that_ignores_the_brace_pair_asked_for_is_caught(monkeypatch):
    """Planted control: inside an optional argument pylatexenc asks for ``[ ]`` as braces; a run
    that reads ``]`` as a plain character there does not close the argument where it closes."""
    plain_run = tex_walker.plain_run
    monkeypatch.setattr(tex_walker, "_RUNS", {})
    monkeypatch.setattr(tex_walker, "plain_run", lambda db, braces=(): plain_run(db))
    planted = ["\\part[2 points] the answer\n", "\\begin{answer}[note one] text\\end{answer}\n"]
    assert walker_disagreements(planted) == planted


def _document_ranges(text: str) -> list[str]:
    """The texts the reader asks :func:`tex_walk.fragment` for when it reads ``text`` as the
    template: its parts, answer blocks and their list items."""
    from a2.written.tex_exam import _units

    tex_walk.clear_caches()
    asked = []
    for unit in _units(text, None):
        tex_walk.known_range(text, unit.start, unit.end)
        asked.append(text[unit.start:unit.end])
    asked += [content for _, _, content in tex_walk.answer_blocks(text)]
    for piece in list(asked):
        asked += [item for _, item in tex_walk.list_items(piece, "enumerate")]
    return asked


def fragment_disagreements(texts: list[str]) -> tuple[int, list[str]]:
    """How many ranges were read from their document, and those whose nodes are not their own parse."""
    from_doc, differ = 0, []
    for text in texts:
        for piece in _document_ranges(text):
            if piece in tex_walk._RANGES:
                from_doc += 1
                own = tuple(structure(n) for n in tex_walk._parse(piece))
                if tuple(structure(n) for n in tex_walk.fragment(piece)) != own:
                    differ.append(piece)
    return from_doc, differ


def test_a_part_or_block_read_from_its_document_is_its_own_parse():
    from a2.written.tex_exam import is_exam

    exams = [t for t in TEXTS if is_exam(t)]
    assert len(exams) >= 20
    from_doc, differ = fragment_disagreements(exams)
    assert from_doc >= 200 and differ == []


def test_nodes_moved_by_the_wrong_offset_are_caught(monkeypatch):
    """Planted control: the document's nodes moved one character short are not the range's parse."""
    from a2.written.tex_exam import is_exam

    moved = tex_walk._moved
    monkeypatch.setattr(tex_walk, "_moved", lambda node, offset: moved(node, offset - 1))
    exams = [t for t in TEXTS if is_exam(t)][:5]
    assert fragment_disagreements(exams)[1]


@pytest.mark.parametrize(("start", "end"), [(0, 0), (-1, 3), (5, 3)])
def test_an_empty_or_impossible_range_is_not_noted(start, end):
    tex_walk.clear_caches()
    tex_walk.known_range("\\part x", start, end)
    assert tex_walk._RANGES == {}


def test_a_range_shared_by_two_documents_is_read_from_the_latest():
    """Two writeups with the same part text: the range points at the document read last (the one
    whose parse is kept), never at an older one that would have to be parsed again."""
    tex_walk.clear_caches()
    first = "\\begin{document}\\part same answer text\\end{document}"
    second = "\\begin{document}x \\part same answer text\\end{document}"
    for doc in (first, second):
        start = doc.index("same")
        tex_walk.known_range(doc, start, start + len("same answer text"))
    assert tex_walk._RANGES["same answer text"] == (second, second.index("same"))
