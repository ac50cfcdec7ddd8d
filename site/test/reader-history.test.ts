// History and run-vs-run diff in a real browser: every diff page's ratio per cell equals later mean ÷
// earlier mean computed here from records.json, "significant" equals non-overlapping 95 % intervals,
// significant rows come first; the chooser links every pair of runs sharing a study; history tables
// show each run's mean per system, one table per machine.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, type Preview } from "./harness.ts";
import { records, runs, type Rec } from "./expectations.ts";
import { interval95, perRepetition } from "../../pipeline/lib/stats.ts";

let preview: Preview;
let browser: Browser;
let page: Page;
const MAX_PAGES_CHECKED = 6;

const measured = records.filter((r) => r.source === "measured" && r.t === null);
// server and variant as one part (faucet-indexed; the variant alone where there is no server)
const sv = (r: Rec) => [r.server, r.variant].filter(Boolean).join("-");
const key = (r: Rec) => [r.study, r.workload, r.system, sv(r) || "-", `c${r.concurrency}`, r.metric].join("|");
// A cell's interval is over its repetitions (one value each: the median of a tool's several runs within one).
function cellsOf(runId: string): Map<string, ReturnType<typeof interval95>> {
  const m = new Map<string, Rec[]>();
  for (const r of measured) if (r.run_id === runId) (m.get(key(r)) ?? m.set(key(r), []).get(key(r))!).push(r);
  return new Map([...m.entries()].map(([k, rs]) => [k, interval95(perRepetition(rs))]));
}
const studiesOf = (runId: string) => new Set(measured.filter((r) => r.run_id === runId).map((r) => r.study));
const ordered = runs
  .filter((m) => measured.some((r) => r.run_id === m.run_id))
  .sort((a, b) => a.started_at.localeCompare(b.started_at));
const pairs: [string, string][] = [];
for (let i = 0; i < ordered.length; i++)
  for (let j = i + 1; j < ordered.length; j++)
    if ([...studiesOf(ordered[i].run_id)].some((s) => studiesOf(ordered[j].run_id).has(s)))
      pairs.push([ordered[i].run_id, ordered[j].run_id]);

before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
after(async () => {
  await browser?.close();
  await preview?.stop();
});

test("the diff chooser links exactly the run pairs that share a study (or says there is nothing to compare)", async () => {
  await page.goto(`${preview.root}diff/`);
  const links = await page.$$eval("#diff-chooser a", (as) =>
    as.map((a) => new URL((a as HTMLAnchorElement).href).pathname),
  );
  const want = pairs.map(([a, b]) => `${new URL(preview.root).pathname}diff/${a}/${b}/`);
  if (pairs.length <= 60) assert.deepEqual(new Set(links), new Set(want));
  if (pairs.length === 0) assert.match(await page.$eval("#no-pairs", (e) => e.textContent ?? ""), /nothing to compare/);
});

test("each diff page's ratios and significance match the records", async (t) => {
  if (pairs.length === 0) return t.skip("this data has no two runs sharing a study");
  // Past MAX_DIFF_PAGES pairs the site keeps the newest run's pairs and each machine's consecutive ones
  // (site/src/lib/history.ts diffPairs): check the pages the chooser links, not every pair.
  await page.goto(`${preview.root}diff/`);
  const linked = new Set(
    await page.$$eval("#diff-chooser a", (as) => as.map((a) => new URL((a as HTMLAnchorElement).href).pathname)),
  );
  const shown = pairs.filter(([a, b]) => linked.has(`${new URL(preview.root).pathname}diff/${a}/${b}/`));
  assert.ok(shown.length > 0, `the diff chooser links none of the ${pairs.length} pairs`);
  for (const [a, b] of shown.slice(-MAX_PAGES_CHECKED)) {
    const resp = await page.goto(`${preview.root}diff/${a}/${b}/`);
    assert.equal(resp?.status(), 200);
    const rows = await page.$$eval("#diff-cells table.diff-cells tbody tr", (trs) =>
      trs.map((tr) => {
        const d = (tr as HTMLElement).dataset;
        return {
          key: d.key,
          ratio: d.ratio,
          significant: d.significant,
          study: (tr.closest("table") as HTMLElement).dataset.study,
          folded: tr.closest("details") !== null,
        };
      }),
    );
    const ca = cellsOf(a);
    const cb = cellsOf(b);
    const common = [...ca.keys()].filter((k) => cb.has(k) && ca.get(k)!.mean !== 0);
    assert.equal(rows.length, common.length, `${a} → ${b}: ${rows.length} rows for ${common.length} common cells`);
    const seenInsignificant = new Set<string>();
    for (const r of rows) {
      // Grouped by study (the page's sections): a row sits in its own study's table, folded unless significant.
      assert.equal(r.study, r.key!.split("|")[0], `${r.key}: listed in the table of study ${r.study}`);
      assert.equal(
        r.folded,
        r.significant !== "true",
        `${r.key}: folded ${r.folded} with significant=${r.significant}`,
      );
      const ia = ca.get(r.key!)!;
      const ib = cb.get(r.key!)!;
      const ratio = ib.mean / ia.mean;
      // relative tolerance, absolute near 0 (a metric such as errors can drop to 0: ratio 0)
      assert.ok(
        Math.abs(Number(r.ratio) - ratio) <= 1e-9 * Math.max(1, Math.abs(ratio)),
        `${r.key}: ratio ${r.ratio}, records give ${ratio}`,
      );
      const sig = ia.method === "none" || ib.method === "none" ? "unknown" : String(ia.hi < ib.lo || ib.hi < ia.lo);
      assert.equal(r.significant, sig, `${r.key}: significance`);
      if (r.significant !== "true") seenInsignificant.add(r.study!);
      else
        assert.ok(
          !seenInsignificant.has(r.study!),
          `${r.key}: a significant change is listed after an insignificant one of its study`,
        );
    }
    const am = runs.find((m) => m.run_id === a) as unknown as { machine: { label: string } };
    const bm = runs.find((m) => m.run_id === b) as unknown as { machine: { label: string } };
    assert.equal(
      await page.$("#other-machine").then((e) => e !== null),
      am.machine.label !== bm.machine.label,
      "different-machine warning",
    );
  }
});

test("history pages show each run's mean per system, one table per machine", async () => {
  const byWorkload = new Map<string, Rec[]>();
  for (const r of measured)
    (
      byWorkload.get(`${r.study}/${r.workload}`) ??
      byWorkload.set(`${r.study}/${r.workload}`, []).get(`${r.study}/${r.workload}`)!
    ).push(r);
  const picks = [...byWorkload.keys()].sort().slice(0, 4);
  if (picks.length === 0) {
    await page.goto(`${preview.root}history/`);
    assert.match(await page.$eval("main", (e) => e.textContent ?? ""), /No measured runs yet/);
    return;
  }
  for (const w of picks) {
    const resp = await page.goto(`${preview.root}history/${w}/`);
    assert.equal(resp?.status(), 200, w);
    const tables = await page.$$eval("table.history", (ts) =>
      ts.map((t) => ({
        metric: (t as HTMLElement).dataset.metric!,
        machine: (t as HTMLElement).dataset.machine!,
        rows: [...t.querySelectorAll("tbody tr")].map((tr) => ({
          run: (tr as HTMLElement).dataset.run!,
          cells: [...tr.querySelectorAll("td[data-system]")].map(
            (td) => [(td as HTMLElement).dataset.system!, td.textContent ?? ""] as [string, string],
          ),
        })),
      })),
    );
    const rs = byWorkload.get(w)!;
    assert.deepEqual(
      new Set(tables.map((t) => t.metric)),
      new Set(rs.map((r) => r.metric)),
      `${w}: one section per metric`,
    );
    for (const t of tables) {
      for (const row of t.rows) {
        const m = runs.find((x) => x.run_id === row.run) as unknown as { machine: { label: string } };
        assert.equal(m.machine.label, t.machine, `${w}: run ${row.run} listed under another machine`);
        for (const [system, text] of row.cells) {
          const vals = rs.filter((r) => r.run_id === row.run && r.metric === t.metric && r.system === system);
          if (vals.length === 0) {
            assert.equal(text.trim(), "–");
            continue;
          }
          // The first cell shown (lowest concurrency, then variant) has the mean of its repetitions.
          const cells = new Map<string, Rec[]>();
          for (const r of vals)
            (
              cells.get(`${r.concurrency}|${sv(r)}`) ??
              cells.set(`${r.concurrency}|${sv(r)}`, []).get(`${r.concurrency}|${sv(r)}`)!
            ).push(r);
          const first = [...cells.entries()].sort(
            ([x], [y]) =>
              Number(x.split("|")[0]) - Number(y.split("|")[0]) || x.split("|")[1].localeCompare(y.split("|")[1]),
          )[0][1];
          const mean = interval95(perRepetition(first)).mean;
          const shown = Number((cells.size > 1 ? text.split(":")[1] : text).trim().split(/\s/)[0].replaceAll(",", ""));
          assert.ok(
            Math.abs(shown - mean) <= Math.max(Math.abs(mean) * 0.006, 0.0006),
            `${w} ${t.metric} ${system} ${row.run}: shows ${shown}, mean ${mean}`,
          );
        }
      }
    }
  }
});
