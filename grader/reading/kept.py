"""What the reader keeps while it reads ONE writeup: a text parsed once is read again by several
readers (the section finder, the block model, the summary table, the heading check all ask for the
same file's Markdown tokens), so its parse is kept for them, a few texts at a time.

Nothing kept here belongs to the assignment: it is the writeup's own text. :func:`forget` drops all
of it (the reader's benchmark calls it between writeups, as a new submission's process starts
without it); a result kept here is shared by its callers, which only read it (a tuple, never a list
to change).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

_KEPT: list[Any] = []


def per_writeup(maxsize: int) -> Callable[[Callable[..., Any]], Any]:
    """``functools.lru_cache(maxsize)``, registered so that :func:`forget` clears it."""
    def wrap(fn: Callable[..., Any]) -> Any:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        _KEPT.append(cached)
        return cached
    return wrap


def forget() -> None:
    """Drop everything kept from the writeup read last."""
    for cached in _KEPT:
        cached.cache_clear()
