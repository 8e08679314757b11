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
// Exit status: 0 when every test passed (skips allowed, each for a missing capability) and the
// host checks held; 1 when a test failed or errored, no test ran, a check failed or the network
// was touched; 2 when the run could not start.

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
  const failed = counts.failures + counts.errors + counts.unexpected_successes;
  say(
    `${counts.run} tests ran: ${Math.max(0, counts.run - failed - counts.skipped - counts.expected_failures)} passed, ` +
      `${counts.failures} failed, ${counts.errors} errors, ${counts.skipped} skipped ` +
      `(${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  let status = 0;
  if (failed || counts.run === 0) status = 1;
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
    const buffer = new Int32Array(new SharedArrayBuffer(4));
    pyodide.setInterruptBuffer(buffer);
    const sigint = pyodide.runPython("import signal; signal.SIGINT");
    let worker;
    pyodide.globals.set("press_ctrl_c", () => {
      worker = new Worker(
        `const { workerData } = require("node:worker_threads");
         Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);  // sleep 100 ms, then "press"
         Atomics.store(workerData.buffer, 0, workerData.sigint);`,
        { eval: true, workerData: { buffer, sigint } },
      );
    });
    try {
      return pyodide.runPython(`
import signal, time
from agentkit_core import CancellationController
controller = CancellationController()
checkpoint = controller.handle().checkpoint()
previous = signal.signal(signal.SIGINT, lambda signum, frame: controller.interrupt())
try:
    press_ctrl_c()
    start = time.monotonic()
    woken = checkpoint.wait(30)  # blocks the only thread there is
    took = time.monotonic() - start
finally:
    signal.signal(signal.SIGINT, previous)
assert woken and controller.generation == 1, (woken, controller.generation)
f"woken after {took:.2f} s"
`);
    } finally {
      pyodide.setInterruptBuffer(undefined);
      await worker?.terminate();
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
