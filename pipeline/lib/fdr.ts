// Many claims at once: a study judges tens of claims, each at its own 5 % error, so some decided verdicts are
// expected to be wrong by chance alone. The false discovery rate over a study's judged claims is controlled
// by the step-up procedure of Benjamini & Hochberg (JRSS B 57, 1995): with m claims judged and their p-values
// sorted p_(1) ≤ … ≤ p_(m), the decisions kept are those of the largest k with p_(k) ≤ k·q/m. It holds under
// independence and under positive regression dependence (Benjamini & Yekutieli, Annals of Statistics 29, 2001),
// which claims sharing a system and a run are expected to have.
//
// A verdict's p-value is the decision's own: the largest α at which its interval would still decide the same
// way, i.e. p = 2·(1 − T_df(d / se)) for the distance d from the estimate to the bound the decision rests on.
// A run judged at a sequential look's level (1 − α_look) has its p rescaled by 0.05 / α_look, so that every
// decided claim has p ≤ 0.05 exactly when its own rule decided it, and the procedure is run at q = 0.05.
import { tCdf, tQuantile } from "./stats.ts";
import { DEFAULT_JUDGE_OPTIONS, claimRegion, type Verdict } from "./verdicts.ts";
import type { Claim } from "../schema/types.ts";

/** The false discovery rate controlled: the same 5 % each claim is judged at. */
export const FDR_Q = DEFAULT_JUDGE_OPTIONS.alpha;

/**
 * The p-value of a decided verdict from its log-ratio interval (estimate m, half-width h at two-sided level
 * `level`, df degrees of freedom), rescaled to the 5 % rule; undecided verdicts get the same measure of how far
 * the estimate is from its nearest bound (≥ 0.05 by construction when the rule left them undecided).
 */
export function decisionP(
  claim: Claim,
  verdict: Verdict,
  iv: { m: number; h: number; level: number; df: number },
  tieMargin = DEFAULT_JUDGE_OPTIONS.tieMargin,
): number | undefined {
  const { m, h, level, df } = iv;
  if (!(h > 0) || !(df > 0) || !Number.isFinite(m)) return undefined;
  const se = h / tQuantile(1 - level / 2, df);
  const d = boundDistance(claim, verdict, m, Math.log(1 + tieMargin));
  if (d === undefined) return undefined;
  const p = 2 * (1 - tCdf(Math.abs(d) / se, df));
  return Math.min(1, p * (FDR_Q / level));
}

/** The distance from m to the bound a verdict rests on (log scale); undefined for a verdict without one. */
function boundDistance(claim: Claim, verdict: Verdict, m: number, tie: number): number | undefined {
  const r = claimRegion(claim);
  const bounds =
    claim.kind === "ordering" ? [0] : [r.lo > 0 ? Math.log(r.lo) : NaN, Math.log(r.hi)].filter(Number.isFinite);
  if (verdict === "tie") return Math.min(m + tie, tie - m);
  // inside or outside the region (or undecided): the nearest bound is the one the interval had to clear
  return bounds.length ? Math.min(...bounds.map((b) => Math.abs(m - b))) : undefined;
}

/** Benjamini–Hochberg step-up at q: for each p (undefined: not a test), whether its decision is kept. */
export function benjaminiHochberg(ps: Array<number | undefined>, q = FDR_Q): boolean[] {
  const tested = ps.map((p, i) => ({ p, i })).filter((x): x is { p: number; i: number } => x.p !== undefined);
  const m = tested.length;
  const sorted = [...tested].sort((a, b) => a.p - b.p);
  let k = 0;
  sorted.forEach((x, j) => {
    if (x.p <= ((j + 1) * q) / m) k = j + 1;
  });
  const kept = new Set(sorted.slice(0, k).map((x) => x.i));
  return ps.map((_, i) => kept.has(i));
}

/** The rank threshold BH compared a p with is k·q/m; this gives the largest p kept (0 when none is). */
export function bhCutoff(ps: Array<number | undefined>, q = FDR_Q): number {
  const kept = benjaminiHochberg(ps, q);
  return Math.max(0, ...ps.filter((p, i): p is number => p !== undefined && kept[i]));
}
