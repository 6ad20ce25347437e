"""Probes for parser_transitions.py (3c PartialParse, 3d minibatch_parse).

Runs next to untrusted student code, in the worker. Attributes of a partial parse are read
after every step and copied into plain lists (students may rebind stack/buffer each step).
Transition names are interned, as the course's own literals are, so `is` comparisons work.
"""

from __future__ import annotations

import functools
import importlib
import sys
import traceback
from typing import Any


def finished(pp: Any) -> bool:
    """The terminal configuration: an empty buffer and only ROOT on the stack."""
    return len(pp.buffer) == 0 and len(pp.stack) == 1


def _module():
    return importlib.import_module("parser_transitions")


def _state(pp: Any) -> dict[str, Any]:
    return {"stack": [str(x) for x in pp.stack], "buffer": [str(x) for x in pp.buffer],
            "dependencies": [[str(h), str(d)] for h, d in pp.dependencies]}


def _t(name: str) -> str:
    return sys.intern(str(name))


def pp_init(*, sentence: list[str]) -> dict[str, Any]:
    """A new PartialParse; then its buffer is changed directly to see whether the sentence follows."""
    words = [sys.intern(w) for w in sentence]
    pp = _module().PartialParse(words)
    state = _state(pp)
    pp.buffer.append("<extra>")
    if len(pp.buffer) > 1:
        pp.buffer.pop(0)
    state["sentence_after_buffer_change"] = [str(w) for w in words]
    return state


def pp_apply(*, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One transition on each given configuration; per-case errors are reported as data."""
    module = _module()
    out = []
    for case in cases:
        try:
            words = [sys.intern(w) for w in case["sentence"]]
            pp = module.PartialParse(words)
            pp.stack = [sys.intern(w) for w in case["stack"]]
            pp.buffer = [sys.intern(w) for w in case["buffer"]]
            pp.dependencies = [(sys.intern(h), sys.intern(d)) for h, d in case["dependencies"]]
            pp.parse_step(_t(case["transition"]))
            out.append(_state(pp))
        except Exception as exc:  # one bad case must not hide the others
            out.append({"error": f"{type(exc).__name__}: {exc}"})
    return out


def pp_parse(*, sentence: list[str], transitions: list[str]) -> dict[str, Any]:
    """PartialParse(sentence).parse(transitions): the returned list and the final state."""
    words = [sys.intern(w) for w in sentence]
    pp = _module().PartialParse(words)
    returned = pp.parse([_t(t) for t in transitions])
    state = _state(pp)
    state["returned"] = [[str(h), str(d)] for h, d in returned]
    return state


def pp_trace(*, sentence: list[str], transitions: list[str]) -> list[dict[str, Any]]:
    """The configuration after each parse_step of the sequence, starting with the initial one."""
    words = [sys.intern(w) for w in sentence]
    pp = _module().PartialParse(words)
    trace = [_state(pp)]
    for t in transitions:
        pp.parse_step(_t(t))
        trace.append(_state(pp))
    return trace


# ---------------------------------------------------------------------------------------
# minibatch_parse
# ---------------------------------------------------------------------------------------

class _StopParsing(BaseException):
    """Raised by the scripted model when every parse is finished but parsing goes on.

    A BaseException, so a student's `except Exception` cannot swallow it.
    """


class _ScriptedModel:
    """Replays a fixed transition sequence per sentence and records how it is called."""

    def __init__(self, sentences: list[list[str]], scripts: list[list[str]]):
        self.sentences = list(sentences)  # the same sentence objects, in an order no one reorders
        self.scripts = scripts
        self.by_parse: dict[int, list[Any]] = {}   # id(pp) -> [pp, sentence index, position]
        self.batch_sizes: list[int] = []
        self.finished_given = 0
        self.unknown = 0

    def _index_of(self, pp: Any) -> int:
        for i, s in enumerate(self.sentences):
            if pp.sentence is s:
                return i
        # A copied sentence: match by content among sentences not yet assigned.
        taken = {entry[1] for entry in self.by_parse.values()}
        for i, s in enumerate(self.sentences):
            if i not in taken and list(pp.sentence) == s:
                return i
        self.unknown += 1
        raise _StopParsing()

    def predict(self, partial_parses):
        batch = list(partial_parses)
        self.batch_sizes.append(len(batch))
        out = []
        for pp in batch:
            entry = self.by_parse.get(id(pp))
            if entry is None:
                entry = self.by_parse[id(pp)] = [pp, self._index_of(pp), 0]
            script = self.scripts[entry[1]]
            if entry[2] >= len(script) or finished(pp):
                self.finished_given += 1
                out.append(None)
                continue
            out.append(_t(script[entry[2]]))
            entry[2] += 1
        if all(t is None for t in out) and self.all_done():
            raise _StopParsing()
        if len(self.batch_sizes) > 20 * (1 + sum(len(s) for s in self.scripts)):
            raise _StopParsing()
        return out

    def all_done(self) -> bool:
        done = {entry[1] for entry in self.by_parse.values() if finished(entry[0])}
        return len(done) == len(self.sentences)


def _guard_finished(cls):
    """The student's class, whose step ignores the None the model returns for an already
    finished parse (and otherwise only delegates to the student's own step, called the way the
    student's code calls it: by position or by the keyword of their own signature)."""
    original = cls.parse_step

    @functools.wraps(original)
    def step(self, *args, **kwargs):
        given = args[0] if args else next(iter(kwargs.values()), None)
        return None if given is None else original(self, *args, **kwargs)

    return type(cls.__name__, (cls,), {"parse_step": step})


def _follows(pp: Any, state: dict[str, Any]) -> bool:
    return (list(pp.stack) == state["stack"] and list(pp.buffer) == state["buffer"]
            and [[h, d] for h, d in pp.dependencies] == state["dependencies"])


def _student_partial_parse_ok(cls, sentences, scripts, traces) -> bool:
    """Whether the student's PartialParse goes through the configurations the trusted grader
    recorded for every script, without touching its input (without recorded ones, as in the
    student kit: always used)."""
    if traces is None:
        return True
    try:
        for s, script, trace in zip(sentences, scripts, traces):
            given = list(s)
            pp = cls(given)
            for t, state in zip(script, trace[1:]):
                pp.parse_step(_t(t))
                if not _follows(pp, state):
                    return False
            if given != s:
                return False
        return True
    except Exception:  # any failure means "use the recorded configurations"
        return False


class _Recorded:
    """A partial parse that is data, not a parser: for a student PartialParse that is wrong, each
    step moves to the next configuration the trusted grader recorded for the sentence's script
    (a transition off the script leaves the parse where it is and marks it), so minibatch_parse is
    judged on its own. It has the whole public API of the assignment's PartialParse (``sentence``,
    ``stack``, ``buffer``, ``dependencies``, ``parse_step(transition)``, ``parse(transitions)``), so
    a minibatch_parse that uses any of it works as with a right PartialParse; ``_recorded_class``
    also gives it the student's own extra methods (a helper such as ``is_done()`` that reads those
    attributes). ``parse_step`` is ``_advance`` under the assignment's name."""

    def __init__(self, sentence: list[str], trace: list[dict[str, Any]], script: list[str]):
        self.sentence = sentence
        self._trace, self._script, self._at = trace, script, 0
        self.stack, self.buffer, self.dependencies = self._state(0)

    def _state(self, k: int) -> tuple[list[Any], list[Any], list[Any]]:
        state = self._trace[k]
        return ([_t(w) for w in state["stack"]], [_t(w) for w in state["buffer"]],
                [(_t(h), _t(d)) for h, d in state["dependencies"]])

    def _advance(self, transition: Any = None, **named: Any) -> None:
        if named and transition is None:  # by the keyword of the student's own parse_step
            transition = next(iter(named.values()))
        if transition is None:
            return
        if self._at < len(self._script) and transition == self._script[self._at]:
            self._at += 1
            self.stack, self.buffer, self.dependencies = self._state(self._at)
        else:
            self.dependencies = [*self.dependencies, ("<off script>", _t(str(transition)))]

    parse_step = _advance

    def parse(self, transitions: Any) -> list[Any]:
        """The provided PartialParse.parse: every transition in order, then the dependencies."""
        for transition in transitions:
            self.parse_step(transition)
        return self.dependencies


#: The assignment's PartialParse API: a stand-in's own, never taken from a student's class.
_API = frozenset({"sentence", "stack", "buffer", "dependencies", "parse_step", "parse"})
_OWN = frozenset({"_trace", "_script", "_at"})
"""The stand-in's own state: a student's name for it is not carried."""


def _student_extras(student_cls: Any) -> dict[str, Any]:
    """The methods and properties of the student's class beyond the assignment's API (a helper
    such as ``is_done()`` their minibatch_parse calls), for the stand-in to carry too."""
    extras: dict[str, Any] = {}
    mro = getattr(student_cls, "__mro__", ())
    for klass in reversed(mro[:-1] if mro and mro[-1] is object else mro):
        for name, value in vars(klass).items():
            if name.startswith("__") or name in _API or hasattr(_Recorded, name) or name in _OWN:
                continue
            if callable(value) or isinstance(value, (property, staticmethod, classmethod)):
                extras[name] = value
    return extras


def _recorded_class(sentences, scripts, traces, student_cls=None):
    """A PartialParse stand-in class: ``cls(sentence)`` replays that sentence's recorded trace;
    it also carries the student's own extra methods (``_student_extras``)."""

    def __init__(self, sentence):
        for s, script, trace in zip(sentences, scripts, traces):
            if sentence is s or list(sentence) == s:
                _Recorded.__init__(self, sentence, trace, script)
                return
        raise _StopParsing()

    body = {**_student_extras(student_cls), "__init__": __init__, "__module__": __name__}
    return type("PartialParse", (_Recorded,), body)


def mb_parse(*, sentences: list[list[str]], scripts: list[list[str]], batch_size: int,
             traces: list[list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """Run the student's minibatch_parse with a scripted model; report results and behaviour.
    ``traces`` (the configurations before and after each step of each script, recorded by the
    trusted grader) replace a wrong student PartialParse; without them the student's is used."""
    module = _module()
    sentences = [[sys.intern(w) for w in s] for s in sentences]
    student_cls = getattr(module, "PartialParse", None)
    used_student_class = student_cls is not None and _student_partial_parse_ok(student_cls, sentences, scripts,
                                                                                traces)
    if used_student_class or traces is None:
        module.PartialParse = _guard_finished(student_cls) if student_cls is not None else None
    else:
        module.PartialParse = _recorded_class(sentences, scripts, traces, student_cls)
    model = _ScriptedModel(sentences, scripts)
    returned_normally = True
    raised = None
    try:
        result = module.minibatch_parse(sentences, model, int(batch_size))
    except _StopParsing:
        returned_normally = False
        by_index = {entry[1]: entry[0] for entry in model.by_parse.values()}
        result = [by_index[i].dependencies if i in by_index else [] for i in range(len(sentences))]
    except Exception as exc:  # reported as data: the calls seen so far are still judged
        raised = f"{type(exc).__name__}: {exc}"
        tb = traceback.extract_tb(exc.__traceback__)
        student = [f for f in tb if f.filename.endswith("parser_transitions.py")]
        raised_line = student[-1].line if student else ""
        result = []
    finally:
        if student_cls is None:
            del module.PartialParse
        else:
            module.PartialParse = student_cls
    if raised is not None:
        return {"raised": raised, "raised_line": raised_line or "", "batch_sizes": model.batch_sizes,
                "finished_given": model.finished_given, "sentences_after": sentences,
                "used_student_partial_parse": used_student_class}
    if not isinstance(result, (list, tuple)):
        raise TypeError(f"minibatch_parse returned {type(result).__name__}; expected a list with "
                        "one list of dependencies per sentence")
    deps = [[[str(h), str(d)] for h, d in sent] for sent in result]
    return {"dependencies": deps, "batch_sizes": model.batch_sizes,
            "finished_given": model.finished_given, "returned_normally": returned_normally,
            "sentences_after": sentences,
            "used_student_partial_parse": used_student_class}


PROBES = {
    "pp_init": pp_init,
    "pp_apply": pp_apply,
    "pp_parse": pp_parse,
    "pp_trace": pp_trace,
    "mb_parse": mb_parse,
}
