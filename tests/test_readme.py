"""The README's and every ``docs/*.md`` page's examples run as doctests, so the documentation cannot rot.

Each page is found by glob (``README.md`` and ``docs/*.md``), so a page added
to ``docs/`` is tested without a line here.  Each section of a page (a ``##``
or ``###`` heading and the text up to the next one; the text before the first
is the page title's) is one test, with its own namespace: an example defines
every name it uses.  A section whose examples need a capability the
interpreter lacks (a thread, ``asyncio.run()``, the loopback server) is
declared in :data:`NEEDS` by (page, section) and skips there, found by
probing; the other sections still run.  A section whose examples need a
server is declared in :data:`FIXTURES`: its fixture points the environment
variable the example reads (``ANTHROPIC_BASE_URL``) at the suite's loopback
server playing recorded traffic, and those examples are marked ``+SKIP`` for
the plain runner (``python -m doctest README.md``), which every page passes.
"""

from __future__ import annotations

import contextlib
import doctest
import glob
import io
import os
import re
import sys
import unittest
from typing import Callable, ContextManager, Iterator, NamedTuple

from tests.capability import can_run_asyncio, can_serve_loopback, can_start_thread

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
#: The README's bounds: its length, and the line by which a whole turn (``stream()``, and ``complete()``) has appeared.
README_MAX_LINES = 400
FIRST_TURN_BY = 60
#: None: every page passes the plain runner too (``python -m doctest docs/x.md``), exact to the space.
FLAGS = 0
_HEADING = re.compile(r"^(?:##|###) (.+)$", re.M)
_TITLE = re.compile(r"^# (.+)$", re.M)

THREADS = (can_start_thread, "needs threads: this interpreter cannot start one")
ASYNCIO_RUN = (can_run_asyncio, "needs asyncio.run(): this interpreter cannot run a loop to completion")
LOOPBACK = (can_serve_loopback, "needs sockets: this interpreter cannot serve and reach 127.0.0.1")
DOCSTRINGS = (lambda: sys.flags.optimize < 2, "needs docstrings: -OO drops them, and the example reads one")

#: The sections whose examples need a capability, by (page, section title).
NEEDS: dict[tuple[str, str], tuple[tuple[Callable[[], bool], str], ...]] = {
    ("README.md", "Send one turn"): (LOOPBACK,),
    ("docs/cancellation.md", "Waiting without polling"): (THREADS,),
    ("docs/cancellation.md", "In asyncio code"): (ASYNCIO_RUN,),
    ("docs/turns.md", "A whole turn"): (LOOPBACK,),
    ("docs/tools-and-output.md", "Tools from functions"): (DOCSTRINGS,),
    ("docs/http.md", "HTTP: sending a request yourself"): (THREADS, ASYNCIO_RUN, LOOPBACK),
    ("docs/streaming.md", "Reading a turn as it arrives"): (LOOPBACK,),
    ("docs/streaming.md", "In asyncio: astream()"): (ASYNCIO_RUN, LOOPBACK),
}
#: What in an example's source shows that it needs a capability.
_USES = {THREADS: re.compile(r"\bthreading\.|\bThread\("), ASYNCIO_RUN: re.compile(r"\basyncio\.run\(|run_until_complete\(")}


@contextlib.contextmanager
def _base_url(*replies: tuple[str, float]) -> Iterator[None]:
    """``ANTHROPIC_BASE_URL``: the suite's loopback server playing recorded Anthropic streams, one a request."""
    from tests import recorded
    from tests.loopback import Loopback, sse_reply

    served = [sse_reply(recorded.raw("anthropic", name), *((stall,) if stall else ())) for name, stall in replies]
    before = os.environ.get("ANTHROPIC_BASE_URL")
    with Loopback(served) as server:
        os.environ["ANTHROPIC_BASE_URL"] = server.url()
        try:
            yield
        finally:
            if before is None:
                del os.environ["ANTHROPIC_BASE_URL"]
            else:
                os.environ["ANTHROPIC_BASE_URL"] = before


def _hello() -> ContextManager[None]:
    """One answer: ``Hello!`` (the README's first turn)."""
    return _base_url(("messages.extra_fields.sse.txt", 0.0))


def _tool_call_then_answers() -> ContextManager[None]:
    """A tool call, then an answer (the agent loop), and an answer that stalls."""
    return _base_url(("messages.text_tool_use.sse.txt", 0.0), ("messages.thinking_text.sse.txt", 0.0),
                     ("messages.thinking_text.sse.txt", 30.0))


def _answer_then_a_stall() -> ContextManager[None]:
    """An answer, then a stream that stalls after its first event."""
    return _base_url(("messages.thinking_text.sse.txt", 0.0), ("messages.thinking_text.sse.txt", 30.0))


@contextlib.contextmanager
def _replies(*replies: object) -> Iterator[None]:
    """``ANTHROPIC_BASE_URL``: the suite's loopback server playing ``replies`` (:class:`tests.loopback.Reply`), one a request."""
    from tests.loopback import Loopback

    before = os.environ.get("ANTHROPIC_BASE_URL")
    with Loopback(replies) as server:  # type: ignore[arg-type]
        os.environ["ANTHROPIC_BASE_URL"] = server.url()
        try:
            yield
        finally:
            if before is None:
                del os.environ["ANTHROPIC_BASE_URL"]
            else:
                os.environ["ANTHROPIC_BASE_URL"] = before


def _text_then_a_stall(whole_first: bool) -> ContextManager[None]:
    """A recorded answer's events up to its first text, then nothing (the connection held open); ``whole_first``: the
    whole answer before it (docs/streaming.md)."""
    from tests import recorded
    from tests.loopback import sse_reply
    from tests.test_complete import first_text

    name = "messages.thinking_text.sse.txt"
    stall = sse_reply(first_text("anthropic", name), stall=True)
    return _replies(sse_reply(recorded.raw("anthropic", name)), stall) if whole_first else _replies(stall)


#: The sections whose examples need a server, by (page, section title): a context manager setting the environment.
FIXTURES: dict[tuple[str, str], Callable[[], ContextManager[None]]] = {
    ("README.md", "Send one turn"): _hello,
    ("docs/turns.md", "A whole turn"): _tool_call_then_answers,
    ("docs/http.md", "HTTP: sending a request yourself"): _answer_then_a_stall,
    ("docs/streaming.md", "Reading a turn as it arrives"): lambda: _text_then_a_stall(True),
    ("docs/streaming.md", "In asyncio: astream()"): lambda: _text_then_a_stall(False),
}


def pages() -> list[str]:
    """``README.md`` and every ``docs/*.md``, relative to the repository's root, with ``/``."""
    docs = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return ["README.md"] + ["docs/" + os.path.basename(path) for path in docs]


def read(page: str) -> str:
    with open(os.path.join(ROOT, *page.split("/")), encoding="utf-8") as f:
        return f.read()


class Section(NamedTuple):
    page: str
    title: str
    lineno: int  # of the heading, counted from 0
    text: str


def sections(text: str, page: str = "README.md") -> list[Section]:
    """The page cut at its ``##`` and ``###`` headings; the text before the first is the page title's."""
    title = _TITLE.search(text)
    found = [Section(page, title.group(1).strip() if title else page, 0, "")]
    last = 0
    for match in _HEADING.finditer(text):
        found[-1] = found[-1]._replace(text=text[last : match.start()])
        found.append(Section(page, match.group(1).strip(), text.count("\n", 0, match.start()), ""))
        last = match.start()
    found[-1] = found[-1]._replace(text=text[last:])
    return found


def read_sections(page: str = "README.md") -> list[Section]:
    return sections(read(page), page)


def every_section() -> list[Section]:
    return [s for page in pages() for s in read_sections(page)]


class DocSection(unittest.TestCase):
    """The examples of one section of one page, run as one doctest."""

    def __init__(self, section: Section) -> None:
        super().__init__("run_examples")  # not test_*: only load_tests makes these
        self.section = section
        path = os.path.join(ROOT, *section.page.split("/"))
        self.doctest = doctest.DocTestParser().get_doctest(
            section.text, {"__name__": section.page}, f"{section.page}: {section.title}", path, section.lineno
        )

    def id(self) -> str:
        page = re.sub(r"[^0-9A-Za-z]+", "_", section_page(self.section)).strip("_")
        return f"{__name__}.{page}.{re.sub(r'[^0-9A-Za-z]+', '_', self.section.title).strip('_').lower()}"

    def __str__(self) -> str:
        return f"{self.doctest.name} (line {self.section.lineno + 1})"

    def run_examples(self) -> None:
        key = (self.section.page, self.section.title)
        for probe, reason in NEEDS.get(key, ()):
            if not probe():
                raise unittest.SkipTest(reason)
        with contextlib.ExitStack() as stack:
            fixture = FIXTURES.get(key)
            if fixture is not None:
                stack.enter_context(fixture())
                for example in self.doctest.examples:  # skipped by the plain runner, which has no fixture
                    example.options.pop(doctest.SKIP, None)
            report = io.StringIO()
            runner = doctest.DocTestRunner(optionflags=FLAGS)
            result = runner.run(self.doctest, out=report.write, clear_globs=True)
        self.assertEqual(result.failed, 0, "\n" + report.getvalue())


def section_page(section: Section) -> str:
    """The page's name in test ids: ``README``, ``docs_turns``."""
    return section.page[: -len(".md")] if section.page.endswith(".md") else section.page


class PlainRunner(unittest.TestCase):
    def test_the_plain_runner_passes_every_page(self) -> None:
        """``python -m doctest PAGE``: one namespace a page, no fixture; what needs one is marked ``+SKIP``."""
        needed = {need for (page, _), needs in NEEDS.items() for need in needs}
        missing = [reason for probe, reason in needed if not probe()]
        if missing:  # before the subtests: a skip inside one would leave this test with no outcome of its own
            self.skipTest(missing[0])
        for page in pages():
            with self.subTest(page):
                path = os.path.join(ROOT, *page.split("/"))
                test = doctest.DocTestParser().get_doctest(read(page), {"__name__": page}, page, path, 0)
                report = io.StringIO()
                result = doctest.DocTestRunner(optionflags=0).run(test, out=report.write, clear_globs=True)
                self.assertEqual(result.failed, 0, "\n" + report.getvalue())

    def test_only_sections_with_a_fixture_skip_examples(self) -> None:
        for section in every_section():
            examples = doctest.DocTestParser().get_examples(section.text)
            skipped = [e for e in examples if e.options.get(doctest.SKIP)]
            with self.subTest(section.page, section=section.title):
                if (section.page, section.title) in FIXTURES:
                    self.assertTrue(skipped, "the examples that need the fixture are marked +SKIP")
                else:
                    self.assertEqual(skipped, [])


class Declarations(unittest.TestCase):
    def test_sections_that_need_a_capability_say_so(self) -> None:
        keys = set()
        for section in every_section():
            key = (section.page, section.title)
            keys.add(key)
            source = "".join(e.source for e in doctest.DocTestParser().get_examples(section.text))
            for needed, uses in _USES.items():
                with self.subTest(section.page, section=section.title, needs=needed[1]):
                    self.assertEqual(needed in NEEDS.get(key, ()), bool(uses.search(source)))
        self.assertLessEqual(set(NEEDS), keys)
        self.assertLessEqual(set(FIXTURES), keys)

    def test_the_sections_hold_every_example(self) -> None:
        total = 0
        for page in pages():
            with self.subTest(page):
                cut = read_sections(page)
                self.assertEqual("".join(s.text for s in cut), read(page))
                total += sum(bool(doctest.DocTestParser().get_examples(s.text)) for s in cut)
        self.assertGreaterEqual(total, 20)


class FrontDoor(unittest.TestCase):
    """What a newcomer meets: a short README whose first screen sends a turn, and an index of every page."""

    def test_the_readme_is_short_and_its_first_screen_sends_a_turn(self) -> None:
        lines = read("README.md").split("\n")
        self.assertLessEqual(len(lines) - 1, README_MAX_LINES)
        first = "\n".join(lines[:FIRST_TURN_BY])
        self.assertRegex(first, r">>> with \w+\.stream\(")  # a whole turn, streamed (issue 35)
        self.assertRegex(first, r"answer = \w+\.complete\(")  # and complete(), the same turn in one call

    def test_the_readme_links_every_docs_page(self) -> None:
        text = read("README.md")
        for page in pages()[1:]:
            with self.subTest(page):
                self.assertIn(f"]({page})", text)

    def test_the_changelog_keeps_one_line_an_entry(self) -> None:
        """Keep a Changelog: ``## [Unreleased]`` on top, a section per release, its kinds, one line an entry."""
        lines = read("CHANGELOG.md").split("\n")
        releases = [line for line in lines if line.startswith("## ")]
        self.assertEqual(releases[0], "## [Unreleased]")
        for release in releases[1:]:
            self.assertRegex(release, r"^## \[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}$")
        kinds = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security", "Performance"}
        body = lines[lines.index(releases[0]):]
        for line in body:
            with self.subTest(line=line[:60]):
                if line.startswith("### "):
                    self.assertIn(line[4:], kinds)
                elif line and not line.startswith("## "):
                    self.assertTrue(line.startswith("- "), "an entry is one line, begun with '- '")

    def test_links_between_pages_reach_a_file(self) -> None:
        for page in pages():
            folder = os.path.dirname(os.path.join(ROOT, *page.split("/")))
            for target in re.findall(r"\]\(([^)\s#]+)(?:#[^)\s]*)?\)", read(page)):
                if "://" in target or target.startswith("mailto:"):
                    continue
                with self.subTest(page, link=target):
                    self.assertTrue(os.path.exists(os.path.normpath(os.path.join(folder, target))), target)


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern: object) -> unittest.TestSuite:
    tests.addTests(DocSection(s) for s in every_section() if s.text and ">>>" in s.text)
    return tests
