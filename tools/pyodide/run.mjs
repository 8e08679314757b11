// Run agentkit_core's test suite inside Pyodide (CPython 3.14 on WebAssembly) under Node, offline.
//
//     npm ci --prefix tools/pyodide        # once: the pinned pyodide package, from package-lock.json
//     node tools/pyodide/run.mjs           # the whole suite: python -m unittest discover -s tests -t .
//     node tools/pyodide/run.mjs tests.test_cancellation -v    # any `python -m unittest` arguments
//
// Pyodide loads from the installed npm package only: no CDN, no loadPackage, no network at all
// (fetch is refused, and the run fails if anything tried it). The repository is mounted into
// Pyodide's file system at its own path, and the tests are found exactly as `python -m unittest`
// finds them. The `async def` tests are awaited on Pyodide's own event loop first (asyncio.run()
// needs WebAssembly stack switching, which plain Node lacks; see tests/capability.py), then the
// suite runs. Two host checks follow that only JavaScript can drive: the interrupt buffer (Ctrl-C)
// wakes a blocking wait(), and a JavaScript callback wakes `await checkpoint.cancelled()`.
//
// Every outcome is counted by tests/runner.py's Accounting: a line per test module as it finishes,
// and each skip must name a capability (`needs <capability>: <why>`) that Pyodide lacks, probed
// again after the run; any other skip is refused and fails the run.
//
// Exit status: 0 when every test passed or skipped for a capability Pyodide lacks, and the host
// checks held; 1 when a test failed or errored, a skip was refused, no test ran, a check failed or
// the network was touched; 2 when the run could not start.

import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { loadPyodide, version as pyodideVersion } from "pyodide";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const args = process.argv.slice(2);
const unittestArgs = args.length ? args : ["discover", "-s", "tests", "-t", "."];

const networkAttempts = [];
globalThis.fetch = async (resource) => {
  networkAttempts.push(String(resource?.url ?? resource));
  throw new Error(`run.mjs: network access refused (${resource})`);
};

function say(line) {
  process.stdout.write(`pyodide: ${line}\n`);
}

function rawWriter(stream) {
  return { write: (buffer) => (stream.write(buffer), buffer.length), isatty: false };
}

async function main() {
  const started = Date.now();
  let pyodide;
  try {
    pyodide = await loadPyodide({ packages: [] });
  } catch (error) {
    say(`could not load Pyodide: ${error?.message ?? error}`);
    return 2;
  }
  pyodide.setStdout(rawWriter(process.stdout));
  pyodide.setStderr(rawWriter(process.stderr));
  const python = pyodide.runPython("import sys; sys.version.split()[0]");
  say(`CPython ${python} on Pyodide ${pyodideVersion}, Node ${process.version}, loaded offline in ${Date.now() - started} ms`);

  pyodide.FS.mkdirTree(ROOT);
  pyodide.mountNodeFS(ROOT, ROOT);
  pyodide.globals.set("ROOT", ROOT);
  pyodide.globals.set("ARGV", pyodide.toPy(unittestArgs));

  let counts;
  let current = null;
  try {
    const found = pyodide.runPython(`
import os, sys
os.chdir(ROOT)
sys.path[:0] = [ROOT, os.path.join(ROOT, "tools", "pyodide")]
import harness
harness.collect(list(ARGV))
`);
    say(`python -m unittest ${unittestArgs.join(" ")}: ${found} tests`);
    const awaited = await pyodide.runPythonAsync("await harness.await_bodies()");
    if (awaited) say(`awaited the bodies of ${awaited} async tests on Pyodide's event loop`);
    pyodide.globals.set("note_test", (name) => (current = name));
    const result = pyodide.runPython("harness.run(note_test)");
    counts = result.toJs({ dict_converter: Object.fromEntries });
    result.destroy();
  } catch (error) {
    if (error?.pyodide_fatal_error) {
      say(`Pyodide died (a fatal error, not a Python exception)${current ? ` in ${current}` : ""}: the interpreter is gone`);
      return 1;
    }
    const text = String(error?.message ?? error);
    const exit = text.match(/SystemExit: (\d*)\s*$/);  // unittest's --help, or its usage error
    if (exit) return Number(exit[1] || 0);
    process.stderr.write(`${text}\n`);
    say(`the run stopped: ${text.trim().split("\n").slice(-1)[0]}`);
    return 2;
  }

  const checks = await hostChecks(pyodide);
  const loaded = Object.keys(pyodide.loadedPackages);
  const failed = counts.failures + counts.errors;
  for (const problem of counts.refused) say(`refused: ${problem}`);
  say(counts.summary);
  say(
    `${counts.run} tests ran: ${counts.passed} passed, ` +
      `${counts.failures} failed, ${counts.errors} errors, ${counts.skipped} skipped ` +
      `(${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  let status = 0;
  if (failed || counts.run === 0 || counts.refused.length) status = 1;
  if (checks.some((ok) => !ok)) status = 1;
  if (networkAttempts.length || loaded.length) {
    say(`offline run broken: fetched ${JSON.stringify(networkAttempts)}, loaded packages ${JSON.stringify(loaded)}`);
    status = 1;
  }
  say(status === 0 ? "OK" : "FAILED");
  return status;
}

// What only the host can show: a second JavaScript thread writing Pyodide's interrupt buffer (what
// a browser page does on Ctrl-C or a Stop button) wakes the one Python thread blocked in wait(), and
// a JavaScript timer calling interrupt() wakes a coroutine awaiting checkpoint.cancelled().
async function hostChecks(pyodide) {
  const results = [];
  const check = async (what, run) => {
    try {
      const detail = await run();
      say(`check: ${what}: ok (${detail})`);
      results.push(true);
    } catch (error) {
      say(`check: ${what}: FAILED: ${String(error?.message ?? error).trim().split("\n").slice(-1)[0]}`);
      results.push(false);
    }
  };

  await check("the interrupt buffer wakes a blocking wait()", async () => {
    // A second JavaScript thread plays the user: once Python is about to block, it presses Ctrl-C
    // (writes SIGINT into the interrupt buffer) every 100 ms while the buffer is empty, until told
    // to stop. One press is enough almost always; Pyodide has been seen, about once in five runs
    // after the whole suite, to take a press from the buffer without ever calling the handler (the
    // handler's own record shows it). A user would press again, so the worker does, and the count
    // is reported. What is ours is held strictly: once the handler has run, wait() must return.
    const buffer = new Int32Array(new SharedArrayBuffer(4));
    const cells = new Int32Array(new SharedArrayBuffer(16)); // go, stop, presses, stopped
    const [GO, STOP, PRESSES, STOPPED] = [0, 1, 2, 3];
    const sigint = pyodide.runPython("import signal; signal.SIGINT");
    const worker = new Worker(
      `const { workerData: { buffer, cells, sigint } } = require("node:worker_threads");
       const [GO, STOP, PRESSES, STOPPED] = [0, 1, 2, 3];
       Atomics.wait(cells, GO, 0);  // until Python is about to block
       while (Atomics.wait(cells, STOP, 0, 100) === "timed-out") {
         if (Atomics.compareExchange(buffer, 0, 0, sigint) === 0) Atomics.add(cells, PRESSES, 1);
       }
       Atomics.store(cells, STOPPED, 1);
       Atomics.notify(cells, STOPPED);`,
      { eval: true, workerData: { buffer, cells, sigint } },
    );
    await new Promise((online, failed) => (worker.once("online", online), worker.once("error", failed)));
    pyodide.setInterruptBuffer(buffer);
    pyodide.globals.set("press_ctrl_c", () => (Atomics.store(cells, GO, 1), Atomics.notify(cells, GO)));
    pyodide.globals.set("stop_pressing", () => {
      Atomics.store(cells, STOP, 1);
      Atomics.notify(cells, STOP);
      Atomics.wait(cells, STOPPED, 0, 5000);
      Atomics.store(buffer, 0, 0);  // a press still unread must not reach the restored handler
      return Atomics.load(cells, PRESSES);
    });
    try {
      return pyodide.runPython(`
import signal, time
from agentkit_core import CancellationController
controller = CancellationController()
checkpoint = controller.handle().checkpoint()
handled = []

def on_sigint(signum, frame):
    handled.append(time.monotonic())
    controller.interrupt()

previous = signal.signal(signal.SIGINT, on_sigint)
try:
    press_ctrl_c()
    start = time.monotonic()
    woken = checkpoint.wait(30)  # blocks the only thread there is
    took = time.monotonic() - start
finally:
    presses = stop_pressing()
    signal.signal(signal.SIGINT, previous)
assert woken and controller.generation >= 1, (woken, controller.generation, presses, handled)
late = start + took - handled[0]
assert late < 1, f"wait() returned {late:.2f} s after the handler interrupted"
lost = "" if presses == 1 else f"; Pyodide dropped {presses - 1} of {presses} presses"
f"woken after {took:.2f} s{lost}"
`);
    } finally {
      pyodide.setInterruptBuffer(undefined);
      await worker.terminate();
    }
  });

  await check("a JavaScript callback wakes await checkpoint.cancelled()", async () => {
    return await pyodide.runPythonAsync(`
import asyncio, js
from pyodide.ffi import create_once_callable
from agentkit_core import CancellationController
controller = CancellationController()
checkpoint = controller.handle().checkpoint()
js.setTimeout(create_once_callable(controller.interrupt), 10)
await asyncio.wait_for(checkpoint.cancelled(), 30)
assert controller.generation == 1
"woken on Pyodide's event loop"
`);
  });
  return results;
}

// Exit now: a timer Pyodide's event loop left behind (a cancelled asyncio timeout) must not keep Node waiting.
process.exit(await main());
