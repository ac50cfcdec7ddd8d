// The exact two-look boundary (pipeline/lib/group-sequential.ts) against published constants and a simulation.
import assert from "node:assert/strict";
import test from "node:test";
import jstat from "jstat";
import { continueThenReject, lookTwoNominalLevel } from "../lib/group-sequential.ts";

test("Pocock's two-look constant: equal nominal levels 0.0294 at t = 1/2 spend 5 % in all", () => {
  // Pocock (Biometrika 64(2), 1977), Table 1, K = 2, alpha = 0.05: c = 2.178, a nominal 0.0294 at each look
  const level = lookTwoNominalLevel(0.0294, 0.05 - 0.0294, 0.5);
  assert.ok(Math.abs(level - 0.0294) < 3e-4, String(level));
});

test("independent looks (rho 0): P(|Z1| < c1, |Z2| >= c2) is the product of the two normal tails", () => {
  // c1 = 1.96 (95 % inside), c2 = 1.96 (5 % outside): 0.95 · 0.05
  assert.ok(Math.abs(continueThenReject(1.959964, 1.959964, 0) - 0.95 * 0.05) < 1e-6);
});

test("look 2's nominal level lies between alpha2 (union bound) and alpha, and grows with the correlation", () => {
  const a1 = 0.0424;
  const a2 = 0.05 - a1;
  const at79 = lookTwoNominalLevel(a1, a2, 7 / 9);
  const at510 = lookTwoNominalLevel(a1, a2, 5 / 10);
  assert.ok(at79 > a2 && at79 < 0.05, String(at79));
  assert.ok(at79 > at510, "more shared repetitions, more correlation, a larger nominal level");
  assert.equal(lookTwoNominalLevel(a1, 0, 0.5), 0);
  assert.throws(() => lookTwoNominalLevel(a1, a2, 1), /information fraction must lie in \(0, 1\), got 1/);
});

test("simulated: two looks at the plan's levels reject a true null about 5 % of the time", () => {
  // 7 then 9 standard normal observations; z statistics with known variance; seeded mulberry32 for repeatability
  let seed = 12345;
  const u = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let r = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return (((r ^ (r >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const gauss = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  const a1 = 0.05 * Math.log(1 + (Math.E - 1) * (7 / 9));
  const c1 = jstat.normal.inv(1 - a1 / 2, 0, 1);
  const c2 = jstat.normal.inv(1 - lookTwoNominalLevel(a1, 0.05 - a1, 7 / 9) / 2, 0, 1);
  let rejected = 0;
  const trials = 40000;
  for (let t = 0; t < trials; t++) {
    let sum = 0;
    for (let i = 0; i < 7; i++) sum += gauss();
    if (Math.abs(sum / Math.sqrt(7)) >= c1) {
      rejected++;
      continue;
    }
    sum += gauss() + gauss();
    if (Math.abs(sum / 3) >= c2) rejected++;
  }
  const rate = rejected / trials;
  assert.ok(rate > 0.0465 && rate < 0.0535, `type I error ${rate}`);
});
