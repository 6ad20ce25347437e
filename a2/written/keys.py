"""The written answer keys that are data (``a2/written/keys.yaml``), read once and checked.

3(f)'s checker (:mod:`a2.written.parser_errors`) and the catalogue of known mistakes
(:mod:`a2.written.catalogue`) take their keys from here; ``tests/test_written_keys.py`` proves
that reference/answers.md says the same. Never shipped in the student kit (it is the answer key).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import yaml

KEYS_FILE = Path(__file__).resolve().parent / "keys.yaml"
ERROR_TYPES = ("Verb Phrase Attachment Error", "Modifier Attachment Error",
               "Prepositional Phrase Attachment Error", "Coordination Attachment Error")
ROMANS = ("i", "ii", "iii", "iv")


class KeysError(ValueError):
    """keys.yaml is malformed; the message names the entry and the fix."""


@dataclass(frozen=True)
class OldKey:
    id: str
    wrong: tuple[str, str]
    message: str


@dataclass(frozen=True)
class Key:
    roman: str
    clue: str                  # words that identify the sentence
    kind: str
    wrong: tuple[str, str]
    right: tuple[str, str]
    sentence: str = ""
    old_keys: tuple[OldKey, ...] = ()
    why: str = ""              # one sentence: what kind of attachment it is, and why


def _pair(value: object, where: str) -> tuple[str, str]:
    if not (isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) and v for v in value)):
        raise KeysError(f"{KEYS_FILE}: {where} must be [head, dependent]; got {value!r}")
    return value[0], value[1]


@functools.cache
def parser_error_keys(path: Path = KEYS_FILE) -> tuple[Key, ...]:
    """3(f)'s four sentences, in the order of keys.yaml."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    entries = doc.get("parser_errors") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not entries:
        raise KeysError(f"{path}: needs a list parser_errors: with one entry per sentence")
    keys = []
    for n, e in enumerate(entries, 1):
        where = f"parser_errors entry {n}"
        if not isinstance(e, dict) or e.get("roman") not in ROMANS or e.get("type") not in ERROR_TYPES:
            raise KeysError(f"{path}: {where} needs roman (one of {', '.join(ROMANS)}) and type (one of "
                            f"{', '.join(ERROR_TYPES)})")
        olds = tuple(OldKey(str(o.get("id", f"parse-errors-{e['roman']}-old-key")),
                            _pair(o.get("incorrect"), f"{where}: old_keys incorrect"), " ".join(str(o.get("message", "")).split()))
                     for o in e.get("old_keys") or [])
        keys.append(Key(e["roman"], str(e.get("clue") or e["roman"]), e["type"], _pair(e.get("incorrect"), f"{where}: incorrect"),
                        _pair(e.get("correct"), f"{where}: correct"), str(e.get("sentence", "")), olds,
                        " ".join(str(e.get("why") or "").split())))
    return tuple(keys)


_ARROW = r"\s*(?:→|->|\\rightarrow|\\to)\s*"


def disagreements(answers_md: str, keys: tuple[Key, ...] | None = None) -> list[str]:
    """Where the 3(f) solution of reference/answers.md says something else than keys.yaml: the
    question's sentences and, under each, the error type and the two dependencies (``**Error
    type:** ...``, ``**Incorrect dependency:** head → dependent``, ``**Correct dependency:** ...``)."""
    import re

    keys = keys if keys is not None else parser_error_keys()
    start = answers_md.find("### 3(f)")
    if start < 0:
        return ["reference/answers.md has no section ### 3(f)"]
    end = answers_md.find("\n### ", start + 1)
    section = answers_md[start:end if end > 0 else None]
    problems = []
    for key in keys:
        at = re.search(rf"(?m)^{re.escape(key.roman)}\.\s+\"?{re.escape(key.sentence)}", section)
        if key.sentence and (at is None or f'- {key.roman}. "{key.sentence}"' not in section):
            problems.append(f"3(f) {key.roman}: the sentence {key.sentence!r} of keys.yaml is not the question's "
                            f"and the solution's sentence {key.roman} in reference/answers.md")
            continue
        body = section[at.end():] if at else ""
        nxt = re.search(r"(?m)^(?:i|ii|iii|iv)\.\s", body)
        body = body[:nxt.start()] if nxt else body
        said = {
            "type": re.search(r"Error type:\**\s*(.+)", body),
            "incorrect": re.search(rf"Incorrect dependency:\**\s*(\S+){_ARROW}(\S+)", body),
            "correct": re.search(rf"(?<!In)Correct dependency:\**\s*(\S+){_ARROW}(\S+)", body),
        }
        wanted = {"type": (key.kind,), "incorrect": key.wrong, "correct": key.right}
        for what, m in said.items():
            got: tuple[str, ...] = () if m is None else (m.group(1).strip(),) if what == "type" else m.groups()
            if got != tuple(wanted[what]):
                shown = " → ".join(wanted[what])
                problems.append(f"3(f) {key.roman}: keys.yaml's {what} is {shown!r} but reference/answers.md says "
                                f"{' → '.join(got) if got else 'nothing'!r}; make them agree")
    return problems
