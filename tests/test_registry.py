"""The provider registry is the one list of providers, and what each row says of its API holds.

* every provider folder has a row and every row a folder;
* the names a row gives are the ones the package uses (detection's display
  names, the base URL ``http_request`` sends to);
* ``capabilities``: every part kind a row says a request carries is sent by
  ``request_from_items``, and the recorded answers decode to no part kind the
  row leaves out;
* every table of per-provider expectations in the tests has every row, so a
  fifth provider is not left out of a test without a word;
* no module outside the provider folders names a provider but the registry,
  the detector and the export's table of server-tool blocks.
"""

from __future__ import annotations

import json
import os
import pkgutil
import re
import unittest
from typing import Any, Iterator

import agentkit_core.providers
from agentkit_core import (
    CustomPart,
    FilePart,
    InlineBytes,
    Item,
    ItemKind,
    MediaPart,
    Modality,
    NormalizeError,
    PartKind,
    PartsOutput,
    StructuredPart,
    TextOutput,
    TextPart,
    ToolCallId,
    ToolCallPart,
    ToolResultPart,
)
from agentkit_core._for_providers import NAMES, sniff
from agentkit_core.providers import (
    ENDPOINTS,
    PRESETS,
    PROVIDERS,
    Capabilities,
    Endpoint,
    ProviderInfo,
    capabilities,
    endpoint,
    provider_info,
)
from tests import recorded

#: The portable settings of ``ModelSettings`` (issue 25's table), which a row's ``settings`` names.
PORTABLE_SETTINGS = frozenset(
    ("max_tokens", "temperature", "top_p", "stop", "seed", "reasoning_effort", "reasoning_budget", "output_schema",
     "parallel_tool_calls")
)
ALL_KINDS = frozenset(k.value for k in PartKind)


def recorded_items(provider: str, answers: bool) -> Iterator[Item]:
    """Every item the provider's recordings decode to: its answers (responses, streams) or its requests."""
    for suffix in (".response.json", ".stream.jsonl", ".sse.txt") if answers else (".request.json",):
        for name in recorded.names(provider, suffix):
            try:
                yield from recorded.items(provider, name)
            except NormalizeError:
                continue  # a recording kept to prove a refusal


def kinds_of(parts: Any) -> Iterator[str]:
    """The part kinds of ``parts``, those inside tool results' parts included."""
    for part in parts:
        yield part.part_kind.value
        if isinstance(part, ToolResultPart) and isinstance(part.output, PartsOutput):
            yield from kinds_of(part.output.parts)


def samples(provider: str) -> Iterator[Item]:
    """One-part items of every kind: made here, and every part of the provider's recordings in its item's kind."""
    call = ToolCallId("call_registry")
    yield Item(ItemKind.USER, [TextPart("registry")])
    yield Item(ItemKind.USER, [MediaPart(Modality.IMAGE, "image/png", InlineBytes(b"\x89PNG registry"))])
    yield Item(ItemKind.USER, [FilePart(InlineBytes(b"%PDF-1.4 registry"), name="r.pdf", mime_type="application/pdf")])
    yield Item(ItemKind.USER, [StructuredPart({"registry": 1})])
    yield Item(ItemKind.ASSISTANT, [ToolCallPart(call, "lookup", {"q": "registry"})])
    yield Item(ItemKind.TOOL, [ToolResultPart(call, TextOutput("registry"), metadata={"agentkit.tool_name": "lookup"})])
    for row in PROVIDERS:  # each provider sends its own custom parts
        yield Item(ItemKind.USER, [CustomPart(row.namespace + "registry", value={"type": "registry"})])
    for answers in (True, False):
        for item in recorded_items(provider, answers):
            for part in item.parts:
                yield Item(item.kind, [part])


def sends(module: Any, item: Item) -> bool:
    """Whether ``module.request_from_items`` writes anything for ``item``'s one part (refusing it is not sending)."""
    empty = json.dumps(module.request_from_items([Item(item.kind, [])]), sort_keys=True)
    try:
        return json.dumps(module.request_from_items([item]), sort_keys=True) != empty
    except NormalizeError:
        return False


class RegistryTest(unittest.TestCase):
    def test_every_folder_has_a_row_and_every_row_a_folder(self) -> None:
        folders = {m.name for m in pkgutil.iter_modules(agentkit_core.providers.__path__) if m.ispkg and not m.name.startswith("_")}
        rows = [row.module for row in PROVIDERS]
        self.assertEqual(len(rows), len(set(rows)), "a module has two rows")
        self.assertEqual(folders - set(rows), set(), "provider folders without a registry row")
        self.assertEqual(set(rows) - folders, set(), "registry rows without a provider folder")

    def test_every_name_is_a_wire_or_a_preset_on_one(self) -> None:
        # A wire has a folder and a row in PROVIDERS, and its own name among the endpoints; a preset has no folder.
        folders = {m.name for m in pkgutil.iter_modules(agentkit_core.providers.__path__) if m.ispkg}
        names = [row.name for row in ENDPOINTS]
        self.assertEqual(len(names), len(set(names)), "a name has two rows")
        self.assertEqual([endpoint(row.module) for row in PROVIDERS], list(ENDPOINTS[: len(PROVIDERS)]))
        for row in PROVIDERS:
            wire = endpoint(row.cli)
            self.assertEqual((wire.wire, wire.base_url, wire.key_variables, wire.base_url_variable, wire.otel_name),
                             (row.module, row.base_url, row.key_variables, row.base_url_variable, row.otel_name))
            self.assertIs(wire.capabilities, row.capabilities)
        for row in PRESETS:
            with self.subTest(row.name):
                self.assertIsInstance(row, Endpoint)
                self.assertIn(row.wire, folders)
                self.assertNotIn(row.name.replace("-", "_"), folders, "a preset is a row, not a folder")
                self.assertIs(endpoint(row.name), row)
        with self.assertRaisesRegex(ValueError, r"'llama' is none of the known names \(anthropic, .*, groq, "):
            endpoint("llama")

    def test_endpoint_rows_are_checked_when_made(self) -> None:
        import dataclasses

        row = endpoint("groq")
        for change, error in (({"wire": "groq"}, "Endpoint.wire: 'groq' is none of anthropic"),
                              ({"name": "Groq"}, "Endpoint.name: expected lower-case letters"),
                              ({"base_url": "https://api.groq.com/"}, "Endpoint.base_url: expected an http"),
                              ({"auth": "aws"}, "Endpoint.auth: 'aws' is none of wire, azure_openai"),
                              ({"key_variables": ()}, "Endpoint.key_variables: a name that needs a key"),
                              ({"fields": (("top_k", "top_k"),)}, "Endpoint.fields: 'top_k' is no setting")):
            with self.subTest(change), self.assertRaisesRegex(ValueError, error):
                dataclasses.replace(row, **change)
        with self.assertRaisesRegex(TypeError, "Endpoint.fields: expected a tuple of"):
            dataclasses.replace(row, fields=[("max_tokens", "max_tokens")])  # type: ignore[arg-type]
        with self.assertRaisesRegex(TypeError, "Endpoint.key_required: expected a boolean, found int"):
            dataclasses.replace(row, key_required=1)  # type: ignore[arg-type]

    def test_rows_are_values_with_distinct_names(self) -> None:
        for field in ("module", "display", "cli"):
            names = [getattr(row, field) for row in PROVIDERS]
            self.assertEqual(len(names), len(set(names)), field)
        for row in PROVIDERS:
            with self.subTest(row.module):
                self.assertIsInstance(row, ProviderInfo)
                self.assertIsInstance(row.capabilities, Capabilities)
                self.assertTrue(row.key_variables and all(v.isupper() for v in row.key_variables), row.key_variables)
                self.assertTrue(row.base_url.startswith("https://") and not row.base_url.endswith("/"), row.base_url)
                self.assertRaises(AttributeError, setattr, row, "display", "x")

    def test_provider_info_takes_the_module_or_the_cli_spelling(self) -> None:
        for row in PROVIDERS:
            self.assertIs(provider_info(row.module), row)
            self.assertIs(provider_info(row.cli), row)
            self.assertIs(capabilities(row.cli), row.capabilities)
        with self.assertRaisesRegex(ValueError, "'groq' is none of anthropic, openai_chat"):
            provider_info("groq")  # a preset is no wire
        with self.assertRaisesRegex(TypeError, "provider: expected a string, found int"):
            provider_info(3)  # type: ignore[arg-type]

    def test_detection_and_http_requests_use_the_row(self) -> None:
        self.assertEqual(NAMES, {row.module: row.display for row in PROVIDERS})
        found = sniff({"type": "message", "role": "assistant", "content": []})
        self.assertEqual(found.what if found else None, provider_info("anthropic").display + " response")
        for row in PROVIDERS:
            with self.subTest(row.module):
                module = recorded.PROVIDERS[row.module]
                request = module.http_request([Item(ItemKind.USER, [TextPart("hi")])], model="m", max_tokens=1)
                pattern = re.escape(row.base_url).replace(re.escape("{region}"), "[a-z0-9-]+")  # Bedrock's names its region
                self.assertRegex(request.url, "^" + pattern + "/")

    def test_capabilities_name_portable_settings_and_part_kinds(self) -> None:
        for row in PROVIDERS:
            with self.subTest(row.module):
                caps = row.capabilities
                self.assertLessEqual(caps.settings, PORTABLE_SETTINGS)
                self.assertIn("max_tokens", caps.settings)
                self.assertEqual(bool(caps.reasoning_efforts), "reasoning_effort" in caps.settings)
                self.assertTrue(all(e == e.lower() for e in caps.reasoning_efforts), caps.reasoning_efforts)
                self.assertLessEqual(caps.parts_in | caps.parts_out, ALL_KINDS)

    def test_a_namespace_is_its_providers_own(self) -> None:
        # Each projection owns its row's namespace: a custom part there is sent back by it and by no other.
        from agentkit_core.providers._common import in_namespace

        for row in PROVIDERS:
            kind = row.namespace + "registry"
            owners = [other.module for other in PROVIDERS if in_namespace(kind, other.namespace)]
            self.assertEqual(owners, [row.module], kind)
            for other in PROVIDERS:
                with self.subTest(row.module, sent_to=other.module):
                    item = Item(ItemKind.USER, [CustomPart(kind, value={"type": "registry"})])
                    self.assertEqual(sends(recorded.PROVIDERS[other.module], item), other is row)

    def test_no_module_outside_the_folders_names_a_provider(self) -> None:
        # Code that needs the providers reads the registry; a module or CLI name written out (not in a docstring) is
        # allowed only where native shapes are known: the registry, the detector and the export's server-tool blocks.
        import ast

        allowed = {"_registry.py", "_detect.py", os.path.join("otel", "_servers.py")}
        names = {row.module for row in PROVIDERS} | {row.cli for row in PROVIDERS} | {row.name for row in ENDPOINTS}
        package = os.path.dirname(os.path.abspath(agentkit_core.__file__))
        found = []
        for folder, subfolders, files in os.walk(package):
            subfolders[:] = [d for d in subfolders if d != "__pycache__"]
            relative = os.path.relpath(folder, package)
            if os.path.dirname(relative) == "providers" and os.path.basename(relative) in names:
                continue  # a provider's own folder
            for name in files:
                path = os.path.join(relative, name) if relative != "." else name
                if not name.endswith(".py") or path in allowed:
                    continue
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    tree = ast.parse(f.read())
                docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr)}
                found += [f"{path}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
                          if isinstance(n, ast.Constant) and n.value in names and id(n) not in docstrings]
        self.assertEqual(found, [])

    def test_every_per_provider_test_table_has_every_row(self) -> None:
        # The tests that give each provider its own expectations (recordings to replay, the namespaces it must not
        # leak, its native settings) loop over their table: a row left out of one would go untested without a word.
        import importlib

        tables = {
            "tests.test_complete": ("STREAMS", "RESPONSES", "TEXT_STREAMS"),
            "tests.test_http_turn": ("TURNS",),
            "tests.test_providers_cross": ("STATE", "SENTINEL_KEYS", "DOCUMENTED"),
            "tests.test_provider_tools": ("FIELDS",),
            "tests.test_unanswered": ("ANSWERED",),
            "tests.test_request_reuse": ("_PROVIDER_MD",),
        }
        rows = {row.module for row in PROVIDERS}
        for module_name, names in tables.items():
            module = importlib.import_module(module_name)
            for name in names:
                with self.subTest(f"{module_name}.{name}"):
                    self.assertEqual(set(getattr(module, name)), rows)
        for setting, (_, native) in importlib.import_module("tests.test_settings").TABLE.items():
            with self.subTest(f"tests.test_settings.TABLE[{setting!r}]"):
                self.assertEqual(set(native), rows)

    def test_a_request_sends_exactly_the_part_kinds_the_row_says_it_carries(self) -> None:
        for row in PROVIDERS:
            module = recorded.PROVIDERS[row.module]
            sent: set[str] = set()
            for item in samples(row.module):
                if sends(module, item):
                    sent.update(kinds_of(item.parts[:1]))
            with self.subTest(row.module):
                self.assertEqual(sent, set(row.capabilities.parts_in))

    def test_recorded_answers_hold_only_the_part_kinds_the_row_lists(self) -> None:
        for row in PROVIDERS:
            with self.subTest(row.module):
                found = {k for item in recorded_items(row.module, answers=True) for k in kinds_of(item.parts)}
                self.assertTrue(found, "no recorded answer")
                self.assertLessEqual(found, set(row.capabilities.parts_out))
                if row.capabilities.server_tools:
                    self.assertIn(PartKind.CUSTOM.value, row.capabilities.parts_out)

    def test_rows_are_checked_when_made(self) -> None:
        import dataclasses

        row = PROVIDERS[0]
        caps = row.capabilities
        with self.assertRaisesRegex(ValueError, r"Capabilities.parts_in: 'Txt' is no part kind"):
            dataclasses.replace(caps, parts_in=frozenset({"Txt"}))
        with self.assertRaisesRegex(TypeError, "Capabilities.settings: expected a frozenset of strings, found set"):
            dataclasses.replace(caps, settings={"max_tokens"})  # type: ignore[arg-type]
        with self.assertRaisesRegex(TypeError, "Capabilities.server_tools: expected a boolean, found int"):
            dataclasses.replace(caps, server_tools=1)  # type: ignore[arg-type]
        with self.assertRaisesRegex(TypeError, "Capabilities.reasoning_efforts: expected a tuple of strings, found list"):
            dataclasses.replace(caps, reasoning_efforts=["low"])  # type: ignore[arg-type]
        with self.assertRaisesRegex(ValueError, "ProviderInfo.cli: expected a name, found an empty string"):
            dataclasses.replace(row, cli="")
        with self.assertRaisesRegex(TypeError, "ProviderInfo.key_variables: expected a tuple of strings, found str"):
            dataclasses.replace(row, key_variables="ANTHROPIC_API_KEY")  # type: ignore[arg-type]
        with self.assertRaisesRegex(TypeError, "ProviderInfo.capabilities: expected a Capabilities, found dict"):
            dataclasses.replace(row, capabilities={})  # type: ignore[arg-type]
        with self.assertRaisesRegex(ValueError, "ProviderInfo.namespace: expected a prefix ending in '.', found 'anthropic'"):
            dataclasses.replace(row, namespace="anthropic")
        with self.assertRaisesRegex(TypeError, "ProviderInfo.system_apart: expected a boolean, found int"):
            dataclasses.replace(row, system_apart=1)  # type: ignore[arg-type]
        self.assertEqual(dataclasses.replace(row, display="Claude").display, "Claude")

    def test_public_names_have_docstrings(self) -> None:
        """Read from the source, so the test holds under ``-OO`` too (which drops ``__doc__``)."""
        import ast
        import inspect

        tree = ast.parse(inspect.getsource(agentkit_core._registry))
        documented = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(n)}
        self.assertLessEqual({"capabilities", "provider_info", "Capabilities", "ProviderInfo"}, documented)
        self.assertIn("Adding a provider", ast.get_docstring(tree) or "")


if __name__ == "__main__":
    unittest.main()
