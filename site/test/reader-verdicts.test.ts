// "Does it reproduce?" in a real browser: every /reproduce/<study>/ row's ratio, interval and verdict
// equal a recomputation from records.json and the study's claims.json; the home page opens with the
// verdict counts per study, each with a chart that keeps its <title>/<desc>.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, repoRoot, type Preview } from "./harness.ts";
import { records, studies, featuredRunOf, type Rec } from "./expectations.ts";
import { interval95, perRepetition } from "../../pipeline/lib/stats.ts";
import type { Claim, ClaimSide as Side } from "../../pipeline/schema/types.ts";

let preview: Preview;
let browser: Browser;
let page: Page;

const claimsOf = (study: string): Claim[] | undefined => {
  const f = path.join(repoRoot, "bench-scripts/studies", study, "claims.json");
  return existsSync(f) ? JSON.parse(readFileSync(f, "utf8")).claims : undefined;
};
const withClaims = studies.filter((s) => claimsOf(s.name));

/** Expected row, derived here from records (not from the site's modules). */
function expected(study: string, c: Claim) {
  const run = featuredRunOf(study);
  const rs = records.filter((r) => r.source === "measured" && r.run_id === run?.run_id && r.study === study && r.t === null && r.metric === c.metric && (c.workload === "*" || r.workload === c.workload));
  const cells = (s: Side) => {
    const m = new Map<string, Rec[]>();
    for (const r of rs) {
      if (r.system !== s.system || (s.variant !== undefined && r.variant !== s.variant) || (s.concurrency !== undefined && r.concurrency !== s.concurrency)) continue;
      // The pooled claim ("*") takes every workload's values per system as one cell.
      const k = c.workload === "*" ? "pooled" : `${r.workload}|${r.variant}|${r.concurrency}`;
      (m.get(k) ?? m.set(k, []).get(k)!).push(r);
    }
    // A cell's interval is over its repetitions; the pooled claim treats every sample as one value.
    return [...m.values()].map((v) => ({ variant: v[0].variant, concurrency: v[0].concurrency, values: c.workload === "*" ? v.map((r) => r.value) : perRepetition(v) }));
  };
  const as = cells(c.a);
  const bs = cells(c.b);
  const common = as.map((x) => x.concurrency).filter((k) => bs.some((y) => y.concurrency === k));
  const conc = common.length ? Math.max(...common) : undefined;
  const pick = (xs: typeof as) => xs.filter((x) => conc === undefined || x.concurrency === conc).sort((x, y) => x.variant.localeCompare(y.variant))[0];
  const a = pick(as);
  const b = pick(bs);
  if (!a || !b) return { verdict: "not measured" };
  const ia = interval95(a.values);
  const ib = interval95(b.values);
  const [num, den] = c.better === "higher" ? [ia, ib] : [ib, ia];
  const ratio = num.mean / den.mean;
  const min = c.holds_if.min ?? -Infinity;
  const max = c.holds_if.max ?? Infinity;
  if (ia.method === "none" || ib.method === "none") return { verdict: ratio >= min && ratio <= max ? "reproduces" : "does not reproduce", ratio };
  const lo = den.hi > 0 ? Math.max(0, num.lo / den.hi) : 0;
  const hi = den.lo > 0 ? num.hi / den.lo : Infinity;
  const verdict = lo >= min && hi <= max ? "reproduces" : hi < min || lo > max ? "does not reproduce" : "within noise";
  return { verdict, ratio, lo, hi };
}

before(async () => {
  preview = await startPreview();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});
after(async () => {
  await browser?.close();
  await preview?.stop();
});

test("the repo's claims files exist for the three seeded studies", () => {
  for (const s of ["oltp", "analytical", "mcp-db"]) assert.ok(claimsOf(s)?.length, `bench-scripts/studies/${s}/claims.json has no claims`);
  assert.ok(withClaims.length > 0, "no study in this build has a claims.json: the verdict pages are untested");
});

test("each verdict table matches a recomputation from the records", async () => {
  let judged = 0;
  for (const s of withClaims) {
    const resp = await page.goto(`${preview.root}reproduce/${s.name}/`);
    assert.equal(resp?.status(), 200, `/reproduce/${s.name}/`);
    const rows = await page.$$eval(`#verdicts-${s.name} tbody tr`, (trs) => trs.map((tr) => ({ ...(tr as HTMLElement).dataset })));
    const claims = claimsOf(s.name)!;
    assert.deepEqual(rows.map((r) => r.claim), claims.map((c) => c.id), `${s.name}: rows are not the claims`);
    for (const [i, c] of claims.entries()) {
      const want = expected(s.name, c);
      const got = rows[i];
      assert.equal(got.verdict, want.verdict, `${s.name}/${c.id}: verdict`);
      if (want.ratio !== undefined) {
        judged++;
        assert.ok(Math.abs(Number(got.ratio) / want.ratio - 1) < 1e-9, `${s.name}/${c.id}: ratio ${got.ratio} vs ${want.ratio}`);
        if (want.lo !== undefined) {
          assert.ok(Math.abs(Number(got.lo) - want.lo) < 1e-9 * Math.max(1, want.lo), `${s.name}/${c.id}: interval low ${got.lo} vs ${want.lo}`);
          assert.equal(Number.isFinite(want.hi!) ? Number(got.hi).toPrecision(9) : got.hi, Number.isFinite(want.hi!) ? want.hi!.toPrecision(9) : "Infinity", `${s.name}/${c.id}: interval high`);
        }
      }
      const pub = c.published.ratio ?? (c.better === "higher" ? c.published.a! / c.published.b! : c.published.b! / c.published.a!);
      assert.ok(Math.abs(Number(got.published) / pub - 1) < 1e-9, `${s.name}/${c.id}: published ratio`);
    }
    const chart = await page.$eval(`#verdict-chart-${s.name} svg[role=img]`, (svg) => ({ title: svg.querySelector("title")?.textContent ?? "", desc: svg.querySelector("desc")?.textContent ?? "" }));
    assert.match(chart.title, /ratios beside samebox/);
    for (const c of claims) assert.ok(chart.desc.includes(c.id), `${s.name}: chart desc lacks ${c.id}`);
  }
  if (records.some((r) => r.source === "measured" && withClaims.some((s) => s.name === r.study))) assert.ok(judged > 0, "measured data exists but no claim was judged");
});

test("the home page opens with the verdicts per study, one chart each, counts matching the tables", async () => {
  await page.goto(preview.root);
  const firstH2 = await page.$eval("main h2", (h) => h.textContent);
  assert.equal(firstH2, "Does it reproduce?");
  for (const s of withClaims) {
    const claims = claimsOf(s.name)!;
    const counts = new Map<string, number>();
    for (const c of claims) counts.set(expected(s.name, c).verdict, (counts.get(expected(s.name, c).verdict) ?? 0) + 1);
    const shown = await page.$$eval(`.verdict-cards li[data-study="${s.name}"] .verdict-counts [data-kind]`, (els) => els.map((e) => [(e as HTMLElement).dataset.kind!, Number((e as HTMLElement).dataset.count)] as [string, number]));
    assert.deepEqual(new Map(shown), counts, `${s.name}: home counts`);
    const svg = await page.$eval(`#home-verdicts-${s.name} svg[role=img]`, (e) => ({ t: e.querySelector("title")?.textContent ?? "", d: e.querySelector("desc")?.textContent ?? "" }));
    assert.ok(svg.t.length > 0 && svg.d.length > 0, `${s.name}: home chart lacks title/desc`);
  }
});
