// The nominal level of the second of two looks, given the alpha each look spends (verdicts.ts twoLookPlan).
//
// Spending alpha2 at look 2 means: the chance of a false decision *at look 2 and not before* is alpha2. The
// two looks' statistics share the first n1 repetitions, so they are correlated: in the canonical joint
// distribution of a group-sequential test, Z1 and Z2 are standard normal with correlation sqrt(n1 / n2)
// (Jennison & Turnbull, "Group Sequential Methods with Applications to Clinical Trials", Chapman & Hall
// 2000, §3.1 and §7.2; Lan & DeMets, Biometrika 70(3), 1983). The critical value c2 therefore solves
//   P(|Z1| < c1, |Z2| >= c2) = alpha2,   c1 = Φ⁻¹(1 − alpha1 / 2),
// and look 2's nominal two-sided level is 2·(1 − Φ(c2)), larger than alpha2 itself (which the union bound
// used). With few repetitions the intervals use Student t at that nominal level: the "significance level
// approach" of Jennison & Turnbull §3.8, which keeps the error rate close to the target for small samples.
//
// The probability is a one-dimensional integral over Z1 of the conditional normal law of Z2, computed by
// composite Simpson's rule; c2 is found by bisection (the probability falls as c2 grows).
import jstat from "jstat";

const { normal } = jstat;
const phi = (x: number): number => normal.pdf(x, 0, 1);
const Phi = (x: number): number => normal.cdf(x, 0, 1);

/** P(|Z1| < c1, |Z2| >= c2) for standard normals with correlation rho (0 <= rho < 1). */
export function continueThenReject(c1: number, c2: number, rho: number, steps = 400): number {
  const s = Math.sqrt(1 - rho * rho);
  const f = (z: number): number => phi(z) * (Phi((-c2 - rho * z) / s) + 1 - Phi((c2 - rho * z) / s));
  const h = (2 * c1) / steps;
  let sum = f(-c1) + f(c1);
  for (let i = 1; i < steps; i++) sum += f(-c1 + i * h) * (i % 2 === 1 ? 4 : 2);
  return (sum * h) / 3;
}

/**
 * Look 2's nominal two-sided level when look 1 spent alpha1 and look 2 spends alpha2, at information fraction
 * t = n1 / n2 (0 < t < 1). Returns 0 when alpha2 is 0.
 */
export function lookTwoNominalLevel(alpha1: number, alpha2: number, t: number): number {
  if (alpha2 <= 0) return 0;
  if (!(t > 0 && t < 1)) throw new Error(`information fraction must lie in (0, 1), got ${t}`);
  const c1 = normal.inv(1 - alpha1 / 2, 0, 1);
  const rho = Math.sqrt(t);
  let lo = 0;
  let hi = 10;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (continueThenReject(c1, mid, rho) > alpha2) lo = mid;
    else hi = mid;
  }
  return 2 * (1 - Phi((lo + hi) / 2));
}
