// Turns inside a web page: agentkit_core in Pyodide in headless Chromium, against a local fake provider.
//
//     npm ci --prefix tools/pyodide        # once: the pinned Pyodide (its files are served to the page)
//     npm ci --prefix tools/browser        # once: the pinned playwright-core (no browser download)
//     node tools/browser/run.mjs           # Debian's chromium at /usr/bin/chromium (or $CHROMIUM)
//
// serve.py (started here with $PYTHON, default python3) serves the page, Pyodide and the package
// from one 127.0.0.1 origin and a fake provider from another, replaying recorded streams. The page
// (page.mjs, turns.py) runs every check twice: with JSPI, then with `WebAssembly.Suspending`
// deleted before Pyodide loads. A screenshot of the page mid-turn goes to .ci/out/ (ignored by
// git). Any request leaving 127.0.0.1 fails the run. Every step is bounded; the browser, its
// fresh profile and the server are removed by this script however the run ends.
//
// Prints one line per check and closes with `browser: N passed, M failed`; exit status 0 when
// every check passed, 1 otherwise (2 when the run could not start).

import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..", "..");
const OUT = join(ROOT, ".ci", "out");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const PYTHON = process.env.PYTHON || "python3";
const WHOLE_RUN = 170_000; // ms: the hard stop, whatever hangs (a run takes about 50 s)
const PER_PAGE = 75_000; // ms: one mode's load and checks (about 25 s)
const ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

const say = (line) => process.stdout.write(`browser: ${line}\n`);
let server = null;
let context = null;
let profile = null;

async function startServer() {
  server = spawn(PYTHON, [join(HERE, "serve.py"), "--deadline", String(WHOLE_RUN / 1000 + 30)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = new Promise((_, failed) => server.once("exit", (code) => failed(new Error(`serve.py exited (${code})`))));
  const first = new Promise((found) => createInterface({ input: server.stdout }).once("line", found));
  const line = await Promise.race([first, exited, timeout(15_000, "serve.py did not start")]);
  return JSON.parse(line);
}

function timeout(ms, what) {
  return new Promise((_, failed) => setTimeout(() => failed(new Error(`${what} within ${ms / 1000} s`)), ms).unref());
}

async function cleanUp() {
  if (context) await Promise.race([context.close().catch(() => {}), new Promise((done) => setTimeout(done, 10_000))]);
  context = null;
  if (server && server.exitCode === null) {
    server.stdin.end(); // serve.py stops when its input closes
    const gone = new Promise((done) => server.once("exit", done));
    await Promise.race([gone, new Promise((done) => setTimeout(done, 3_000))]);
    if (server.exitCode === null) server.kill("SIGKILL");
  }
  if (profile) rmSync(profile, { recursive: true, force: true });
  profile = null;
}

async function runMode(ports, mode, stray) {
  const page = await context.newPage();
  const console_ = [];
  page.on("console", (message) => console_.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => console_.push(`pageerror: ${error.message}`));
  page.on("request", (request) => {
    if (!/^http:\/\/127\.0\.0\.1:\d+\//.test(request.url())) stray.push(request.url());
  });
  const query = new URLSearchParams({
    jspi: mode === "jspi" ? "1" : "0",
    provider: `http://127.0.0.1:${ports.provider}`,
    closed: String(ports.closed),
  });
  let outcome;
  try {
    await page.goto(`http://127.0.0.1:${ports.page}/?${query}`, { timeout: 20_000 });
    await page.waitForFunction(() => window.browserRun?.done, null, { timeout: PER_PAGE, polling: 100 });
    outcome = await page.evaluate(() => window.browserRun);
  } catch (error) {
    outcome = await page.evaluate(() => window.browserRun).catch(() => null);
    outcome = { ...(outcome ?? {}), results: [...(outcome?.results ?? []), { name: "page", ok: false, detail: error.message.split("\n")[0] }] };
  }
  await page.close().catch(() => {});
  if (outcome.results.some((result) => !result.ok)) for (const line of console_.slice(-15)) say(`  ${mode} console ${line}`);
  return { ...outcome, mode };
}

async function main() {
  const started = Date.now();
  let ports;
  try {
    statSync(CHROMIUM);
    ports = await startServer();
  } catch (error) {
    say(`could not start: ${error.message}`);
    return 2;
  }
  mkdirSync(OUT, { recursive: true });
  profile = mkdtempSync(join(tmpdir(), "agentkit-browser-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 30_000, viewport: { width: 960, height: 720 },
  });
  const shots = [];
  let currentMode = "jspi";
  await context.exposeFunction("snapshot", async (name) => {
    const path = join(OUT, currentMode === "jspi" ? name : name.replace(/\.png$/, `-${currentMode}.png`));
    await context.pages().at(-1)?.screenshot({ path, timeout: 10_000 });
    shots.push(path);
  });
  const version = context.browser()?.version() ?? "?";
  say(`Chromium ${version} (${CHROMIUM}), page on 127.0.0.1:${ports.page}, provider on 127.0.0.1:${ports.provider}`);
  const stray = [];
  let passed = 0;
  let failed = 0;
  for (const mode of ["jspi", "no-jspi"]) {
    currentMode = mode;
    const outcome = await runMode(ports, mode, stray);
    say(`${mode}: Pyodide loaded in ${outcome.pyodide ?? "?"} ms, the package imported by ${outcome.loaded ?? "?"} ms`);
    if (!outcome.results.length) outcome.results.push({ name: "page", ok: false, detail: "no check reported" });
    for (const { name, ok, detail } of outcome.results) {
      say(`${mode} ${name}: ${ok ? "ok" : "FAILED"} (${detail})`);
      ok ? passed++ : failed++;
    }
  }
  const shot = shots.find((path) => path.endsWith("browser-turn.png"));
  if (shot) say(`screenshot of the page mid-turn: ${relative(process.cwd(), shot) || shot}`);
  else (failed++, say("screenshot: FAILED (none was taken mid-turn)"));
  if (stray.length) (failed++, say(`FAILED: requests left 127.0.0.1: ${stray.slice(0, 5).join(", ")}`));
  say(`${((Date.now() - started) / 1000).toFixed(1)} s`);
  say(`${passed} passed, ${failed} failed`);
  return failed ? 1 : 0;
}

const hardStop = setTimeout(async () => {
  say(`the run took longer than ${WHOLE_RUN / 1000} s: stopped`);
  say("0 passed, 1 failed");
  await cleanUp();
  process.exit(1);
}, WHOLE_RUN);

let status;
try {
  status = await main();
} catch (error) {
  say(`the run stopped: ${error?.message ?? error}`);
  say("0 passed, 1 failed");
  status = 1;
} finally {
  await cleanUp();
  clearTimeout(hardStop);
}
process.exit(status);
