// Small order statistics used by parsers and pages. Percentiles use the nearest-rank definition
// (the value below which p% of observations fall, always an observed value), the usual choice for latency.

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

// Two-sided 95 % Student-t quantiles t(0.975, df) for df = 1..30; above 30 the normal 1.96 is within 2 %.
const T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042];

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
  const t = n - 1 <= T975.length ? T975[n - 2] : 1.96;
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
 * One value per repetition, in repetition order: the repetition's value, or the mean of its values when
 * a tool reports several numbers of one metric per cell (hyperfine's time_run: every timed run). The
 * mean keeps the mean of the per-repetition values equal to the mean of all values when every
 * repetition has as many (a cell's tool settings are the same in every repetition). Intervals are taken
 * over these, so n is the number of repetitions, never the number of tool runs.
 */
export function perRepetition(records: Array<{ repetition: number; value: number }>): number[] {
  const by = new Map<number, number[]>();
  for (const r of records) (by.get(r.repetition) ?? by.set(r.repetition, []).get(r.repetition)!).push(r.value);
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([, vs]) => vs.reduce((a, b) => a + b, 0) / vs.length);
}

/** Half-width of the 95 % interval relative to the mean (NaN without an interval). */
export function relativeHalfWidth(ci: Interval95): number {
  return ci.method === "t" && ci.mean !== 0 ? ci.half_width / Math.abs(ci.mean) : NaN;
}
