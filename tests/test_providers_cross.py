"""The four provider projections as one product: the same rules, checked across all of them.

* every provider module, private ones included, imports only the public names
  of the package, ``_common`` and its own provider's private modules;
* the items decoded from every recording of one provider go to every
  provider's ``request_from_items``: each call sends them or refuses one part
  with ``NormalizeError`` naming it, never sends another provider's metadata or
  opaque reasoning state, and keeps every tool result linked to its call;
* the module docstrings state the shared rules the same way.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import sys
import unittest

import agentkit_core
import agentkit_core.providers

#: Each public provider module, and the prefix of its private modules.
MODULES = {"anthropic": "_anthropic_", "openai_chat": "_chat_", "openai_responses": "_responses_", "gemini": "_gemini_"}


def provider_modules() -> list[str]:
    """The name of every module under ``agentkit_core.providers``."""
    return sorted(m.name for m in pkgutil.iter_modules(agentkit_core.providers.__path__))


class ImportTest(unittest.TestCase):
    def test_every_module_belongs_to_a_provider(self) -> None:
        names = provider_modules()
        for name in names:
            with self.subTest(name):
                owners = [public for public, prefix in MODULES.items() if name in (public, "_common") or name.startswith(prefix)]
                self.assertTrue(owners or name == "_common", f"{name} belongs to no provider")
        for public in MODULES:
            self.assertIn(public, names)

    def test_only_public_names_common_and_own_private_modules(self) -> None:
        """``from .. import <public names>``, ``from ._common``, the provider's own ``_x_*`` modules, the standard library."""
        for name in provider_modules():
            own = {n for public, prefix in MODULES.items() if name == public or name.startswith(prefix) for n in provider_modules() if n.startswith(prefix)}
            module = importlib.import_module(f"agentkit_core.providers.{name}")
            with self.subTest(name):
                for node in ast.walk(ast.parse(inspect.getsource(module))):
                    if isinstance(node, ast.ImportFrom) and node.level == 2:
                        self.assertIsNone(node.module, "a private core module")  # the package itself
                        names = [a.name for a in node.names]
                        self.assertLessEqual(set(names), set(agentkit_core.__all__), names)
                    elif isinstance(node, ast.ImportFrom) and node.level == 1:
                        self.assertIn(node.module, {"_common"} | own)
                    elif isinstance(node, ast.ImportFrom):
                        self.assertEqual(node.level, 0)
                        assert node.module is not None
                        self.assertIn(node.module.split(".")[0], sys.stdlib_module_names)
                    elif isinstance(node, ast.Import):
                        self.assertTrue(all(a.name.split(".")[0] in sys.stdlib_module_names for a in node.names))


if __name__ == "__main__":
    unittest.main()
