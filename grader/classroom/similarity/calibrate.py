"""What counts as evidence in one file of one class: common code discounted, scores calibrated.

**Common code.** Independent solutions of this assignment share much: its regions are short and
leave few ways to write them (every parse step pops and appends the same way), and students
keep other years' starter code. So, as MOSS's passage limit does, a fingerprint (a k-gram of
filtered code) held by more than :func:`passage_limit` documents of a file, the class's and the
known solutions' together, counts for nothing: it is removed from every document before any
two are compared, and a document's *student code* is what is left of its own part.

**Forks count once.** Known solutions are often forks of one another (a public repository and
its copies): near-identical known documents of a file count as one document in how many hold a
fingerprint (:func:`counted_sets`), so five forks of the solution a student copied neither make
its code common nor weigh it down; each is still compared with every submission.

**Idioms weigh less.** Below that limit, code several documents hold is still an idiom of the
assignment more than evidence (a sigmoid line, a skip-gram loop, the `__init__` the handout
dictates): a share counts each token by how few documents hold it (:func:`rarity_weight`, 2 / n
when n > 2 hold it), in what two documents share and in what each holds alike. Copies share
everything, rare or not, and keep a share near 1; code only the two hold counts fully. Of 30
real public word2vec.py, two written apart that share only lines 3 to 5 of them hold scored 0.58
unweighted (listed) and 0.37 weighted; the one real copy among them 0.69 and 0.65.

**Too short.** A file whose median document holds fewer than ``MIN_MATCHED`` tokens of student
code is not compared: no pair of it can share enough to be evidence (``sgd.py``'s two lines,
``run.py``'s training step that every solution writes alike). The pages name it.

**Calibrated.** Among the rest, a pair is flagged when its score (the larger weighted share of
student code found in the other) is an outlier for that file in this class: its robust z-score
``(score - median) / scale`` over every pair of the file compared (a scale of 1.4826 x the
median absolute deviation, at least ``SCALE_FLOOR``) reaches ``Z_FLAG``, its score is at least
``SCORE_FLOOR``, and it shares at least ``MIN_MATCHED`` tokens of student code; a pair sharing
``SCORE_ALWAYS`` of its student code is listed however usual that is in the class. A fixed
threshold (``--threshold``) replaces the score tests by ``score >= threshold``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from grader.classroom.similarity.prints import Held, Prints, matches, overlap, positions_of

#: Fewest tokens of student code a pair must share to count at all.
MIN_MATCHED = 60
#: A fingerprint held by more documents than this is common (MOSS's -m is 10) ...
COMMON_MIN_DOCS = 10
#: ... or than this share of the documents of the file, in a large class.
COMMON_SHARE = 0.1
#: Known documents of a file whose fingerprints overlap this much (Jaccard) are forks of one
#: solution, counted once in how common a fingerprint is.
FORK_JACCARD = 0.8
#: Robust z-score a pair's score must reach to be flagged (calibrated mode). SCORE_FLOOR /
#: SCALE_FLOOR: in a file where most pairs share nothing, the floor alone decides; where idioms make
#: many pairs alike (a small class, the handout's `__init__`), only a score far above them is
#: listed (4 listed a pair of real parser_model.py that shared only code 5 of 11 documents hold).
Z_FLAG = 5.0
#: Smallest scale of the z-score: in a class where most pairs share nothing (median absolute
#: deviation 0), a pair needs a score of Z_FLAG x SCALE_FLOOR above the median.
SCALE_FLOOR = 0.1
#: Smallest score flagged in calibrated mode, however unusual the class.
SCORE_FLOOR = 0.5
#: A score flagged in calibrated mode however usual it is in the class: nearly all of a file's
#: student code (not common, not starter code) found in the other. A class where most pairs of a
#: file share that much (most submissions copies of one solution) has no background to measure
#: against, and such a pair is evidence in any class.
SCORE_ALWAYS = 0.9


def passage_limit(documents: int) -> int:
    """The most documents a fingerprint may be found in and still count."""
    return max(COMMON_MIN_DOCS, math.ceil(COMMON_SHARE * documents))


def fork_groups(hash_sets: Sequence[frozenset[int]]) -> list[list[int]]:
    """The known documents of one file grouped into forks of one solution: two whose fingerprints
    overlap by at least ``FORK_JACCARD`` (shared over held by either), and transitively."""
    parent = list(range(len(hash_sets)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(hash_sets):
        for j in range(i + 1, len(hash_sets)):
            b = hash_sets[j]
            if min(len(a), len(b)) < FORK_JACCARD * max(len(a), len(b)) or root(i) == root(j):
                continue
            if len(a & b) >= FORK_JACCARD * len(a | b):
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(hash_sets)):
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def counted_sets(class_sets: Sequence[frozenset[int]], known_sets: Sequence[frozenset[int]]) -> list[frozenset[int]]:
    """The documents that count in how common a fingerprint is: each class document, and each
    group of near-identical known documents once (:func:`fork_groups`: a folder of forks of one
    public solution is one solution, not many documents that make its code look common)."""
    return [*class_sets, *(frozenset().union(*(known_sets[i] for i in g)) for g in fork_groups(known_sets))]


def common_hashes(hash_sets: Sequence[frozenset[int]]) -> tuple[Held, np.ndarray, int]:
    """How many documents hold each fingerprint, those held by too many (sorted), and the limit."""
    held = Held(hash_sets)
    limit = passage_limit(len(hash_sets))
    return held, held.above(limit), limit


@dataclass(frozen=True)
class FileCalibration:
    """One file of the class: how much student code its documents hold, what is common, and the
    distribution of its pairs' scores."""

    file: str
    documents: int                # class documents of this file holding own code, and groups of known forks
    limit: int                    # the passage limit
    common: int                   # fingerprints discounted as common
    student_tokens: int           # median tokens of student code of a class document
    student_lines: int            # median lines of own code of a class document
    compared: bool
    median: float = 0.0
    scale: float = SCALE_FLOOR
    pairs: int = 0

    @property
    def note(self) -> str:
        """What the pages say of a file not compared."""
        lines = f"{self.student_lines} line{'s' if self.student_lines != 1 else ''}"
        return (f"{self.file}: {lines} of student code ({self.student_tokens} tokens not common to the class, "
                f"fewer than {MIN_MATCHED}), not compared")

    def z(self, score: float) -> float:
        return (score - self.median) / self.scale


def rounded_median(values: Sequence[float]) -> int:
    return int(round(float(np.median(values)))) if len(values) else 0


def distribution(calibration: FileCalibration, scores: np.ndarray) -> FileCalibration:
    """``calibration`` with the median and scale of ``scores`` (every pair of the file compared)."""
    if len(scores) == 0:
        return calibration
    median = float(np.median(scores))
    mad = 1.4826 * float(np.median(np.abs(scores - median)))
    return FileCalibration(calibration.file, calibration.documents, calibration.limit, calibration.common,
                           calibration.student_tokens, calibration.student_lines, calibration.compared,
                           median, max(mad, SCALE_FLOOR), len(scores))


def flagged(calibration: FileCalibration, score: float, matched: int, threshold: float | None) -> bool:
    """Whether a pair of this file is listed: calibrated (``threshold`` None) or fixed."""
    if matched < MIN_MATCHED or not calibration.compared:
        return False
    if threshold is not None:
        return score >= threshold
    return score >= SCORE_ALWAYS or (score >= SCORE_FLOOR and calibration.z(score) >= Z_FLAG)


def rarity(held: Held, hashes: Sequence[int]) -> int:
    """How many documents hold a shared region: the median over its fingerprints."""
    counts = sorted(held.of(hashes).tolist())
    return counts[len(counts) // 2] if counts else 0


def rarity_weight(counts: np.ndarray) -> np.ndarray:
    """What a fingerprint held by ``counts`` documents weighs: 1 when at most two hold it (the
    pair), 2 / n when n do (the same weight as :func:`shared_slices`'s evidence)."""
    return np.minimum(1.0, 2.0 / np.maximum(np.asarray(counts, dtype=float), 1.0))


def token_weights(p: Prints, held: Held) -> np.ndarray:
    """The running sum (length ``p.length + 1``) of the weight of each token of ``p``'s filtered
    code: the least :func:`rarity_weight` of the k-grams kept that cover it (0 for a token no
    k-gram kept covers), so that a token inside an idiom several documents hold weighs what
    the idiom does."""
    weight = np.full(p.length, np.inf)
    w = rarity_weight(held.of(p.kgram_hash))
    for offset in range(p.k):
        np.minimum.at(weight, p.kgram_pos + offset, w)
    weight[np.isinf(weight)] = 0.0
    return np.concatenate([[0.0], np.cumsum(weight)])


def _weighted(cum: np.ndarray | None, slices: np.ndarray, tokens: int, coverage: int) -> float:
    if cum is None:
        return tokens / coverage
    starts, ends = np.asarray(slices[0], dtype=np.int64), np.asarray(slices[1], dtype=np.int64)
    total = float(cum[-1])
    return float(np.sum(cum[ends] - cum[starts])) / total if total > 0 else 0.0


def shares(x: Prints, y: Prints, wx: np.ndarray | None = None,
           wy: np.ndarray | None = None) -> tuple[int, float, float, int]:
    """Tokens of ``x``'s student code found in ``y``, the two shares, and the tokens of ``y``'s
    found in ``x`` (copydetect's compare_files without the slices), over two discounted
    fingerprints. With the documents'
    :func:`token_weights`, a share counts each token by how rare it is in the class: code that
    several documents of the class hold (an idiom of this assignment) counts less, in what is
    shared and in what the document holds alike, so that two documents that share only such
    idioms are not alike, and copies (which share everything, rare or not) stay near 1."""
    from copydetect.utils import get_copied_slices

    idx_x, idx_y = overlap(x, y)
    slices_x, slices_y = get_copied_slices(idx_x, x.k), get_copied_slices(idx_y, y.k)
    if len(slices_x[0]) == 0:
        return 0, 0.0, 0.0, 0
    tokens_x, tokens_y = int(np.sum(slices_x[1] - slices_x[0])), int(np.sum(slices_y[1] - slices_y[0]))
    return (tokens_x, _weighted(wx, slices_x, tokens_x, x.token_coverage),
            _weighted(wy, slices_y, tokens_y, y.token_coverage), tokens_y)


def unfiltered(fp: Prints, slices: np.ndarray) -> np.ndarray:
    """Slices of ``fp``'s filtered code as positions in the code it was given (copydetect's own
    mapping, as compare_files does it)."""
    slices = np.asarray(slices, dtype=np.int64).reshape(2, -1)
    if slices.shape[1] and len(fp.offsets) > 0:
        slices = slices + fp.offsets[:, 1][np.clip(np.searchsorted(fp.offsets[:, 0], slices), 0, fp.offsets.shape[0] - 1)]
    return slices


def shared_slices(x: Prints, y: Prints, held: Held) -> tuple[np.ndarray, list[int], float]:
    """The slices of ``x``'s own part that ``y`` shares (positions in the own part), how many
    documents hold each (the median over its fingerprints), and the evidence: the tokens of the
    slices, each weighted by 2 / (documents holding it), so that code only these two hold counts
    fully."""
    from copydetect.utils import get_copied_slices

    found = matches(x, y)
    if not found:
        return np.zeros((2, 0), np.int64), [], 0.0
    pos = np.array([p for p, _ in found])
    slices = get_copied_slices(pos, x.k).astype(np.int64)
    counts, evidence = [], 0.0
    for start, end in zip(*slices):
        n = rarity(held, sorted({h for p, h in found if start <= p < end}))
        counts.append(n)
        evidence += (end - start) * min(1.0, 2 / max(n, 1))
    return unfiltered(x, slices), counts, evidence


def _block_end(where: np.ndarray, start: int, end: int) -> int:
    """The last own-part position from ``start`` up to ``end`` before starter code interrupts."""
    jumps = np.nonzero(np.diff(where[start:end + 1]) != 1)[0]
    return start + int(jumps[0]) if len(jumps) else end


def _place(v: Prints, where: np.ndarray, starts: Sequence[int]) -> tuple[int, int]:
    """The k-grams starting at ``starts`` (sorted) of ``v``'s filtered code, as characters of the
    whole text: from the first to the end of the last, cut where starter code interrupts."""
    own = unfiltered(v, np.array([[starts[0], starts[-1]], [starts[0] + v.k, starts[-1] + v.k]]))
    first = min(max(int(own[0][0]), 0), len(where) - 1)
    last = min(max(int(own[1][1]) - 1, first), len(where) - 1)
    return int(where[first]), int(where[_block_end(where, first, last)]) + 1


def links(x: Prints, y: Prints, where_x: np.ndarray, where_y: np.ndarray, held: Held) -> tuple[tuple[int, int, int, int, int], ...]:
    """The shared stretches of ``x`` matched up with where ``y`` has them: runs of overlapping
    shared k-grams of ``x``, cut where starter code comes between, each as (start, end in x's
    text, start, end in y's text, documents holding it); ``where_*`` place each character of an
    own part in its text."""
    found = matches(x, y)
    if not found or not len(where_x) or not len(where_y):
        return ()
    starts = unfiltered(x, np.array([[p for p, _ in found]] * 2))[0].clip(0, len(where_x) - 1)
    runs: list[list[tuple[int, int]]] = []
    for i, (p, h) in enumerate(found):
        if runs and p - runs[-1][-1][0] < x.k and \
                where_x[starts[i]] - where_x[starts[i - 1]] == starts[i] - starts[i - 1]:
            runs[-1].append((p, h))
        else:
            runs.append([(p, h)])
    out = []
    for run in runs:
        hashes = sorted({h for _, h in run})
        there = positions_of(y, hashes).tolist()
        out.append((*_place(x, where_x, [p for p, _ in run]), *_place(y, where_y, there), rarity(held, hashes)))
    return tuple(out)
