// Shared by the e2e tests and measure.ts: serve a built site with `astro preview` on 127.0.0.1 and
// drive Debian's Chromium through playwright-core, recording every request.
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const base = (process.env.SAMEBOX_BASE ?? "/").replace(/\/?$/, "/");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Preview {
  origin: string;
  root: string; // origin + base
  stop(): Promise<void>;
}

/** Starts `astro preview` for the build in SAMEBOX_OUT_DIR (default site/dist); bounded 60 s wait. --ignore-lock: Astro 7 allows one preview per project root through a lock file, and several suites (and engineers) preview builds of this repo at once. */
export async function startPreview(): Promise<Preview> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [
      path.join(repoRoot, "node_modules/astro/bin/astro.mjs"),
      "preview",
      "--ignore-lock",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
    ],
    {
      cwd: repoRoot,
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`astro preview exited with ${child.exitCode}:\n${output}`);
    try {
      const r = await fetch(`${origin}${base}`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`astro preview did not answer on ${origin}${base} within 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    origin,
    root: `${origin}${base}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5000).unref();
      }),
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export interface Recorder {
  requests: string[];
  foreign: string[];
  consoleErrors: string[];
  failed: string[];
}

/** Records every request of the context (pages and their workers); requests to another origin are recorded and aborted. */
export async function recordedContext(
  browser: Browser,
  origin: string,
  options: Parameters<Browser["newContext"]>[0] = {},
): Promise<{ context: BrowserContext; rec: Recorder; watch(page: Page): void }> {
  const context = await browser.newContext({ acceptDownloads: true, ...options });
  const rec: Recorder = { requests: [], foreign: [], consoleErrors: [], failed: [] };
  const local = (u: string) =>
    u.startsWith(`${origin}/`) || u === origin || u.startsWith("data:") || u.startsWith(`blob:${origin}/`);
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (local(u)) return route.continue();
    rec.foreign.push(u);
    return route.abort("blockedbyclient");
  });
  context.on("request", (r) => {
    rec.requests.push(r.url());
    if (!local(r.url()) && !rec.foreign.includes(r.url())) rec.foreign.push(r.url());
  });
  context.on("response", (r) => {
    if (r.status() >= 400) rec.failed.push(`${r.status()} ${r.url()}`);
  });
  context.on("requestfailed", (r) => {
    if (local(r.url())) rec.failed.push(`${r.failure()?.errorText} ${r.url()}`);
  });
  return {
    context,
    rec,
    watch(page: Page) {
      page.on("console", (m) => {
        if (m.type() === "error") rec.consoleErrors.push(`${page.url()}: ${m.text()}`);
      });
      page.on("pageerror", (e) => rec.consoleErrors.push(`${page.url()}: uncaught ${e.message}`));
    },
  };
}

/**
 * Calls visit(page, url) for every url with `tabs` pages open at once, each tab taking the next url; the
 * results come back in the order of `urls`. A page load waits on the preview server and the renderer in
 * turn, so a few loads in flight keep both cores busy where one at a time leaves one idle.
 */
export async function inTabs<T>(
  newPage: () => Promise<Page>,
  urls: string[],
  tabs: number,
  visit: (page: Page, url: string) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(urls.length);
  let next = 0;
  const tab = async () => {
    const page = await newPage();
    try {
      for (let i = next++; i < urls.length; i = next++) results[i] = await visit(page, urls[i]);
    } finally {
      await page.close();
    }
  };
  await Promise.all(Array.from({ length: Math.min(tabs, urls.length) }, tab));
  return results;
}
