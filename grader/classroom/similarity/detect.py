"""The comparison: copydetect's winnowed fingerprints of the part of each document that is not
starter code, compared between every two submissions and between each submission and every known
document of the same file.

**The base.** A line of a student's file whose text (all whitespace removed) is a line of the
template's file of that name is starter code: it is removed before fingerprinting, so that what
the template holds never counts and a fingerprint never spans starter code and a student's code
(copydetect's own boilerplate option drops only k-grams that lie wholly in the template). What is
left, the document's *own* part, is what two documents can share. Written answers are the text of
each question's answer as the grader reads it (the prompts of answers.md removed the same way,
LaTeX answer blocks without their prompt), lower-cased with whitespace collapsed.

**Tokens.** Code is tokenized by pygments through copydetect: every name becomes ``V``, every
function name in a ``def`` ``F``, every string ``S``; comments and whitespace are dropped. So
renamed variables, rewritten comments and re-indentation change nothing, and moved functions
only break the few k-grams across their ends. ``matched`` counts the characters of that filtered
code that lie in regions the two documents share (a name or a string counts one).

**Score.** For each of the two documents, the share of its own filtered code found in the other;
a pair's score is the larger share (a submission that is the template plus one function copied
from another scores near 1), counted only when at least ``MIN_MATCHED`` tokens match (two short
common lines are no evidence).
"""

from __future__ import annotations

import io
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grader import assignment
from grader.classroom.similarity.sources import WRITTEN, Document

#: copydetect's noise threshold: the length of a k-gram of filtered code (its default, 25).
CODE_K = 25
#: Winnowing window over the k-gram hashes (1: keep every k-gram; exact, and fast enough here).
CODE_WINDOW = 1
#: k for written answers, in characters of normalized text (about six words).
TEXT_K = 40
TEXT_WINDOW = 1
#: Default threshold on the score. Chosen on the generated class of tools/make_class.py
#: --similarity (README, "Similarity"): every planted copy scores above it, no independent pair.
DEFAULT_THRESHOLD = 0.5
#: Fewest matched tokens for a pair to count at all.
MIN_MATCHED = 60

EXTRA_NOTE = ("similarity needs copydetect, which a plain `pip install .` does not install: "
              "`pip install '.[similarity]'`, then `grader similarity DIR`")

def line_key(line: str) -> str:
    """A line of written answers as the base compares it: its characters, whitespace removed."""
    return "".join(line.split()).lower()


def _token_key(ttype: Any, value: str) -> str:
    """A token as copydetect's filter writes it (``copydetect.utils.filter_code``), except that
    every name is ``V`` (a builtin's too: ``iter`` renamed is still starter code)."""
    from pygments import token

    if ttype in (token.Name, token.Name.Variable, token.Name.Attribute) or ttype in token.Name.Builtin:
        return "V"
    if ttype in token.Name.Function:
        return "F"
    if ttype in token.Name.Class:
        return "O"
    if ttype in (token.Comment.Preproc, token.Comment.Hashbang):
        return "P"
    if ttype in token.Text or ttype in token.Comment:
        return ""
    if ttype in token.Literal.String:
        return '"' if value in ("'", '"') else "S"
    return "".join(value.split())


def code_lines(text: str, file: str) -> tuple[list[str], list[str], list[int]]:
    """The lines of ``text`` (with their ends), each one's key (its tokens as copydetect's filter
    writes them, so that names, strings, comments and layout do not count) and the last line that
    a token starting on it reaches (a string over several lines stays whole)."""
    from pygments import lexers

    lines = text.splitlines(keepends=True)
    starts = np.cumsum([0, *(len(line) for line in lines)])
    keys = [""] * len(lines)
    reach = list(range(len(lines)))
    lexer = lexers.get_lexer_for_filename(file, stripnl=False, ensurenl=False)
    for pos, ttype, value in lexer.get_tokens_unprocessed(text):
        row = int(np.searchsorted(starts, pos, side="right")) - 1
        if row >= len(lines):
            continue
        keys[row] += _token_key(ttype, value)
        if "\n" in value.rstrip("\n"):
            last = int(np.searchsorted(starts, pos + len(value.rstrip("\n")), side="right")) - 1
            reach[row] = max(reach[row], min(last, len(lines) - 1))
    return lines, keys, reach


def base_keys(texts: Iterable[str], file: str = "") -> frozenset[str]:
    """The keys of every line of the starter files ``texts`` (code when ``file`` names one)."""
    if file and file != WRITTEN:
        return frozenset(k for text in texts for k in code_lines(text, file)[1])
    return frozenset(line_key(line) for text in texts for line in text.splitlines())


def own_part(text: str, base: frozenset[str], file: str = "") -> tuple[str, np.ndarray]:
    """The lines of ``text`` that are not starter code (nor blank, nor comments only), and where
    each of their characters is in ``text``."""
    if file and file != WRITTEN:
        lines, keys, reach = code_lines(text, file)
    else:
        lines = text.splitlines(keepends=True)
        keys, reach = [line_key(line) for line in lines], list(range(len(lines)))
    keep = [False] * len(lines)
    for i, key in enumerate(keys):
        if key and key not in base:
            for j in range(i, reach[i] + 1):
                keep[j] = True
    kept: list[str] = []
    where: list[np.ndarray] = []
    at = 0
    for line, wanted in zip(lines, keep):
        if wanted:
            kept.append(line)
            where.append(np.arange(at, at + len(line)))
        at += len(line)
    return "".join(kept), (np.concatenate(where) if where else np.zeros(0, dtype=np.int64))


def normalized(text: str, where: np.ndarray) -> tuple[str, np.ndarray]:
    """``text`` lower-cased with every run of whitespace one space, and the positions kept."""
    out: list[str] = []
    keep: list[int] = []
    space = True
    for i, ch in enumerate(text):
        if ch.isspace():
            if not space:
                out.append(" ")
                keep.append(i)
            space = True
        else:
            out.append(ch.lower())
            keep.append(i)
            space = False
    return "".join(out), where[np.array(keep, dtype=np.int64)] if keep else where[:0]


@dataclass
class Fingerprinted:
    doc: Document
    text: str                     # what was shown: the file, or the written answers as read
    own: str                      # the own part (normalized for written answers)
    where: np.ndarray             # position in ``text`` of each character of ``own``
    fp: Any                       # copydetect.CodeFingerprint, None when the own part is empty


@dataclass(frozen=True)
class Pair:
    """Two similar documents of one file: ``a`` a submission, ``b`` another or a known document."""

    a: Document
    b: Document
    file: str
    score: float
    share_a: float
    share_b: float
    matched: int                  # tokens of a's filtered code in shared regions
    text_a: str
    text_b: str
    regions_a: tuple[tuple[int, int], ...]   # character ranges of text_a that b shares
    regions_b: tuple[tuple[int, int], ...]


def copydetect_available() -> bool:
    try:
        import copydetect  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Base:
    """The starter code of one file: its lines' keys, and (code) the hashes of its k-grams, which
    copydetect drops as boilerplate (a starter statement laid out on other lines)."""

    keys: frozenset[str]
    hashes: Any = None


def fingerprint(doc: Document, text: str, base: Base) -> Fingerprinted:
    from copydetect import CodeFingerprint

    own, where = own_part(text, base.keys, doc.file)
    if doc.file == WRITTEN:
        own, where = normalized(own, where)
        k, window, filtered = TEXT_K, TEXT_WINDOW, False
    else:
        k, window, filtered = CODE_K, CODE_WINDOW, True
    fp = None
    if own.strip():
        fp = CodeFingerprint(doc.file if filtered else "prose.txt", k, window, filter=filtered,
                             fp=io.StringIO(own), boilerplate=base.hashes)
        if fp.token_coverage == 0:
            fp = None
    return Fingerprinted(doc, text, own, where, fp)


def _regions(slices: np.ndarray, where: np.ndarray, text: str) -> tuple[tuple[int, int], ...]:
    """copydetect's slices of the own part as ranges of the whole text: split where the own part
    skips starter code, joined again across whitespace."""
    out: list[list[int]] = []
    for start, end in zip(*np.asarray(slices, dtype=np.int64)):
        start, end = int(start), min(int(end), len(where))
        if end <= start:
            continue
        pos = where[start:end]
        breaks = np.nonzero(np.diff(pos) != 1)[0]
        firsts = np.concatenate([[0], breaks + 1])
        lasts = np.concatenate([breaks, [len(pos) - 1]])
        for f, la in zip(firsts, lasts):
            s, e = int(pos[f]), int(pos[la]) + 1
            if out and (s <= out[-1][1] or not text[out[-1][1]:s].strip()):
                out[-1][1] = max(out[-1][1], e)
            else:
                out.append([s, e])
    trimmed = []
    for s, e in out:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            trimmed.append((s, e))
    return tuple(trimmed)


def compare(x: Fingerprinted, y: Fingerprinted, *, threshold: float, orient: bool = False) -> Pair | None:
    """The pair of ``x`` (a submission's document) and ``y``, if its score reaches ``threshold``.
    With ``orient`` (``y`` is a submission too) the one more of whose own part is shared comes
    first."""
    from copydetect import compare_files

    if x.fp is None or y.fp is None or x.fp.hashes.isdisjoint(y.fp.hashes):
        return None
    matched, (share_x, share_y), (slices_x, slices_y) = compare_files(x.fp, y.fp)
    score = max(float(share_x), float(share_y))
    if matched < MIN_MATCHED or score < threshold:
        return None
    if orient and share_y > share_x:
        x, y = y, x
        matched, (share_x, share_y), (slices_x, slices_y) = compare_files(x.fp, y.fp)
    return Pair(x.doc, y.doc, x.doc.file, score, float(share_x), float(share_y), int(matched),
                x.text, y.text, _regions(slices_x, x.where, x.text), _regions(slices_y, y.where, y.text))


def find_pairs(class_docs: Sequence[Document], known_docs: Sequence[Document], *,
               bases: dict[str, Base], threshold: float,
               texts: dict[int, str] | None = None) -> tuple[list[Pair], int]:
    """Every pair at or above ``threshold``, best first, and how many pairs were compared.
    ``texts`` gives, by ``id(doc)``, the text to fingerprint when it is not ``doc.text`` (the
    written answers as read)."""
    texts = texts or {}
    prints: dict[str, list[Fingerprinted]] = defaultdict(list)
    known: dict[str, list[Fingerprinted]] = defaultdict(list)
    for doc in class_docs:
        prints[doc.file].append(fingerprint(doc, texts.get(id(doc), doc.text), bases.get(doc.file, Base(frozenset()))))
    for doc in known_docs:
        known[doc.file].append(fingerprint(doc, texts.get(id(doc), doc.text), bases.get(doc.file, Base(frozenset()))))
    pairs: list[Pair] = []
    compared = 0
    for file, docs in prints.items():
        docs = [d for d in docs if d.fp is not None]
        others = [d for d in known.get(file, []) if d.fp is not None]
        for i, x in enumerate(docs):
            for y in docs[i + 1:]:
                compared += 1
                pair = compare(x, y, threshold=threshold, orient=True)
                if pair is not None:
                    pairs.append(pair)
            for y in others:
                compared += 1
                pair = compare(x, y, threshold=threshold)
                if pair is not None:
                    pairs.append(pair)
    pairs.sort(key=lambda p: (-p.score, p.a.owner, p.b.owner, p.file))
    return pairs, compared


def template_bases(template: Path, written_extra: Iterable[str] = ()) -> dict[str, Base]:
    """The base of each file: the template's file of that name; of written answers, the
    template's answers.md and ``written_extra`` (the question labels the reader adds)."""
    from copydetect import CodeFingerprint


    bases = {}
    for name in assignment.student_files():
        if (template / name).is_file():
            text = (template / name).read_text(encoding="utf-8")
            hashes = CodeFingerprint(name, CODE_K, 1, fp=io.StringIO(text)).hashes
            bases[name] = Base(base_keys([text], name), np.array(sorted(hashes)))
    prompts = [p.read_text(encoding="utf-8") for p in sorted(template.glob("*.md")) + sorted(template.glob("*.tex"))]
    bases[WRITTEN] = Base(base_keys([*prompts, *written_extra]))
    return bases
