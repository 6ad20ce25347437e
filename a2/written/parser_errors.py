"""3(f): for each of the four parsed sentences, the error type, the incorrect and the correct dependency.

The section is split per sentence by its roman numerals (``i.``, ``(ii)``, ``### iii``,
``**iv.**``) or, failing those, by words of the sentence itself, or by the rows of a table. In each
part the error type is read loosely ("VP attachment", "prepositional-phrase", "coordination"; a
misspelling close to a keyword counts), and the dependencies from any arrow spelling: the one on
a line saying incorrect/wrong is the incorrect one, the one on a line saying correct/should the
correct one, otherwise the first and the second written. Each of the 12 items is one point of
partial credit.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from a2.written.catalogue import every_known
from a2.written.checker_registry import Verdict, WrittenContext, missing, written_check
from a2.written.corrections import split_at_correction
from a2.written.keys import ERROR_TYPES, parser_error_keys
from a2.written.sections import Section
from a2.written.tables import ARROWS, Dependency, clean, dependencies_in, table_rows
from grader.reading.blocks import list_items, markdown_tokens

VP, MOD, PP, COORD = ERROR_TYPES

KEYS = parser_error_keys()
"""The four sentences' keys: data, in a2/written/keys.yaml (the one place they are written)."""

KIND_WORDS: dict[str, tuple[str, ...]] = {
    VP: ("verb phrase", "vp", "verbal phrase"),
    MOD: ("modifi*", "mod", "adverb*", "adjectiv*"),
    PP: ("prepositional phrase", "prepositional", "preposition*", "pp", "prep phrase", "prep. phrase"),
    COORD: ("coordinat*", "conjunct*", "coord"),
}
"""How students name each error type: words (``*`` any ending; a space any run of spaces, hyphens
or underscores). Data: a new spelling is a new entry."""


def _words_pattern(words: tuple[str, ...]) -> str:
    return "|".join(r"\b" + r"[\s\-_]*".join(re.escape(w).replace(r"\*", r"\w*") for w in phrase.split())
                    + ("" if phrase.endswith("*") else r"\b") for phrase in words)


_KIND_PATTERNS = tuple((kind, re.compile(_words_pattern(words), re.I)) for kind, words in KIND_WORDS.items())
_FUZZY = {"verb": VP, "modifier": MOD, "prepositional": PP, "preposition": PP, "coordination": COORD,
          "coordinating": COORD}
_ROMAN_START = re.compile(r"(?im)^[ \t>#*_\-|]*(?:\(?\s*(iv|iii|ii|i)\s*[.):|]|\(\s*(iv|iii|ii|i)\s*\)|(iv|iii|ii|i)\s*$)")
TYPE_WORDS = ("错误类型", "錯誤類型", "エラーの種類", "오류\\s*유형")
""""Error type" as a field label in other languages (its 错误 is no "wrong" mark there)."""
_ITEM_NUMBER = r"(?:(?:\*\*|__)?\(?[1-4][.)](?:\*\*|__)?\s*)?"
"""A sentence's number before its first field, bold or not (``**1.** Error type: ...``, ``(2) 錯誤類型：...``)."""
_TYPE_OPENING = re.compile(r"(?im)^[ \t>#*_\-|]*(?:\\item\s*)?" + _ITEM_NUMBER + r"(?:\*\*|__|\\textbf\{)?\s*"
                           r"(?:(?:error\s*type|type\s*of\s*error)\b|" + "|".join(TYPE_WORDS) + ")")
_TYPE_LINE = re.compile(r"(?im)^.*(?:\b(?:error\s*type|type\s*of\s*error|type|kind|category)\b|" + "|".join(TYPE_WORDS) + ").*$")
WRONG_WORDS = ("errónea", "erróneo", "equivocad[oa]", "falsch", "fausse", "faux", "sbagliat[oa]", "errat[oa]",
               "不正确", "不正確", "错误(?!类型)", "錯誤(?!類型)", "错的", "錯的", "誤った", "間違った", "잘못", "틀린", "틀림",
               "неправильн\\w*", "неверн\\w*")
RIGHT_WORDS = ("richtig", "korrekt", "corrett[oa]", "(?<!不)正确", "(?<!不)正確", "对的", "對的", "正しい", "올바른", "올바름",
               "옳은", "правильн\\w*", "верн\\w*")
"""How "wrong" and "right" are written in other languages (``incorrecta``/``correcta`` are read as
``incorrect``/``correct``): regular expressions, data; a new language is a new entry."""
_COPULAS = r"is|was|are|were|would\s+be|=|es|est|ist|è|是|為|为|는|은|가|이"
_MARK = re.compile(r"(?P<wrong>incorrect|wrong|erroneous|mistaken|predicted|produced|output|chose|chosen|bad|"
                   + "|".join(WRONG_WORDS) + r")"
                   r"|(?P<right>(?<!in)correct(?:ed)?|should|gold|right|fix(?:ed)?|true|proper|instead\s+of|rather\s+than|"
                   + "|".join(RIGHT_WORDS) + ")", re.I)
_AFTER = re.compile(r"\s*(?:" + _COPULAS + r")?\s*(?:the\s+|a\s+)?((?:in)?correct[oa]?|wrong|right|erroneous|mistaken|bad|gold|"
                    + "|".join((*WRONG_WORDS, *RIGHT_WORDS)) + r")(?:的|の)?(?!\w)", re.I)
_SWAP = re.compile(r"should\s+(?:be|have\s+been)|instead\s+of|rather\s+than|→\s*$|\bnot\b", re.I)
_INSTEAD = re.compile(r"instead\s+of|rather\s+than|in\s+place\s+of", re.I)
_REPLACES = re.compile(r"\breplac(?:es?|ing)\b|\bshould\s+replace\b", re.I)
"""``A should replace B``: A is the right arc (never ``A is replaced by B``, which the swap reads)."""
_CHOSE = re.compile(r"(?P<wrong>\b(?:chose|chosen|picked|predicted|produced|output|attached|made|gave|returned|"
                    r"incorrect(?:ly)?|wrong(?:ly)?|parser\s+(?:has|had))\b)"
                    r"|(?P<right>\b(?:should|must|ought|needs?|gold|(?<!in)correct(?:ly)?|right(?:ly)?)\b)", re.I)
"""Who holds A in ``... A instead of B``: the parser ("the parser chose A instead of B": A wrong)
or the right parse ("the parse should have A instead of B": A right)."""


def kind_of(text: str) -> tuple[str | None, str]:
    """The error kind named first in ``text`` (loosely spelled), and the words it was read from."""
    best: tuple[int, str, str] | None = None
    for kind, pattern in _KIND_PATTERNS:
        m = pattern.search(text)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), kind, m.group(0))
    if best is None:
        for m in re.finditer(r"[A-Za-z]{4,}", text):
            close = difflib.get_close_matches(m.group(0).lower(), list(_FUZZY), n=1, cutoff=0.8)
            if close:
                best = (m.start(), _FUZZY[close[0]], m.group(0))
                break
    return (best[1], best[2]) if best else (None, "")


def _answers(part: str) -> bool:
    """Whether ``part`` names an error type or a dependency (not only the sentence it is about)."""
    return kind_of(part)[0] is not None or bool(dependencies_in(clean(part)))


_TYPE_HEADER = re.compile(r"(?i)type|kind|类型|類型|유형|tipo|typ|種類")
"""A header naming the error type (``错误类型``: its ``错误`` is "error", not "wrong")."""


def _roles_from_header(body: str) -> str:
    """A table whose header names the roles of its columns ("Correct dependency", "Incorrect
    dependency", in any order) with each role written into its cells ("Incorrect: a → b"), so
    that the header, not the column's place, says which arc is which."""
    lines = body.split("\n")
    for table in table_rows(body):
        roles = {k: _label(cell.lower()) for k, cell in enumerate(table[0].cells)
                 if (_MARK.search(cell) or re.search(r"(?i)parser", cell)) and not _TYPE_HEADER.search(cell)}
        if sorted(r for r in roles.values() if r) != ["right", "wrong"]:
            continue
        for row in table[1:]:
            if row.line < len(lines):
                lines[row.line] = " | ".join(f"{'Incorrect' if roles.get(k) == 'wrong' else 'Correct'} dependency: "
                                             f"{cell}" if roles.get(k) else cell for k, cell in enumerate(row.cells))
    return "\n".join(lines)


def parallel_items(body: str) -> list[str]:
    """Lists in parallel, one item per sentence each ("Error types: 1. ... 4." then "Dependencies, in the same
    order: 1. ... 4."): item k of every such list, with the line that introduces its list, joined; [] if
    fewer than two lists have one item per sentence."""
    lines = body.split("\n")
    lists: list[tuple[int, list[str]]] = []
    depth = 0
    for tok in markdown_tokens(body):
        if tok.type in ("bullet_list_open", "ordered_list_open"):
            depth += 1
            if depth == 1 and tok.map:
                lists.append((tok.map[0], []))
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            depth -= 1
        elif tok.type == "list_item_open" and depth == 1 and tok.map and lists:
            lists[-1][1].append("\n".join(lines[tok.map[0]:tok.map[1]]).rstrip())
    lists = [(start, items) for start, items in lists if len(items) == len(KEYS)]
    if len(lists) < 2:
        return []
    lead = [lines[start - 1].strip() if start and lines[start - 1].strip() else "" for start, _ in lists]
    return ["\n".join(f"{intro} {items[k]}".strip() for intro, (_, items) in zip(lead, lists, strict=True))
            for k in range(len(KEYS))]


def split_items(body: str) -> dict[str, str]:
    """The text about each sentence, keyed by its roman numeral."""
    body = _roles_from_header(body)
    parts: dict[str, str] = {}
    marks = [(m.start(), next(g for g in m.groups() if g)) for m in _ROMAN_START.finditer(body)]
    romans = [r for _, r in marks]
    if len(set(romans)) >= 3:
        # A numeral met twice (the handout's sentences kept above the answers): the part that
        # names an error type or a dependency answers it, else the first.
        for k, (start, roman) in enumerate(marks):
            end = marks[k + 1][0] if k + 1 < len(marks) else len(body)
            if roman not in parts or not _answers(parts[roman]) and _answers(body[start:end]):
                parts[roman] = body[start:end]
        return parts
    # A list (``1.`` ... ``4.``, bullets) with one item per sentence: each names its sentence by
    # its words, else by its place when there is one item per sentence.
    items = parallel_items(body) or list_items(body)
    sentences_named = [{key.roman for key in KEYS if re.search(key.clue, item, re.I)} for item in items]
    if len(items) == len(KEYS) or (len(items) >= 2 and all(len(n) == 1 for n in sentences_named)
                                   and len(set().union(*sentences_named)) == len(items)):
        for k, (item, names) in enumerate(zip(items, sentences_named, strict=True)):
            roman = next(iter(names)) if len(names) == 1 else KEYS[k].roman if len(items) == len(KEYS) else None
            if roman is not None:
                parts.setdefault(roman, item)
        if len(parts) >= 2:
            return parts
        parts.clear()
    # No numerals, but one "Error type" line per sentence: each opens that sentence's part, which
    # its words name (else its place, when there is one such line per sentence).
    openings = [m.start() for m in _TYPE_OPENING.finditer(body)]
    if len(openings) >= 2:
        pieces = [body[a:b] for a, b in zip(openings, [*openings[1:], len(body)], strict=True)]
        for k, piece in enumerate(pieces):
            named = [key.roman for key in KEYS if re.search(key.clue, piece, re.I)]
            roman = named[0] if len(named) == 1 else KEYS[k].roman if len(pieces) == len(KEYS) else None
            if roman is not None:
                parts.setdefault(roman, piece)
        if len(parts) >= 2:
            return parts
        parts.clear()
    # No numerals: find each sentence by its words.
    starts = []
    for key in KEYS:
        m = re.search(key.clue, body, re.I)
        if m:
            line_start = body.rfind("\n", 0, m.start()) + 1
            starts.append((line_start, key.roman))
    starts.sort()
    for k, (start, roman) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(body)
        parts.setdefault(roman, body[start:end])
    if len(parts) >= 2:
        return parts
    # A table: one row per sentence.
    for table in table_rows(body):
        rows = [r for r in table if not re.search(r"(?i)error|type|sentence|incorrect", " ".join(r.cells))]
        if len(rows) >= 2:
            for key, row in zip(KEYS, rows, strict=False):
                parts.setdefault(key.roman, " | ".join(row.cells))
            break
    return parts


def read_item(text: str) -> tuple[str | None, str, Dependency | None, Dependency | None]:
    """Kind (and its words), incorrect and correct dependency written in one sentence's part; a
    part answered twice (a draft, then ``Corrected: …``) is read from its correction, each field
    it does not restate from the draft (:mod:`a2.written.corrections`)."""
    cut = split_at_correction(text)
    if cut is None:
        return _read_once(text)
    (kind, words, wrong, right), (kind2, words2, wrong2, right2) = _read_once(cut[0]), _read_once(cut[1])
    kind, words = (kind2, words2) if kind2 is not None else (kind, words)
    return kind, words, wrong2 or wrong, right2 or right


_ENDS_INSIDE = re.compile(rf"(?:{ARROWS}|:)[ \t]*$")
_STARTS_INSIDE = re.compile(rf"^[ \t]*(?:{ARROWS})")
_STARTS_BLOCK = re.compile(r"^[ \t]*(?:[-*+|#>]|\d+[.)]|\(?[ivx]+[.)]|[^\W\d_][\w ]{0,30}:)")


def _unwrapped(text: str) -> str:
    """``text`` with its hard wraps inside a sentence undone, as the rendered paragraph shows it: a line
    break inside a dependency (``Correct: word`` / ``← head``), after a field's label
    (``Correct dependency:`` / ``dependent ← head``) or in the middle of a sentence (``head → dependent
    should`` / ``replace head → word``: a next line that goes on in lower case). A line that
    starts a list item, a table row or a field (``correct: a → b``), or that says which arc is which,
    stays a line of its own."""
    lines = text.split("\n")
    out = lines[:1]
    for line in lines[1:]:
        prev = out[-1]
        goes_on = (bool(prev.strip()) and bool(line.strip()) and not _STARTS_BLOCK.match(line)
                   and (_ENDS_INSIDE.search(prev) is not None or _STARTS_INSIDE.match(line) is not None
                        or (line.lstrip()[:1].islower() and not prev.rstrip().endswith((".", ";"))
                            and not _MARK.match(line.lstrip()) and not _AFTER.match(line))))
        if goes_on:
            out[-1] = f"{prev.rstrip()} {line.lstrip()}"
        else:
            out.append(line)
    return "\n".join(out)


def _read_once(text: str) -> tuple[str | None, str, Dependency | None, Dependency | None]:
    plain = _unwrapped("\n".join(clean(line) for line in text.split("\n")))
    type_line = _TYPE_LINE.search(plain)
    kind, words = kind_of(type_line.group(0)) if type_line else (None, "")
    if kind is None:
        kind, words = kind_of(plain)
    wrong = right = None
    unlabelled: list[Dependency] = []
    for segment in re.split(r"(?<=[.;|\n])\s+|\n", plain):
        for dep, label in _labelled(segment):
            if label == "wrong" and wrong is None:
                wrong = dep
            elif label == "right" and right is None:
                right = dep
            else:
                unlabelled.append(dep)
    for dep in unlabelled:
        if wrong is None and (right is None or dep.key() != right.key()):
            wrong = dep
        elif right is None and wrong is not None and dep.key() != wrong.key():
            right = dep
    return kind, words, wrong, right


def _label(words: str) -> str | None:
    m = _MARK.search(words)
    return None if m is None else ("wrong" if m.group("wrong") else "right")


def _labelled(segment: str) -> list[tuple[Dependency, str | None]]:
    """The dependencies of one sentence of prose, each labelled wrong/right/None by its wording.

    "A is wrong" labels A by the words after it; "Incorrect: A", "it should be B" by the last
    marker before it; "A should be B", "A rather than B" make A wrong, B right, and so does "A
    instead of B" unless the words before A give it to the right parse ("should have A instead of
    B"); "A should replace B" makes A right.
    """
    deps = dependencies_in(segment)
    spans = [(m.start(), m.end(), d) for m, d in deps]
    out: list[tuple[Dependency, str | None]] = []
    for k, (start, end, dep) in enumerate(spans):
        nxt = spans[k + 1][0] if k + 1 < len(spans) else len(segment)
        prev = spans[k - 1][1] if k else 0
        after = _AFTER.match(segment[end:nxt])
        if after:
            out.append((dep, _label(after.group(1))))
            continue
        marks = list(_MARK.finditer(segment[prev:start]))
        out.append((dep, ("wrong" if marks[-1].group("wrong") else "right") if marks else None))
    between = segment[spans[0][1]:spans[1][0]] if len(spans) == 2 else ""
    holder = list(_CHOSE.finditer(segment[:spans[0][0]])) if between else []
    if _REPLACES.search(between):
        out = [(spans[0][2], "right"), (spans[1][2], "wrong")]
    elif _INSTEAD.search(between) and holder and holder[-1].group("right"):
        out = [(spans[0][2], "right"), (spans[1][2], "wrong")]
    elif between and _SWAP.search(between):
        out = [(spans[0][2], "wrong"), (spans[1][2], "right")]
    return out


@dataclass(frozen=True)
class ItemEvidence:
    """What the catalogue sees of one sentence's answer: the dependencies read (head, dependent)."""

    wrong: tuple[str, str] | None
    right: tuple[str, str] | None
    kind_ok: bool | None = None     # the error type right (None: the answer is about another sentence)


def _short(kind: str) -> str:
    return kind.replace(" Attachment Error", "").lower()


@written_check("parser_errors")
def parser_errors(section: Section, ctx: WrittenContext) -> Verdict:
    """3(f): error type, incorrect and correct dependency of each sentence (12 items)."""
    if section.empty:
        return missing(section)
    parts = split_items(section.body)
    passed = 0
    lines: list[str] = []
    reads: list[str] = []
    why: list[str] = []           # a known wrong dependency's message: the explanation only
    for key in KEYS:
        text = parts.get(key.roman)
        if text is None:
            lines.append(f"{key.roman}: no answer found for this sentence.")
            continue
        kind, words, wrong, right = read_item(text)
        # An answer about another sentence (another year's 3(f)) earns nothing, not even its error type.
        named = {w for d in (wrong, right) if d is not None for w in d.key()}
        about_it = bool(re.search(key.clue, text, re.I) or named & {*key.wrong, *key.right})
        ok_kind = kind == key.kind and about_it
        ok_wrong = wrong is not None and wrong.key() == key.wrong
        ok_right = right is not None and right.key() == key.right
        passed += ok_kind + ok_wrong + ok_right
        reads.append(f"{key.roman}: {_short(kind) if kind else '?'}; {wrong or '?'}; {right or '?'}")
        # What was read is shown at once; the verdict per field only with the explanation (rubric.yaml's
        # ``explanation``, after the due date by default): each type occurs once, so ✓/✗ per field
        # shown at once would let a few resubmissions find the key.
        lines.append(f"{key.roman}: read type {words or 'not found'!r}, incorrect {wrong or 'not found'}, "
                     f"correct {right or 'not found'}")
        why.append(f"{key.roman}: type {words or 'not found'!r} {'✓' if ok_kind else '✗'}, "
                   f"incorrect {wrong or 'not found'} {'✓' if ok_wrong else '✗'}, "
                   f"correct {right or 'not found'} {'✓' if ok_right else '✗'}")
        if not about_it:
            lines.append(f"  {key.roman}: this answer does not mention the words of sentence {key.roman} "
                         "(another sentence?), so it earns nothing.")
        evidence = ItemEvidence(wrong.key() if wrong else None, right.key() if right else None,
                                ok_kind if about_it else None)
        why += [f"{key.roman}: {mistake.text(evidence)}" for mistake in every_known(f"3f:{key.roman}", evidence)]
    out = Verdict(passed, 3 * len(KEYS), [f"read: {' | '.join(reads)}" if reads else "read: nothing", *lines],
                  read=" | ".join(reads), why=why)
    unread = [r.split(":")[0] for r in reads if "?" in r.split(":", 1)[1]]
    body = f" {section.body}"
    unread += [k.roman for k in KEYS if parts.get(k.roman) is None      # numbered in the text, yet not split out
               and any(f"{lead}{k.roman}{end}" in body for lead in " \n(" for end in ".)")]
    if unread:
        # a field not found is not a wrong field: the answer was not read whole (prose, an arrow not known).
        # Said at once whatever the verdict; flagged for a TA only below full.
        out.doubt = f"3(f) was not read whole: a field of sentence {', '.join(unread)} was not found"
        if passed < out.total:
            out.review = out.doubt
    return out
