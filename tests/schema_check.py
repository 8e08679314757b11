"""A small JSON Schema validator: only the keywords the OpenTelemetry GenAI schemas in ``tests/otel/`` use.

Standard library only.  :func:`errors` returns every violation found, each
with the JSON path of the value it concerns; an empty list means valid.  A
keyword this validator does not know raises ``NotImplementedError``, so a
schema that starts using one cannot pass unchecked.

Keywords checked: ``type``, ``const``, ``enum``, ``properties``,
``required``, ``additionalProperties``, ``items``, ``prefixItems``, ``minItems``, ``maxItems``, ``anyOf``, ``oneOf`` and
``$ref`` (to ``#/$defs/...``, or to the JSON Schema draft-07 meta-schema,
which any object or boolean satisfies here).  ``$defs``, ``title``,
``description``, ``default`` and ``format`` are annotations and checked for
nothing, as JSON Schema itself has it for ``format``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "otel")
DRAFT_07 = "http://json-schema.org/draft-07/schema#"
_ANNOTATIONS = frozenset(("$defs", "title", "description", "default", "format"))


def load(name: str) -> dict[str, Any]:
    """The schema ``tests/otel/<name>``."""
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)  # type: ignore[no-any-return]


def _is_type(value: object, name: str) -> bool:
    if name == "integer":
        return type(value) is int
    if name == "number":
        return type(value) in (int, float)
    return type(value) is {"string": str, "object": dict, "array": list, "boolean": bool, "null": type(None)}[name]


class Validator:
    """Validates instances against one root schema (whose ``$defs`` the ``$ref`` point into)."""

    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self._holders: list[dict[str, Any]] = []  # the schema objects being applied, innermost last
        self.checks: dict[str, Callable[[Any, Any, str], list[str]]] = {
            "type": self._type,
            "const": self._const,
            "enum": self._enum,
            "properties": self._properties,
            "required": self._required,
            "additionalProperties": self._additional,
            "items": self._items,
            "prefixItems": self._prefix_items,
            "minItems": lambda v, n, path: [f"{path}: fewer than {n} items"] if isinstance(v, list) and len(v) < n else [],
            "maxItems": lambda v, n, path: [f"{path}: more than {n} items"] if isinstance(v, list) and len(v) > n else [],
            "anyOf": self._any_of,
            "oneOf": self._one_of,
            "$ref": self._ref,
        }

    def errors(self, value: Any, schema: Any = None, path: str = "$") -> list[str]:
        """Every violation of ``schema`` (the root when ``None``) by ``value``."""
        schema = self.root if schema is None else schema
        if schema is True:
            return []
        if schema is False:
            return [f"{path}: no value is allowed here"]
        found: list[str] = []
        self._holders.append(schema)
        try:
            for keyword, argument in schema.items():
                if keyword in _ANNOTATIONS:
                    continue
                check = self.checks.get(keyword)
                if check is None:
                    raise NotImplementedError(f"schema keyword {keyword!r} is not implemented")
                found.extend(check(value, argument, path))
        finally:
            self._holders.pop()
        return found

    def _type(self, value: Any, names: Any, path: str) -> list[str]:
        names = [names] if isinstance(names, str) else names
        return [] if any(_is_type(value, n) for n in names) else [f"{path}: expected {' or '.join(names)}, got {type(value).__name__}"]

    def _const(self, value: Any, const: Any, path: str) -> list[str]:
        return [] if value == const and type(value) is type(const) else [f"{path}: expected {const!r}, got {value!r}"]

    def _enum(self, value: Any, options: Any, path: str) -> list[str]:
        return [] if any(value == o and type(value) is type(o) for o in options) else [f"{path}: {value!r} is not one of {options!r}"]

    def _properties(self, value: Any, properties: Any, path: str) -> list[str]:
        if not isinstance(value, dict):
            return []
        found: list[str] = []
        for key, schema in properties.items():
            if key in value:
                found.extend(self.errors(value[key], schema, f"{path}.{key}"))
        return found

    def _required(self, value: Any, names: Any, path: str) -> list[str]:
        if not isinstance(value, dict):
            return []
        return [f"{path}: missing required property {n!r}" for n in names if n not in value]

    def _additional(self, value: Any, schema: Any, path: str) -> list[str]:
        if not isinstance(value, dict):
            return []
        known = self._holders[-1].get("properties", {})  # the properties beside this keyword are not additional
        found: list[str] = []
        for key, v in value.items():
            if key not in known:
                found.extend(self.errors(v, schema, f"{path}.{key}"))
        return found

    def _prefix_items(self, value: Any, schemas: Any, path: str) -> list[str]:
        if not isinstance(value, list):
            return []
        return [e for i, (v, s) in enumerate(zip(value, schemas)) for e in self.errors(v, s, f"{path}[{i}]")]

    def _items(self, value: Any, schema: Any, path: str) -> list[str]:
        if not isinstance(value, list):
            return []
        found: list[str] = []
        for i, v in enumerate(value):
            found.extend(self.errors(v, schema, f"{path}[{i}]"))
        return found

    def _any_of(self, value: Any, schemas: Any, path: str) -> list[str]:
        failures = [self.errors(value, s, path) for s in schemas]
        if any(not f for f in failures):
            return []
        return [f"{path}: matches none of anyOf: " + "; ".join(e for f in failures for e in f[:1])]

    def _one_of(self, value: Any, schemas: Any, path: str) -> list[str]:
        matched = sum(not self.errors(value, s, path) for s in schemas)
        return [] if matched == 1 else [f"{path}: matches {matched} of oneOf's schemas, not exactly one"]

    def _ref(self, value: Any, ref: Any, path: str) -> list[str]:
        if ref == DRAFT_07:
            # A JSON Schema (draft-07) is an object or a boolean; its inside is the tool's business.
            return [] if isinstance(value, (dict, bool)) else [f"{path}: expected a JSON Schema (an object or a boolean)"]
        prefix = "#/$defs/"
        if not ref.startswith(prefix):
            raise NotImplementedError(f"$ref {ref!r} is not implemented")
        return self.errors(value, self.root["$defs"][ref[len(prefix) :]], path)


def errors(value: Any, schema: dict[str, Any]) -> list[str]:
    """Every violation of ``schema`` by ``value`` (an empty list: valid)."""
    return Validator(schema).errors(value)
