// Explore's reader features in a real browser: the build-time rendering of the default preset equals the
// live result; the tunable score equals a recomputation from records, changes with the selection and
// comes back from the URL; a dropped records file with a bad row gets a message naming row and field,
// and a good one shows up in a preset beside ours.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseHTML } from "linkedom";
import { csvFormat } from "d3-dsv";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, recordedContext, type Preview, type Recorder } from "./harness.ts";
import { records, median, type Rec } from "./expectations.ts";

let preview: Preview;
let browser: Browser;
let page: Page;
let rec: Recorder;
const tmp = mkdtempSync(path.join(tmpdir(), "samebox-reader-"));
const LOAD_TIMEOUT = 120_000;
const columns = [
  "run_id",
  "source",
  "study",
  "workload",
  "system",
  "system_version",
  "server",
  "variant",
  "concurrency",
  "repetition",
  "metric",
  "value",
  "unit",
  "t",
  "profile",
  "machine",
  "commit",
];

const measured = records.filter((r) => r.source === "measured");
const latestOf = new Map<string, string>();
for (const r of measured) if ((latestOf.get(r.study) ?? "") < r.run_id) latestOf.set(r.study, r.run_id);
const compared = new Set(latestOf.values());
const latestRun = [...compared].sort().at(-1);

async function settled(p: Page) {
  await p.waitForFunction(
    () => ["done", "error"].includes(document.getElementById("explore")?.dataset.state ?? ""),
    null,
    { timeout: LOAD_TIMEOUT },
  );
}
const tableText = (p: Page) =>
  p.$$eval("#result-table table tr", (trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent ?? "")));

before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  const ctx = await recordedContext(browser, preview.origin);
  rec = ctx.rec;
  page = await ctx.context.newPage();
  ctx.watch(page);
});
after(async () => {
  await browser?.close();
  await preview?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

test("the build-time rendering of the default preset is labelled and equals the live result", async () => {
  const html = await (await fetch(`${preview.root}explore/`)).text();
  const { document } = parseHTML(html);
  assert.equal(document.getElementById("result")?.getAttribute("data-prerendered"), "true");
  assert.match(document.getElementById("prerendered-label")?.textContent ?? "", /Build-time rendering/);
  const pre = [...document.querySelectorAll("#result-table table tr")].map((tr) =>
    [...tr.children].map((c) => c.textContent ?? ""),
  );
  await page.goto(`${preview.root}explore/`);
  await settled(page);
  assert.equal(await page.$eval("#explore", (e) => (e as HTMLElement).dataset.state), "done");
  assert.equal(
    await page.$eval("#prerendered-label", (e) => (e as HTMLElement).hidden),
    true,
    "the label stays after the live result arrived",
  );
  assert.deepEqual(await tableText(page), pre);
});

type ScoreRow = { workload: string; system: string; metric: string; unit: string; value: number };
function scoreRows(extra: Rec[] = []): ScoreRow[] {
  const g = new Map<string, Rec[]>();
  for (const r of [...measured, ...extra]) {
    if ((r.source === "measured" && latestOf.get(r.study) !== r.run_id) || r.t !== null) continue;
    const k = `${r.workload}|${r.system}|${r.metric}`;
    (g.get(k) ?? g.set(k, []).get(k)!).push(r);
  }
  return [...g.values()].map((v) => ({
    workload: v[0].workload,
    system: v[0].system,
    metric: v[0].metric,
    unit: v[0].unit,
    value: median(v.map((r) => r.value)),
  }));
}
function expectedScores(
  rows: ScoreRow[],
  metric: string,
  systems: string[],
  workloads: string[],
): Record<string, number> {
  const use = rows.filter((r) => r.metric === metric && systems.includes(r.system) && workloads.includes(r.workload));
  const hb = ["tx/s", "q/s", "calls/s", "rows"].includes(use[0].unit);
  const c = hb ? 0 : (({ ms: 10, us: 10_000, s: 0.01 } as Record<string, number>)[use[0].unit] ?? 0);
  const ws = workloads.filter((w) => use.some((r) => r.workload === w));
  const out: Record<string, number> = {};
  for (const s of systems) {
    let sum = 0;
    for (const w of ws) {
      const cells = use.filter((r) => r.workload === w);
      const best = hb ? Math.max(...cells.map((r) => r.value)) : Math.min(...cells.map((r) => r.value));
      const mine = cells.find((r) => r.system === s);
      sum += Math.log(!mine ? 10 : hb ? best / mine.value : (mine.value + c) / (best + c));
    }
    out[s] = Math.exp(sum / ws.length);
  }
  return out;
}
const shownScores = async (p: Page) =>
  JSON.parse((await p.$eval("#score-result", (e) => (e as HTMLElement).dataset.scores ?? "")) || "{}") as Record<
    string,
    number
  >;
const picked = (p: Page, name: string) =>
  p.$$eval(`#score-form input[name=${name}]:checked`, (is) => is.map((i) => (i as HTMLInputElement).value));
function assertClose(got: Record<string, number>, want: Record<string, number>, what: string) {
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), `${what}: systems`);
  for (const k of Object.keys(want))
    assert.ok(Math.abs(got[k] / want[k] - 1) < 1e-9, `${what}: ${k} score ${got[k]} vs ${want[k]}`);
}

test("the score equals a recomputation from records, changes with the selection, and the URL restores it", async (t) => {
  if (!latestRun) return t.skip("no measured records");
  await page.waitForFunction(() => document.getElementById("score")?.dataset.state === "ready", null, {
    timeout: LOAD_TIMEOUT,
  });
  const rows = scoreRows();
  const metric = await page.$eval("#score-metric", (s) => (s as HTMLSelectElement).value);
  const systems = await picked(page, "sys");
  const workloads = await picked(page, "wl");
  assert.ok(systems.length >= 2, `score starts with ${systems.length} systems`);
  assert.match(await page.$eval("#score-formula", (e) => e.textContent ?? ""), /geometric mean/);
  const before = await shownScores(page);
  assertClose(before, expectedScores(rows, metric, systems, workloads), "initial");
  // Drop the best-scoring system: the others' ratios to the best change.
  const best = Object.entries(before).sort((a, b) => a[1] - b[1])[0][0];
  await page.click(`#score-form input[name=sys][value="${best}"]`);
  await page.waitForFunction((b) => !new URL(location.href).searchParams.get("sys")?.split(",").includes(b), best);
  const after = await shownScores(page);
  assert.ok(!(best in after));
  assert.notDeepEqual(
    after,
    Object.fromEntries(Object.entries(before).filter(([k]) => k !== best)),
    "the score did not change with the selection",
  );
  const remaining = systems.filter((s) => s !== best);
  assertClose(after, expectedScores(rows, metric, remaining, workloads), "after unchecking");
  const link = page.url();
  const p2 = await page.context().newPage();
  await p2.goto(link);
  await p2.waitForFunction(() => document.getElementById("score")?.dataset.state === "ready", null, {
    timeout: LOAD_TIMEOUT,
  });
  assert.deepEqual(await picked(p2, "sys"), remaining);
  assertClose(await shownScores(p2), after, "restored from the URL");
  await p2.close();
  await page.click(`#score-form input[name=sys][value="${best}"]`);
});

test("a dropped file with a bad row gets a message naming the row and the field", async () => {
  const rows = (measured.length ? measured : records)
    .slice(0, 5)
    .map((r) => ({ ...r, source: "measured", t: r.t ?? "" }));
  const bad = rows.map((r, i) => (i === 2 ? { ...r, value: "fast" } : r));
  const csvFile = path.join(tmp, "records.csv");
  writeFileSync(csvFile, csvFormat(bad as unknown as Record<string, string>[], columns) + "\n");
  await page.setInputFiles("#yours-file", csvFile);
  await page.waitForFunction(() => document.getElementById("explore")?.dataset.yours === "error", null, {
    timeout: 30_000,
  });
  const msg = await page.$eval("#yours-error", (e) => ({
    text: e.textContent ?? "",
    hidden: (e as HTMLElement).hidden,
    role: e.getAttribute("role"),
  }));
  assert.equal(msg.hidden, false);
  assert.equal(msg.role, "alert");
  assert.match(msg.text, /records\.csv row 3 \(line 4\), field "value": must be number \(got "fast"\)/);
  const jsonl = path.join(tmp, "records.jsonl");
  writeFileSync(
    jsonl,
    rows.map((r, i) => JSON.stringify(i === 1 ? { ...r, t: null, unit: "furlongs" } : { ...r, t: null })).join("\n") +
      "\n",
  );
  await page.setInputFiles("#yours-file", jsonl);
  await page.waitForFunction(() => /line 2/.test(document.getElementById("yours-error")?.textContent ?? ""), null, {
    timeout: 30_000,
  });
  assert.match(
    await page.$eval("#yours-error", (e) => e.textContent ?? ""),
    /records\.jsonl line 2, field "unit": must be equal to one of the allowed values tx\/s, q\/s/,
  );
});

test("a good file is loaded as its own source and shows up in the default preset beside ours", async (t) => {
  // Drop the newest compared run that the default preset shows (one with tps/qps), else the newest.
  const headline = (r: Rec) => r.t === null && r.metric === (r.workload === "select_random_points" ? "qps" : "tps");
  const dropRun =
    [...compared]
      .sort()
      .reverse()
      .find((id) => measured.some((r) => r.run_id === id && headline(r))) ?? latestRun;
  if (!dropRun) return t.skip("no measured records");
  const mine = measured.filter((r) => r.run_id === dropRun);
  const wantTps = mine.filter(headline);
  const file = path.join(tmp, "records.csv");
  writeFileSync(
    file,
    csvFormat(mine.map((r) => ({ ...r, t: r.t ?? "" })) as unknown as Record<string, string>[], columns) + "\n",
  );
  await page.selectOption("#preset", "throughput");
  await settled(page);
  await page.setInputFiles("#yours-file", file);
  await page.waitForFunction(() => document.getElementById("explore")?.dataset.yours === "loaded", null, {
    timeout: 60_000,
  });
  await page.waitForFunction(
    (want) =>
      document.getElementById("explore")?.dataset.state === "done" &&
      (!want || /\(yours\)/.test(document.getElementById("result-table")?.textContent ?? "")),
    wantTps.length > 0,
    { timeout: 60_000 },
  );
  assert.match(
    await page.$eval("#yours-status", (e) => e.textContent ?? ""),
    new RegExp(`Loaded ${mine.length.toLocaleString("en-US")} records of run ${dropRun}`),
  );
  const table = (await tableText(page)).slice(1);
  const ours = table.filter((r) => !r[1].endsWith(" (yours)"));
  const yours = table.filter((r) => r[1].endsWith(" (yours)"));
  if (wantTps.length === 0) return;
  const wantRows = new Set(wantTps.map((r) => `${r.workload}|${r.system} (yours)`));
  assert.deepEqual(
    new Set(yours.map((y) => `${y[0]}|${y[1]}`)),
    wantRows,
    "the dropped run's rows in the default preset",
  );
  for (const y of yours) {
    const twin = ours.find((o) => o[0] === y[0] && `${o[1]} (yours)` === y[1]);
    assert.ok(twin, `no row of ours for ${y[0]} ${y[1]}`);
    assert.deepEqual(y.slice(2), twin!.slice(2), `${y[0]} ${y[1]}: figures differ from ours for identical records`);
  }
  // The score offers the dropped systems, checked.
  const sys = await picked(page, "sys");
  assert.ok(
    sys.some((s) => s.endsWith(" (yours)")),
    `score systems: ${sys.join(", ")}`,
  );
});

test("nothing left the browser: every request stayed on the site's origin, no console errors", () => {
  assert.deepEqual(rec.foreign, []);
  assert.deepEqual(rec.failed, []);
  assert.deepEqual(rec.consoleErrors, []);
});
