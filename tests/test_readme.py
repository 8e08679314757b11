"""The README's examples run as doctests, so the README cannot rot.

Each section (a ``##`` or ``###`` heading and the text up to the next one)
is one test, with its own namespace.  A section whose examples need a
capability the interpreter lacks (a thread, ``asyncio.run()``) is declared in
:data:`NEEDS` and skips there, found by probing; the other sections still run.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import unittest
from typing import Callable, ContextManager, Iterator, NamedTuple

from tests.capability import can_run_asyncio, can_serve_loopback, can_start_thread

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")
#: None: the README passes the plain runner too (``python -m doctest README.md``), exact to the space.
FLAGS = 0
_HEADING = re.compile(r"^(?:##|###) (.+)$", re.M)

THREADS = (can_start_thread, "needs threads: this interpreter cannot start one")
ASYNCIO_RUN = (can_run_asyncio, "needs asyncio.run(): this interpreter cannot run a loop to completion")
LOOPBACK = (can_serve_loopback, "needs sockets: this interpreter cannot serve and reach 127.0.0.1")

#: The sections whose examples need a capability, by title.
NEEDS: dict[str, tuple[tuple[Callable[[], bool], str], ...]] = {
    "Waiting without polling": (THREADS,),
    "In asyncio code": (ASYNCIO_RUN,),
    "A whole turn": (LOOPBACK,),
    "Sending a request yourself": (THREADS, ASYNCIO_RUN, LOOPBACK),
}
#: What in an example's source shows that it needs a capability.
_USES = {THREADS: re.compile(r"\bthreading\.|\bThread\("), ASYNCIO_RUN: re.compile(r"\basyncio\.run\(|run_until_complete\(")}


@contextlib.contextmanager
def _anthropic_server() -> Iterator[dict[str, object]]:
    """``base_url``: the suite's loopback server playing a tool call, then an answer (the README's agent loop)."""
    from tests import recorded
    from tests.loopback import Loopback, sse_reply

    replies = [
        sse_reply(recorded.raw("anthropic", "messages.text_tool_use.sse.txt")),
        sse_reply(recorded.raw("anthropic", "messages.thinking_text.sse.txt")),
        sse_reply(recorded.raw("anthropic", "messages.thinking_text.sse.txt"), 30.0),
    ]
    with Loopback(replies) as server:
        yield {"base_url": server.url()}


@contextlib.contextmanager
def _streams_then_a_stall() -> Iterator[dict[str, object]]:
    """``base_url``: the loopback server playing an answer, then a stream that stalls after its first event."""
    from tests import recorded
    from tests.loopback import Loopback, sse_reply

    answer = recorded.raw("anthropic", "messages.thinking_text.sse.txt")
    with Loopback([sse_reply(answer), sse_reply(answer, 30.0)]) as server:
        yield {"base_url": server.url()}


#: What a section's examples are given besides their own names, by title: a context manager of globals.
FIXTURES: dict[str, Callable[[], ContextManager[dict[str, object]]]] = {
    "A whole turn": _anthropic_server,
    "Sending a request yourself": _streams_then_a_stall,
}


class Section(NamedTuple):
    title: str
    lineno: int  # of the heading, counted from 0
    text: str


def sections(text: str) -> list[Section]:
    """The README cut at its ``##`` and ``###`` headings; the text before the first is the title's."""
    found = [Section("README", 0, "")]
    last = 0
    for match in _HEADING.finditer(text):
        found[-1] = found[-1]._replace(text=text[last : match.start()])
        found.append(Section(match.group(1).strip(), text.count("\n", 0, match.start()), ""))
        last = match.start()
    found[-1] = found[-1]._replace(text=text[last:])
    return found


def read_sections() -> list[Section]:
    with open(README, encoding="utf-8") as f:
        return sections(f.read())


class ReadmeSection(unittest.TestCase):
    """The examples of one README section, run as one doctest."""

    def __init__(self, section: Section) -> None:
        super().__init__("run_examples")  # not test_*: only load_tests makes these
        self.section = section
        self.doctest = doctest.DocTestParser().get_doctest(
            section.text, {"__name__": "README"}, f"README.md: {section.title}", README, section.lineno
        )

    def id(self) -> str:
        return f"{__name__}.README.{re.sub(r'[^0-9A-Za-z]+', '_', self.section.title).strip('_').lower()}"

    def __str__(self) -> str:
        return f"{self.doctest.name} (line {self.section.lineno + 1})"

    def run_examples(self) -> None:
        for probe, reason in NEEDS.get(self.section.title, ()):
            if not probe():
                raise unittest.SkipTest(reason)
        with contextlib.ExitStack() as stack:
            fixture = FIXTURES.get(self.section.title)
            if fixture is not None:
                self.doctest.globs.update(stack.enter_context(fixture()))
                for example in self.doctest.examples:  # skipped by the plain runner, which has no fixture
                    example.options.pop(doctest.SKIP, None)
            report = io.StringIO()
            runner = doctest.DocTestRunner(optionflags=FLAGS)
            result = runner.run(self.doctest, out=report.write, clear_globs=True)
        self.assertEqual(result.failed, 0, "\n" + report.getvalue())


class PlainRunner(unittest.TestCase):
    def test_the_plain_runner_passes_the_whole_readme(self) -> None:
        """``python -m doctest README.md``: one namespace, no fixture; what needs one is marked ``+SKIP``."""
        for probe, reason in {need for needs in NEEDS.values() for need in needs}:
            if not probe():
                self.skipTest(reason)
        with open(README, encoding="utf-8") as f:
            test = doctest.DocTestParser().get_doctest(f.read(), {"__name__": "README"}, "README.md", README, 0)
        report = io.StringIO()
        result = doctest.DocTestRunner(optionflags=0).run(test, out=report.write, clear_globs=True)
        self.assertEqual(result.failed, 0, "\n" + report.getvalue())

    def test_only_sections_with_a_fixture_skip_examples(self) -> None:
        for section in read_sections():
            examples = doctest.DocTestParser().get_examples(section.text)
            skipped = [e for e in examples if e.options.get(doctest.SKIP)]
            with self.subTest(section.title):
                if section.title in FIXTURES:
                    self.assertTrue(skipped, "the examples that need the fixture are marked +SKIP")
                else:
                    self.assertEqual(skipped, [])


class Declarations(unittest.TestCase):
    def test_sections_that_need_a_capability_say_so(self) -> None:
        titles = set()
        for section in read_sections():
            titles.add(section.title)
            source = "".join(e.source for e in doctest.DocTestParser().get_examples(section.text))
            for needed, uses in _USES.items():
                with self.subTest(section=section.title, needs=needed[1]):
                    self.assertEqual(needed in NEEDS.get(section.title, ()), bool(uses.search(source)))
        self.assertLessEqual(set(NEEDS), titles)

    def test_the_sections_hold_every_example(self) -> None:
        with open(README, encoding="utf-8") as f:
            whole = f.read()
        cut = read_sections()
        self.assertEqual("".join(s.text for s in cut), whole)
        self.assertGreaterEqual(sum(bool(doctest.DocTestParser().get_examples(s.text)) for s in cut), 10)


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern: object) -> unittest.TestSuite:
    tests.addTests(ReadmeSection(s) for s in read_sections() if s.text and ">>>" in s.text)
    return tests
