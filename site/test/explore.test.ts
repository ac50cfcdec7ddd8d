// Explore in a real browser: DuckDB-WASM loads results-latest.arrow.gz then results.arrow.gz (results.csv when that fails) from this origin, presets run and show
// rows and a chart, the query lives in the URL, CSV download works, bad SQL shows an error.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { csvParse } from "d3-dsv";
import { startPreview, launchBrowser, recordedContext, type Preview, type Recorder } from "./harness.ts";
import { records } from "./expectations.ts";

let preview: Preview;
let browser: Browser;
let rec: Recorder;
let page: Page;
const LOAD_TIMEOUT = 120_000;

async function waitSettled(p: Page) {
  await p.waitForFunction(
    () => ["done", "error"].includes(document.getElementById("explore")?.dataset.state ?? ""),
    null,
    { timeout: LOAD_TIMEOUT },
  );
}
async function tableShape(p: Page) {
  return p.$eval("#result-table table", (t) => ({
    columns: [...t.querySelectorAll("thead th")].map((th) => th.textContent),
    rows: [...t.querySelectorAll("tbody tr")].map((tr) =>
      [...tr.querySelectorAll("td")].map((td) => td.textContent ?? ""),
    ),
  }));
}
const qParam = (p: Page) => new URL(p.url()).searchParams.get("q");
const editorText = (p: Page) => p.$eval(".cm-content", (el) => (el as HTMLElement).innerText.replace(/\u00a0/g, " "));

before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  const ctx = await recordedContext(browser, preview.origin);
  rec = ctx.rec;
  page = await ctx.context.newPage();
  ctx.watch(page);
  await page.goto(`${preview.root}explore/`);
  await waitSettled(page);
});

after(async () => {
  await browser?.close();
  await preview?.stop();
});

test("the default preset runs on load and shows its rows (and a chart when there are any)", async () => {
  assert.equal(
    await page.$eval("#explore", (e) => (e as HTMLElement).dataset.state),
    "done",
    await page.$eval("#error", (e) => e.textContent ?? ""),
  );
  // Expected: one row per workload × system of the latest measured run of each study (tps, or qps for point selects).
  const latestOf = new Map<string, string>();
  for (const r of records)
    if (r.source === "measured" && (latestOf.get(r.study) ?? "") < r.run_id) latestOf.set(r.study, r.run_id);
  const latest = new Set(latestOf.values());
  const expected = new Set(
    records
      .filter(
        (r) =>
          latest.has(r.run_id) && r.t === null && r.metric === (r.workload === "select_random_points" ? "qps" : "tps"),
      )
      .map((r) => `${r.workload}|${r.system}`),
  );
  const t = await tableShape(page);
  assert.deepEqual(t.columns, ["workload", "system", "unit", "median", "min", "max", "repetitions"]);
  assert.deepEqual(new Set(t.rows.map((r) => `${r[0]}|${r[1]}`)), expected);
  if (expected.size > 0) {
    const chart = await page.$eval("#result-chart", (f) => ({
      title: f.querySelector("svg[role=img] > title")?.textContent ?? "",
      bars: f.querySelectorAll("svg[role=img] rect").length,
    }));
    assert.match(chart.title, /Chart of the query result/);
    assert.ok(chart.bars >= t.rows.length, `chart has ${chart.bars} bars for ${t.rows.length} rows`);
  } else {
    assert.match(await page.$eval("#result-chart", (f) => f.textContent ?? ""), /No chart: the result has no rows/);
  }
  assert.equal(qParam(page), (await editorText(page)).trim(), "the URL does not carry the query");
});

test("the chart colours each system with its own colour (the study pages'), not Plot's default scheme", async (t) => {
  const colors: Record<string, string> = JSON.parse(
    await page.$eval("#explore", (e) => (e as HTMLElement).dataset.systemColors ?? "{}"),
  );
  const swatches = await page.$$eval("#result-chart span[class$='-swatch']", (els) =>
    els.flatMap((e) => {
      const fill = e.querySelector("svg")?.getAttribute("fill");
      const label = (e.textContent ?? "").trim();
      return fill && label ? [[label, fill] as [string, string]] : [];
    }),
  );
  if (swatches.length === 0) return t.skip("the default preset's chart has no legend in this data");
  assert.ok(Object.keys(colors).length > 0, "the page carries no system colours");
  for (const [system, fill] of swatches)
    assert.equal(
      fill.toLowerCase(),
      colors[system]?.toLowerCase(),
      `${system}: legend colour ${fill}, the system's colour is ${colors[system]}`,
    );
});

test("the result chart's text is at least 11 px (Plot's own default is 10 px)", async (t) => {
  const sizes = await page.$$eval("#result-chart svg text", (ts) =>
    ts
      .filter((x) => (x.textContent ?? "").trim())
      .map((x) => {
        const svg = x.closest("svg") as SVGSVGElement;
        const vb = svg.viewBox.baseVal;
        return (
          Number.parseFloat(getComputedStyle(x).fontSize) *
          (vb?.width ? svg.getBoundingClientRect().width / vb.width : 1)
        );
      }),
  );
  if (sizes.length === 0) return t.skip("no chart text in this data");
  assert.ok(Math.min(...sizes) >= 11 - 1e-6, `smallest chart text ${Math.min(...sizes).toFixed(1)} px`);
});

test("a preset chosen from the dropdown runs, shows rows and a chart, and its SQL goes into the URL", async () => {
  await page.selectOption("#preset", "runs");
  await page.waitForFunction(
    () => new URL(location.href).searchParams.get("q")?.includes("count(DISTINCT system)"),
    null,
    { timeout: 30_000 },
  );
  await waitSettled(page);
  const t = await tableShape(page);
  assert.deepEqual(t.columns, ["run_id", "source", "machine", "profile", "records", "systems", "workloads"]);
  const perRun = new Map<string, number>();
  for (const r of records) perRun.set(r.run_id, (perRun.get(r.run_id) ?? 0) + 1);
  assert.deepEqual(new Map(t.rows.map((r) => [r[0], Number(r[4].replaceAll(",", ""))])), perRun);
  assert.ok(t.rows.length > 0, "no records at all: nothing to explore");
  const chart = await page.$eval("#result-chart", (f) => ({
    title: f.querySelector("svg[role=img] > title")?.textContent ?? "",
    bars: f.querySelectorAll("svg[role=img] rect").length,
  }));
  assert.match(chart.title, /Chart of the query result/);
  assert.ok(chart.bars >= t.rows.length, `chart has ${chart.bars} bars for ${t.rows.length} rows`);
});

test("the result downloads as CSV with the same columns and rows", async () => {
  const shown = await tableShape(page);
  const [download] = await Promise.all([page.waitForEvent("download", { timeout: 30_000 }), page.click("#download")]);
  assert.equal(download.suggestedFilename(), "samebox-query.csv");
  const file = await download.path();
  const parsed = csvParse(readFileSync(file!, "utf8"));
  assert.deepEqual(parsed.columns, shown.columns);
  assert.equal(parsed.length, shown.rows.length);
  assert.deepEqual(
    parsed.map((r) => [r.run_id, r.records]),
    shown.rows.map((r) => [r[0], r[4].replaceAll(",", "")]),
  );
});

test("a query in the URL is loaded into the editor and run (shareable links)", async () => {
  const sql = "SELECT system, count(*) AS records FROM results GROUP BY system ORDER BY system";
  const p2 = await page.context().newPage();
  await p2.goto(`${preview.root}explore/?q=${encodeURIComponent(sql)}`);
  await waitSettled(p2);
  assert.equal((await editorText(p2)).trim(), sql);
  const t = await tableShape(p2);
  const counts = new Map<string, number>();
  for (const r of records) counts.set(r.system, (counts.get(r.system) ?? 0) + 1);
  assert.deepEqual(
    t.rows.map((r) => [r[0], Number(r[1].replaceAll(",", ""))]),
    [...counts.entries()].sort((a, b) => a[0].localeCompare(b[0])),
  );
  await p2.close();
});

test("bad SQL shows a clear error and no stale result", async () => {
  await page.locator(".cm-content").fill("SELEC system FROM results");
  await page.click("#run");
  await page.waitForFunction(() => document.getElementById("explore")?.dataset.state === "error", null, {
    timeout: 30_000,
  });
  const err = await page.$eval("#error", (e) => ({
    hidden: (e as HTMLElement).hidden,
    text: e.textContent ?? "",
    role: e.getAttribute("role"),
  }));
  assert.equal(err.hidden, false);
  assert.equal(err.role, "alert");
  assert.match(err.text, /Query failed: .*(syntax error|Parser Error)/i);
  assert.equal(await page.$eval("#result", (e) => (e as HTMLElement).hidden), true);
  assert.equal(await page.$eval("#download", (e) => (e as HTMLButtonElement).disabled), true);
  assert.equal(qParam(page), "SELEC system FROM results");
});

test("every request stayed on the site's origin, wasm included, with no console errors", () => {
  assert.ok(
    rec.requests.some((u) => u.startsWith(preview.origin) && /\.wasm(\.gz)?$/.test(u)),
    "no wasm request recorded: the recorder is blind",
  );
  // The wasm comes once, compressed, streamed into the worker's compile (wasm-worker.ts): never the plain file too.
  const loads = rec.requests.filter((u) => /\/explore\/(\?.*)?$/.test(u)).length;
  assert.equal(
    rec.requests.filter((u) => u.endsWith(".wasm.gz")).length,
    loads,
    `the .wasm.gz is fetched once per page load (${loads}): the page's preload serves the fetch`,
  );
  assert.deepEqual(
    rec.requests.filter((u) => u.endsWith(".wasm")),
    [],
    "the plain .wasm was fetched: the stream did not reach the worker",
  );
  assert.ok(
    rec.requests.some((u) => u.startsWith(preview.origin) && u.endsWith("/data/results.arrow.gz")),
    "results.arrow.gz was not fetched from the site",
  );
  assert.ok(
    rec.requests.some((u) => u.startsWith(preview.origin) && u.endsWith("/data/results-latest.arrow.gz")),
    "results-latest.arrow.gz (the default preset's rows) was not fetched",
  );
  assert.ok(
    !rec.requests.some((u) => u.endsWith("/data/results.csv")),
    "results.csv was fetched although the Arrow stream loaded",
  );
  assert.deepEqual(rec.foreign, []);
  assert.deepEqual(rec.failed, []);
  assert.deepEqual(rec.consoleErrors, []);
});

// Speed: the head's inline script starts DuckDB's worker and the wasm's compile before the page's
// own script runs; the default preset's live result is read from results-latest.arrow.gz (the latest run
// of each study) while results.arrow.gz is still on its way, and it is the same result as over every record.
test("the first live result comes from the latest runs' rows before every record is in, equals the result over every record, and each step is reported", async () => {
  const context = await browser.newContext();
  try {
    const p = await context.newPage();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Every record is held back until the first result has been read off the page.
    await p.route("**/data/results.arrow.gz", async (r) => {
      await held;
      await r.continue();
    });
    await p.goto(`${preview.root}explore/`);
    await p.waitForFunction(() => performance.getEntriesByName("samebox:first-result").length > 0, null, {
      timeout: LOAD_TIMEOUT,
    });
    const during = {
      state: await p.$eval("#explore", (e) => (e as HTMLElement).dataset.state),
      run: await p.$eval("#run", (b) => (b as HTMLButtonElement).disabled),
      status: await p.$eval("#status", (e) => e.textContent ?? ""),
    };
    const first = await tableShape(p);
    const prerendered = await p.$eval("#result", (e) => (e as HTMLElement).dataset.prerendered ?? null);
    release();
    await waitSettled(p);
    assert.equal(during.state, "loading", "the page said it was done before every record was in");
    assert.equal(during.run, true, "Run was enabled while only the latest runs' rows were loaded");
    assert.match(during.status, /latest run of each study/);
    assert.equal(prerendered, null, "the first result shown was still the build-time rendering");
    assert.equal(
      await p.$eval("#explore", (e) => (e as HTMLElement).dataset.state),
      "done",
      await p.$eval("#error", (e) => e.textContent ?? ""),
    );
    assert.deepEqual(
      await tableShape(p),
      first,
      "the default preset over every record differs from its result over results-latest.arrow.gz",
    );
    assert.ok(first.rows.length > 0 || records.every((r) => r.source !== "measured"), "the first result has no rows");
    const marks: Record<string, number> = await p.evaluate(() =>
      Object.fromEntries(
        performance
          .getEntriesByType("mark")
          .filter((m) => m.name.startsWith("samebox:"))
          .map((m) => [m.name.slice("samebox:".length), m.startTime]),
      ),
    );
    for (const step of [
      "worker-created",
      "wasm-response",
      "wasm-compiled",
      "worker-start",
      "worker-script-loaded",
      "wasm-requested",
      "wasm-instance",
      "wasm-instantiated",
      "db-opened",
      "latest-downloaded",
      "latest-loaded",
      "first-result",
      "data-downloaded",
      "data-inserted",
      "table-loaded",
    ]) {
      assert.equal(typeof marks[step], "number", `step ${step} was not reported (${JSON.stringify(marks)})`);
    }
    assert.ok(
      marks["worker-created"] < marks["script-start"],
      `DuckDB's worker was created at ${marks["worker-created"]} ms, after the page's script started (${marks["script-start"]} ms): the head's script did not start it`,
    );
    assert.ok(
      marks["wasm-compiled"] <= marks["wasm-instance"] &&
        marks["latest-loaded"] < marks["first-result"] &&
        marks["first-result"] < marks["data-inserted"],
      JSON.stringify(marks),
    );
  } finally {
    await context.close();
  }
});

// The Arrow stream and the CSV fallback give the same table: same columns and types in the same order,
// same rows (an order-free checksum over every value), and as many rows as publish wrote.
test("the table from results.arrow.gz equals the one results.csv gives when the Arrow file cannot be loaded", async () => {
  const sql =
    "SELECT (SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position) FROM information_schema.columns WHERE table_name = 'results') AS columns, count(*) AS n, CAST(bit_xor(hash(results)) AS VARCHAR) AS checksum FROM results";
  const shape = async (p: Page) => {
    await p.goto(`${preview.root}explore/?q=${encodeURIComponent(sql)}`);
    await waitSettled(p);
    return { source: await p.$eval("#explore", (e) => (e as HTMLElement).dataset.source), table: await tableShape(p) };
  };
  const arrow = await shape(page);
  const context = await browser.newContext();
  try {
    const p2 = await context.newPage();
    await p2.route("**/data/results.arrow.gz", (r) => r.fulfill({ status: 404, body: "gone" }));
    const csv = await shape(p2);
    assert.equal(arrow.source, "arrow");
    assert.equal(csv.source, "csv");
    assert.deepEqual(arrow.table, csv.table);
    assert.equal(Number(arrow.table.rows[0][1].replaceAll(",", "")), records.length, "every published record is a row");
    assert.match(
      arrow.table.rows[0][0],
      /^run_id VARCHAR, .*concurrency INTEGER, .*value DOUBLE, .*t DOUBLE, .*commit VARCHAR/,
    );
  } finally {
    await context.close();
  }
});
