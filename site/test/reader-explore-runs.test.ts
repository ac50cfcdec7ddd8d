// Explore compares one run per study: the latest measured run of each study, matched by (run_id, study),
// plus a run the reader drops, matched by its own source. A dropped file carrying one of our
// older run ids pulled that run's measured rows into "ours" (MariaDB oltp_insert n=3 became n=6), and a
// multi-study run that was latest for one study brought its other studies along.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { csvFormat } from "d3-dsv";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, recordedContext, type Preview } from "./harness.ts";
import { records, type Rec } from "./expectations.ts";
import { inComparedRuns } from "../src/lib/presets.ts";

let preview: Preview;
let browser: Browser;
let page: Page;
const tmp = mkdtempSync(path.join(tmpdir(), "samebox-explore-runs-"));
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
// Records per (source, run, study) that the presets may show: what a recomputation from records says.
const RUNS_SQL = `SELECT source, run_id, study, count(*) AS n FROM results WHERE ${inComparedRuns} GROUP BY ALL ORDER BY ALL`;
function expectedRuns(extra: Rec[] = []): string[][] {
  const n = new Map<string, number>();
  for (const r of [...measured.filter((r) => latestOf.get(r.study) === r.run_id), ...extra]) {
    const k = `${r.source}\u0000${r.run_id}\u0000${r.study}`;
    n.set(k, (n.get(k) ?? 0) + 1);
  }
  return [...n.entries()]
    .map(([k, v]) => [...k.split("\u0000"), v.toLocaleString("en-US")])
    .sort((a, b) => (a.join("|") < b.join("|") ? -1 : 1));
}

async function settled(p: Page) {
  await p.waitForFunction(
    () => ["done", "error"].includes(document.getElementById("explore")?.dataset.state ?? ""),
    null,
    { timeout: LOAD_TIMEOUT },
  );
}
const tableText = (p: Page) =>
  p.$$eval("#result-table table tr", (trs) =>
    trs.slice(1).map((tr) => [...tr.children].map((c) => c.textContent ?? "")),
  );
const sorted = (rows: string[][]) => [...rows].sort((a, b) => (a.join("|") < b.join("|") ? -1 : 1));

before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  const ctx = await recordedContext(browser, preview.origin);
  page = await ctx.context.newPage();
  ctx.watch(page);
});
after(async () => {
  await browser?.close();
  await preview?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

test("the compared runs are one measured run per study, matched by (run_id, study)", async (t) => {
  if (latestOf.size === 0) return t.skip("no measured records");
  await page.goto(`${preview.root}explore/?q=${encodeURIComponent(RUNS_SQL)}`);
  await settled(page);
  assert.deepEqual(sorted(await tableText(page)), expectedRuns());
});

test("a dropped file carrying an older run id of ours stays 'yours' and leaves ours unchanged", async (t) => {
  // An older measured (run, study) of ours: not the latest of its study.
  const old = measured.find((r) => latestOf.get(r.study) !== r.run_id);
  if (!old) return t.skip("the data has no older measured run of any study to drop");
  const mine = measured.filter((r) => r.run_id === old.run_id);
  const file = path.join(tmp, "records.csv");
  writeFileSync(
    file,
    csvFormat(mine.map((r) => ({ ...r, t: r.t ?? "" })) as unknown as Record<string, string>[], columns) + "\n",
  );
  await page.goto(`${preview.root}explore/`);
  await settled(page);
  const ours = (rows: string[][]) => rows.filter((r) => !r[1].endsWith(" (yours)"));
  const throughputBefore = ours(await tableText(page));
  await page.goto(`${preview.root}explore/?q=${encodeURIComponent(RUNS_SQL)}`);
  await settled(page);
  await page.setInputFiles("#yours-file", file);
  await page.waitForFunction(() => document.getElementById("explore")?.dataset.yours === "loaded", null, {
    timeout: 60_000,
  });
  await page.waitForFunction(() => /yours/.test(document.getElementById("result-table")?.textContent ?? ""), null, {
    timeout: 60_000,
  });
  await settled(page);
  const yours = mine.map((r) => ({ ...r, source: "yours" }) as unknown as Rec);
  assert.deepEqual(
    sorted(await tableText(page)),
    expectedRuns(yours),
    `after dropping run ${old.run_id}: ours must stay the latest run of each study, yours its own rows`,
  );
  // The default preset (throughput per workload and system): our rows are what they were before the drop.
  await page.selectOption("#preset", "throughput");
  await settled(page);
  assert.deepEqual(
    ours(await tableText(page)),
    throughputBefore,
    "our throughput rows changed when a file was dropped",
  );
});
