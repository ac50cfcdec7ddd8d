// Measures the built site in Chromium: JavaScript and wasm bytes each page loads (decoded body
// sizes of every script/worker/wasm response, workers included), and Explore's navigation-to-first-
// result time (performance mark "samebox:first-result", relative to navigation start), median of 5
// cold loads (fresh browser context, empty cache) and 5 warm reloads, then 5 cold loads at an emulated
// 50 Mbit/s (CDP network throttling, 20 ms latency). Also the first contentful paint, when the page's
// build-time rendering of the default preset is on screen.
// Usage: build first (same SAMEBOX_BASE / SAMEBOX_OUT_DIR), then: node site/test/measure.ts [--explore-only]
import { startPreview, launchBrowser } from "./harness.ts";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { loadavg } from "node:os";
import { repoRoot } from "./harness.ts";

const LOADS = 5;
const siteDir = path.resolve(repoRoot, process.env.SAMEBOX_SITE_DIR ?? "site");
const runs: Array<{ run_id: string }> = JSON.parse(readFileSync(path.join(siteDir, "src/generated/runs.json"), "utf8"));
const studiesRaw = JSON.parse(readFileSync(path.join(siteDir, "src/generated/studies.json"), "utf8"));
const studies: Array<{ name: string }> = Array.isArray(studiesRaw) ? studiesRaw : studiesRaw.studies;

const exploreOnly = process.argv.includes("--explore-only");
const listed = (dir: string) => {
  try {
    return readdirSync(path.resolve(repoRoot, process.env.SAMEBOX_OUT_DIR ?? "site/dist", dir), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => `${dir}/${d.name}/`);
  } catch {
    return [];
  }
};
const pages = exploreOnly
  ? []
  : [
      "",
      "studies/",
      "board/",
      ...listed("board").slice(0, 1),
      ...listed("reproduce"),
      "history/",
      ...listed("history").slice(0, 1),
      "diff/",
      ...listed("diff").slice(0, 1),
      ...studies.map((s) => `studies/${s.name}/`),
      "runs/",
      ...runs.slice(0, 1).map((r) => `runs/${r.run_id}/`),
      "methodology/",
      "explore/",
    ];
const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

const preview = await startPreview();
const browser = await launchBrowser();
try {
  console.log(`site: ${preview.root}`);
  console.log(
    `load average at start: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")}`,
  );
  console.log("page\tHTML\tJS\twasm (decoded)\trequests\ton the wire");
  for (const p of pages) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const sizes = { html: 0, js: 0, wasm: 0, n: 0, wire: 0 };
    const pending: Promise<void>[] = [];
    context.on("response", (r) => {
      sizes.n++;
      // Bytes on the wire (compressed where the server compressed): the response's Content-Length.
      if (/^https?:/.test(r.url())) {
        pending.push(
          r
            .headerValue("content-length")
            .then((v) => {
              sizes.wire += Number(v ?? 0);
            })
            .catch(() => undefined),
        );
      }
      const u = r.url().split("?")[0];
      const kind = /\.wasm(\.gz)?$/.test(u)
        ? "wasm"
        : /\.m?js$/.test(u) || ["script"].includes(r.request().resourceType())
          ? "js"
          : r.request().resourceType() === "document"
            ? "html"
            : undefined;
      // Worker responses (the wasm) have no retrievable body in Playwright: use Content-Length there.
      if (kind)
        pending.push(
          r
            .body()
            .then((b) => {
              sizes[kind] += b.length;
            })
            .catch(async () => {
              sizes[kind] += Number((await r.headerValue("content-length")) ?? 0);
            }),
        );
    });
    await page.goto(preview.root + p, { waitUntil: "load" });
    if (p === "explore/")
      await page.waitForFunction(() => document.getElementById("explore")?.dataset.state === "done", null, {
        timeout: 120_000,
      });
    await page.waitForLoadState("networkidle");
    await Promise.all(pending);
    console.log(`/${p}\t${kib(sizes.html)}\t${kib(sizes.js)}\t${kib(sizes.wasm)}\t${sizes.n}\t${kib(sizes.wire)}`);
    await context.close();
  }

  // Each step of a load, ms since navigation start: the page's and DuckDB worker's marks (samebox:*, the worker's
  // posted back by wasm-worker.ts), and when the wasm's download ended (resource timing).
  const phases = () => {
    const out: Record<string, number> = {};
    for (const m of performance.getEntriesByType("mark"))
      if (m.name.startsWith("samebox:")) out[m.name.replace("samebox:", "")] = Math.round(m.startTime);
    for (const r of performance.getEntriesByType("resource") as PerformanceResourceTiming[])
      if (/\.wasm(\.gz)?$/.test(r.name)) out["wasm-downloaded"] = Math.round(r.responseEnd);
    return out;
  };
  const phaseRuns: Record<string, Array<Record<string, number>>> = { cold: [], "50 Mbit/s": [] };
  const phaseTable = (runs: Array<Record<string, number>>) => {
    const names = [...new Set(runs.flatMap((r) => Object.keys(r)))];
    const med = Object.fromEntries(names.map((n) => [n, median(runs.map((r) => r[n]).filter((v) => v !== undefined))]));
    return names
      .sort((a, b) => med[a] - med[b])
      .map((n) => `  ${n.padEnd(22)} ${String(med[n]).padStart(6)} ms   (${runs.map((r) => r[n] ?? "-").join(", ")})`)
      .join("\n");
  };
  const firstResult = () =>
    (window as unknown as Window).performance.getEntriesByName("samebox:first-result")[0]?.startTime ?? NaN;
  const firstPaint = () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN;
  const paintCold: number[] = [];
  const cold: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${preview.root}explore/`);
    await page.waitForFunction(() => performance.getEntriesByName("samebox:first-result").length > 0, null, {
      timeout: 120_000,
    });
    cold.push(await page.evaluate(firstResult));
    paintCold.push(await page.evaluate(firstPaint));
    phaseRuns.cold.push(await page.evaluate(phases));
    await context.close();
  }
  const warm: number[] = [];
  {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${preview.root}explore/`);
    await page.waitForFunction(() => performance.getEntriesByName("samebox:first-result").length > 0, null, {
      timeout: 120_000,
    });
    for (let i = 0; i < LOADS; i++) {
      await page.reload();
      await page.waitForFunction(() => performance.getEntriesByName("samebox:first-result").length > 0, null, {
        timeout: 120_000,
      });
      warm.push(await page.evaluate(firstResult));
    }
    await context.close();
  }
  const throttled: number[] = [];
  const paintThrottled: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: 20,
      downloadThroughput: 50e6 / 8,
      uploadThroughput: 10e6 / 8,
    });
    await page.goto(`${preview.root}explore/`);
    await page.waitForFunction(() => performance.getEntriesByName("samebox:first-result").length > 0, null, {
      timeout: 120_000,
    });
    throttled.push(await page.evaluate(firstResult));
    paintThrottled.push(await page.evaluate(firstPaint));
    phaseRuns["50 Mbit/s"].push(await page.evaluate(phases));
    await context.close();
  }
  for (const [label, runs] of Object.entries(phaseRuns))
    console.log(
      `explore steps, ${label}, cold cache (ms since navigation start, median of ${runs.length}, then each load):\n${phaseTable(runs)}`,
    );
  const fmt = (v: number[]) =>
    `median ${median(v).toFixed(0)} ms of ${v.length} (${v.map((x) => x.toFixed(0)).join(", ")})`;
  console.log(
    `explore first contentful paint (build-time rendering of the default preset on screen): cold ${fmt(paintCold)}; 50 Mbit/s ${fmt(paintThrottled)}`,
  );
  console.log(`explore navigation-to-first-result, 50 Mbit/s, cold cache: ${fmt(throttled)}`);
  console.log(
    `load average: ${loadavg()
      .map((x) => x.toFixed(2))
      .join(" ")} (2 cores; other work on the machine slows every figure)`,
  );
  console.log(
    `explore navigation-to-first-result, cold cache: median ${median(cold).toFixed(0)} ms of ${LOADS} (${cold.map((v) => v.toFixed(0)).join(", ")})`,
  );
  console.log(
    `explore navigation-to-first-result, warm cache: median ${median(warm).toFixed(0)} ms of ${LOADS} (${warm.map((v) => v.toFixed(0)).join(", ")})`,
  );
} finally {
  await browser.close();
  await preview.stop();
}
