// Small order statistics used by parsers and pages. Percentiles use the nearest-rank definition
// (the value below which p% of observations fall, always an observed value), the usual choice for latency.
import jStat from "jstat";

export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

// Percentile of a histogram given as (value, count) buckets in ascending value order.
export function percentileFromBuckets(buckets: Array<{ value: number; count: number }>, p: number): number {
  const total = buckets.reduce((s, b) => s + b.count, 0);
  if (total === 0) return NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * total));
  let seen = 0;
  for (const b of buckets) {
    seen += b.count;
    if (seen >= rank) return b.value;
  }
  return buckets[buckets.length - 1].value;
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

// ---- Student-t quantiles for any level (the verdicts spend alpha over several looks, so 95 % is not enough),
// from jStat (https://github.com/jstat/jstat): its t CDF goes through the regularized incomplete beta
// function and its quantile through the inverse incomplete beta (Press et al., Numerical Recipes, 3rd ed.,
// §6.4). Within 3e-8 (relative) of the table values for df 1 to 10^6; checked in pipeline/test/stats.test.ts.

/** P(T ≤ t) for Student's t with df degrees of freedom. */
export function tCdf(t: number, df: number): number {
  return jStat.studentt.cdf(t, df);
}

/** The p-quantile of Student's t with df degrees of freedom (0 < p < 1, df > 0): tQuantile(0.975, 4) = 2.776. */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return NaN;
  if (p === 0.5) return 0;
  return jStat.studentt.inv(p, df);
}

export interface Interval95 {
  n: number;
  mean: number;
  /** sample standard deviation (n - 1) */
  sd: number;
  lo: number;
  hi: number;
  half_width: number;
  /** "t": Student-t interval of the mean over repetitions; "none": fewer than 2 values, no interval */
  method: "t" | "none";
}

// 95 % confidence interval of the mean of independent repetitions (Student t, n - 1 degrees of freedom).
// Repetitions of a cell are few (3-5), so a bootstrap would only resample 3 values; t is the honest choice.
export function interval95(values: number[]): Interval95 {
  const n = values.length;
  const mean = n ? values.reduce((s, v) => s + v, 0) / n : NaN;
  if (n < 2) return { n, mean, sd: NaN, lo: NaN, hi: NaN, half_width: NaN, method: "none" };
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1));
  const t = tQuantile(0.975, n - 1);
  const half = (t * sd) / Math.sqrt(n);
  return { n, mean, sd, lo: mean - half, hi: mean + half, half_width: half, method: "t" };
}

// Two cells differ beyond noise when their 95 % intervals do not overlap (conservative: overlapping
// intervals can still differ at 5 %, but non-overlapping ones always do). Unknown without intervals.
export function beyondNoise(a: Interval95, b: Interval95): boolean | undefined {
  if (a.method === "none" || b.method === "none") return undefined;
  return a.hi < b.lo || b.hi < a.lo;
}

/**
 * The one value a repetition contributes when a tool reports several numbers of one metric in it
 * (hyperfine's time_run: every timed run of a hot query): their median. Timing noise on a shared machine
 * is one-sided (an interrupt, a page fault or a neighbour only ever adds time), so one slow run moves a
 * mean but not the median: Chen & Revels, "Robust benchmarking in noisy environments", arXiv:1608.04295
 * (2016). Until 2026-11-28 it was the mean; mskql's 13 ms queries had single runs at 18 ms that widened
 * the paired intervals (13.2 % → 11.5 % median half-width on run 20261125T133546Z).
 */
export function repetitionValue(values: number[]): number {
  return median(values);
}

/**
 * One value per repetition, in repetition order (repetitionValue of its values). Intervals are taken over
 * these, so n is the number of repetitions, never the number of tool runs.
 */
export function perRepetition(records: Array<{ repetition: number; value: number }>): number[] {
  const by = new Map<number, number[]>();
  for (const r of records) (by.get(r.repetition) ?? by.set(r.repetition, []).get(r.repetition)!).push(r.value);
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([, vs]) => repetitionValue(vs));
}

/** Half-width of the 95 % interval relative to the mean (NaN without an interval). */
export function relativeHalfWidth(ci: Interval95): number {
  return ci.method === "t" && ci.mean !== 0 ? ci.half_width / Math.abs(ci.mean) : NaN;
}
