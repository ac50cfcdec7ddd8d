// pipeline/lib/verdicts.ts on synthetic records whose answer is known: each of the five verdicts, a size
// outside its tolerance, a threshold met, lo > 0 always, the "*" workload's per-repetition mean, and the
// pairing (a tool's several values per repetition count once, the highest common concurrency).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  claimRegion,
  claimSides,
  judgeClaim,
  judgeSequentialClaim,
  lookTwoCouldDecide,
  lookTwoLevel,
  pairedSamples,
  pocockSpent,
  twoLookPlan,
  type PairedSample,
} from "../lib/verdicts.ts";
import { chooseRun, countedRecords, scaleShortfall, studyEnvOf } from "../lib/claim-run.ts";
import { tQuantile } from "../lib/stats.ts";
import type { Claim, ResultRecord } from "../schema/types.ts";

import { claim, pairs, rec } from "./verdict-fixtures.ts";

test("a clear win reproduces, with a geometric-mean ratio and a positive interval around it", () => {
  const j = judgeClaim(claim(), pairs(6, 1.5, 0.02));
  assert.equal(j.verdict, "reproduces", j.why);
  assert.equal(j.n, 6);
  assert.ok(Math.abs(j.ratio! / 1.5 - 1) < 0.01);
  assert.ok(j.lo! > 1 && j.hi! > j.ratio! && j.lo! < j.ratio!);
  assert.ok(
    Math.abs(j.hi! / j.ratio! - 1 - j.relHalfWidth!) < 1e-12 &&
      Math.abs(j.ratio! / j.lo! - 1 - j.relHalfWidth!) < 1e-12,
  );
  assert.match(j.why, /where the claim holds/);
});

test("a clear loss does not reproduce; lower-is-better orients the ratio b ÷ a", () => {
  assert.equal(judgeClaim(claim(), pairs(5, 0.6, 0.02)).verdict, "does not reproduce");
  // a's latency is half b's: a is 2× better
  const j = judgeClaim(claim({ better: "lower", metric: "latency_p95" }), pairs(5, 0.5, 0.02));
  assert.equal(j.verdict, "reproduces");
  assert.ok(Math.abs(j.ratio! - 2) < 0.01);
});

test("a tie: the whole interval within 5 % of 1, and it takes precedence over a tiny significant win", () => {
  const j = judgeClaim(claim(), pairs(8, 1.01, 0.002));
  assert.ok(j.lo! > 1, "the win is significant");
  assert.equal(j.verdict, "tie", j.why);
  assert.equal(judgeClaim(claim(), pairs(8, 0.99, 0.002)).verdict, "tie");
  // ties are for orderings only: a threshold at 1 is simply met
  assert.equal(
    judgeClaim(claim({ kind: "threshold", threshold: { min: 1 } }), pairs(8, 1.01, 0.002)).verdict,
    "reproduces",
  );
  // a wider margin makes a larger lead a tie
  assert.equal(judgeClaim(claim(), pairs(8, 1.08, 0.002)).verdict, "reproduces");
  assert.equal(judgeClaim(claim(), pairs(8, 1.08, 0.002), { tieMargin: 0.1 }).verdict, "tie");
});

test("undecided: the interval straddles 1; says its half-width and about how many more repetitions would decide", () => {
  const j = judgeClaim(claim(), pairs(5, 1.1, 0.2));
  assert.equal(j.verdict, "undecided", j.why);
  assert.ok(j.lo! < 1 && j.hi! > 1);
  assert.ok(j.relHalfWidth! > 0.1);
  assert.ok(j.moreRepetitions! >= 1, String(j.moreRepetitions));
  // n·(h/needed)² − n with h the log half-width and needed |ln ratio| (the estimate lies beyond the tie margin)
  const h = Math.log(1 + j.relHalfWidth!);
  assert.equal(j.moreRepetitions, Math.ceil(5 * (h / Math.log(j.ratio!)) ** 2 - 5));
  assert.match(j.why, /half-width .* more repetitions? would decide/);
  // with that many repetitions of the same spread, the claim is decided
  assert.equal(judgeClaim(claim(), pairs(5 + j.moreRepetitions! + 4, 1.1, 0.2)).verdict, "reproduces");
});

test("fewer than 5 paired repetitions: undecided without an interval, saying n of 5", () => {
  const j = judgeClaim(claim(), pairs(3, 3, 0.01));
  assert.equal(j.verdict, "undecided");
  assert.equal(j.lo, undefined);
  assert.equal(j.hi, undefined);
  assert.ok(Math.abs(j.ratio! / 3 - 1) < 0.01);
  assert.equal(j.moreRepetitions, 2);
  assert.match(j.why, /^3 of 5 repetitions/);
  assert.equal(judgeClaim(claim(), pairs(3, 3, 0.01), { minRepetitions: 3 }).verdict, "reproduces");
});

test("a size outside its tolerance does not reproduce; inside it reproduces; a threshold met reproduces", () => {
  // idle memory: the seed says 3.5× (tolerance 0.25: 2.8× to 4.375×); we measure 1.35×
  const size = claim({ kind: "size", size: { ratio: 3.5, tolerance: 0.25 }, better: "lower", metric: "mem_idle" });
  assert.deepEqual(claimRegion(size), { lo: 2.8, hi: 4.375 });
  assert.equal(judgeClaim(size, pairs(5, 1 / 1.35, 0.02)).verdict, "does not reproduce");
  assert.equal(judgeClaim(size, pairs(5, 1 / 3.4, 0.02)).verdict, "reproduces");
  // also outside above: 6× is not "about 3.5×"
  assert.equal(judgeClaim(size, pairs(5, 1 / 6, 0.02)).verdict, "does not reproduce");
  // Rust needs less than half of Go's memory: Go ÷ Rust ≥ 2 (lower is better, a = rust)
  const thr = claim({ kind: "threshold", threshold: { min: 2 }, better: "lower", metric: "server_rss_avg" });
  assert.equal(judgeClaim(thr, pairs(5, 1 / 2.4, 0.02)).verdict, "reproduces");
  assert.equal(
    judgeClaim(thr, pairs(5, 1 / 1.37, 0.02)).verdict,
    "does not reproduce",
    "1.37× is a win but not a factor 2",
  );
  const thrMax = claim({ kind: "threshold", threshold: { max: 0.5 } });
  assert.equal(judgeClaim(thrMax, pairs(5, 0.3, 0.02)).verdict, "reproduces");
  assert.equal(judgeClaim(thrMax, pairs(5, 0.7, 0.02)).verdict, "does not reproduce");
});

test("lo > 0 always, even when one side is near 0 in one repetition", () => {
  const s: PairedSample[] = [
    { repetition: 1, a: 1e-6, b: 100 },
    ...pairs(5, 2, 0.1).map((p) => ({ ...p, repetition: p.repetition + 1 })),
  ];
  const j = judgeClaim(claim(), s);
  assert.ok(j.lo! > 0 && Number.isFinite(j.hi!), `${j.lo}–${j.hi}`);
  for (const k of [2, 5, 8, 20])
    for (const r of [0.01, 1, 100]) {
      const jj = judgeClaim(claim(), pairs(k, r, 0.5), { minRepetitions: 2 });
      assert.ok(jj.lo! > 0 && jj.lo! < jj.hi!, `${k} ${r}`);
    }
});

test("a missing side is not measured", () => {
  const rs = [rec("a", 1, 10), rec("a", 2, 11), rec("c", 1, 5)];
  const s = pairedSamples(rs, claim());
  assert.deepEqual(s, []);
  const j = judgeClaim(claim(), s);
  assert.equal(j.verdict, "not measured");
  assert.equal(j.n, 0);
});

test("alpha-spending: more looks widen each look's interval (Bonferroni, alpha / looks)", () => {
  const p = pairs(6, 1.3, 0.1);
  const one = judgeClaim(claim(), p);
  const four = judgeClaim(claim(), p, { looks: 4 });
  assert.ok(four.hi! > one.hi! && four.lo! < one.lo!);
  const d = p.map((x) => Math.log(x.a / x.b));
  const m = d.reduce((a, b) => a + b, 0) / d.length;
  const sd = Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / (d.length - 1));
  assert.ok(Math.abs(Math.log(four.hi!) - m - (tQuantile(1 - 0.05 / 8, 5) * sd) / Math.sqrt(6)) < 1e-9);
  assert.ok(Math.abs(Math.log(one.hi!) - m - (2.570582 * sd) / Math.sqrt(6)) < 1e-5);
});

test("pairedSamples pairs by repetition; a repetition's several values count as their median; the highest common concurrency", () => {
  const rs = [
    rec("a", 1, 10),
    rec("a", 1, 14),
    rec("a", 2, 12),
    rec("a", 3, 9),
    // one slow run among three: the median (11), not the mean (27)
    rec("a", 4, 10),
    rec("a", 4, 60),
    rec("a", 4, 11),
    rec("b", 4, 5),
    rec("b", 1, 6),
    rec("b", 2, 6),
    rec("b", 2, 8),
    // concurrency 8 only on a: not comparable; concurrency 1 on both but lower than 4
    rec("a", 1, 99, { concurrency: 8 }),
    rec("a", 1, 1, { concurrency: 1 }),
    rec("b", 1, 1, { concurrency: 1 }),
    // another metric, another workload, a series record: ignored
    rec("a", 1, 1000, { metric: "qps" }),
    rec("b", 1, 1000, { workload: "v" }),
    rec("a", 2, 5000, { t: 3 } as Partial<ResultRecord>),
  ];
  assert.deepEqual(pairedSamples(rs, claim()), [
    { repetition: 1, a: 12, b: 6 },
    { repetition: 2, a: 12, b: 7 },
    { repetition: 4, a: 11, b: 5 },
  ]);
  // a pinned concurrency is honoured
  assert.deepEqual(
    pairedSamples(rs, claim({ a: { system: "a", concurrency: 1 }, b: { system: "b", concurrency: 1 } })),
    [{ repetition: 1, a: 1, b: 1 }],
  );
  // variants: the first by name, unless pinned
  const vs = [
    rec("a", 1, 5, { variant: "hot" }),
    rec("a", 1, 7, { variant: "cold" }),
    rec("b", 1, 1, { variant: "hot" }),
  ];
  assert.deepEqual(pairedSamples(vs, claim()), [{ repetition: 1, a: 7, b: 1 }]);
  assert.deepEqual(pairedSamples(vs, claim({ a: { system: "a", variant: "hot" } })), [{ repetition: 1, a: 5, b: 1 }]);
});

test('workload "*": per repetition, the mean over the workloads both sides measured, never pooled across repetitions', () => {
  const c = claim({ workload: "*", metric: "mem_idle", better: "lower" });
  const rs = [
    rec("a", 1, 100, { workload: "w1", metric: "mem_idle" }),
    rec("a", 1, 200, { workload: "w2", metric: "mem_idle" }),
    rec("a", 1, 900, { workload: "w3", metric: "mem_idle" }),
    rec("b", 1, 300, { workload: "w1", metric: "mem_idle" }),
    rec("b", 1, 500, { workload: "w2", metric: "mem_idle" }),
    rec("a", 2, 110, { workload: "w1", metric: "mem_idle" }),
    rec("b", 2, 330, { workload: "w1", metric: "mem_idle" }),
    rec("a", 3, 50, { workload: "w1", metric: "mem_idle" }),
  ];
  // rep 1: w3 only on a is left out; rep 3 has no b
  assert.deepEqual(pairedSamples(rs, c), [
    { repetition: 1, a: 150, b: 400 },
    { repetition: 2, a: 110, b: 330 },
  ]);
  assert.deepEqual(claimSides(c).a, { workload: "*", system: "a", metric: "mem_idle" });
});

const cell = (system: string, repetition: number, status: string, over: Record<string, unknown> = {}) => ({
  study: "s",
  workload: "w",
  system,
  variant: "",
  concurrency: 4,
  repetition,
  status,
  ...over,
});
const manifest = (run_id: string, cells: ReturnType<typeof cell>[], profile = "quick", status = "complete") => ({
  run_id,
  profile,
  status,
  cells,
});

test("a noisy cell is excluded: only records of manifest cells with status ok count", () => {
  const rs = [1, 2, 3, 4, 5].flatMap((rep) => [rec("a", rep, 200), rec("b", rep, rep === 3 ? 20 : 100)]);
  // repetition 3 of b was flagged noisy by the runner (and a failed cell's stray records never count either)
  const m = manifest(
    "r1",
    [1, 2, 3, 4, 5].flatMap((rep) => [cell("a", rep, "ok"), cell("b", rep, rep === 3 ? "noisy" : "ok")]),
  );
  const counted = countedRecords(rs, [m]);
  assert.equal(counted.length, 9);
  assert.ok(!counted.some((r) => r.system === "b" && r.repetition === 3));
  assert.deepEqual(
    pairedSamples(counted, claim()).map((p) => p.repetition),
    [1, 2, 4, 5],
  );
  // a record whose cell is not in the manifest at all does not count; nor a published figure
  assert.equal(
    countedRecords([rec("a", 9, 1), rec("a", 1, 1, { source: "published" } as Partial<ResultRecord>)], [m]).length,
    0,
  );
});

test("chooseRun: the newest run with 5 paired repetitions; never a one-sided run; never pooled", () => {
  const reps = (run: string, n: number, sides = ["a", "b"]) =>
    Array.from({ length: n }, (_, i) => sides.map((s) => rec(s, i + 1, s === "a" ? 150 : 100, { run_id: run }))).flat();
  const cellsOf = (n: number, sides = ["a", "b"]) =>
    Array.from({ length: n }, (_, i) => sides.map((s) => cell(s, i + 1, "ok"))).flat();
  const runs = [
    manifest("r4-one-sided", cellsOf(5, ["a"])),
    manifest("r3-three", cellsOf(3)),
    manifest("r2-five", cellsOf(5)),
    manifest("r1-five-older", cellsOf(5)),
  ];
  const records = countedRecords(
    [...reps("r4-one-sided", 5, ["a"]), ...reps("r3-three", 3), ...reps("r2-five", 5), ...reps("r1-five-older", 5)],
    runs,
  );
  const c = chooseRun(claim(), runs, records)!;
  assert.equal(c.run.run_id, "r2-five");
  assert.equal(c.samples.length, 5, "one run's repetitions, not pooled with r1's or r3's");
  assert.equal(c.measuredRuns, 3, "the one-sided run did not measure the claim");
  // without a run of 5: the one with the most paired repetitions (a newer one-repetition catalogue or ci run does not hide it)
  const few = [
    manifest("r6-ci", cellsOf(1), "ci"),
    manifest("r5-catalogue", cellsOf(1), "catalogue"),
    manifest("r3-three", cellsOf(3)),
    manifest("r2-three-older", cellsOf(3)),
  ];
  const fr = countedRecords(
    [...reps("r6-ci", 1), ...reps("r5-catalogue", 1), ...reps("r3-three", 3), ...reps("r2-three-older", 3)],
    few,
  );
  assert.equal(chooseRun(claim(), few, fr)!.run.run_id, "r3-three");
  // equal repetitions: the newest, a ci smoke run last
  assert.equal(chooseRun(claim(), few.slice(0, 2), fr)!.run.run_id, "r5-catalogue");
  assert.equal(judgeClaim(claim(), chooseRun(claim(), few, fr)!.samples).verdict, "undecided");
  // only a one-sided run: nothing to judge (not measured); a run still in progress is not used
  assert.equal(chooseRun(claim(), [runs[0]], records), undefined);
  assert.equal(chooseRun(claim(), [manifest("r2-five", cellsOf(5), "quick", "running")], records), undefined);
});

test("every committed claim: the seed's own figures lie where the claim holds (kinds and tolerances fit the seeds)", async () => {
  const { readdirSync, readFileSync, existsSync } = await import("node:fs");
  const path = await import("node:path");
  const { repoRoot } = await import("./helpers.ts");
  const dir = path.join(repoRoot, "bench-scripts", "studies");
  let n = 0;
  for (const st of readdirSync(dir)) {
    const f = path.join(dir, st, "claims.json");
    if (!existsSync(f)) continue;
    for (const c of JSON.parse(readFileSync(f, "utf8")).claims as Claim[]) {
      const p = c.published;
      const r = p.ratio ?? (c.better === "higher" ? p.a! / p.b! : p.b! / p.a!);
      const { lo, hi } = claimRegion(c);
      assert.ok(
        r >= lo && r <= hi,
        `${st}/${c.id}: the seed's ratio ${r} is outside its own claim's region ${lo}–${hi}`,
      );
      if (c.kind === "size")
        assert.ok(c.size!.ratio / (1 + c.size!.tolerance) > 1, `${st}/${c.id}: a size claim's band must exclude a tie`);
      n++;
    }
  }
  assert.equal(n, 47);
});

test("two-look plan: Lan–DeMets Pocock-type spending, alpha(t) = alpha·ln(1 + (e − 1)t); the looks spend alpha in all", () => {
  // alpha(5/8) = 0.05·ln(1 + 1.71828·0.625) = 0.05·ln(2.07393) = 0.036477
  const p = twoLookPlan(5, 8);
  assert.ok(Math.abs(p.alpha1 - 0.036477) < 1e-5, String(p.alpha1));
  assert.ok(Math.abs(p.alpha1 + p.alpha2 - 0.05) < 1e-15);
  assert.equal(pocockSpent(0.05, 1), 0.05);
  assert.equal(pocockSpent(0.05, 0), 0);
  // no added repetitions possible: one look at the whole alpha
  assert.deepEqual(twoLookPlan(5, 5), { base: 5, max: 5, alpha1: 0.05, alpha2: 0, exact: true });
});

test("two-look judgement: decided at look 1 stays decided; undecided at look 1 is judged at look 2 on all repetitions", () => {
  const plan = twoLookPlan(5, 10);
  // a clear win in the base repetitions, then added repetitions (for another claim) that would blur it
  const clear = [...pairs(5, 1.5, 0.05), ...pairs(5, 0.9, 0.3).map((p) => ({ ...p, repetition: p.repetition + 5 }))];
  const j = judgeSequentialClaim(claim(), clear, plan);
  assert.equal(j.look, 1);
  assert.equal(j.verdict, "reproduces");
  assert.equal(j.n, 5);
  // look 1's interval is judgeClaim's at level alpha1
  const direct = judgeClaim(claim(), clear.slice(0, 5), { level: plan.alpha1 });
  assert.equal(j.lo, direct.lo);
  // undecided at look 1 (too noisy), decided at look 2 with ten repetitions at alpha2
  const slow = [...pairs(5, 1.1, 0.2), ...pairs(5, 1.1, 0.01).map((p) => ({ ...p, repetition: p.repetition + 5 }))];
  const j1 = judgeClaim(claim(), slow.slice(0, 5), { level: plan.alpha1 });
  assert.equal(j1.verdict, "undecided");
  const j2 = judgeSequentialClaim(claim(), slow, plan);
  assert.equal(j2.look, 2);
  assert.equal(j2.n, 10);
  // look 2's level is the exact boundary's nominal level for 5 of 10 repetitions, above alpha2 (union bound)
  const level2 = lookTwoLevel(plan, 5, 10);
  assert.ok(level2 > plan.alpha2 && level2 < 0.05, String(level2));
  assert.deepEqual(
    [j2.lo, j2.hi],
    [judgeClaim(claim(), slow, { level: level2 }).lo, judgeClaim(claim(), slow, { level: level2 }).hi],
  );
  // a run recorded before the exact boundary (no `exact`) is judged at alpha2, as its runner judged it
  const old = judgeSequentialClaim(claim(), slow, { ...plan, exact: undefined });
  assert.deepEqual(
    [old.lo, old.hi],
    [judgeClaim(claim(), slow, { level: plan.alpha2 }).lo, judgeClaim(claim(), slow, { level: plan.alpha2 }).hi],
  );
  assert.ok(old.hi! > j2.hi!, "the union bound's interval is the wider one");
  // no repetition beyond the base: look 1's verdict, even undecided
  assert.equal(judgeSequentialClaim(claim(), slow.slice(0, 5), plan).look, 1);
});

test("a look's level sets the interval: level alpha1 is narrower than Bonferroni over four looks", () => {
  const p = pairs(5, 1.3, 0.1);
  const spend = judgeClaim(claim(), p, { level: twoLookPlan(5, 8).alpha1 });
  const bonf = judgeClaim(claim(), p, { looks: 4 });
  assert.ok(spend.hi! < bonf.hi! && spend.lo! > bonf.lo!);
  assert.match(spend.why, /96\.35 % interval/);
});

test("scale: a size that depends on the data size is judged only at the seed's scale", () => {
  const c = {
    ...claim(),
    kind: "threshold",
    threshold: { min: 43 },
    scale: { env: "MCPDB_SCALE", min: 1, default: 0.0002, why: "a scan grows with the table" },
  } as Claim;
  assert.match(
    scaleShortfall(c, { MCPDB_SCALE: 0.002 })!,
    /measured at MCPDB_SCALE 0\.002, below the seed's scale \(MCPDB_SCALE 1\): a scan grows/,
  );
  assert.match(
    scaleShortfall(c, undefined)!,
    /MCPDB_SCALE 0\.0002/,
    "the study's default when the profile does not set it",
  );
  assert.equal(scaleShortfall(c, { MCPDB_SCALE: "1" }), undefined);
  assert.equal(
    scaleShortfall(claim(), { MCPDB_SCALE: 0.002 }),
    undefined,
    "a claim without scale is judged at any scale",
  );
  assert.deepEqual(studyEnvOf({ config: { studies: { "mcp-db": { env: { MCPDB_SCALE: 0.002 } } } } }, "mcp-db"), {
    MCPDB_SCALE: 0.002,
  });
});

test("lookTwoCouldDecide: projects look 1's spread to the maximum at look 2's level", () => {
  const plan = twoLookPlan(5, 8);
  // 1.1× with ±20 % jitter: undecided at look 1; eight repetitions at alpha2 would still be too wide
  const wide = judgeClaim(claim(), pairs(5, 1.1, 0.2), { level: plan.alpha1 });
  assert.equal(wide.verdict, "undecided");
  assert.ok(wide.sdLog! > 0 && wide.decisiveLogHalfWidth! > 0);
  const level = lookTwoLevel(plan, 5, 8);
  assert.equal(lookTwoCouldDecide(wide, 8, level), false);
  assert.equal(lookTwoCouldDecide(wide, 400, level), true, "with enough repetitions it could");
  // a decided claim or one without an interval is never "could decide"
  assert.equal(lookTwoCouldDecide(judgeClaim(claim(), pairs(5, 1.5, 0.02)), 8, plan.alpha2), false);
  assert.equal(lookTwoCouldDecide(judgeClaim(claim(), pairs(3, 1.1, 0.2)), 8, plan.alpha2), false);
});
