// Many claims at once (pipeline/lib/fdr.ts): Benjamini–Hochberg's step-up on p-values whose answer is known,
// and a verdict's decision p-value, which is 0.05 exactly where its interval touches the bound it rests on.
import { test } from "node:test";
import assert from "node:assert/strict";
import { benjaminiHochberg, bhCutoff, decisionP } from "../lib/fdr.ts";
import { judgeClaim, judgeLogInterval } from "../lib/verdicts.ts";
import { tQuantile } from "../lib/stats.ts";
import { claim, pairs } from "./verdict-fixtures.ts";

test("BH keeps up to the largest k with p(k) <= k q / m (step-up), and ignores what was not tested", () => {
  // thresholds 0.0125, 0.025, 0.0375, 0.05: 0.04 misses its 0.0375
  assert.deepEqual(benjaminiHochberg([0.02, 0.5, 0.001, 0.04]), [true, false, true, false]);
  // step-up: p(1) = 0.04 misses 0.025, but p(2) = 0.04 <= 0.05 keeps both
  assert.deepEqual(benjaminiHochberg([0.04, 0.04]), [true, true]);
  assert.deepEqual(benjaminiHochberg([0.02, undefined, 0.06]), [true, false, false]);
  assert.deepEqual(benjaminiHochberg([0.2, 0.3]), [false, false]);
  assert.equal(bhCutoff([0.02, 0.5, 0.001, 0.04]), 0.02);
  // one test: BH is the test's own 5 % rule
  assert.deepEqual(benjaminiHochberg([0.049]), [true]);
  assert.deepEqual(benjaminiHochberg([0.051]), [false]);
});

test("a decision's p is 0.05 where its interval touches its bound, at 0.05 or at a look's own level", () => {
  const ordering = claim({ kind: "ordering" });
  for (const level of [0.05, 0.0294]) {
    const h = 0.1;
    const p = decisionP(ordering, "reproduces", { m: h, h, level, df: 6 })!;
    assert.ok(Math.abs(p - 0.05) < 1e-9, `level ${level}: p ${p}`);
  }
  // a size claim's interval inside its band: the nearer bound decides
  const size = claim({ kind: "size", size: { ratio: 4, tolerance: 0.5 } });
  const se = 0.02;
  const m = Math.log(4 * 1.5) - 3 * se; // 3 standard errors below the upper bound, far from the lower
  const p = decisionP(size, "reproduces", {
    m,
    h: tQuantile(0.975, 9) * se,
    level: 0.05,
    df: 9,
  })!;
  assert.ok(p > 0.01 && p < 0.02, `p ${p}`);
});

test("a decided judgement has p <= 0.05 and an undecided one p > 0.05, for real paired samples", () => {
  const c = claim({ kind: "ordering" });
  for (const [n, r, sd] of [
    [7, 1.3, 0.05],
    [5, 1.02, 0.05],
    [6, 0.8, 0.1],
  ] as const) {
    const j = judgeClaim(c, pairs(n, r, sd));
    const p = decisionP(c, j.verdict, {
      m: Math.log(j.ratio!),
      h: Math.log(j.hi! / j.ratio!),
      level: j.level!,
      df: n - 1,
    })!;
    assert.equal(p <= 0.05, j.verdict !== "undecided", `${n} × ${r} ± ${sd}: ${j.verdict}, p ${p}`);
  }
  // the tie verdict rests on the tie margin
  const t = judgeLogInterval(c, { n: 8, m: 0.001, h: 0.01, level: 0.05 });
  assert.equal(t.verdict, "tie");
  assert.ok(decisionP(c, "tie", { m: 0.001, h: 0.01, level: 0.05, df: 7 })! < 0.001);
});
