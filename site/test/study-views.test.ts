// The study-specific pages in a real browser: analytical (seed 001, ClickBench-style relative view,
// answer-check badges, process-spawn cost, pgwire throughput) and mcp-db (seed 000, per database ×
// MCP server, index improvement factor, overhead split, client ceiling). The numbers on the pages are
// recomputed here from records.json and runs.json with code independent of the site's, and compared
// with what the browser shows. Their Explore presets run in DuckDB-WASM without an error.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { existsSync } from "node:fs";
import path from "node:path";
import { startPreview, launchBrowser, recordedContext, repoRoot, type Preview, type Recorder } from "./harness.ts";
import { records, studies, featuredRunOf, median, num, siteDir, type Manifest } from "./expectations.ts";

let preview: Preview;
let browser: Browser;
let rec: Recorder;
let page: Page;
const C_MS = 10;

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
});

async function open(path: string): Promise<string> {
  const resp = await page.goto(`${preview.root}${path}`, { waitUntil: "load", timeout: 60_000 });
  assert.equal(resp?.status(), 200, `${path} answered ${resp?.status()}`);
  return page.locator("main").innerText();
}
const cellText = (sel: string) =>
  page
    .locator(sel)
    .first()
    .innerText()
    .then((t) => t.trim());

async function chartsOn(prefix: string) {
  return page.$$eval(`figure.chart[id*="${prefix}"]`, (figs) =>
    figs.map((f) => {
      const svg = f.querySelector("svg[role=img]");
      return {
        id: f.id,
        title: svg?.querySelector(":scope > title")?.textContent ?? "",
        desc: svg?.querySelector(":scope > desc")?.textContent ?? "",
        caption: f.querySelector("figcaption")?.textContent ?? "",
        marks: svg?.querySelectorAll("rect, circle, path, line").length ?? 0,
      };
    }),
  );
}
function assertCharts(charts: Awaited<ReturnType<typeof chartsOn>>, what: string) {
  assert.ok(charts.length > 0, `no ${what} chart`);
  for (const c of charts) {
    assert.ok(c.title.length > 10 && c.desc.length > 10, `${c.id}: svg lacks <title>/<desc>`);
    assert.ok(c.caption.length > 10, `${c.id}: no caption`);
    assert.ok(c.marks > 3, `${c.id}: draws nothing`);
  }
}

// ---- analytical ------------------------------------------------------------------------------------

type Status = "ok" | "wrong_answer" | "failed" | "unsupported" | "skipped";
const badgeText: Record<Status, string> = {
  ok: "ok",
  wrong_answer: "wrong answer",
  failed: "failed",
  unsupported: "unsupported",
  skipped: "not run",
};

interface AnalyticalCell {
  workload: string;
  system: string;
  status: Status;
  t: number;
}
/** Per (workload, system) of one variant: status over repetitions and the median of every time_run. */
function analyticalCells(run: Manifest, variant: string): AnalyticalCell[] {
  const study = studies.find((s) => s.name === "analytical")!;
  const byName = new Map(study.workloads.map((w) => [w.name, w]));
  const out = new Map<string, AnalyticalCell>();
  const groups = new Map<string, { workload: string; system: string; statuses: string[]; reason: string }>();
  for (const c of run.cells) {
    if (c.study !== "analytical" || c.variant !== variant || byName.get(c.workload)?.tool !== "hyperfine") continue;
    const k = `${c.workload}|${c.system}`;
    const g = groups.get(k) ?? { workload: c.workload, system: c.system, statuses: [], reason: "" };
    g.statuses.push(c.status);
    if (c.status !== "ok") g.reason ||= c.reason;
    groups.set(k, g);
  }
  for (const [k, g] of groups) {
    const w = byName.get(g.workload)!;
    let status: Status = g.statuses.includes("wrong_answer")
      ? "wrong_answer"
      : g.statuses.includes("failed")
        ? "failed"
        : g.statuses.includes("ok")
          ? "ok"
          : /^unsupported/i.test(g.reason) || !w.systems.includes(g.system)
            ? "unsupported"
            : "skipped";
    const times =
      status === "ok"
        ? records
            .filter(
              (r) =>
                r.run_id === run.run_id &&
                r.study === "analytical" &&
                r.workload === g.workload &&
                r.system === g.system &&
                r.variant === variant &&
                r.metric === "time_run",
            )
            .map((r) => r.value)
        : [];
    if (status === "ok" && times.length === 0) status = "failed";
    out.set(k, { workload: g.workload, system: g.system, status, t: times.length ? median(times) : NaN });
  }
  return [...out.values()];
}

/** hyperfine's median per repetition of one cell (time_median records). */
function repMedians(run: Manifest, workload: string, system: string, variant: string): number[] {
  return records
    .filter(
      (r) =>
        r.run_id === run.run_id &&
        r.study === "analytical" &&
        r.workload === workload &&
        r.system === system &&
        r.variant === variant &&
        r.metric === "time_median" &&
        r.t === null,
    )
    .map((r) => r.value);
}
/** Do the 95 % Student-t intervals of two samples overlap? False when either has fewer than 2 values (no interval). */
function overlaps(a: number[], b: number[]): boolean {
  const t = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
  const iv = (v: number[]) => {
    const m = v.reduce((x, y) => x + y, 0) / v.length;
    const h =
      ((t[v.length - 2] ?? 1.96) * Math.sqrt(v.reduce((x, y) => x + (y - m) ** 2, 0) / (v.length - 1))) /
      Math.sqrt(v.length);
    return [m - h, m + h];
  };
  if (a.length < 2 || b.length < 2) return false;
  const [alo, ahi] = iv(a),
    [blo, bhi] = iv(b);
  return !(ahi < blo || bhi < alo);
}

test("analytical page: relative view numbers equal (t + 10 ms) / (t_min + 10 ms) and their geometric means recomputed from records.json", async () => {
  const text = await open("studies/analytical/");
  const run = featuredRunOf("analytical");
  if (!run) {
    assert.match(text, /Not yet measured/);
    return;
  }
  assert.ok(
    text.includes("(t + c) / (t_min + c)") && text.includes(`c = ${C_MS} ms`),
    "the formula and the constant are not stated",
  );
  assert.match(text, /never counted as zero/);
  const variants = [...new Set(run.cells.filter((c) => c.study === "analytical").map((c) => c.variant))];
  let compared = 0;
  for (const variant of variants) {
    const cells: AnalyticalCell[] = analyticalCells(run, variant).filter((c) => c.workload !== "noop");
    if (cells.length === 0) continue;
    const okCells = cells.filter((c) => c.status === "ok");
    if (okCells.length === 0) continue;
    const tMin = new Map<string, number>();
    for (const c of okCells) tMin.set(c.workload, Math.min(tMin.get(c.workload) ?? Infinity, c.t));
    const ratios = new Map<string, number[]>();
    for (const c of cells) {
      const sel = `table.relative-table[data-variant="${variant}"] td[data-workload="${c.workload}"][data-system="${c.system}"]`;
      if (c.status === "ok") {
        const ratio = (c.t + C_MS) / (tMin.get(c.workload)! + C_MS);
        (ratios.get(c.system) ?? ratios.set(c.system, []).get(c.system)!).push(ratio);
        // ≈ marks a ratio whose 95 % interval over repetitions (of hyperfine's median) overlaps the fastest engine's
        const fastest = okCells.find((x) => x.workload === c.workload && x.t === tMin.get(c.workload))!;
        const noise: boolean =
          fastest.system !== c.system &&
          overlaps(
            repMedians(run, c.workload, c.system, variant),
            repMedians(run, c.workload, fastest.system, variant),
          );
        assert.equal(
          await cellText(sel),
          `${ratio.toFixed(2)}×${noise ? " ≈" : ""}`,
          `${variant} ${c.workload} ${c.system}`,
        );
        compared++;
      } else if (tMin.has(c.workload) || cells.some((x) => x.workload === c.workload)) {
        assert.equal(
          await page.locator(sel).getAttribute("data-status"),
          c.status,
          `${variant} ${c.workload} ${c.system}: status`,
        );
        assert.equal(
          await cellText(`${sel} .badge`),
          badgeText[c.status],
          `${variant} ${c.workload} ${c.system}: badge`,
        );
      }
    }
    for (const system of new Set(cells.map((c) => c.system))) {
      const row = `table.relative-summary[data-variant="${variant}"] tr[data-system="${system}"]`;
      const rs = ratios.get(system) ?? [];
      const geo = rs.length ? `${Math.exp(rs.reduce((a, r) => a + Math.log(r), 0) / rs.length).toFixed(2)}×` : "–";
      assert.equal(await cellText(`${row} td[data-geomean]`), geo, `${variant} ${system}: geometric mean`);
      const mine = cells.filter((c) => c.system === system);
      assert.equal(await cellText(`${row} td[data-ran]`), String(rs.length), `${variant} ${system}: workloads ran`);
      assert.equal(
        await cellText(`${row} td[data-unsupported]`),
        String(mine.filter((c) => c.status === "unsupported").length),
        `${variant} ${system}: unsupported`,
      );
      assert.equal(
        await cellText(`${row} td[data-failed]`),
        String(mine.filter((c) => c.status === "failed").length),
        `${variant} ${system}: failed`,
      );
      assert.equal(
        await cellText(`${row} td[data-wrong]`),
        String(mine.filter((c) => c.status === "wrong_answer").length),
        `${variant} ${system}: wrong answers`,
      );
    }
  }
  assert.ok(compared > 0, "no relative-time cell was compared");
  assertCharts(await chartsOn("-geomean-"), "geometric-mean");
  assertCharts(await chartsOn("-relative-"), "relative-time");
});

test("analytical page: per-workload detail has the SQL, answer-check badges for every cell, spawn cost and pgwire throughput", async () => {
  const text = await open("studies/analytical/");
  const run = featuredRunOf("analytical");
  if (records.some((r) => r.source === "published" && r.study === "analytical"))
    assert.match(text, /published elsewhere, other hardware \(Apple M-series laptop\), one run each/);
  if (!run) return;
  const study = studies.find((s) => s.name === "analytical")!;
  assert.match(text, /DuckDB and SQLite run in-process/);
  const variants = [...new Set(run.cells.filter((c) => c.study === "analytical").map((c) => c.variant))];
  const seen = new Set<Status>();
  for (const variant of variants) {
    for (const c of analyticalCells(run, variant)) {
      const art = `article.workload-detail[data-workload="${c.workload}"]`;
      const badges = await page
        .locator(`${art} tr[data-system="${c.system}"] .badge[data-check]`)
        .evaluateAll((bs) => bs.map((b) => ({ check: b.getAttribute("data-check"), text: b.textContent ?? "" })));
      assert.ok(
        badges.some((b) => b.check === c.status && b.text.startsWith(badgeText[c.status])),
        `${c.workload} ${c.system} ${variant}: no "${badgeText[c.status]}" badge (has ${JSON.stringify(badges)})`,
      );
      seen.add(c.status);
    }
  }
  assert.ok(seen.has("ok"), "no ok badge at all");
  // The SQL shown is what the cells ran (their cell folders' files, compared byte for byte in
  // what-ran.test.ts), never the workload definition re-rendered: every hyperfine workload whose cells
  // kept a batch shows it in its detail article.
  const fixtureRuns = path.join(siteDir, "fixture-runs");
  const runsRoot = existsSync(fixtureRuns)
    ? fixtureRuns
    : path.join(process.env.SAMEBOX_DATA_DIR ?? path.join(repoRoot, "data"), "runs");
  for (const w of new Set(run.cells.filter((c) => c.study === "analytical").map((c) => c.workload))) {
    const def = study.workloads.find((x) => x.name === w)!;
    if (def.tool !== "hyperfine") continue;
    const kept = run.cells.some(
      (c) =>
        c.study === "analytical" &&
        c.workload === w &&
        existsSync(path.join(runsRoot, run.run_id, "cells", c.id, "sql", "batch.sql")),
    );
    const shown = await page
      .locator(`article.workload-detail[data-workload="${w}"] details.ran pre[data-ran-file="sql/batch.sql"]`)
      .count();
    assert.equal(
      shown > 0,
      kept,
      `${w}: ${kept ? "its cells kept sql/batch.sql but the detail shows none" : "the detail shows a batch although no cell kept one"}`,
    );
  }
  // Process-spawn cost: the noop medians per engine, as recorded.
  const spawn = analyticalCells(run, variants.includes("hot") ? "hot" : variants[0]).filter(
    (c) => c.workload === "noop" && c.status === "ok",
  );
  for (const c of spawn)
    assert.equal(
      await cellText(
        `table.spawn-table tr[data-system="${c.system}"][data-variant="${variants.includes("hot") ? "hot" : variants[0]}"] td[data-median]`,
      ),
      `${num(c.t)} ms`,
      `noop ${c.system}`,
    );
  // pgwire throughput: median qps per workload and engine.
  const qps = records.filter(
    (r) => r.run_id === run.run_id && r.study === "analytical" && r.metric === "qps" && r.t === null,
  );
  for (const key of new Set(qps.map((r) => `${r.workload}|${r.system}`))) {
    const [w, s] = key.split("|");
    const m = median(qps.filter((r) => r.workload === w && r.system === s).map((r) => r.value));
    assert.equal(
      await cellText(`table.pgwire-table tr[data-workload="${w}"][data-system="${s}"] td[data-qps]`),
      `${num(m)} q/s`,
      `pgwire ${w} ${s}`,
    );
  }
  if (qps.length) assertCharts(await chartsOn("-tp-"), "pgwire throughput");
});

// ---- mcp-db ----------------------------------------------------------------------------------------

// A cell's variant is <server>-<state> (what its verbs take); its records carry the server and the state apart.
function mcpMedian(
  runId: string,
  workload: string,
  system: string,
  variant: string,
  concurrency: number,
  metric: string,
): number | undefined {
  const { server, state } = {
    server: variant.slice(0, variant.lastIndexOf("-")),
    state: variant.slice(variant.lastIndexOf("-") + 1),
  };
  const v = records
    .filter(
      (r) =>
        r.run_id === runId &&
        r.study === "mcp-db" &&
        r.workload === workload &&
        r.system === system &&
        r.server === server &&
        r.variant === state &&
        r.concurrency === concurrency &&
        r.metric === metric &&
        r.t === null,
    )
    .map((r) => r.value);
  return v.length ? median(v) : undefined;
}

test("mcp-db page: per database × server table with cell badges, improvement factors and overhead split recomputed from records.json", async () => {
  const text = await open("studies/mcp-db/");
  if (records.some((r) => r.source === "published" && r.study === "mcp-db"))
    assert.match(text, /Published elsewhere, on other hardware/);
  const run = featuredRunOf("mcp-db");
  if (!run) {
    assert.match(text, /Not yet measured/);
    return;
  }
  // Database cells only: the calibration workloads pin variant "trivial" (no database) and are tabled apart.
  const cells = run.cells.filter(
    (c) => c.study === "mcp-db" && !c.workload.startsWith("client_ceiling") && c.variant !== "trivial",
  );
  const groups = new Map<
    string,
    { workload: string; system: string; variant: string; concurrency: number; statuses: string[] }
  >();
  for (const c of cells) {
    const k = `${c.workload}|${c.system}|${c.variant}|${c.concurrency}`;
    (
      groups.get(k) ??
      groups
        .set(k, {
          workload: c.workload,
          system: c.system,
          variant: c.variant,
          concurrency: c.concurrency,
          statuses: [],
        })
        .get(k)!
    ).statuses.push(c.status);
  }
  const split = (v: string) => ({ server: v.slice(0, v.lastIndexOf("-")), state: v.slice(v.lastIndexOf("-") + 1) });
  let rows = 0;
  for (const g of groups.values()) {
    const status = ["wrong_answer", "failed", "ok"].find((s) => g.statuses.includes(s)) ?? "skipped";
    const { server, state } = split(g.variant);
    const row = `table.mcp-table[data-system="${g.system}"] tr[data-workload="${g.workload}"][data-server="${server}"][data-state="${state}"][data-concurrency="${g.concurrency}"]`;
    assert.equal(await page.locator(`${row} .badge`).getAttribute("data-check"), status, `${row}: badge`);
    const tp = mcpMedian(run.run_id, g.workload, g.system, g.variant, g.concurrency, "throughput");
    assert.equal(await cellText(`${row} td[data-throughput]`), tp === undefined ? "–" : num(tp), `${row}: throughput`);
    rows++;
  }
  assert.ok(rows > 0, "no mcp-db cell compared");
  // Improvement factor: indexed ÷ baseline median throughput, same workload, database, server, concurrency; both cells ok.
  let pairs = 0;
  for (const g of groups.values()) {
    const { server, state } = split(g.variant);
    if (state !== "indexed" || !g.statuses.every((s) => s === "ok")) continue;
    const base = groups.get(`${g.workload}|${g.system}|${server}-baseline|${g.concurrency}`);
    if (!base?.statuses.every((s) => s === "ok")) continue;
    const i = mcpMedian(run.run_id, g.workload, g.system, g.variant, g.concurrency, "throughput");
    const b = mcpMedian(run.run_id, g.workload, g.system, `${server}-baseline`, g.concurrency, "throughput");
    if (i === undefined || b === undefined || !(b > 0)) continue;
    const sel = `table.improvement-table tr[data-workload="${g.workload}"][data-system="${g.system}"][data-server="${server}"][data-concurrency="${g.concurrency}"] td[data-factor]`;
    assert.equal(
      await cellText(sel),
      `${num(i / b)}×`,
      `improvement ${g.workload} ${g.system} ${server} c=${g.concurrency}`,
    );
    pairs++;
  }
  if (pairs) assertCharts(await chartsOn("-mcp-improvement"), "improvement");
  else
    assert.match(
      text,
      /Before and after indexes\s[\s\S]{0,800}?Not measured in this run: no server ran both the baseline and the indexed schema/,
    );
  // Overhead split: MCP p50 − direct p50 per cell (the parser's mcp_overhead_p50).
  let splits = 0;
  for (const g of groups.values()) {
    if (!g.statuses.every((s) => s === "ok")) continue;
    const o = mcpMedian(run.run_id, g.workload, g.system, g.variant, g.concurrency, "mcp_overhead_p50");
    if (
      o === undefined ||
      mcpMedian(run.run_id, g.workload, g.system, g.variant, g.concurrency, "direct_latency_p50") === undefined
    )
      continue;
    const { server, state } = split(g.variant);
    assert.equal(
      await cellText(
        `table.overhead-table tr[data-workload="${g.workload}"][data-system="${g.system}"][data-server="${server}"][data-state="${state}"][data-concurrency="${g.concurrency}"] td[data-overhead]`,
      ),
      num(o),
      `overhead ${g.workload} ${g.system} ${g.variant}`,
    );
    splits++;
  }
  if (splits) assertCharts(await chartsOn("-mcp-overhead"), "overhead");
  assertCharts(await chartsOn("-mcp-throughput"), "throughput");
  // Client ceiling: shown when calibration records exist, else said to be missing.
  const ceiling = records.some(
    (r) => r.run_id === run.run_id && r.study === "mcp-db" && r.workload === "client_ceiling",
  );
  if (ceiling) assert.ok(await page.locator("table.ceiling-table").count(), "calibration records but no ceiling table");
  else assert.match(await cellText("[data-ceiling=absent]"), /not measured in this run/);
  // Concurrency scaling: a chart when a workload ran at two or more concurrency levels.
  const levels = new Map<string, Set<number>>();
  for (const g of groups.values())
    if (g.statuses.includes("ok"))
      (levels.get(g.workload) ?? levels.set(g.workload, new Set()).get(g.workload)!).add(g.concurrency);
  if ([...levels.values()].some((l) => l.size >= 2))
    assertCharts(await chartsOn("-mcp-scaling-"), "concurrency scaling");
});

test("mcp-db page: the client ceiling is checked against the fastest database cell at the same concurrency", async () => {
  await open("studies/mcp-db/");
  const run = featuredRunOf("mcp-db");
  if (!run) return;
  const tp = records.filter(
    (r) => r.run_id === run.run_id && r.study === "mcp-db" && r.metric === "throughput" && r.t === null,
  );
  const levels = [...new Set(tp.filter((r) => r.workload === "client_ceiling").map((r) => r.concurrency))];
  for (const c of levels) {
    const med = (f: (r: (typeof tp)[number]) => boolean) => {
      const groups = new Map<string, number[]>();
      for (const r of tp.filter(f))
        (
          groups.get(`${r.workload}|${r.system}|${r.variant}`) ??
          groups.set(`${r.workload}|${r.system}|${r.variant}`, []).get(`${r.workload}|${r.system}|${r.variant}`)!
        ).push(r.value);
      return Math.max(...[...groups.values()].map(median));
    };
    const ceiling = med((r) => r.workload === "client_ceiling" && r.concurrency === c);
    const best = med((r) => !r.workload.startsWith("client_ceiling") && r.concurrency === c);
    const expect = Number.isFinite(best) && best > ceiling ? "broken" : "holds";
    assert.equal(
      await page.locator(`[data-ceiling-check][data-concurrency="${c}"]`).getAttribute("data-ceiling-check"),
      expect,
      `c=${c}: ceiling ${ceiling} vs best database cell ${best}`,
    );
  }
});

test("study pages list every published figure of their seed beside ours", async () => {
  for (const study of ["analytical", "mcp-db"]) {
    await open(`studies/${study}/`);
    const n = records.filter((r) => r.source === "published" && r.study === study).length;
    assert.equal(await page.locator("table.published-table tbody tr").count(), n, `${study}: published rows`);
  }
});

test("the study pages log no console error and fetch nothing from another origin", () => {
  assert.deepEqual(rec.consoleErrors, []);
  assert.deepEqual(rec.failed, []);
  assert.deepEqual(rec.foreign, []);
});

test("the analytical and mcp-db Explore presets run in DuckDB-WASM", async () => {
  await page.goto(`${preview.root}explore/`);
  const settled = () =>
    page.waitForFunction(
      () => ["done", "error"].includes(document.getElementById("explore")?.dataset.state ?? ""),
      null,
      { timeout: 120_000 },
    );
  await settled();
  const ids = await page.$$eval("#preset option", (os) =>
    os.map((o) => (o as HTMLOptionElement).value).filter((v) => /^(analytical|mcp)-/.test(v)),
  );
  assert.ok(ids.length >= 6, `only ${ids.length} study presets`);
  const q = () => page.evaluate(() => new URLSearchParams(location.search).get("q"));
  for (const id of ids) {
    const before = await q();
    await page.selectOption("#preset", id);
    await page.waitForFunction((b) => new URLSearchParams(location.search).get("q") !== b, before, { timeout: 30_000 });
    await settled();
    const state = await page.$eval("#explore", (e) => (e as HTMLElement).dataset.state);
    assert.equal(state, "done", `${id}: ${await page.$eval("#error", (e) => e.textContent ?? "")}`);
  }
  // The relative preset gives one row per ok (workload, engine) of the hot variant of the latest analytical run.
  const latest = records
    .filter((r) => r.source === "measured" && r.study === "analytical")
    .map((r) => r.run_id)
    .sort()
    .at(-1);
  if (latest) {
    const before = await q();
    await page.selectOption("#preset", "analytical-relative");
    await page.waitForFunction((b) => new URLSearchParams(location.search).get("q") !== b, before, { timeout: 30_000 });
    await settled();
    const rowsShown = await page.$$eval("#result-table tbody tr", (trs) => trs.length);
    const expected = new Set(
      records
        .filter(
          (r) =>
            r.run_id === latest &&
            r.study === "analytical" &&
            r.metric === "time_run" &&
            r.variant === "hot" &&
            r.workload !== "noop",
        )
        .map((r) => `${r.workload}|${r.system}`),
    ).size;
    assert.equal(rowsShown, expected);
  }
});
