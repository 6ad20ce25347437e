"""A correct arc-standard partial parse and minibatch parse, for the trusted process only (the
written 3(a) table's replay, the tests). Solution code: never copied next to student code (the
worker gets recorded configurations instead, see untrusted/probes_parser.py) and never shipped in
the student kit.
"""

from __future__ import annotations

from typing import Any


class ArcStandardParse:
    """A partial parse: stack (starting at ROOT), buffer, dependencies (head, dependent);
    transitions are "S" (shift), "LA" (left-arc) and "RA" (right-arc)."""

    def __init__(self, sentence: list[Any]):
        self.sentence = sentence
        self.stack: list[Any] = ["ROOT"]
        self.buffer = list(sentence)
        self.dependencies: list[tuple[Any, Any]] = []

    def parse_step(self, transition: str) -> None:
        if transition == "S":
            self.stack.append(self.buffer.pop(0))
        elif transition == "LA":
            self.dependencies.append((self.stack[-1], self.stack[-2]))
            del self.stack[-2]
        else:
            self.dependencies.append((self.stack[-2], self.stack[-1]))
            del self.stack[-1]

    def parse(self, transitions: list[str]) -> list[tuple[Any, Any]]:
        for t in transitions:
            self.parse_step(t)
        return self.dependencies


def finished(pp: Any) -> bool:
    """Whether a partial parse (ours or a student's) is complete: empty buffer, only ROOT left."""
    return len(pp.buffer) == 0 and len(pp.stack) == 1


def minibatch_parse(sentences: list[Any], model: Any, batch_size: int) -> list[Any]:
    """The dependencies of each sentence, parsed ``batch_size`` at a time with ``model.predict``."""
    parses = [ArcStandardParse(s) for s in sentences]
    unfinished = list(parses)
    while unfinished:
        batch = unfinished[:batch_size]
        for pp, transition in zip(batch, model.predict(batch)):
            pp.parse_step(transition)
        unfinished = [pp for pp in unfinished if not finished(pp)]
    return [pp.dependencies for pp in parses]
