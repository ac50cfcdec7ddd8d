// Protocol conformance on the site: the mcp-servers and mcp-db study pages show, beside the throughput figures, each
// server's conformance to the official MCP suite (workload `conformance`, records conformance_<scenario>
// 1/0): passed / applicable from the study's featured run when it ran the suite, else from the newest run
// that did, naming that run; each failing scenario by name with the suite's message (from the cell folder,
// via publish's conformance.json) and what the check means. Expected values are recomputed here from
// records.json, runs.json and conformance.json.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, repoRoot, type Preview } from "./harness.ts";
import { records, runs, featuredRunOf, siteDir, type Manifest, type Rec } from "./expectations.ts";
import { safetyRunOf } from "../src/lib/conformance.ts";

let preview: Preview;
let browser: Browser;
let page: Page;
before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
after(async () => {
  await browser?.close();
  await preview?.stop();
});

interface Report {
  run_id: string;
  study: string;
  system: string;
  server: string;
  variant: string;
  scenarios: Array<{ scenario: string; status: string; message: string }>;
}
const reportsFile = path.join(siteDir, "src/generated/conformance.json");
const reports: Report[] = existsSync(reportsFile) ? JSON.parse(readFileSync(reportsFile, "utf8")).reports : [];

/** The run whose conformance a study page shows, and per system × server × variant the scenarios (metric suffix → passed). */
function expected(study: string): { run: Manifest; rows: Map<string, Map<string, boolean>> } | undefined {
  const rs = records.filter(
    (r) =>
      r.source === "measured" &&
      r.study === study &&
      r.workload === "conformance" &&
      r.metric.startsWith("conformance_") &&
      r.t === null,
  );
  if (!rs.length) return undefined;
  const has = new Set(rs.map((r) => r.run_id));
  const featured = featuredRunOf(study);
  const run =
    featured && has.has(featured.run_id)
      ? featured
      : runs.filter((m) => has.has(m.run_id)).sort((a, b) => b.started_at.localeCompare(a.started_at))[0];
  const rows = new Map<string, Map<string, boolean>>();
  for (const r of rs.filter(
    (x) => x.run_id === run.run_id && x.metric !== "conformance_passed" && x.metric !== "conformance_applicable",
  )) {
    const k = `${r.system}|${r.server}|${r.variant}`;
    (rows.get(k) ?? rows.set(k, new Map()).get(k)!).set(r.metric.slice("conformance_".length), r.value === 1);
  }
  return { run, rows };
}

for (const [study, throughputTable] of [
  ["mcp-servers", "table.mcps-table"],
  ["mcp-db", "table.mcp-table"],
] as const) {
  test(`${study} page: conformance per server beside throughput, from the newest run that ran the suite, with failing scenarios, messages and meaning`, async (t) => {
    const resp = await page.goto(`${preview.root}studies/${study}/`, { waitUntil: "load" });
    if (resp?.status() !== 200) return t.skip(`no /studies/${study}/ in this data set`);
    const exp = expected(study);
    if (!featuredRunOf(study)) return t.skip(`${study} not measured in this data set`);
    if (!exp) {
      // A measured study without conformance records says so, not an empty table.
      assert.match(await page.locator("main").innerText(), /No run of this study has run the conformance suite yet/);
      return;
    }
    const box = page.locator(`.conformance[data-conformance-run="${exp.run.run_id}"]`);
    assert.equal(await box.count(), 1, `a conformance block naming run ${exp.run.run_id}`);
    const text = await box.innerText();
    assert.ok(text.includes(exp.run.run_id), "the run is named in the text");
    assert.equal((await box.locator(`a[href$="runs/${exp.run.run_id}/"]`).count()) > 0, true, "the run is linked");
    assert.equal(
      await box.locator("table.conformance-table tbody tr").count(),
      exp.rows.size,
      "one row per server checked",
    );
    const failing = new Set<string>();
    for (const [key, scen] of exp.rows) {
      const [system, server, variant] = key.split("|");
      const row = box.locator(
        `table.conformance-table tr[data-system="${system}"][data-server="${server}"][data-variant="${variant}"]`,
      );
      const passed = [...scen.values()].filter(Boolean).length;
      assert.equal(await row.getAttribute("data-passed"), String(passed), `${key}: passed`);
      assert.equal(await row.getAttribute("data-applicable"), String(scen.size), `${key}: applicable`);
      assert.ok((await row.innerText()).includes(`${passed}/${scen.size}`), `${key}: "${passed}/${scen.size}" shown`);
      const failed = [...scen].filter(([, ok]) => !ok).map(([m]) => m);
      const shown = await row
        .locator("li[data-scenario]")
        .evaluateAll((ls) => ls.map((l) => l.getAttribute("data-scenario") ?? ""));
      assert.deepEqual(
        shown.map((s) => s.replaceAll("-", "_")).sort(),
        failed.sort(),
        `${key}: failing scenarios listed`,
      );
      for (const s of shown) {
        failing.add(s);
        const li = await row.locator(`li[data-scenario="${s}"]`).innerText();
        assert.ok(li.includes(s), `${key}: ${s} named`);
        const msg = reports
          .find(
            (p) =>
              p.run_id === exp.run.run_id &&
              p.study === study &&
              p.system === system &&
              p.server === server &&
              p.variant === variant,
          )
          ?.scenarios.find((x) => x.scenario === s)?.message;
        if (msg) assert.ok(li.includes(msg), `${key}: ${s} with the suite's message "${msg}"`);
      }
    }
    // What each failing check means, written on the page.
    for (const s of failing) {
      const dd = box.locator(`dt[data-scenario="${s}"] + dd`);
      assert.equal(await dd.count(), 1, `${s}: explained`);
      assert.match(await dd.innerText(), /Failing means .{20,}/, `${s}: what failing means`);
    }
    // Beside throughput: the throughput table has a Conformance column agreeing with the conformance table.
    const tables = page.locator(throughputTable);
    assert.ok((await tables.count()) > 0, `${throughputTable} present`);
    const headers = await tables.first().locator("thead th").allInnerTexts();
    assert.ok(
      headers.some((h) => h.trim() === "Conformance"),
      `${throughputTable} has a Conformance column (headers: ${headers.join(" | ")})`,
    );
    const cells = await page
      .locator(`${throughputTable} td[data-conformance]`)
      .evaluateAll((tds) =>
        tds.map((td) => [
          td.closest("tr")?.getAttribute("data-system") ?? td.closest("table")?.getAttribute("data-system") ?? "",
          td.getAttribute("data-conformance") ?? "",
        ]),
      );
    const checked = cells.filter(([, v]) => v !== "");
    assert.ok(checked.length > 0, "some throughput row shows a conformance result");
    for (const [system, v] of checked) {
      const mine = [...exp.rows]
        .filter(([k]) => k.startsWith(`${system}|`))
        .map(([, s]) => `${[...s.values()].filter(Boolean).length}/${s.size}`);
      assert.ok(mine.includes(v), `${throughputTable} ${system}: ${v} is one of ${mine.join(", ")}`);
    }
  });
}

test("mcp-servers page: a server failing a conformance scenario is flagged where it is ranked beside the seed", async (t) => {
  const resp = await page.goto(`${preview.root}studies/mcp-servers/`, { waitUntil: "load" });
  if (resp?.status() !== 200) return t.skip("no /studies/mcp-servers/ in this data set");
  const exp = expected("mcp-servers");
  const ranked = await page
    .locator("table.mcps-published tbody tr[data-system]")
    .evaluateAll((trs) =>
      trs.map((tr) => [
        tr.getAttribute("data-system") ?? "",
        tr.querySelector("[data-conformance-flag]")?.getAttribute("data-conformance-flag") ?? "",
      ]),
    );
  if (!exp || ranked.length === 0)
    return t.skip("no conformance records or no ranking beside the seed in this data set");
  let flagged = 0;
  for (const [system, flag] of ranked) {
    const scen: Map<string, boolean> | undefined =
      exp.rows.get(`${system}|default`) ?? [...exp.rows].find(([k]) => k.startsWith(`${system}|`))?.[1];
    const failed: string[] = scen
      ? [...scen]
          .filter(([, ok]) => !ok)
          .map(([m]) => m)
          .sort()
      : [];
    assert.deepEqual(
      flag
        .split(" ")
        .filter(Boolean)
        .map((s) => s.replaceAll("-", "_"))
        .sort(),
      failed,
      `${system}: flag "${flag}" vs failed ${failed.join(", ") || "none"}`,
    );
    if (failed.length) flagged++;
  }
  if ([...exp.rows.values()].some((s) => [...s.values()].includes(false)))
    assert.ok(
      flagged > 0 || ranked.every(([s]) => ![...exp.rows.keys()].some((k) => k.startsWith(`${s}|`))),
      "no failing server flagged",
    );
});

// samebox's own checks and the negotiated revision: own checks are listed with
// the suite's scenarios but marked as samebox's; the revision each server answered per client revision
// is a table whose cells equal the reports' "negotiated".
interface Negotiated {
  client: string;
  requested: string;
  answered: string | null;
}
const ownDoc: Array<{ scenario: string }> =
  JSON.parse(readFileSync(path.join(repoRoot, "bench-scripts/studies/mcp-servers/conformance-scenarios.json"), "utf8"))
    .own_checks?.checks ?? [];
for (const study of ["mcp-servers", "mcp-db"]) {
  test(`${study} page: own checks marked as samebox's, and the negotiated revision per server and client revision`, async (t) => {
    const resp = await page.goto(`${preview.root}studies/${study}/`, { waitUntil: "load" });
    if (resp?.status() !== 200) return t.skip(`no /studies/${study}/ in this data set`);
    const exp = expected(study);
    if (!exp) return t.skip(`${study}: no conformance records in this data set`);
    const box = page.locator(`.conformance[data-conformance-run="${exp.run.run_id}"]`);
    const own = new Set(ownDoc.map((c) => c.scenario));
    for (const li of await box
      .locator("li[data-scenario]")
      .evaluateAll((ls) =>
        ls.map((l) => [
          l.getAttribute("data-scenario") ?? "",
          l.getAttribute("data-own") ?? "",
          l.querySelector("[data-own-check]") ? "1" : "0",
        ]),
      )) {
      const [s, flag, badge] = li;
      assert.equal(flag, own.has(s) ? "1" : "0", `${s}: marked own exactly when it is one of samebox's checks`);
      assert.equal(badge, flag, `${s}: the "samebox check" badge agrees`);
    }
    const reps = reports.filter((p) => p.run_id === exp.run.run_id && p.study === study) as Array<
      Report & { negotiated?: Negotiated[] }
    >;
    const withNeg = reps.filter((p) => (p.negotiated ?? []).length > 0);
    if (withNeg.length === 0) return; // reports from before the negotiated revision was kept
    const table = box.locator("table.negotiated-table");
    assert.equal(await table.count(), 1, "a negotiated-revision table");
    for (const p of withNeg) {
      for (const n of p.negotiated ?? []) {
        const td = table.locator(
          `tr[data-system="${p.system}"][data-server="${p.server}"][data-variant="${p.variant}"] td[data-requested="${n.requested}"]`,
        );
        assert.equal(
          await td.getAttribute("data-answered"),
          n.answered ?? "",
          `${p.system} ${p.server} ${p.variant} asked ${n.requested}`,
        );
      }
    }
  });
}

// The safety table's run (safetyRunOf): the featured run when it measured Toolbox both ways, else the newest
// run on its machine that did, never another machine's. Synthetic runs, so each rule can fail.
const runOn = (run_id: string, started_at: string, label: string) =>
  ({ run_id, started_at, profile: "full", machine: { label }, cells: [] }) as unknown as Manifest;
const tputOf = (run_id: string, server: string, concurrency = 8) =>
  [1, 2].map((repetition) => ({
    run_id,
    server,
    concurrency,
    repetition,
    source: "measured",
    study: "mcp-db",
    t: null,
    workload: "point_reads",
    system: "sqlite",
    variant: "indexed",
    metric: "throughput",
    value: 100,
  })) as unknown as Rec[];
const bothWays = (run: string) => [...tputOf(run, "toolbox"), ...tputOf(run, "toolboxsafe")];
const featuredA = runOn("F", "2026-11-28T16:00:00Z", "A");
const olderA = runOn("O1", "2026-11-27T10:00:00Z", "A");
const oldestA = runOn("O0", "2026-11-26T10:00:00Z", "A");
const newerB = runOn("N", "2026-11-29T10:00:00Z", "B");
// Newer than the featured run on its machine (a later run, e.g. a run page's neighbour): never preferred to it.
const newerA = runOn("L", "2026-11-28T20:00:00Z", "A");
const allRuns = [oldestA, newerB, featuredA, newerA, olderA];

test("safetyRunOf: a featured run without Toolbox both ways takes the newest same-machine run's, never another machine's", () => {
  const recs = [...tputOf("F", "toolbox"), ...bothWays("O1"), ...bothWays("O0"), ...bothWays("N")];
  assert.equal(safetyRunOf("mcp-db", featuredA, allRuns, recs)?.run_id, "O1");
  // Only another machine measured both: no table, rather than a ratio from other hardware.
  assert.equal(safetyRunOf("mcp-db", featuredA, allRuns, [...tputOf("F", "toolbox"), ...bothWays("N")]), undefined);
  // Both servers, but not on one workload × database × schema × concurrency: not a pair.
  const unpaired = [...tputOf("O1", "toolbox", 8), ...tputOf("O1", "toolboxsafe", 1), ...bothWays("O0")];
  assert.equal(safetyRunOf("mcp-db", featuredA, allRuns, unpaired)?.run_id, "O0");
  assert.equal(safetyRunOf("mcp-servers", featuredA, allRuns, recs), undefined, "another study's records do not count");
});

test("safetyRunOf: a featured run that measured Toolbox both ways is its own", () => {
  const recs = [...bothWays("F"), ...bothWays("L"), ...bothWays("O1"), ...bothWays("N")];
  assert.equal(safetyRunOf("mcp-db", featuredA, allRuns, recs)?.run_id, "F");
  assert.equal(safetyRunOf("mcp-db", undefined, allRuns, recs), undefined);
});

/** Whether a run has Toolbox's throughput both ways on one workload × database × schema × concurrency. */
const toolboxTput = records.filter(
  (r) => r.study === "mcp-db" && r.metric === "throughput" && r.t === null && r.server.startsWith("toolbox"),
);
const bothWaysRuns = new Set(
  toolboxTput
    .filter(
      (a) =>
        a.server === "toolbox" &&
        toolboxTput.some(
          (b) =>
            b.server === "toolboxsafe" &&
            b.run_id === a.run_id &&
            b.workload === a.workload &&
            b.system === a.system &&
            b.concurrency === a.concurrency &&
            b.variant === a.variant,
        ),
    )
    .map((a) => a.run_id),
);
const measuredBothWays = (runId: string) => bothWaysRuns.has(runId);

/** The run whose safety table the page of run SHOWN has: its own when it measured both ways, else its machine's newest that did. */
function safetyRunExpected(shown: Manifest): Manifest | undefined {
  if (measuredBothWays(shown.run_id)) return shown;
  return runs
    .filter((m) => m.machine.label === shown.machine.label && measuredBothWays(m.run_id))
    .sort((a, b) => b.started_at.localeCompare(a.started_at))[0];
}

test("mcp-db page: Toolbox with and without --allowed-hosts side by side, with the ratio and each one's conformance", async (t) => {
  const resp = await page.goto(`${preview.root}studies/mcp-db/`, { waitUntil: "load" });
  if (resp?.status() !== 200) return t.skip("no /studies/mcp-db/ in this data set");
  const featured = featuredRunOf("mcp-db");
  if (!featured) return t.skip("mcp-db not measured in this data set");
  const run = safetyRunExpected(featured);
  const rows = page.locator(".safety-cost table.safety-table tbody tr");
  if (!run) {
    assert.equal(await rows.count(), 0, "no safety table without both configurations measured on this machine");
    return;
  }
  const tput = (server: string) =>
    records.filter(
      (r) =>
        r.run_id === run.run_id &&
        r.study === "mcp-db" &&
        r.metric === "throughput" &&
        r.server === server &&
        r.t === null,
    );
  assert.ok((await rows.count()) > 0, "a safety-cost row per workload measured both ways");
  assert.equal(await page.locator(".safety-cost").getAttribute("data-safety-run"), run.run_id, "from the expected run");
  const text = await page.locator(".safety-cost").innerText();
  assert.match(text, /--allowed-hosts/, "the safe configuration is named");
  assert.equal(
    text.includes(`this table comes from run ${run.run_id}`),
    run !== featured,
    `run ${run.run_id} named exactly when it is not the featured run ${featured.run_id}`,
  );
  for (const tr of await rows.evaluateAll((trs) =>
    trs.map(
      (r) =>
        [
          r.getAttribute("data-workload") ?? "",
          r.getAttribute("data-system") ?? "",
          Number(r.getAttribute("data-ratio")),
        ] as const,
    ),
  )) {
    const [w, s, ratio] = tr;
    const med = (server: string) => {
      const v = tput(server)
        .filter((r) => r.workload === w && r.system === s)
        .map((r) => r.value)
        .sort((a, b) => a - b);
      return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    };
    assert.ok(
      Math.abs(ratio - med("toolboxsafe") / med("toolbox")) < 0.01,
      `${w} ${s}: ratio ${ratio} = safe ÷ default medians`,
    );
  }
  // The ratio shown is paired: per repetition safe ÷ default, geometric mean, with its interval.
  for (const tr of await rows.evaluateAll((trs) =>
    trs.map(
      (r) =>
        [
          r.getAttribute("data-workload") ?? "",
          r.getAttribute("data-system") ?? "",
          r.getAttribute("data-paired-ratio"),
        ] as const,
    ),
  )) {
    const [w, s, shown] = tr;
    const byRep = (server: string) =>
      new Map(
        tput(server)
          .filter((r) => r.workload === w && r.system === s)
          .map((r) => [r.repetition, r.value]),
      );
    const safe = byRep("toolboxsafe");
    const logs = [...byRep("toolbox")].filter(([k]) => safe.has(k)).map(([k, v]) => Math.log(safe.get(k)! / v));
    if (logs.length < 2) continue;
    const geo = Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length);
    assert.ok(
      shown !== null && Math.abs(Number(shown) / geo - 1) < 0.002,
      `${w} ${s}: paired ratio ${shown}, records give ${geo.toFixed(3)} over ${logs.length} repetitions`,
    );
  }
  if (run === featured)
    assert.equal(
      (await page.locator('table tr[data-server="toolboxsafe"]').count()) > 0,
      true,
      "the servers table lists toolboxsafe with its configuration",
    );
});

test("mcp-db page of a run that did not measure Toolbox both ways: the table of its machine's newest run that did, named", async (t) => {
  const measured = new Set(records.filter((r) => r.study === "mcp-db" && r.source === "measured").map((r) => r.run_id));
  const shown = runs
    .filter((m) => measured.has(m.run_id) && !measuredBothWays(m.run_id) && safetyRunExpected(m))
    .sort((a, b) => b.started_at.localeCompare(a.started_at))[0];
  if (!shown) return t.skip("no run without Toolbox both ways beside one on its machine with it, in this data set");
  const from = safetyRunExpected(shown)!;
  const resp = await page.goto(`${preview.root}studies/mcp-db/${shown.run_id}/`, { waitUntil: "load" });
  assert.equal(resp?.status(), 200, `the page of run ${shown.run_id}`);
  const box = page.locator(".safety-cost");
  assert.equal(await box.getAttribute("data-safety-run"), from.run_id, `the table from run ${from.run_id}`);
  const note = await box.locator("[data-safety-other-run]").innerText();
  assert.ok(note.includes(shown.run_id) && note.includes(from.run_id), `both runs named: ${note}`);
  assert.equal(
    await box.locator(`a[href$="runs/${from.run_id}/"]`).count(),
    1,
    "the run the table comes from is linked",
  );
});
