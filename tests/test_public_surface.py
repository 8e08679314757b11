"""The public surface is tidy: ``dir()`` shows public names only, the providers' functions agree, nothing is shadowed.

* every public module's ``dir()`` is its ``__all__`` (and, for a package, its
  public submodules imported so far), with no private module, helper or
  import, and the top package has no module ``__getattr__`` (which would slow
  every attribute read);
* the functions every provider has take the same parameters, of the same
  types, in all four (a provider may add keyword-only ones with defaults);
  the decoders have the same methods;
* a function only one provider has is listed in :data:`PROVIDER_EXTRAS` with
  the reason only that API needs it, so a caller switching modules meets no
  surprise that nobody decided on;
* the fold module is ``agentkit_core.fold`` (``from agentkit_core.fold
  import FoldState``), the function staying ``agentkit_core.fold``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
import unittest
from types import ModuleType
from typing import Any

import agentkit_core
from tests import recorded

#: What every provider module has (its ``__all__`` beyond these are its own extras).
SHARED_FUNCTIONS = (
    "http_request", "items_from_response", "items_from_request", "request_from_items", "tools_from_request",
    "tool_choice_from_request", "stream_decoder", "items_from_stream", "events_from_sse", "finish_reason",
    "usage_from_native", "complete", "acomplete", "stream", "astream", "settings_from_request",
)
#: A provider's own public functions beyond SHARED_FUNCTIONS, with why only it has them (its decoder class and
#: constants aside).  An extra here must not be something every API could have: that goes in SHARED_FUNCTIONS.
PROVIDER_EXTRAS: dict[str, dict[str, str]] = {
    "bedrock": {
        "events_from_eventstream": "Bedrock streams in AWS's binary event stream, not server-sent events: this reads "
                                   "its frames as events_from_sse reads the others' bodies",
    },
    "openai_chat": {
        "items_from_messages": "a Chat request's transcript is a bare list of messages people keep as it is; "
                               "the other APIs' requests hold theirs beside fields (system, tools) that belong to it",
        "messages_from_items": "the same list written back",
    },
}
#: What every stream decoder has, the methods with the same parameters.
DECODER_METHODS = ("feed", "finish", "finish_all", "close", "close_all")
DECODER_NAMES = (*DECODER_METHODS, "usage", "finish_reason")


def public_modules() -> list[ModuleType]:
    """The package and every module of it no part of whose name is private."""
    found = [agentkit_core]
    for info in pkgutil.walk_packages(agentkit_core.__path__, prefix="agentkit_core."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            found.append(importlib.import_module(info.name))
    return found


def parameters(function: Any) -> list[tuple[str, Any, Any, bool]]:
    """``function``'s parameters as (name, kind, annotation, has a default), without ``self``.

    Defaults are compared for a provider's own extra parameters only: Anthropic's ``finish_reason`` gives ``raw`` one
    so that its former keyword ``stop_reason=`` still works.
    """
    return [  # the annotations as written (some name typing-only imports): the same text in every provider
        (p.name, p.kind, p.annotation, p.default is not p.empty)
        for p in inspect.signature(function).parameters.values()
        if p.name != "self"
    ]


class DirTest(unittest.TestCase):
    def test_dir_lists_public_names_only(self) -> None:
        for module in public_modules():
            with self.subTest(module.__name__):
                names = set(dir(module))
                submodules = {n for n, v in vars(module).items() if isinstance(v, ModuleType) and not n.startswith("_")}
                self.assertLessEqual(set(module.__all__), names, "a public name dir() leaves out")
                extra = names - set(module.__all__) - submodules - {"__version__"}
                self.assertEqual(extra, set(), "dir() shows names that are not public: give the module a __dir__ returning __all__")
                self.assertFalse({n for n in names if n.startswith("_") and n != "__version__"})

    def test_dir_of_the_top_package_and_a_provider(self) -> None:
        from agentkit_core.providers import anthropic

        for hidden in ("_check", "_codec", "annotations", "dataclass"):
            self.assertNotIn(hidden, dir(agentkit_core))
        self.assertIn("__version__", dir(agentkit_core))
        self.assertIn("providers", dir(agentkit_core))  # a public package, once imported
        for hidden in ("carry", "take", "wrong", "json_object", "annotations", "_request", "exported"):
            self.assertNotIn(hidden, dir(anthropic))
        self.assertEqual(sorted(dir(anthropic)), sorted(anthropic.__all__))

    def test_attribute_reads_stay_plain(self) -> None:
        """A module ``__getattr__`` on the top package made every attribute read three times slower; ``__dir__`` alone does not."""
        self.assertNotIn("__getattr__", vars(agentkit_core))
        self.assertIn("__dir__", vars(agentkit_core))


class ProvidersAgreeTest(unittest.TestCase):
    def test_the_shared_functions_take_the_same_parameters(self) -> None:
        modules = recorded.PROVIDERS
        for name in SHARED_FUNCTIONS:
            found = {p: parameters(getattr(m, name)) for p, m in modules.items()}
            common = min(found.values(), key=len)
            for provider, params in found.items():
                with self.subTest(function=name, provider=provider):
                    self.assertEqual([p[:3] for p in params[: len(common)]], [p[:3] for p in common])
                    for extra in params[len(common):]:  # a provider's own: keyword-only, with a default
                        self.assertEqual((extra[1], extra[3]), (inspect.Parameter.KEYWORD_ONLY, True), extra)

    def test_a_provider_s_own_functions_are_listed_with_their_reason(self) -> None:
        for provider, module in recorded.PROVIDERS.items():
            own = {n for n in module.__all__ if n not in SHARED_FUNCTIONS and inspect.isfunction(getattr(module, n))}
            with self.subTest(provider=provider):
                self.assertEqual(own, set(PROVIDER_EXTRAS.get(provider, {})), "list the extra in PROVIDER_EXTRAS, with why")

    def test_http_request_is_one_signature_written_in_every_provider(self) -> None:
        """Each provider writes ``http_request``'s typed signature itself (mypy and ``help()`` read it there), and so
        ``complete``'s and ``acomplete``'s: the four of each must stay the same parameters with the same defaults, not
        only the same names, and ``complete``'s request parameters must be ``http_request``'s."""
        for function in ("http_request", "complete", "acomplete", "stream", "astream"):
            found = {p: inspect.signature(getattr(m, function)) for p, m in recorded.PROVIDERS.items()}
            first = next(iter(found.values()))
            for provider, signature in found.items():
                with self.subTest(function=function, provider=provider):
                    self.assertEqual(str(signature), str(first))
        request = inspect.signature(recorded.PROVIDERS["anthropic"].http_request)
        turn = inspect.signature(recorded.PROVIDERS["anthropic"].complete)
        for other in ("acomplete", "stream", "astream"):  # the same parameters; stream() returns a TurnStream
            self.assertEqual(str(turn.replace(return_annotation="")),
                             str(inspect.signature(getattr(recorded.PROVIDERS["anthropic"], other)).replace(return_annotation="")))
        sent = ("on_text", "on_delta", "cancel", "transport", "timeout", "retries")  # to the turn and send(), not the request
        asked = [p for p in turn.parameters.values() if p.name not in sent]
        self.assertEqual([p.name for p in asked], list(request.parameters))
        for p, q in zip(asked, request.parameters.values()):
            with self.subTest(parameter=p.name):
                self.assertEqual((p.kind, p.annotation), (q.kind, q.annotation))
                if p.name != "stream":  # complete streams by default, http_request does not
                    self.assertEqual(p.default, q.default)
        self.assertEqual((request.parameters["stream"].default, turn.parameters["stream"].default), (False, True))
        from agentkit_core.providers._common.complete import TurnCall

        self.assertEqual(sorted(TurnCall._fields), sorted(p for p in turn.parameters if p != "items"))  # what the driver gets

    def test_every_decoder_has_the_same_methods(self) -> None:
        decoders = {p: m.stream_decoder() for p, m in recorded.PROVIDERS.items()}
        for name in DECODER_NAMES:
            for provider, decoder in decoders.items():
                with self.subTest(method=name, provider=provider):
                    self.assertTrue(hasattr(decoder, name))
        for name in DECODER_METHODS:
            found = {p: parameters(getattr(type(d), name)) for p, d in decoders.items()}
            with self.subTest(method=name):
                self.assertEqual(len({repr(v) for v in found.values()}), 1, found)

    def test_close_all_is_close_for_a_one_item_stream(self) -> None:
        from agentkit_core import FinishReason, FoldState, fold_all

        for provider in ("anthropic", "openai_responses"):
            module = recorded.PROVIDERS[provider]
            name = recorded.names(provider, ".stream.jsonl")[0]
            events = recorded.load_events(provider, name)[:3]
            decoder = module.stream_decoder()
            state = fold_all(FoldState(), [d for e in events for d in decoder.feed(e)])
            with self.subTest(provider):
                closed = decoder.close_all(state, FinishReason.CANCELLED)
                self.assertEqual(closed, [decoder.close(state, FinishReason.CANCELLED)])
                self.assertIs(closed[0].finish_reason, FinishReason.CANCELLED)

    def test_functions_defined_in_private_modules_are_named_as_the_package_s(self) -> None:
        """``repr``, ``help()`` and pickling name the provider package, not the private module a function lives in."""
        import pickle

        for provider, module in recorded.PROVIDERS.items():
            for name in ("http_request", "request_from_items", "items_from_request", "complete", "acomplete", "stream", "astream",
                         "items_from_response", "stream_decoder"):
                function = getattr(module, name)
                with self.subTest(provider=provider, function=name):
                    self.assertEqual((function.__module__, function.__qualname__), (module.__name__, name))
                    self.assertIs(pickle.loads(pickle.dumps(function)), function)

    def test_anthropic_finish_reason_keeps_its_former_keyword(self) -> None:
        from agentkit_core.providers import anthropic

        self.assertEqual(anthropic.finish_reason(stop_reason="end_turn"), anthropic.finish_reason(raw="end_turn"))


class FoldModuleTest(unittest.TestCase):
    def test_the_fold_module_has_one_name(self) -> None:
        # agentkit_core.folding, its alias, is gone (CHANGELOG); the module is imported from by its own name.
        from agentkit_core.fold import FoldState, fold_iter

        module = sys.modules["agentkit_core.fold"]
        self.assertIs(module.FoldState, FoldState)
        self.assertIs(module.fold_iter, fold_iter)
        self.assertTrue(callable(agentkit_core.fold) and not isinstance(agentkit_core.fold, ModuleType))
        self.assertIs(agentkit_core.fold, module.fold)
        with self.assertRaises(ImportError):
            importlib.import_module("agentkit_core.folding")


if __name__ == "__main__":
    unittest.main()
