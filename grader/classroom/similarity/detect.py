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

**Common code and calibration** (:mod:`grader.classroom.similarity.calibrate`). A fingerprint
found in many documents of a file counts for nothing (MOSS's passage limit); what is left of a
document's own part is its *student code*.

**Score.** For each of the two documents, the share of its student code found in the other,
each token weighted by how few documents of the class hold it (idioms count less);
a pair's score is the larger share (a submission that is the template plus one function copied
from another scores near 1). A pair is listed when that score is an outlier among the file's
pairs in this class and it shares at least ``MIN_MATCHED`` tokens (or, with a fixed threshold,
when the score reaches it); the list is ranked by *evidence*: the shared tokens, each weighted by
how few documents hold it.
"""

from __future__ import annotations

import dataclasses
from array import array
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from grader import assignment
from grader.classroom.similarity import calibrate, prints
from grader.classroom.similarity.calibrate import MIN_MATCHED
from grader.classroom.similarity.regions import marked_functions, student_regions, written_elsewhere
from grader.classroom.similarity.sources import MAX_COMPARED_CHARS, WRITTEN, Document, cut_note

#: copydetect's noise threshold: the length of a k-gram of filtered code (its default, 25).
CODE_K = 25
#: k for written answers, in characters of normalized text (about six words).
TEXT_K = 40
#: The fixed threshold used before calibration (``--threshold``): on tools/make_class.py
#: --similarity every planted copy scores above it, no independent pair (README, "Similarity").
DEFAULT_THRESHOLD = 0.5

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


def own_part(text: str, base: frozenset[str], file: str = "", marked: frozenset[str] = frozenset()) -> tuple[str, np.ndarray]:
    """The lines of ``text`` that are not starter code (nor blank, nor comments only), and where
    each of their characters is in ``text``. In a code file that keeps the course's region marks
    (``### YOUR CODE HERE`` ... ``### END YOUR CODE``), only the lines between them, and those of
    a function of ``marked`` written outside its marks (:mod:`grader.classroom.similarity.regions`)."""
    regions = None
    if file and file != WRITTEN:
        lines, keys, reach = code_lines(text, file)
        regions = student_regions(lines)
        if regions is not None and marked:
            elsewhere = written_elsewhere(text, regions, [bool(k) and k not in base for k in keys], marked)
            regions = [a or b for a, b in zip(regions, elsewhere)]
    else:
        lines = text.splitlines(keepends=True)
        keys, reach = [line_key(line) for line in lines], list(range(len(lines)))
    keep = [False] * len(lines)
    for i, key in enumerate(keys):
        if key and key not in base and (regions is None or regions[i]):
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
    fp: prints.Prints | None      # None when the own part holds no k-gram
    cut: bool = False             # the text was longer than MAX_COMPARED_CHARS; its start was compared


@dataclass(frozen=True)
class Pair:
    """Two similar documents of one file: ``a`` a submission, ``b`` another or a known document."""

    a: Document
    b: Document
    file: str
    score: float
    share_a: float
    share_b: float
    matched: int                  # tokens of a's student code in shared regions
    text_a: str
    text_b: str
    regions_a: tuple[tuple[int, int], ...]   # character ranges of text_a that b shares
    regions_b: tuple[tuple[int, int], ...]
    z: float = 0.0                # the score's robust z-score among the file's pairs in this class
    evidence: float = 0.0         # shared tokens, each weighted by 2 / (documents holding it)
    held_a: tuple[int, ...] = ()  # for each region of a: how many documents of the file hold it
    held_b: tuple[int, ...] = ()
    documents: int = 0            # documents of the file (class and known) holding own code
    #: the shared stretches matched up: (start, end in text_a, start, end in text_b, documents holding it)
    links: tuple[tuple[int, int, int, int, int], ...] = ()


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
    functions: frozenset[str] = frozenset()   # the functions the starter code marks a region in


def fingerprint(doc: Document, text: str, base: Base) -> Fingerprinted:
    """The fingerprints of ``doc``'s own part in ``text``, of which at most MAX_COMPARED_CHARS
    characters are read (``cut`` says when there were more)."""
    cut = len(text) > MAX_COMPARED_CHARS
    text = text[:MAX_COMPARED_CHARS]
    own, where = own_part(text, base.keys, doc.file, base.functions)
    if doc.file == WRITTEN:
        own, where = normalized(own, where)
    fp = None
    if own.strip():
        code = doc.file != WRITTEN
        fp = prints.make(own, CODE_K if code else TEXT_K, filename=doc.file if code else "", boilerplate=base.hashes)
    return Fingerprinted(doc, text, own, where.astype(np.int32), fp, cut)


def _regions(slices: np.ndarray, where: np.ndarray, text: str,
             values: Sequence[int] = ()) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """copydetect's slices of the own part as ranges of the whole text: split where the own part
    skips starter code, joined again across whitespace; with each range, the largest of the
    ``values`` of the slices it covers (how many documents hold it)."""
    out: list[list[int]] = []
    values = list(values) or [0] * len(np.asarray(slices).reshape(2, -1)[0])
    for (start, end), value in zip(zip(*np.asarray(slices, dtype=np.int64).reshape(2, -1)), values):
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
                out[-1][2] = max(out[-1][2], value)
            else:
                out.append([s, e, value])
    trimmed, held = [], []
    for s, e, value in out:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            trimmed.append((s, e))
            held.append(value)
    return tuple(trimmed), tuple(held)


def _pair(x: Fingerprinted, y: Fingerprinted, vx: prints.Prints | None, vy: prints.Prints | None, held: prints.Held,
          cal: calibrate.FileCalibration, score: float, wx: np.ndarray | None, wy: np.ndarray | None) -> Pair:
    assert vx is not None and vy is not None      # a pair found shares fingerprints
    matched, share_x, share_y, _ = calibrate.shares(vx, vy, wx, wy)
    slices_x, counts_x, evidence = calibrate.shared_slices(vx, vy, held)
    slices_y, counts_y, _ = calibrate.shared_slices(vy, vx, held)
    regions_x, held_x = _regions(slices_x, x.where, x.text, counts_x)
    regions_y, held_y = _regions(slices_y, y.where, y.text, counts_y)
    return Pair(x.doc, y.doc, x.doc.file, score, share_x, share_y, matched, x.text, y.text, regions_x, regions_y,
                cal.z(score), evidence, held_x, held_y, cal.documents,
                calibrate.links(vx, vy, x.where, y.where, held))


@dataclass(frozen=True)
class Survey:
    """What :func:`survey` found: the pairs listed (strongest evidence first), how many pairs of
    documents were compared, and each file's calibration."""

    pairs: list[Pair]
    compared: int
    files: dict[str, calibrate.FileCalibration]
    notes: list[str] = dataclasses.field(default_factory=list)   # documents of which only the start was compared

    @property
    def not_compared(self) -> list[str]:
        return [c.note for c in self.files.values() if not c.compared]


def survey(class_docs: Sequence[Document], known_docs: Sequence[Document], *,
           bases: dict[str, Base], threshold: float | None = None,
           texts: dict[int, str] | None = None) -> Survey:
    """Every pair listed (calibrated when ``threshold`` is None, else at or above it), file by
    file, common fingerprints discounted (:mod:`grader.classroom.similarity.calibrate`).
    ``texts`` gives, by ``id(doc)``, the text to fingerprint when it is not ``doc.text`` (the
    written answers as read). Every two class documents of a file and every class document and
    known one are compared once: O(pairs) set intersections over fingerprints computed once, and
    only one file's fingerprints are held at a time."""
    texts = texts or {}
    by_file: dict[str, list[Document]] = defaultdict(list)
    known: dict[str, list[Document]] = defaultdict(list)
    for doc in class_docs:
        by_file[doc.file].append(doc)
    for doc in known_docs:
        known[doc.file].append(doc)
    pairs: list[Pair] = []
    files: dict[str, calibrate.FileCalibration] = {}
    notes: list[str] = []
    compared = 0
    for file, members in by_file.items():
        base = bases.get(file, Base(frozenset()))
        made = [fingerprint(d, texts.get(id(d), d.text), base) for d in [*members, *known.get(file, [])]]
        notes += [cut_note(f.doc) for f in made if f.cut]
        docs = [f for f in made[:len(members)] if f.fp is not None]
        if docs:
            found, count, files[file] = _file_pairs(file, docs, [f for f in made[len(members):] if f.fp is not None],
                                                    threshold)
            pairs += found
            compared += count
        elif file != WRITTEN:     # no document holds a k-gram of its own (sgd.py's two lines): named as not compared
            files[file] = calibrate.FileCalibration(
                file, 0, calibrate.passage_limit(len(made)), 0, 0,
                calibrate.rounded_median([sum(1 for line in f.own.splitlines() if line.strip()) for f in made[:len(members)]]),
                False)
    pairs.sort(key=lambda p: (-p.evidence, -p.score, p.a.owner, p.b.owner, p.file))
    return Survey(pairs, compared, files, notes)


def _file_pairs(file: str, docs: list[Fingerprinted], others: list[Fingerprinted],
                threshold: float | None) -> tuple[list[Pair], int, calibrate.FileCalibration]:
    """The pairs listed of one file, how many pairs were compared, and the file's calibration."""
    counted = calibrate.counted_sets([d.fp.hashes for d in docs if d.fp is not None],
                                     [d.fp.hashes for d in others if d.fp is not None])
    held, common, limit = calibrate.common_hashes(counted)
    views = [prints.without(d.fp, common) for d in docs]
    kviews = [prints.without(d.fp, common) for d in others]
    cal = calibrate.FileCalibration(
        file, len(counted), limit, len(common),
        calibrate.rounded_median([v.token_coverage if v is not None else 0 for v in views]),
        calibrate.rounded_median([sum(1 for line in d.own.splitlines() if line.strip()) for d in docs]), True)
    cal = dataclasses.replace(cal, compared=cal.student_tokens >= MIN_MATCHED)
    scores = array("d")             # every pair's score, for the file's distribution
    lowest = calibrate.SCORE_FLOOR if threshold is None else threshold
    found: list[tuple[int, int, float, int]] = []   # (i, j, score, tokens of the side shared more)
    everyone = [*views, *kviews]
    weights = [calibrate.token_weights(v, held) if v is not None else None for v in everyone]
    for i, vx in enumerate(views):
        for j in [*range(i + 1, len(views)), *range(len(views), len(everyone))]:
            vy = everyone[j]
            if vx is None or vy is None or vx.hashes.isdisjoint(vy.hashes):
                scores.append(0.0)
                continue
            tokens_x, share_x, share_y, tokens_y = calibrate.shares(vx, vy, weights[i], weights[j])
            scores.append(max(share_x, share_y))
            if scores[-1] < lowest:
                continue
            swap = j < len(views) and share_y > share_x      # a known document is always second
            found.append((j, i, scores[-1], tokens_y) if swap
                         else (i, j, scores[-1], tokens_x))
    cal = calibrate.distribution(cal, np.asarray(scores, dtype=float))
    every = [*docs, *others]
    return ([_pair(every[i], every[j], everyone[i], everyone[j], held, cal, score, weights[i], weights[j])
             for i, j, score, matched in found if calibrate.flagged(cal, score, matched, threshold)], len(scores), cal)


def find_pairs(class_docs: Sequence[Document], known_docs: Sequence[Document], *,
               bases: dict[str, Base], threshold: float | None = None,
               texts: dict[int, str] | None = None) -> tuple[list[Pair], int]:
    """:func:`survey`'s pairs and how many pairs were compared."""
    found = survey(class_docs, known_docs, bases=bases, threshold=threshold, texts=texts)
    return found.pairs, found.compared


def template_bases(templates: Path | Sequence[Path], written_extra: Iterable[str] = ()) -> dict[str, Base]:
    """The base of each file: the lines and k-grams of that file in every one of ``templates``
    (the starter code of each version the instructor names); of written answers, their
    answers.md (or .md/.tex files) and ``written_extra`` (the question labels the reader adds)."""
    folders = [templates] if isinstance(templates, Path) else list(templates)
    bases = {}
    for name in assignment.student_files():
        texts = [(folder / name).read_text(encoding="utf-8", errors="replace") for folder in folders
                 if (folder / name).is_file()]
        if texts:
            found = [p for t in texts if (p := prints.make(t, CODE_K, filename=name)) is not None]
            bases[name] = Base(base_keys(texts, name), np.array(sorted(set().union(*(p.hashes for p in found))), dtype=np.int64),
                               frozenset().union(*map(marked_functions, texts)))
    prompts = [p.read_text(encoding="utf-8", errors="replace") for folder in folders
               for p in sorted(folder.glob("*.md")) + sorted(folder.glob("*.tex"))]
    bases[WRITTEN] = Base(base_keys([*prompts, *written_extra]))
    return bases
