"""Compact fingerprints: every k-gram of a document's own part hashed as copydetect hashes it
(its filter for code: names ``V``, strings ``S``, comments and layout dropped; window 1, so
every k-gram is kept), held in two numpy arrays and one set of plain ints.

copydetect's ``CodeFingerprint`` keeps a dict from each hash to a list of numpy scalars and a
set of numpy scalars: about 400 bytes of memory per character of code, held for the whole run.
A class of 300 holds thousands of documents, and one hostile upload a few megabytes of text, so
here a document costs about 80 bytes per character (its hashes as a set of ints for the fast
"anything shared?" test, and the hash and position of each k-gram in arrays), and
:func:`grader.classroom.similarity.detect.fingerprint` gives it at most
:data:`grader.classroom.similarity.sources.MAX_COMPARED_CHARS` characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Prints:
    """The fingerprints of one document (what copydetect's CodeFingerprint offers, compactly)."""

    k: int
    length: int                   # characters of the filtered code (of the text, for prose)
    offsets: np.ndarray           # copydetect's (position in filtered code, characters removed before it), N x 2
    hashes: frozenset[int]        # every fingerprint, once
    kgram_hash: np.ndarray        # int64: the fingerprint of each k-gram kept, in order of position
    kgram_pos: np.ndarray         # int64: its position in the filtered code (increasing)
    token_coverage: int           # characters of the filtered code inside a k-gram kept


def _coverage(pos: np.ndarray, k: int) -> int:
    """Characters covered by k-grams starting at the increasing positions ``pos``."""
    if not len(pos):
        return 0
    return int(np.minimum(np.diff(pos), k).sum()) + k


def _build(k: int, length: int, offsets: np.ndarray, kh: np.ndarray, pos: np.ndarray) -> Prints | None:
    if not len(kh):
        return None
    return Prints(k, length, offsets, frozenset(np.unique(kh).tolist()), kh, pos, _coverage(pos, k))


def make(code: str, k: int, *, filename: str = "", boilerplate: np.ndarray | None = None) -> Prints | None:
    """The fingerprints of ``code`` (filtered as copydetect filters ``filename``'s language when
    ``filename`` is given, else taken as it is), without the k-grams whose hash is in
    ``boilerplate``; None when no k-gram is left."""
    from copydetect.utils import filter_code

    if filename:
        filtered, offsets = filter_code(code, filename)
    else:
        filtered, offsets = code, ()
    offsets = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    count = max(len(filtered) - k + 1, 0)
    kh = np.fromiter((hash(filtered[i:i + k]) for i in range(count)), dtype=np.int64, count=count)
    pos = np.arange(count, dtype=np.int64)
    if boilerplate is not None and len(boilerplate) and count:
        # copydetect's boilerplate step (np.intersect1d told the hashes are unique, which they are
        # not) leaves a k-gram found several times only at its last place, and none whose hash is
        # boilerplate; the scores are calibrated on that, so it is kept.
        _, last = np.unique(kh[::-1], return_index=True)
        pos = np.sort(count - 1 - last).astype(np.int64)
        kh = kh[pos]
        keep = ~np.isin(kh, boilerplate)
        kh, pos = kh[keep], pos[keep]
    return _build(k, len(filtered), offsets, kh, pos)


def without(p: Prints | None, common: np.ndarray) -> Prints | None:
    """``p`` without the fingerprints in ``common`` (sorted), its coverage recounted; None when
    nothing is left."""
    if p is None:
        return None
    drop = np.isin(p.kgram_hash, common) if len(common) else np.zeros(len(p.kgram_hash), dtype=bool)
    if not drop.any():
        return p
    found = _build(p.k, p.length, p.offsets, p.kgram_hash[~drop], p.kgram_pos[~drop])
    return found if found is not None and found.token_coverage > 0 else None


def _array(hashes: Iterable[int]) -> np.ndarray:
    values = list(hashes)
    return np.fromiter(values, dtype=np.int64, count=len(values))


def positions_of(p: Prints, hashes: Iterable[int]) -> np.ndarray:
    """The positions (increasing) of ``p``'s k-grams whose fingerprint is one of ``hashes``."""
    return p.kgram_pos[np.isin(p.kgram_hash, _array(hashes))]


def overlap(x: Prints, y: Prints) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the k-grams of ``x`` and of ``y`` whose fingerprint the other holds
    (copydetect's find_fingerprint_overlap)."""
    shared = _array(x.hashes & y.hashes)
    return x.kgram_pos[np.isin(x.kgram_hash, shared)], y.kgram_pos[np.isin(y.kgram_hash, shared)]


def matches(x: Prints, y: Prints) -> list[tuple[int, int]]:
    """(position in ``x``'s filtered code, fingerprint) of every k-gram of ``x`` that ``y`` holds, in order."""
    mask = np.isin(x.kgram_hash, _array(x.hashes & y.hashes))
    return list(zip(x.kgram_pos[mask].tolist(), x.kgram_hash[mask].tolist()))


class Held:
    """How many documents of a file hold each fingerprint (sorted arrays: 16 bytes a fingerprint)."""

    def __init__(self, hash_sets: Sequence[frozenset[int]]) -> None:
        every = np.concatenate([_array(s) for s in hash_sets]) if hash_sets else np.zeros(0, np.int64)
        self.keys, self.counts = np.unique(every, return_counts=True)
        self.documents = len(hash_sets)

    def __getitem__(self, h: int) -> int:
        return int(self.of([h])[0])

    def of(self, hashes: Sequence[int] | np.ndarray) -> np.ndarray:
        """The count of each of ``hashes`` (0 for one no document holds)."""
        if not len(self.keys):
            return np.zeros(len(hashes), dtype=np.int64)
        values = hashes if isinstance(hashes, np.ndarray) else _array(hashes)
        at = np.searchsorted(self.keys, values).clip(0, len(self.keys) - 1)
        return np.where(self.keys[at] == values, self.counts[at], 0)

    def above(self, limit: int) -> np.ndarray:
        """The fingerprints held by more than ``limit`` documents (sorted)."""
        return self.keys[self.counts > limit]
