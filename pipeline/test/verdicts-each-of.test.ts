// pipeline/lib/verdicts.ts on claims about each of several workloads (claims.json each_of), on synthetic
// paired repetitions whose answer is known.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  claimSides,
  judgeClaim,
  judgeSequentialClaim,
  pairedRepetitions,
  pairedSamples,
  twoLookPlan,
  type PairedSample,
} from "../lib/verdicts.ts";
import type { Claim } from "../schema/types.ts";
import { claim, pairs, rec } from "./verdict-fixtures.ts";

// ---- A claim about each of several workloads (claims.json each_of): intersection-union for "holds",
// Bonferroni over the workloads for "fails" (pipeline/lib/verdicts.ts judgeEach).

const each = (over: Partial<Claim> = {}) => claim({ workload: "each", each_of: ["w1", "w2", "w3"], ...over });
/** Per workload, n paired repetitions at that workload's ratio. */
function eachPairs(ratios: Record<string, [number, number]>, n = 6): PairedSample[] {
  return Object.entries(ratios).flatMap(([w, [r, jitter]]) => pairs(n, r, jitter).map((s) => ({ ...s, workload: w })));
}

test("each-of claim: holds only when every workload's interval is above 1; the weakest workload's figures are shown", () => {
  const j = judgeClaim(each(), eachPairs({ w1: [3, 0.02], w2: [1.3, 0.02], w3: [10, 0.05] }));
  assert.equal(j.verdict, "reproduces", j.why);
  assert.ok(Math.abs(j.ratio! / 1.3 - 1) < 0.01, "the weakest workload (w2) is the one shown");
  assert.deepEqual(
    j.members!.map((m) => [m.workload, m.verdict]),
    [
      ["w1", "reproduces"],
      ["w2", "reproduces"],
      ["w3", "reproduces"],
    ],
  );
  assert.match(j.why, /all 3 workloads/);
});

test("each-of claim: one workload clearly lost refutes it; a tie on one refutes it; the refuting workload is named", () => {
  const lost = judgeClaim(each(), eachPairs({ w1: [3, 0.02], w2: [0.7, 0.02], w3: [10, 0.05] }));
  assert.equal(lost.verdict, "does not reproduce", lost.why);
  assert.match(lost.why, /fails on 1 of 3 workloads.*w2/);
  assert.ok(lost.ratio! < 1);
  const tied = judgeClaim(each(), eachPairs({ w1: [3, 0.02], w2: [1.0, 0.005], w3: [10, 0.05] }));
  assert.equal(tied.verdict, "does not reproduce", tied.why);
  assert.match(tied.why, /w2 \(tie/);
});

test("each-of claim: a refutation is judged at alpha / k (Bonferroni), a confirmation at alpha (intersection-union)", () => {
  // w2's loss is significant at 5 % but not at 5 % / 3: the claim cannot be refuted, nor confirmed
  const w2 = pairs(6, 0.9, 0.08).map((s) => ({ ...s, workload: "w2" }));
  const single = judgeClaim(claim({ workload: "w2" }), w2);
  const strict = judgeClaim(claim({ workload: "w2" }), w2, { level: 0.05 / 3 });
  assert.equal(single.verdict, "does not reproduce", single.why);
  assert.equal(strict.verdict, "undecided", strict.why);
  const j = judgeClaim(each(), [...eachPairs({ w1: [3, 0.02], w3: [10, 0.05] }), ...w2]);
  assert.equal(j.verdict, "undecided", j.why);
  assert.match(j.why, /holds on 2 of 3 workloads; not yet decided on w2/);
  assert.ok(
    j.moreRepetitions! >= 1 && j.sdLog! > 0,
    "an undecided each-of claim says how far it is from deciding (the runner's look-2 projection reads it)",
  );
});

test("each-of claim: a workload measured on one side only makes it not measured; pairedRepetitions counts the fewest", () => {
  const s = eachPairs({ w1: [3, 0.02], w2: [2, 0.02] });
  const j = judgeClaim(each(), s);
  assert.equal(j.verdict, "not measured", j.why);
  assert.match(j.why, /w3/);
  assert.equal(pairedRepetitions(each(), s), 0);
  assert.equal(pairedRepetitions(each(), [...s, ...pairs(5, 2, 0.02).map((x) => ({ ...x, workload: "w3" }))]), 5);
});

test("each-of claim: pairedSamples tags each pair with its workload; claimSides lists the workloads", () => {
  const c = each({ each_of: ["w1", "w2"] });
  const rs = [
    rec("a", 1, 200, { workload: "w1" }),
    rec("b", 1, 100, { workload: "w1" }),
    rec("a", 1, 50, { workload: "w2" }),
    rec("b", 1, 100, { workload: "w2" }),
    rec("a", 1, 9, { workload: "w9" }),
  ];
  assert.deepEqual(pairedSamples(rs, c), [
    { repetition: 1, a: 200, b: 100, workload: "w1" },
    { repetition: 1, a: 50, b: 100, workload: "w2" },
  ]);
  assert.deepEqual(claimSides(c).a.workloads, ["w1", "w2"]);
});

test("each-of claim, two looks: a workload decided at look 1 keeps its verdict; the others are judged at look 2", () => {
  const plan = twoLookPlan(5, 9);
  // w1 clear at look 1; w2 straddles at look 1 with 5, decided with 9 repetitions
  const w2 = [1.02, 1.25, 1.1, 0.98, 1.2, 1.12, 1.1, 1.14, 1.11].map((r, i) => ({
    repetition: i + 1,
    a: 100 * r,
    b: 100,
    workload: "w2",
  }));
  const s = [...pairs(5, 3, 0.02).map((x) => ({ ...x, workload: "w1" })), ...w2];
  const j = judgeSequentialClaim(each({ each_of: ["w1", "w2"] }), s, plan);
  assert.equal(j.members!.find((m) => m.workload === "w1")!.verdict, "reproduces");
  assert.equal(j.look, 2);
  assert.equal(j.verdict, "reproduces", j.why);
});
