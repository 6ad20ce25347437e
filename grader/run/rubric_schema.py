"""The schema of rubric.yaml (a JSON Schema, as data), and the check the loader runs before
anything else: every key must be one the schema names (a misspelt ``timeot:`` is refused with its
line and the key it was meant to be, instead of being ignored), and ``defaults`` must hold values
of the right kind. The values of parts and checks are then checked by :mod:`grader.run.rubric` with
messages that name the part or check.

``RUBRIC_SCHEMA`` is a standard JSON Schema (draft 2020-12): ``tests/test_rubric.py``
validates rubric.yaml against it with the jsonschema package and proves that the loader refuses
every rubric jsonschema refuses. It is a Python constant rather than a file so that the student
kit, which loads its rubric with the same code, needs no data file.
"""

from __future__ import annotations

import difflib
from typing import Any

import yaml

VISIBILITIES = ["visible", "hidden", "after_due_date", "after_published"]
_TIMEOUT = {"type": "number", "exclusiveMinimum": 0, "maximum": 1800}
_COMMON = {"id": {"type": "string"}, "name": {"type": "string"}, "number": {"type": "string", "pattern": r"^[0-9]+(\.[0-9]+)*$"},
           "points": {"type": "number", "minimum": 0}, "visibility": {"enum": VISIBILITIES}, "timeout": _TIMEOUT,
           "partial": {"type": "boolean"}}

RUBRIC_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "rubric.yaml of a2grader",
    "type": "object",
    "additionalProperties": False,
    "anyOf": [{"required": ["parts", "checks"]}, {"required": ["tests"]}],
    "properties": {
        "assignment": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
        # a folder of unittest (gradescope-utils) or pytest files, each test a check (grader/testfiles/)
        "tests": {"type": ["string", "object"], "additionalProperties": False,
                  "properties": {"folder": {"type": "string"}, "files": {"type": "array", "items": {"type": "string"}},
                                 "points": {"type": "number", "minimum": 0}}},
        "budget": {"type": "number", "exclusiveMinimum": 0},
        "defaults": {"type": "object", "additionalProperties": False,
                     "properties": {"timeout": _TIMEOUT, "visibility": {"enum": VISIBILITIES},
                                    "partial": {"type": "boolean"}, "explanation": {"enum": VISIBILITIES}}},
        "parts": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["id", "kind", "points"],
            "properties": {**_COMMON, "kind": {"enum": ["code", "written"]},
                           "files": {"type": ["array", "string"], "items": {"type": "string"}},
                           "auto": {"type": "number", "minimum": 0}, "checker": {"type": "string"},
                           "explanation": {"enum": VISIBILITIES}}}},
        "checks": {"type": "array", "items": {
            "type": "object", "additionalProperties": False, "required": ["id", "part", "name", "number", "points"],
            "properties": {**_COMMON, "part": {"type": "string"}, "charge": {"enum": ["once", "each"]},
                           "tags": {"type": "array", "items": {"type": "string"}}}}},
    },
}

_TYPES = {"object": dict, "array": list, "string": str, "boolean": bool}


def _is(value: Any, kind: str) -> bool:
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, _TYPES[kind])


def _line(node: yaml.Node | None) -> str:
    return f"line {node.start_mark.line + 1}: " if node is not None else ""


def _children(node: yaml.Node | None) -> dict[str, yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return {str(k.value): v for k, v in node.value}
    return {}


def _what(path: str, value: Any) -> str:
    if isinstance(value, dict) and "id" in value:
        return f"{path.split('[')[0].rstrip('s')} {value['id']!r}"
    return path or "the top level"


def unknown_keys(data: Any, node: yaml.Node | None, schema: dict[str, Any] = RUBRIC_SCHEMA, path: str = "") -> list[str]:
    """Problems (with lines) of keys the schema does not name, and of ``defaults`` values of the
    wrong kind. Other values are left to the loader's own checks."""
    problems: list[str] = []
    if not isinstance(data, dict) or schema.get("type") != "object":
        if schema.get("type") == "array" and isinstance(data, list):
            items = node.value if isinstance(node, yaml.SequenceNode) else [None] * len(data)
            for i, (value, child) in enumerate(zip(data, items)):
                problems += unknown_keys(value, child, schema["items"], f"{path}[{i}]")
        return problems
    allowed = schema.get("properties", {})
    nodes = _children(node)
    for key, value in data.items():
        key_node = next((k for k, _ in node.value if str(k.value) == str(key)), None) if isinstance(node, yaml.MappingNode) \
            else None
        if key not in allowed:
            close = difflib.get_close_matches(str(key), list(allowed), n=1, cutoff=0.6)
            fix = f"did you mean {close[0]!r}? " if close else ""
            problems.append(f"{_line(key_node)}{_what(path, data)} has unknown key {key!r}; {fix}allowed: "
                            f"{', '.join(sorted(allowed))} (rename or remove it)")
            continue
        sub = allowed[key]
        if path == "defaults":
            problems += _value_problem(value, sub, nodes.get(str(key)), f"defaults: {key}")
        problems += unknown_keys(value, nodes.get(str(key)), sub, f"{path}.{key}" if path else str(key))
    return problems


def _value_problem(value: Any, schema: dict[str, Any], node: yaml.Node | None, what: str) -> list[str]:
    if "enum" in schema and value not in schema["enum"]:
        return [f"{_line(node)}{what} is {value!r}; use one of {', '.join(map(str, schema['enum']))}"]
    kind = schema.get("type")
    if isinstance(kind, str) and not _is(value, kind):
        return [f"{_line(node)}{what} is {value!r}; it must be a {kind}"]
    if kind == "number" and (value <= schema.get("exclusiveMinimum", float("-inf"))
                             or value > schema.get("maximum", float("inf"))):
        return [f"{_line(node)}{what} is {value!r}; use seconds in (0, {schema['maximum']:g}]"]
    return []
