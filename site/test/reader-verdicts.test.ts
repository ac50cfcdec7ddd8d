// "Does it reproduce?" in a real browser: every /reproduce/<study>/ row's ratio, interval, n, run and verdict (one of five)
// equal a recomputation from records.json and the study's claims.json; the home page opens with the
// verdict counts per study, each with a chart that keeps its <title>/<desc>.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { startPreview, launchBrowser, repoRoot, type Preview } from "./harness.ts";
import { records, runs, studies, type Rec } from "./expectations.ts";
import { lookTwoNominalLevel } from "../../pipeline/lib/group-sequential.ts";
import { median, tQuantile } from "../../pipeline/lib/stats.ts";
import type { Claim, ClaimSide as Side } from "../../pipeline/schema/types.ts";

let preview: Preview;
let browser: Browser;
let page: Page;

const claimsOf = (study: string): Claim[] | undefined => {
  const f = path.join(repoRoot, "bench-scripts/studies", study, "claims.json");
  return existsSync(f) ? JSON.parse(readFileSync(f, "utf8")).claims : undefined;
};
const withClaims = studies.filter((s) => claimsOf(s.name));

const FIVE = ["reproduces", "does not reproduce", "tie", "undecided", "not measured"];
const MIN_REPS = 5;
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;

/** Paired per-repetition values of a claim in one run's counted records, derived here (not from the site's modules). */
function pairsOf(rs: Rec[], c: Claim): Array<{ rep: number; a: number; b: number }> {
  const side = (s: Side) =>
    rs.filter(
      (r) =>
        r.system === s.system &&
        (s.server === undefined || r.server === s.server) &&
        (s.variant === undefined || r.variant === s.variant) &&
        (s.concurrency === undefined || r.concurrency === s.concurrency),
    );
  const ra = side(c.a);
  const rb = side(c.b);
  // per repetition → per key (workload for "*", else the cell) → values
  const nest = (xs: Rec[], key: (r: Rec) => string) => {
    const m = new Map<number, Map<string, number[]>>();
    for (const r of xs) {
      const byK = m.get(r.repetition) ?? m.set(r.repetition, new Map()).get(r.repetition)!;
      (byK.get(key(r)) ?? byK.set(key(r), []).get(key(r))!).push(r.value);
    }
    return m;
  };
  if (c.workload === "*") {
    // per repetition, the mean over the workloads both sides measured in it (each workload's runs: their median)
    const na = nest(ra, (r) => r.workload);
    const nb = nest(rb, (r) => r.workload);
    return [...na.keys()]
      .sort((x, y) => x - y)
      .flatMap((rep) => {
        const wa = na.get(rep)!;
        const wb = nb.get(rep);
        const shared = [...wa.keys()].filter((w) => wb?.has(w));
        return shared.length
          ? [{ rep, a: mean(shared.map((w) => median(wa.get(w)!))), b: mean(shared.map((w) => median(wb!.get(w)!))) }]
          : [];
      });
  }
  const common = [...new Set(ra.map((r) => r.concurrency))].filter((k) => rb.some((r) => r.concurrency === k));
  if (!common.length) return [];
  const conc = Math.max(...common);
  const pick = (xs: Rec[]) => {
    const at = xs.filter((r) => r.concurrency === conc);
    const sv = (r: Rec) => `${r.server}|${r.variant}`;
    const v = at.map(sv).sort((x, y) => x.localeCompare(y))[0];
    return nest(
      at.filter((r) => sv(r) === v),
      () => "",
    );
  };
  const pa = pick(ra);
  const pb = pick(rb);
  return [...pa.keys()]
    .sort((x, y) => x - y)
    .filter((rep) => pb.has(rep))
    .map((rep) => ({ rep, a: median(pa.get(rep)!.get("")!), b: median(pb.get(rep)!.get("")!) }));
}

/** Expected row: the run (newest with ≥ 5 paired repetitions, else the one with the most, newest on a tie), the geometric-mean ratio, its t interval, the verdict. */
type Expected = { verdict: string; n: number; ratio?: number; lo?: number; hi?: number; run?: string };

// Each claim's expected row is computed once: the tests ask for it per page and per count.
const expectedRows = new Map<string, Expected>();
function expected(study: string, c: Claim): Expected {
  const key = `${study}|${JSON.stringify(c)}`;
  let row = expectedRows.get(key);
  if (!row) {
    row = c.each_of ? expectedEach(study, c) : expectedOne(study, c);
    expectedRows.set(key, row);
  }
  return row;
}

function expectedOne(study: string, c: Claim): Expected {
  const chosen = chooseFor(study, c, (m) => pairsIn(study, c, m));
  return chosen ? judgeRun(study, c, chosen.m, chosen.p, 1) : { verdict: "not measured", n: 0 };
}

// The study's measured records of each run, indexed once (every claim looks at every run).
const measuredByRun = new Map<string, Rec[]>();
for (const r of records)
  if (r.source === "measured" && r.t === null)
    (measuredByRun.get(r.run_id) ?? measuredByRun.set(r.run_id, []).get(r.run_id)!).push(r);

/**
 * Whether a cell's load generator is left out of verdicts, from its records: more than 1 % of its planned calls
 * dropped, or (isolated: loadgen_cpus recorded) its CPU set at least 90 % busy, counting the generator's own
 * loadgen_cpu_util and Redis's and the API service's CPU per 1,000 calls at the cell's throughput.
 */
function generatorExcluded(rs: Rec[]): boolean {
  const v = (m: string) => rs.find((r) => r.metric === m)?.value;
  const calls = v("calls");
  const dropped = v("dropped");
  if (dropped !== undefined && calls && dropped / calls > 0.01) return true;
  const cpus = v("loadgen_cpus");
  const own = v("loadgen_cpu_util");
  if (cpus === undefined || own === undefined) return false;
  const deps = (v("redis_cpu_per_1k_calls") ?? 0) + (v("api_cpu_per_1k_calls") ?? 0);
  const rate = v("throughput");
  return own + (rate === undefined ? 0 : (deps * rate) / 10) >= 90 * cpus;
}

/** A claim's paired repetitions in one run (only ok cells count, and none whose generator is excluded). */
function pairsIn(study: string, c: Claim, m: (typeof runs)[number]) {
  // a cell's variant is <server>-<state> where it names a server; its records carry the server and the state
  const state = (x: { server?: string; variant: string }) =>
    x.server && x.variant.startsWith(`${x.server}-`) ? x.variant.slice(x.server.length + 1) : x.variant;
  const ok = new Set(
    m.cells
      .filter((x) => x.status === "ok" && x.study === study)
      .map((x) => `${x.workload}|${x.system}|${x.server ?? ""}|${state(x)}|${x.concurrency}|${x.repetition}`),
  );
  const cellOf = (r: Rec) => `${r.workload}|${r.system}|${r.server}|${r.variant}|${r.concurrency}|${r.repetition}`;
  const byCell = new Map<string, Rec[]>();
  for (const r of measuredByRun.get(m.run_id) ?? [])
    if (r.study === study) (byCell.get(cellOf(r)) ?? byCell.set(cellOf(r), []).get(cellOf(r))!).push(r);
  const counted = (measuredByRun.get(m.run_id) ?? []).filter(
    (r) =>
      r.study === study &&
      !generatorExcluded(byCell.get(cellOf(r))!) &&
      r.metric === c.metric &&
      (c.workload === "*" || r.workload === c.workload) &&
      ok.has(`${r.workload}|${r.system}|${r.server}|${r.variant}|${r.concurrency}|${r.repetition}`),
  );
  return pairsOf(counted, c).filter((x) => x.a > 0 && x.b > 0);
}

/**
 * Whether run m measured claim c at the seed's scale: on every row of the study's seed_conditions marked `scale`
 * that applies to the claim's workloads, ours is at least the seed's (ours: the product of the row's env values,
 * from the run's study env else the study's parameter defaults, times `times`; or the one concurrency of the
 * claim's ok records in the run, the sides' own where the claim pins it).
 */
function atSeedScale(study: string, c: Claim, m: (typeof runs)[number]): boolean {
  const s = studies.find((x) => x.name === study)!;
  const ws = c.workload === "*" ? "*" : (c.each_of ?? [c.workload]);
  const match = (p: string, w: string) => (p.endsWith("*") ? w.startsWith(p.slice(0, -1)) : p === w);
  type Row = NonNullable<typeof s.seed_conditions>["rows"][number];
  const applies = (row: Row) =>
    ws === "*"
      ? !row.workloads && !row.not_workloads
      : ws.every(
          (w) =>
            (!row.workloads || row.workloads.some((p) => match(p, w))) &&
            !(row.not_workloads ?? []).some((p) => match(p, w)),
        );
  const rows = (s.seed_conditions?.rows ?? []).filter((row) => row.scale && applies(row));
  if (!rows.length) return false;
  const env =
    (m as { config?: { studies?: Record<string, { env?: Record<string, unknown> }> } }).config?.studies?.[study]?.env ??
    {};
  const ok = new Set(
    m.cells
      .filter((x) => x.status === "ok" && x.study === study)
      .map((x) => `${x.workload}|${x.system}|${x.concurrency}|${x.repetition}`),
  );
  const pinned = [c.a.concurrency, c.b.concurrency].filter((x): x is number => x !== undefined);
  const concurrency = new Set(
    pinned.length
      ? pinned
      : (measuredByRun.get(m.run_id) ?? [])
          .filter(
            (r) =>
              r.study === study &&
              r.metric === c.metric &&
              [c.a.system, c.b.system].includes(r.system) &&
              (ws === "*" || ws.includes(r.workload)) &&
              ok.has(`${r.workload}|${r.system}|${r.concurrency}|${r.repetition}`),
          )
          .map((r) => r.concurrency),
  );
  return rows.every((row) => {
    const o = row.ours as { cell?: string; env?: string[]; times?: number };
    let v: number | undefined;
    if (o.cell === "concurrency") v = concurrency.size === 1 ? [...concurrency][0] : undefined;
    else if (o.env) {
      const parts = o.env.map((k) => Number(env[k] ?? s.parameters?.[k]?.default));
      v = parts.some((x) => !Number.isFinite(x)) ? undefined : parts.reduce((a, b) => a * b, 1) * (o.times ?? 1);
    }
    return v !== undefined && typeof row.seed === "number" && v >= row.seed * (1 - 1e-9);
  });
}

/** The run a claim is judged from, given how many paired repetitions a run has for it. */
function chooseFor<P>(study: string, c: Claim, pairsOfRun: (m: (typeof runs)[number]) => P[]) {
  // a scale-dependent size (claims.json `scale`) counts only runs whose study env reaches the seed's scale
  const atScale = (m: (typeof runs)[number]) => {
    if (!c.scale) return true;
    const v = (m as { config?: { studies?: Record<string, { env?: Record<string, unknown> }> } }).config?.studies?.[
      study
    ]?.env?.[c.scale.env];
    return Number(v ?? c.scale.default) >= c.scale.min;
  };
  const ordered = runs
    .filter((m) => m.status !== "running" && atScale(m))
    .sort((x, y) => y.started_at.localeCompare(x.started_at));
  const measured = ordered.map((m) => ({ m, p: pairsOfRun(m) })).filter((x) => x.p.length > 0);
  // else the most paired repetitions, the newest on a tie (measured is newest first; the sort is stable), a ci smoke run last
  // a run at the seed's scale with enough repetitions first, then any
  return (
    measured.find((x) => x.p.length >= MIN_REPS && atSeedScale(study, c, x.m)) ??
    measured.find((x) => x.p.length >= MIN_REPS) ??
    [...measured].sort(
      (x, y) => y.p.length - x.p.length || (x.m.profile === "ci" ? 1 : 0) - (y.m.profile === "ci" ? 1 : 0),
    )[0]
  );
}

/** A claim judged on one run's pairs as that run's runner judged it, every level divided by k. */
function judgeRun(
  study: string,
  c: Claim,
  m: (typeof runs)[number],
  p: Array<{ rep: number; a: number; b: number }>,
  k: number,
): Expected {
  type Seq = { looks?: number; alpha_spending?: { base: number; alpha1: number; alpha2: number; exact?: boolean } };
  const seq = (m as { sequential?: Record<string, Seq> }).sequential?.[study];
  const sp = seq?.alpha_spending;
  if (!sp) return judgeAt(c, p, 0.05 / (seq?.looks ?? 1) / k, m.run_id);
  // two looks (Lan–DeMets): look 1 on the repetitions up to base at alpha1 keeps a decision; else look 2 on all,
  // spending alpha2: at the exact two-look boundary's nominal level (runs recording `exact`), else at alpha2 itself
  const [a1, a2] = [sp.alpha1 / k, sp.alpha2 / k];
  const first = p.filter((x) => x.rep <= sp.base);
  const one = judgeAt(c, first, a1, m.run_id);
  if ((one.verdict !== "undecided" && one.verdict !== "not measured") || first.length === p.length || a2 <= 0)
    return one;
  const level2 = sp.exact ? lookTwoNominalLevel(a1, a2, first.length / p.length) : a2;
  return judgeAt(c, p, level2, m.run_id);
}

/**
 * A claim about each of several workloads (CLAIMS.md): the run where every workload has the most pairs (the
 * fewest over the workloads); holds when every workload's verdict at the claim's level holds; refuted when one
 * workload's verdict at level / k is a loss or a tie; the weakest workload's ratio (lowest low end) is shown.
 */
function expectedEach(study: string, c: Claim): Expected {
  const ws = c.each_of!;
  const member = (w: string): Claim => ({ ...c, workload: w, each_of: undefined });
  const chosen = chooseFor(study, c, (m) => {
    const per = ws.map((w) => pairsIn(study, member(w), m));
    const n = Math.min(...per.map((x) => x.length));
    return Array.from({ length: n }, () => per);
  });
  if (!chosen) return { verdict: "not measured", n: 0 };
  const per = chosen.p[0];
  const at = ws.map((w, i) => judgeRun(study, member(w), chosen.m, per[i], 1));
  const fw = ws.map((w, i) => judgeRun(study, member(w), chosen.m, per[i], ws.length));
  const weakest = [...at].sort((x, y) => (x.lo ?? x.ratio ?? 0) - (y.lo ?? y.ratio ?? 0))[0];
  const n = Math.min(...at.map((x) => x.n));
  const refuted = fw
    .map((x, i) => ({ x, i }))
    .filter(({ x }) => x.verdict === "does not reproduce" || x.verdict === "tie");
  if (refuted.length) {
    const worst = refuted.map(({ i }) => at[i]).sort((x, y) => (x.ratio ?? 0) - (y.ratio ?? 0))[0];
    return { ...worst, verdict: "does not reproduce", n, run: chosen.m.run_id };
  }
  return {
    ...weakest,
    verdict: at.every((x) => x.verdict === "reproduces") ? "reproduces" : "undecided",
    n,
    run: chosen.m.run_id,
  };
}

/** One look: the t interval at two-sided level alpha on the log ratios, and the verdict it gives. */
function judgeAt(c: Claim, p: Array<{ a: number; b: number }>, alpha: number, run: string): Expected {
  if (!p.length) return { verdict: "not measured", n: 0 };
  const d = p.map((x) => (c.better === "higher" ? Math.log(x.a / x.b) : Math.log(x.b / x.a)));
  const n = d.length;
  const m = mean(d);
  const ratio = Math.exp(m);
  if (n < MIN_REPS) return { verdict: "undecided", n, ratio, run };
  const h =
    (tQuantile(1 - alpha / 2, n - 1) * Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1))) / Math.sqrt(n);
  const lo = Math.exp(m - h);
  const hi = Math.exp(m + h);
  const [rlo, rhi] =
    c.kind === "size"
      ? [c.size!.ratio / (1 + c.size!.tolerance), c.size!.ratio * (1 + c.size!.tolerance)]
      : c.kind === "threshold"
        ? [c.threshold!.min ?? 0, c.threshold!.max ?? Infinity]
        : [1, Infinity];
  let verdict: string;
  if (c.kind === "ordering" && lo >= 1 / 1.05 && hi <= 1.05) verdict = "tie";
  else if (c.kind === "ordering") verdict = lo > 1 ? "reproduces" : hi < 1 ? "does not reproduce" : "undecided";
  else verdict = lo >= rlo && hi <= rhi ? "reproduces" : hi < rlo || lo > rhi ? "does not reproduce" : "undecided";
  return { verdict, n, ratio, lo, hi, run };
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
  for (const s of ["oltp", "analytical", "mcp-db"])
    assert.ok(claimsOf(s)?.length, `bench-scripts/studies/${s}/claims.json has no claims`);
  assert.ok(withClaims.length > 0, "no study in this build has a claims.json: the verdict pages are untested");
});

test("each verdict table matches a recomputation from the records", async () => {
  let judged = 0;
  for (const s of withClaims) {
    const resp = await page.goto(`${preview.root}reproduce/${s.name}/`);
    assert.equal(resp?.status(), 200, `/reproduce/${s.name}/`);
    const rows = await page.$$eval(`#verdicts-${s.name} tbody tr`, (trs) =>
      trs.map((tr) => {
        const rep = tr.querySelector(".replicates") as HTMLElement | null;
        return { d: { ...(tr as HTMLElement).dataset }, across: rep ? { ...rep.dataset } : undefined };
      }),
    );
    const claims = claimsOf(s.name)!;
    assert.deepEqual(
      rows.map((r) => r.d.claim),
      claims.map((c) => c.id),
      `${s.name}: rows are not the claims`,
    );
    for (const [i, c] of claims.entries()) {
      const want = expected(s.name, c);
      const row: Record<string, string | undefined> = rows[i].d;
      const across = rows[i].across;
      assert.ok(FIVE.includes(row.verdict!), `${s.name}/${c.id}: verdict "${row.verdict}" is not one of the five`);
      // The published verdict: the replicates' combination from two runs on, else the chosen run's own.
      const k = Number(across?.k ?? 0);
      assert.equal(row.basis || "run", k >= 2 ? "runs" : "run", `${s.name}/${c.id}: basis with ${k} replicates`);
      if (want.run) assert.equal(row.basis, k >= 2 ? "runs" : "run", `${s.name}/${c.id}: basis`);
      const published: Record<string, string | undefined> =
        k >= 2 ? across! : { verdict: row.runVerdict, ratio: row.runRatio, lo: row.runLo, hi: row.runHi };
      for (const f of ["verdict", "ratio", "lo", "hi"] as const)
        assert.equal(row[f], want.run ? published[f] : row[f], `${s.name}/${c.id}: published ${f}`);
      // What follows is the chosen run's own judgement, recomputed.
      const got: Record<string, string | undefined> = want.run
        ? { ...row, verdict: row.runVerdict, ratio: row.runRatio, lo: row.runLo, hi: row.runHi }
        : row;
      assert.equal(got.verdict, want.verdict, `${s.name}/${c.id}: verdict`);
      assert.equal(got.kind, c.kind, `${s.name}/${c.id}: kind`);
      // n is always paired repetitions, and the row names the one run it was judged from
      assert.equal(Number(got.n), want.n, `${s.name}/${c.id}: n (repetitions)`);
      assert.equal(got.run, want.run ?? "", `${s.name}/${c.id}: run`);
      if (want.run)
        assert.ok(
          (await page.locator(`#verdicts-${s.name} tr[data-claim="${c.id}"] a[href$="runs/${want.run}/"]`).count()) > 0,
          `${s.name}/${c.id}: links its run`,
        );
      if (want.ratio !== undefined) {
        judged++;
        assert.ok(
          Math.abs(Number(got.ratio) / want.ratio - 1) < 1e-9,
          `${s.name}/${c.id}: ratio ${got.ratio} vs ${want.ratio}`,
        );
        if (want.lo !== undefined) {
          assert.ok(want.lo > 0 && Number(got.lo) > 0, `${s.name}/${c.id}: the interval never reaches 0`);
          assert.ok(
            Math.abs(Number(got.lo) / want.lo - 1) < 1e-9,
            `${s.name}/${c.id}: interval low ${got.lo} vs ${want.lo}`,
          );
          assert.ok(
            Math.abs(Number(got.hi) / want.hi! - 1) < 1e-9,
            `${s.name}/${c.id}: interval high ${got.hi} vs ${want.hi}`,
          );
        } else {
          assert.equal(got.lo, "", `${s.name}/${c.id}: no interval below ${MIN_REPS} repetitions`);
        }
      } else assert.equal(got.ratio, "", `${s.name}/${c.id}: not measured shows no ratio`);
      const pub =
        c.published.ratio ??
        (c.better === "higher" ? c.published.a! / c.published.b! : c.published.b! / c.published.a!);
      assert.ok(Math.abs(Number(got.published) / pub - 1) < 1e-9, `${s.name}/${c.id}: published ratio`);
    }
    const chart = await page.$eval(`#verdict-chart-${s.name} svg[role=img]`, (svg) => ({
      title: svg.querySelector("title")?.textContent ?? "",
      desc: svg.querySelector("desc")?.textContent ?? "",
    }));
    assert.match(chart.title, /ratios beside samebox/);
    for (const c of claims) assert.ok(chart.desc.includes(c.id), `${s.name}: chart desc lacks ${c.id}`);
  }
  if (records.some((r) => r.source === "measured" && withClaims.some((s) => s.name === r.study)))
    assert.ok(judged > 0, "measured data exists but no claim was judged");
});

test("a published verdict that a replicate run decides otherwise on its own says so on its row", async (t) => {
  let checked = 0;
  for (const s of withClaims) {
    const resp = await page.goto(`${preview.root}reproduce/${s.name}/`);
    assert.equal(resp?.status(), 200);
    const rows = await page.$$eval(`#verdicts-${s.name} tbody tr`, (trs) =>
      trs.map((tr) => {
        const rep = tr.querySelector(".replicates") as HTMLElement | null;
        return {
          claim: (tr as HTMLElement).dataset.claim!,
          verdict: (tr as HTMLElement).dataset.verdict!,
          k: Number(rep?.dataset.k ?? 0),
          runs: (rep?.dataset.runs ?? "").split(" ").filter(Boolean),
          contrary: Number(rep?.dataset.contraryRuns ?? 0),
          text: rep?.textContent ?? "",
        };
      }),
    );
    for (const row of rows.filter((r) => r.k >= 2)) {
      const c = claimsOf(s.name)!.find((x) => x.id === row.claim)!;
      // each replicate alone, at 95 %: a decided verdict other than the published one contradicts it
      const alone = row.runs.map((id) => judgeAt(c, pairsIn(s.name, c, runs.find((m) => m.run_id === id)!), 0.05, id));
      const contrary = alone.filter(
        (x) => x.verdict !== row.verdict && x.verdict !== "undecided" && x.verdict !== "not measured",
      ).length;
      assert.equal(row.contrary, contrary, `${s.name}/${row.claim}: runs deciding otherwise alone`);
      if (contrary > 0)
        assert.match(row.text, /Alone, \d+ runs? on /, `${s.name}/${row.claim}: the row does not say so`);
      checked++;
    }
  }
  if (checked === 0) t.skip("no claim with two replicate runs in this data");
});

test("/reproduce/ and the home page state the overall result: counts equal the study pages' rows", async () => {
  const html = async (p: string) => (await fetch(`${preview.root}${p}`)).text();
  const total = Object.fromEntries(FIVE.map((v) => [v, 0])) as Record<string, number>;
  const index = await html("reproduce/");
  for (const s of withClaims) {
    const rows = [
      ...(await html(`reproduce/${s.name}/`)).matchAll(/<tr id="claim-[^"]*"[^>]* data-verdict="([^"]*)"/g),
    ];
    const counts = Object.fromEntries(FIVE.map((v) => [v, 0])) as Record<string, number>;
    for (const m of rows) {
      counts[m[1]]++;
      total[m[1]]++;
    }
    const tr = index.match(new RegExp(`<tr data-study="${s.name}" data-claims="(\\d+)" data-counts="([^"]*)"`));
    assert.ok(tr, `/reproduce/ has no row for ${s.name}`);
    assert.equal(Number(tr![1]), rows.length, `${s.name}: claims on /reproduce/`);
    assert.deepEqual(JSON.parse(tr![2].replaceAll("&quot;", '"')), counts, `${s.name}: counts on /reproduce/`);
  }
  const claims = Object.values(total).reduce((a, b) => a + b, 0);
  for (const p of ["", "reproduce/"]) {
    const m = (await html(p)).match(/class="verdict-summary" data-claims="(\d+)" data-counts="([^"]*)"/);
    assert.ok(m, `${p || "home"}: no one-line result`);
    assert.equal(Number(m![1]), claims, `${p || "home"}: claims counted`);
    assert.deepEqual(JSON.parse(m![2].replaceAll("&quot;", '"')), total, `${p || "home"}: counts`);
  }
});

test("the home page opens with the verdicts per study, one chart each, counts matching the tables", async () => {
  await page.goto(preview.root);
  const firstH2 = await page.$eval("main h2", (h) => h.textContent);
  assert.equal(firstH2, "Does it reproduce?");
  for (const s of withClaims) {
    const claims = claimsOf(s.name)!;
    // the published verdicts, each checked against the recomputation by the test above
    const published = await (await fetch(`${preview.root}reproduce/${s.name}/`)).text();
    const verdicts = [...published.matchAll(/<tr id="claim-[^"]*"[^>]* data-verdict="([^"]*)"/g)].map((m) => m[1]);
    assert.equal(verdicts.length, claims.length, `${s.name}: one verdict per claim on /reproduce/${s.name}/`);
    const counts = new Map<string, number>();
    for (const v of verdicts) counts.set(v, (counts.get(v) ?? 0) + 1);
    const shown = await page.$$eval(`.verdict-cards li[data-study="${s.name}"] .verdict-counts [data-kind]`, (els) =>
      els.map((e) => [(e as HTMLElement).dataset.kind!, Number((e as HTMLElement).dataset.count)] as [string, number]),
    );
    assert.deepEqual(new Map(shown), counts, `${s.name}: home counts`);
    const svg = await page.$eval(`#home-verdicts-${s.name} svg[role=img]`, (e) => ({
      t: e.querySelector("title")?.textContent ?? "",
      d: e.querySelector("desc")?.textContent ?? "",
    }));
    assert.ok(svg.t.length > 0 && svg.d.length > 0, `${s.name}: home chart lacks title/desc`);
  }
});

test("the verdict charts (home cards and reproduce pages) label each claim by its two systems, not by its id", async (t) => {
  if (!withClaims.length) return t.skip("no study with claims");
  const raw = JSON.parse(
    readFileSync(
      path.join(
        process.env.SAMEBOX_SITE_DIR
          ? path.resolve(repoRoot, process.env.SAMEBOX_SITE_DIR)
          : path.join(repoRoot, "site"),
        "src/generated/studies.json",
      ),
      "utf8",
    ),
  );
  const labelOf = new Map<string, string>(
    (raw.systems ?? []).map((x: { name: string; label: string }) => [x.name, x.label]),
  );
  const sv = (x: Side) => [x.server, x.variant].filter(Boolean).join("-");
  const side = (x: Side) => `${labelOf.get(x.system) ?? x.system}${sv(x) ? ` ${sv(x)}` : ""}`;
  let checked = 0;
  for (const s of withClaims) {
    const claims = claimsOf(s.name)!;
    for (const [where, sel] of [
      ["", `#home-verdicts-${s.name}`],
      // the verdict chart only: the forest plots below it label their rows by run
      [`reproduce/${s.name}/`, `#verdict-chart-${s.name}`],
    ] as const) {
      await page.goto(`${preview.root}${where}`);
      const ticks = await page.$$eval(`${sel} svg [aria-label="y-axis tick label"] text`, (ts) =>
        ts.map((x) => x.textContent ?? ""),
      );
      assert.equal(
        ticks.length,
        claims.length,
        `/${where} ${s.name}: ${ticks.length} labels for ${claims.length} claims`,
      );
      for (const [i, c] of claims.entries()) {
        assert.notEqual(ticks[i], c.id, `/${where} ${s.name}: claim ${c.id} labelled by its id`);
        // "<a> ÷ <b>, …", cut at 44 characters with "…"
        const want = `${side(c.a)} ÷ ${side(c.b)}, `;
        assert.ok(
          ticks[i].startsWith(want.slice(0, Math.min(want.length, 43))),
          `/${where} ${s.name} ${c.id}: label "${ticks[i]}" does not start "${want}"`,
        );
        assert.ok(ticks[i].length <= 48, `/${where} ${s.name} ${c.id}: label "${ticks[i]}" is long`);
        checked++;
      }
      assert.equal(new Set(ticks).size, ticks.length, `/${where} ${s.name}: two claims share a label`);
    }
  }
  assert.ok(checked > 0);
});
