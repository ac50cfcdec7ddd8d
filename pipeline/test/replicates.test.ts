// A claim judged from all its replicates (pipeline/lib/replicates.ts), on synthetic runs whose answer is known:
// one run gives its own Student-t interval; the interval widens as the runs spread; the prediction interval
// needs three runs; which runs are one experiment; host types deciding opposite ways; leave-one-out coverage
// near its level when the model holds and far below it when the between-run spread is ignored.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  claimReplicates,
  combine,
  experimentsDisagree,
  hostType,
  leaveOneOut,
  runEstimate,
  settingsDiff,
  settingsKey,
  type RunEstimate,
} from "../lib/replicates.ts";
import { judgeClaim, judgeLogInterval } from "../lib/verdicts.ts";
import { claim, pairs } from "./verdict-fixtures.ts";

const est = (y: number, se: number, host = "h", n = 7): RunEstimate => ({ run_id: `r${y}`, host, y, se, n });

test("one run: the combined interval is that run's own Student-t interval, and its verdict the same", () => {
  const c = claim({ kind: "ordering" });
  const samples = pairs(7, 1.3, 0.05);
  const e = runEstimate(c, samples, "r1", "h")!;
  const one = combine([e]);
  const own = judgeClaim(c, samples, { level: 0.05 });
  assert.ok(Math.abs(Math.exp(one.m - one.h) - own.lo!) < 1e-12 && Math.abs(Math.exp(one.m + one.h) - own.hi!) < 1e-12);
  assert.equal(judgeLogInterval(c, { n: 1, m: one.m, h: one.h, level: 0.05 }).verdict, own.verdict);
  assert.equal(one.predH, undefined, "no prediction interval from one run");
});

test("the combined interval widens as the runs spread; τ² is 0 when they agree within their errors", () => {
  const agree = combine([est(0.2, 0.02), est(0.21, 0.02), est(0.19, 0.02), est(0.2, 0.02)]);
  const spread = combine([est(0.1, 0.02), est(0.3, 0.02), est(0.15, 0.02), est(0.25, 0.02)]);
  assert.equal(agree.tau2, 0);
  assert.ok(spread.tau2 > 0.004, `τ² ${spread.tau2}`);
  assert.ok(spread.h > 3 * agree.h, `${spread.h} vs ${agree.h}`);
  assert.ok(spread.predH! > spread.h, "a new run is less certain than the mean");
});

test("one experiment: the same settings without the warm-up keys, at the same concurrency; a host type per CPU model and kernel", () => {
  const a = settingsKey({ SB_TABLES: 4, DURATION: 3, WARMUP: 2, WARMUP_MAX: 10, STEADY_TOL: 0.1 }, [8, 8]);
  assert.equal(a, settingsKey({ DURATION: 3, SB_TABLES: 4, WARMUP: 5 }, [8]));
  assert.notEqual(a, settingsKey({ SB_TABLES: 4, DURATION: 6 }, [8]), "another duration is another experiment");
  assert.notEqual(a, settingsKey({ SB_TABLES: 4, DURATION: 3 }, [16]));
  assert.equal(hostType({ cpu_model: "AMD EPYC", kernel: "6.18.44-fc-v595" }), "AMD EPYC, kernel 6.18.44-fc-v595");
});

test("two host types deciding opposite ways: each host's own combination decides, the pooled one does not", () => {
  const c = claim({ kind: "ordering" });
  const hostA = [est(0.3, 0.03, "A"), est(0.32, 0.03, "A"), est(0.28, 0.03, "A")];
  const hostB = [est(-0.3, 0.03, "B"), est(-0.28, 0.03, "B"), est(-0.32, 0.03, "B")];
  const judge = (x: ReturnType<typeof combine>) =>
    judgeLogInterval(c, { n: x.k, m: x.m, h: x.h, level: x.level }).verdict;
  assert.equal(judge(combine(hostA)), "reproduces");
  assert.equal(judge(combine(hostB)), "does not reproduce");
  assert.equal(judge(combine([...hostA, ...hostB])), "undecided");
  assert.deepEqual(combine([...hostA, ...hostB]).hosts, ["A", "B"]);
});

test("leave one run out: near 95 % when runs differ as the model says, far below when the within-run error is all that is counted", () => {
  // deterministic pseudo-random normal draws (Box-Muller on a fixed LCG)
  let seed = 12345;
  const u = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return (seed + 0.5) / 2147483648;
  };
  const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const claims: RunEstimate[][] = Array.from({ length: 60 }, () =>
    Array.from({ length: 6 }, (_, i) => est(0.1 + 0.08 * normal() + 0.02 * normal(), 0.02, "h", 7 + i)),
  );
  const model = leaveOneOut(claims);
  const within = leaveOneOut(claims, { withinOnly: true });
  assert.equal(model.cases, 360);
  assert.ok(model.inside / model.cases > 0.9, `model coverage ${model.inside}/${model.cases}`);
  assert.ok(within.inside / within.cases < 0.5, `within-only coverage ${within.inside}/${within.cases}`);
});

test("a claim's other experiments: runs under other settings are combined apart, named by the settings that differ", () => {
  const c = claim({ kind: "ordering" });
  const run = (id: string, scale: number) => ({
    run_id: id,
    status: "complete",
    machine: { cpu_model: "AMD EPYC", kernel: "k1" },
    config: { studies: { s: { env: { SCALE: scale, DURATION: 3, WARMUP: 1 } } } },
  });
  const runs = [run("big1", 1), run("small2", 0.01), run("small1", 0.01), run("tiny", 0.001)];
  const counted = runs.flatMap((m) =>
    ["a", "b"].map((system) => ({ run_id: m.run_id, study: "s", workload: "w", system, concurrency: 8 })),
  );
  // the small runs say a is 1.3x b, the big one 3x; "tiny" has too few repetitions to be a replicate
  const samplesOf = (m: { run_id: string }) =>
    m.run_id === "tiny" ? pairs(3, 2, 0.05) : pairs(7, m.run_id === "big1" ? 3 : 1.3, 0.05);
  const rep = claimReplicates(c, "s", runs[0], runs, counted, samplesOf, 5)!;
  assert.deepEqual(
    rep.runs.map((r) => r.run_id),
    ["big1"],
  );
  assert.equal(rep.others.length, 1, "tiny is no replicate, so only one other experiment");
  const other = rep.others[0];
  assert.deepEqual(
    other.runs.map((r) => r.run_id),
    ["small2", "small1"],
  );
  assert.deepEqual(other.differs, [{ key: "SCALE", here: "1", there: "0.01" }]);
  assert.ok(experimentsDisagree(rep.combined!, other.combined), "3x against 1.3x, both tight");
  assert.equal(experimentsDisagree(other.combined, other.combined), false);
});

test("two experiments disagree only beyond both intervals: |m1 - m2| > sqrt(h1^2 + h2^2)", () => {
  const x = { k: 2, hosts: ["h"], m: 0, h: 0.3, level: 0.05, tau2: 0 };
  assert.equal(experimentsDisagree(x, { ...x, m: 0.4, h: 0.3 }), false, "0.4 < sqrt(0.18)");
  assert.equal(experimentsDisagree(x, { ...x, m: 0.43, h: 0.3 }), true, "0.43 > sqrt(0.18)");
  assert.deepEqual(settingsDiff("A=1 B=2 concurrency=8", "A=1 C=3 concurrency=16"), [
    { key: "B", here: "2", there: "unset" },
    { key: "C", here: "unset", there: "3" },
    { key: "concurrency", here: "8", there: "16" },
  ]);
});
