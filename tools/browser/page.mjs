// The page of the browser run: Pyodide from this origin, the package unpacked into it, then
// turns.py's checks, each reported to window.browserRun (which run.mjs reads) and shown in the list.
// ?jspi=0 deletes WebAssembly.Suspending before Pyodide loads: the run without stack switching.

const params = new URLSearchParams(location.search);
const mode = params.get("jspi") === "0" ? "no-jspi" : "jspi";
if (mode === "no-jspi") delete WebAssembly.Suspending;

const run = (window.browserRun = { mode, results: [], done: false, error: null, ticks: 0 });
document.getElementById("mode").textContent = mode === "jspi" ? "(with JSPI)" : "(JSPI removed)";
setInterval(() => {
  run.ticks += 1;
  document.getElementById("ticker").textContent = String(run.ticks);
}, 20);

function report(name, ok, detail) {
  run.results.push({ name: String(name), ok: Boolean(ok), detail: String(detail) });
  const line = document.createElement("li");
  line.className = ok ? "ok" : "failed";
  line.textContent = `${ok ? "ok" : "FAILED"}: ${name}: ${detail}`;
  document.getElementById("results").append(line);
}

async function main() {
  const started = performance.now();
  const { loadPyodide } = await import("/pyodide/pyodide.mjs");
  const pyodide = await loadPyodide({ indexURL: "/pyodide/", packages: [] });
  run.pyodide = Math.round(performance.now() - started);
  const [zip, turns] = await Promise.all([
    fetch("/agentkit_core.zip").then((answer) => answer.arrayBuffer()),
    fetch("/turns.py").then((answer) => answer.text()),
  ]);
  pyodide.unpackArchive(zip, "zip", { extractDir: "/home/pyodide/src" });
  pyodide.FS.writeFile("/home/pyodide/src/turns.py", turns);

  pyodide.globals.set("page", {
    mode,
    provider: params.get("provider"),
    record: `${location.origin}/record`,
    closed: params.get("closed"),
    report,
    snapshot: (name) => (window.snapshot ? window.snapshot(String(name)) : undefined),
  });
  await pyodide.runPythonAsync(`
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "/home/pyodide/src")
import turns
`);
  run.loaded = Math.round(performance.now() - started);
  await pyodide.runPythonAsync("await turns.main(page)");
}

main()
  .catch((error) => {
    run.error = String(error?.stack ?? error);
    report("page", false, run.error.split("\n").slice(-3).join(" "));
  })
  .finally(() => (run.done = true));
