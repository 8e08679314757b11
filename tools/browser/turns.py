"""The Python half of the browser run: turns in a web page, through FetchTransport, against ``serve.py``.

``page.mjs`` loads Pyodide, unpacks the package, imports this module and
awaits :func:`main` with ``page``, a JavaScript object holding the fake
provider's base URL, the page origin's ``/record`` URL and ``report(name,
ok, detail)``.  Every check is one reported result; a check that raises is
reported failed with the error.  Every turn is the provider's ``acomplete`` with
no transport: under Pyodide ``asend``'s default is
:class:`~agentkit_core.http.FetchTransport`.  Anthropic's asks for its
browser-access header with ``headers=``.

Runs inside Pyodide only (it imports ``js``).  Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import json
import time
import traceback
from typing import Any, Awaitable, Callable

import js  # type: ignore[import-not-found]
from pyodide.ffi import create_proxy  # type: ignore[import-not-found]

from agentkit_core import CancellationController, FinishReason, Item, ItemKind, ModelSettings
from agentkit_core.http import ProviderError, TransportError
from agentkit_core.providers import anthropic, openai_chat

ITEMS = [Item.text(ItemKind.USER, "Say hello, then tell me a little about Paris.")]
KEY = "sk-test-0000-not-a-key"
PROVIDERS = {"anthropic": anthropic, "openai_chat": openai_chat}
MODELS = {"anthropic": "claude-sonnet-4-5", "openai_chat": "gpt-4o-mini"}
BOUND = 20.0  # seconds: the most any step here may take before the check fails
_runs = iter(range(1, 1_000_000))


BROWSER_ACCESS = {"anthropic-dangerous-direct-browser-access": "true"}  # what Anthropic asks of a page


def headers_for(provider: str) -> dict[str, str] | None:
    return BROWSER_ACCESS if provider == "anthropic" else None


async def turn(provider: str, base_url: str, *, on_text: Callable[[str], object], cancel: Any = None, **options: Any) -> Item:
    """One streamed turn, the provider's ``acomplete`` with no transport: closed as CANCELLED on an interrupt of ``cancel``."""
    return await PROVIDERS[provider].acomplete(  # type: ignore[no-any-return]
        ITEMS, model=MODELS[provider], api_key=KEY, base_url=base_url, headers=headers_for(provider),
        settings=ModelSettings(max_tokens=256), on_text=on_text, cancel=cancel, **options,
    )


class Page:
    """The page: its JavaScript object, the text area, the Stop button, the ticker."""

    def __init__(self, page: Any) -> None:
        self.js = page
        self.provider_url = str(page.provider)
        self.record_url = str(page.record)
        self.text = js.document.getElementById("text")
        self.status = js.document.getElementById("status")
        self.passed = 0

    def base(self, scenario: str) -> tuple[str, str]:
        """A fresh request id and the base URL of ``scenario`` (``name,setting=value``) under it."""
        rid = f"{self.js.mode}-{next(_runs)}"
        return rid, f"{self.provider_url}/{scenario}/{rid}"

    def show(self, chunk: str) -> None:
        self.text.textContent = self.text.textContent + chunk

    def clear(self, what: str) -> None:
        self.status.textContent = what
        self.text.textContent = ""

    def ticks(self) -> int:
        return int(js.window.browserRun.ticks)

    def stop_button(self, controller: CancellationController) -> Callable[[], None]:
        """Wire the Stop button to ``controller.interrupt`` (a DOM click handler); the function that unwires it."""
        button = js.document.getElementById("stop")
        proxy = create_proxy(lambda event: controller.interrupt())
        button.onclick = proxy

        def unwire() -> None:
            button.onclick = None
            proxy.destroy()

        return unwire

    def click_stop_in(self, seconds: float) -> None:
        js.setTimeout(create_proxy_once(lambda: js.document.getElementById("stop").click()), int(seconds * 1000))

    async def record(self, rid: str, wait: float = 10.0) -> dict[str, Any]:
        """What the fake provider saw under ``rid``, once its answers ended (or ``wait`` passed)."""
        answer = await js.fetch(f"{self.record_url}/{rid}?wait={wait}")
        return dict(json.loads(await answer.text()))

    async def check(self, name: str, body: Callable[[], Awaitable[str]]) -> None:
        self.clear(name)
        try:
            detail = await asyncio.wait_for(body(), BOUND)
        except BaseException as exc:  # noqa: BLE001 - every failure, CancelledError included, is a failed check
            frames = traceback.extract_tb(exc.__traceback__)[-4:]
            where = " <- ".join(f"{f.name}:{f.lineno}" for f in reversed(frames))
            self.js.report(name, False, f"{type(exc).__name__}: {str(exc)[:500]} (at {where})")
        else:
            self.passed += 1
            self.js.report(name, True, detail)


def create_proxy_once(fn: Callable[[], object]) -> Any:
    from pyodide.ffi import create_once_callable  # type: ignore[import-not-found]

    return create_once_callable(fn)


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


async def streamed(page: Page, provider: str) -> str:
    """A whole streamed turn: the text shows up in pieces as it arrives, and the item is finished."""
    rid, base = page.base("stream,gap=15" if provider == "anthropic" else "stream,gap=40")  # 118 events, 12
    arrivals: list[tuple[float, str]] = []

    def on_text(chunk: str) -> None:
        arrivals.append((time.monotonic(), chunk))
        page.show(chunk)
        if provider == "anthropic" and len(arrivals) == 40:
            page.js.snapshot("browser-turn.png")  # the page mid-turn (not awaited: the turn goes on)

    item = await turn(provider, base, on_text=on_text)
    seen = await page.record(rid)
    text = item.text_content()
    expect(text == "".join(chunk for _, chunk in arrivals) and text, f"the item's text {text!r} is not what arrived")
    expect(item.finish_reason in (FinishReason.COMPLETED, FinishReason.MAX_TOKENS), f"finish reason {item.finish_reason}")
    spread = arrivals[-1][0] - arrivals[0][0]
    expect(len(arrivals) >= 5 and spread > 0.05, f"{len(arrivals)} pieces over {spread:.3f} s: not as it arrived")
    expect(seen.get("finished") == 1 and seen.get("closed_early") == 0, f"the server saw {seen}")
    expect(seen.get("model") == MODELS[provider], f"the body that went out named the model {seen.get('model')!r}")
    if provider == "anthropic":
        expect("anthropic-dangerous-direct-browser-access" in seen["headers"], "no browser-access header went out")
    return f"{len(text)} characters in {len(arrivals)} pieces over {spread:.2f} s, {item.finish_reason.kind}"


async def interrupted(page: Page, provider: str) -> str:
    """The Stop button (a click handler calling interrupt()) mid-stream: the turn closes CANCELLED, the fetch is aborted."""
    rid, base = page.base("hold")
    controller = CancellationController()
    unwire = page.stop_button(controller)
    arrivals: list[str] = []

    def on_text(chunk: str) -> None:
        arrivals.append(chunk)
        page.show(chunk)
        if len(arrivals) == 3:  # the last before the server holds
            page.click_stop_in(0.2)

    try:
        started = time.monotonic()
        item = await turn(provider, base, on_text=on_text, cancel=controller.handle().checkpoint())
        took = time.monotonic() - started
    finally:
        unwire()
    seen = await page.record(rid)
    expect(item.finish_reason is FinishReason.CANCELLED, f"finish reason {item.finish_reason}, not CANCELLED")
    expect(item.text_content() == "".join(arrivals), "the cancelled item lost the text that arrived")
    expect(seen.get("closed_early") == 1, f"the server did not see the connection closed early: {seen}")
    return f"CANCELLED after {took:.2f} s with {len(arrivals)} pieces of text; the server saw the connection closed"


async def task_cancelled(page: Page, provider: str) -> str:
    """task.cancel() mid-stream: CancelledError comes out of the task, the fetch is aborted."""
    rid, base = page.base("hold")
    arrivals: list[str] = []
    task = asyncio.ensure_future(turn(provider, base, on_text=lambda chunk: (arrivals.append(chunk), page.show(chunk))))
    for _ in range(int(BOUND / 0.01)):
        if len(arrivals) >= 3 or task.done():
            break
        await asyncio.sleep(0.01)
    expect(not task.done(), "the turn ended before it was cancelled")
    started = time.monotonic()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        took = time.monotonic() - started
    else:
        raise AssertionError("the cancelled task returned instead of raising CancelledError")
    seen = await page.record(rid)
    expect(seen.get("closed_early") == 1, f"the server did not see the connection closed early: {seen}")
    return f"CancelledError {took * 1000:.0f} ms after task.cancel(); the server saw the connection closed"


async def retry_wait_interrupted(page: Page, provider: str) -> str:
    """A 529 asking 3 s: the page keeps running during the wait, and the Stop button ends it."""
    rid, base = page.base("busy,ms=3000")
    controller = CancellationController()
    unwire = page.stop_button(controller)
    page.click_stop_in(0.8)
    ticks = page.ticks()
    started = time.monotonic()
    try:
        item = await turn(provider, base, on_text=page.show, cancel=controller.handle().checkpoint())
    finally:
        unwire()
    took = time.monotonic() - started
    ticked = page.ticks() - ticks
    seen = await page.record(rid)
    expect(item.finish_reason is FinishReason.CANCELLED, f"finish reason {item.finish_reason}, not CANCELLED")
    expect(took < 2.0, f"the wait ended {took:.2f} s after it began, not at the click (0.8 s)")
    expect(ticked >= 10, f"the 20 ms ticker ticked {ticked} times in {took:.2f} s: the wait blocked the page")
    expect(seen.get("requests") == 1, f"the retry went out after all: {seen}")
    return f"ended by the Stop click after {took:.2f} s, the ticker ticked {ticked} times meanwhile; no retry went out"


async def retried(page: Page, provider: str) -> str:
    """A 529 asking 0.4 s: asend waits (the page ticking) and the retry streams the turn."""
    rid, base = page.base("busy,ms=400")
    ticks = page.ticks()
    item = await turn(provider, base, on_text=page.show)
    ticked = page.ticks() - ticks
    seen = await page.record(rid)
    expect(item.finish_reason is FinishReason.COMPLETED and item.text_content(), f"finish reason {item.finish_reason}")
    expect(seen.get("requests") == 2, f"the server saw {seen}")
    expect(ticked >= 10, f"the ticker ticked {ticked} times: the wait blocked the page")
    return f"retried after the asked 0.4 s, the ticker ticked {ticked} times meanwhile"


async def failures(page: Page, provider: str) -> str:
    """A refused origin (CORS) and a closed port as TransportError; error answers as ProviderError."""
    found = []
    _, base = page.base("nocors")
    try:
        await turn(provider, base, on_text=page.show)
    except TransportError as exc:
        expect("CORS" in str(exc) and KEY not in str(exc), f"the message: {exc}")
        found.append("CORS refusal: TransportError")
    else:
        raise AssertionError("a refused origin gave no error")
    try:
        await turn(provider, f"http://127.0.0.1:{page.js.closed}", on_text=page.show, retries=0)
    except TransportError as exc:
        found.append("closed port: TransportError")
        expect(KEY not in str(exc), "the key is in the message")
    else:
        raise AssertionError("a closed port gave no error")
    _, base = page.base("bad")
    try:
        await turn(provider, base, on_text=page.show)
    except ProviderError as exc:
        expect((exc.status, exc.error_type, exc.request_id) == (400, "invalid_request_error", "req_bad_1"), f"{exc!r}")
        found.append("400: ProviderError with its type and request id")
    if provider == "anthropic":
        _, base = page.base("stream")
        try:
            await anthropic.acomplete(ITEMS, model="m", api_key=KEY, base_url=base, settings=ModelSettings(max_tokens=8))
        except ProviderError as exc:
            expect(exc.status == 401 and "anthropic-dangerous-direct-browser-access" in exc.message, f"{exc!r}")
            found.append("no browser-access header: 401 ProviderError")
    return "; ".join(found)


async def sync_face(page: Page, provider: str) -> str:
    """complete() (send() underneath) through FetchTransport's synchronous face: run_sync with JSPI, else a TransportError naming asend."""
    _, base = page.base("stream,gap=1")
    arguments: dict[str, Any] = dict(
        model=MODELS[provider], api_key=KEY, base_url=base, headers=headers_for(provider), settings=ModelSettings(max_tokens=256)
    )
    if page.js.mode == "jspi":
        shown: list[str] = []
        item = PROVIDERS[provider].complete(ITEMS, on_text=shown.append, **arguments)
        expect(item.finish_reason is FinishReason.COMPLETED and len(shown) > 3, f"{item.finish_reason}, {len(shown)} pieces")
        return f"complete() streamed {len(shown)} pieces of text through run_sync"
    try:
        PROVIDERS[provider].complete(ITEMS, **arguments)
    except TransportError as exc:
        expect("asend" in str(exc), f"the message does not point to asend: {exc}")
        return "complete() raises TransportError pointing to asend"
    raise AssertionError("complete() worked without JSPI")


CHECKS = (streamed, interrupted, task_cancelled, retry_wait_interrupted, retried, failures)


async def main(page_js: Any) -> int:
    """Run every check for both providers; how many passed."""
    page = Page(page_js)
    for provider in ("anthropic", "openai_chat"):
        for check in CHECKS:
            await page.check(f"{provider} {check.__name__}", lambda: check(page, provider))
    await page.check("anthropic sync_face", lambda: sync_face(page, "anthropic"))
    page.clear("done")
    return page.passed
