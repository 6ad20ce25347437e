"""Group the class's answers to each written item, so that a TA grades each group once.

- formulas (1(b)(i), 1(d), 1(e), 2(b)(i), 3(b), 3(e)): by what they evaluate to at fixed points
  (the assignment's fingerprint, evaluated in the reader's child process, compared here):
  every equivalent spelling falls in one group, each different wrong form in its own;
- 3(a): by the first wrong row the grader named (or "correct");
- 3(f): each sentence by its reading (type; incorrect; correct);
- prose (the TA shares): by TF-IDF similarity and agglomerative clustering (scikit-learn). These
  groups are suggestions: a TA should read every member.

No answer, answers flagged for review and answers that cannot be read form groups of their own
(one per distinct text, after the first two). Groups are numbered by size, largest first.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from grader import assignment
from grader.classroom.groups.collect import Answer
from grader.classroom.groups.store import VALUES

FORMULA, TABLE, READING, PROSE = "formula", "table", "reading", "prose"
NO_ANSWER, REVIEW, UNREADABLE = "no answer", "needs review", "unreadable"
PROSE_DISTANCE = 0.55
"""Cosine distance (TF-IDF) under which two prose answers are suggested as one group."""
RTOL, ATOL = 1e-6, 1e-9
"""Two formulas are one group when all their values agree this closely."""
FINGERPRINT_TIMEOUT = 10.0

Fingerprinter = Callable[[str, str, str], dict[str, Any] | None]
"""(checker, question, raw) -> the child's fingerprint reply (None when the request failed)."""


@dataclass
class Group:
    """Answers a TA can grade at once."""

    question: str
    item: str
    kind: str                      # FORMULA, TABLE, READING, PROSE, NO_ANSWER, REVIEW, UNREADABLE
    label: str                     # what the members share ("U(ŷ − y)", "first wrong row: 7", ...)
    members: list[Answer] = field(default_factory=list)
    representative: Answer | None = None
    id: str = ""
    key: str = ""                  # what the group is, whatever its number: see :func:`group_key`

    @property
    def size(self) -> int:
        return len(self.members)

    @property
    def suggestion(self) -> bool:
        return self.kind == PROSE

    @property
    def verdict(self) -> str:
        """The auto verdict shared by the members, "mixed: ..." when they differ, "" for TA items."""
        seen = list(dict.fromkeys(a.verdict for a in self.members if a.verdict))
        return seen[0] if len(seen) == 1 else ("mixed: " + ", ".join(seen) if seen else "")

    @property
    def slot(self) -> str:
        return f"{self.question}.{self.item}" if self.item else self.question


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _by_text(answers: Sequence[Answer], kind: str, label: str) -> list[Group]:
    groups: dict[str, Group] = {}
    for a in answers:
        g = groups.setdefault(_norm(a.text), Group(a.question, a.item, kind, label))
        g.members.append(a)
    return list(groups.values())


def _flat(reply: dict[str, Any]) -> tuple[tuple, np.ndarray]:
    signature: list[Any] = []
    values: list[float] = []
    for case in reply["cases"]:
        for e in case:
            if "error" in e:
                signature.append(("e", e["error"]))
            else:
                signature.append(("v", tuple(e["shape"])))
                values += e["values"]
    if not values:        # nothing evaluates: only the same reading is the same answer
        signature.append(("shown", reply.get("shown", "")))
    return tuple(signature), np.asarray(values, dtype=float)


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(all="ignore"):
        near = np.isclose(a, b, rtol=RTOL, atol=ATOL) | both_nan | (a == b)
    return bool(np.all(near))


def value_key(signature: tuple, values: np.ndarray) -> str:
    """A formula group's key: its shapes and its values at the fixed points to 6 significant digits
    (the same for every equivalent spelling, in every run: the points are fixed)."""
    shown = ",".join(f"{x:.6g}" for x in values.tolist())
    return VALUES + hashlib.sha256(f"{signature!r}|{shown}".encode()).hexdigest()[:16]


def formula_groups(answers: Sequence[Answer], fingerprint: Fingerprinter) -> list[Group]:
    """Answers grouped by their values at the fixed points; unreadable ones by their text."""
    replies: dict[str, dict[str, Any] | None] = {}
    groups: list[tuple[tuple, np.ndarray, Group]] = []
    unreadable: list[Answer] = []
    for a in answers:
        if a.text not in replies:
            replies[a.text] = fingerprint(a.checker, a.question, a.text)
        reply = replies[a.text]
        if not reply or "cases" not in reply:
            unreadable.append(a)
            continue
        signature, values = _flat(reply)
        for sig, vals, g in groups:
            if sig == signature and vals.shape == values.shape and _same(vals, values):
                g.members.append(a)
                break
        else:
            groups.append((signature, values, Group(a.question, a.item, FORMULA, "", [a],
                                                    key=value_key(signature, values))))
    formulas = [g for _, _, g in groups]
    for g in formulas:   # labelled with the reading of its commonest spelling
        reply = replies[_representative(g).text] or {}
        g.label = str(reply.get("shown", ""))
    return formulas + _by_text(unreadable, UNREADABLE, "the grader could not read these")


def keyed_groups(answers: Sequence[Answer], kind: str, key: Callable[[Answer], str]) -> list[Group]:
    groups: dict[str, Group] = {}
    for a in answers:
        k = key(a)
        groups.setdefault(k, Group(a.question, a.item, kind, k)).members.append(a)
    return list(groups.values())


PROSE_EXTRA_NOTE = ("prose answers are grouped by equal text only: for groups of similar texts, install "
                    "scikit-learn with `pip install '.[groups]'` (from the grader's checkout) and run "
                    "`grader groups DIR`")
"""Said once by `grader batch` and `grader groups` when scikit-learn is missing."""


def prose_similarity_available() -> bool:
    """Whether scikit-learn (the ``groups`` extra) can be imported for the prose suggestions."""
    try:
        import sklearn  # noqa: F401
    except ImportError:
        return False
    return True


def prose_groups(answers: Sequence[Answer]) -> list[Group]:
    """Suggested groups of prose answers: equal texts together, then similar ones (TF-IDF)."""
    exact = _by_text(answers, PROSE, "")
    if len(exact) < 2:
        return _labelled(exact)
    if not prose_similarity_available():   # the `groups` extra is not installed: equal texts only
        return _labelled(exact, "equal texts (similar ones need the `groups` extra: pip install '.[groups]')")

    from sklearn.cluster import AgglomerativeClustering
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [g.members[0].text for g in exact]
    try:
        matrix = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 5), sublinear_tf=True).fit_transform(texts)
    except ValueError:    # nothing but punctuation
        return _labelled(exact)
    labels = AgglomerativeClustering(n_clusters=None, metric="cosine", linkage="average",
                                     distance_threshold=PROSE_DISTANCE).fit_predict(matrix.toarray())
    merged: dict[int, Group] = {}
    for g, label in zip(exact, labels):
        target = merged.setdefault(int(label), Group(g.question, g.item, PROSE, ""))
        target.members += g.members
    return _labelled(list(merged.values()))


def _labelled(groups: list[Group], many: str = "similar texts (a suggestion: read each one)") -> list[Group]:
    for g in groups:
        g.label = many if g.size > 1 else "one answer"
    return groups


def group_item(answers: Sequence[Answer], fingerprint: Fingerprinter) -> list[Group]:
    """The groups of one item (one question's share, or one 3(f) sentence), numbered by size."""
    empty = [a for a in answers if not a.text.strip()]
    review = [a for a in answers if a.text.strip() and a.review]
    rest = [a for a in answers if a.text.strip() and not a.review]
    groups: list[Group] = []
    if empty:
        groups.append(Group(empty[0].question, empty[0].item, NO_ANSWER, "no answer found", list(empty)))
    groups += _by_text(review, REVIEW, "flagged for review")
    checker = rest[0].checker if rest else ""
    kind = assignment.registry().group_kind(checker) if checker else PROSE
    if kind == FORMULA:
        groups += formula_groups(rest, fingerprint)
    elif kind in (TABLE, READING):
        groups += keyed_groups(rest, kind, lambda a: assignment.registry().group_label(
            a.checker, a.text, a.score, a.max_score, a.feedback))
    else:
        groups += prose_groups(rest)
    groups.sort(key=lambda g: (-g.size, g.kind, g.label))
    for g in groups:
        if not g.key and g.kind in (TABLE, READING, NO_ANSWER):   # the label is what they share
            g.key = f"{g.kind}:{g.label}"
    for n, g in enumerate(groups, 1):
        g.id = f"{g.slot}:{n:02d}"
        g.representative = _representative(g)
    return groups


def _representative(g: Group) -> Answer:
    """The commonest text of the group (the first submission's, on a tie)."""
    counts: dict[str, int] = {}
    for a in g.members:
        counts[_norm(a.text)] = counts.get(_norm(a.text), 0) + 1
    best = max(counts.values())
    return next(a for a in g.members if counts[_norm(a.text)] == best)


def group_all(answers: Sequence[Answer], fingerprint: Fingerprinter) -> dict[str, list[Group]]:
    """Slot ("1b_i", "1d.ta", "3f.ii") -> its groups, in the rubric's order of the answers."""
    slots: dict[str, list[Answer]] = {}
    for a in answers:
        slots.setdefault(a.slot, []).append(a)
    return {slot: group_item(items, fingerprint) for slot, items in slots.items()}


def child_fingerprinter(runner: Any) -> Fingerprinter:
    """A :data:`Fingerprinter` that asks the reader's child process (``runner.call``)."""
    def ask(checker: str, question: str, raw: str) -> dict[str, Any] | None:
        reply = runner.call("fingerprint", {"checker": checker, "question": question, "raw": raw},
                            timeout=FINGERPRINT_TIMEOUT)
        return reply.value if reply.ok and isinstance(reply.value, dict) else None
    return ask
