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

// ---- Student-t quantiles for any level (the verdicts spend alpha over several looks, so 95 % is not enough).
// The CDF goes through the regularized incomplete beta function, I_x(a, b), evaluated by its continued
// fraction with the modified Lentz method (Press, Teukolsky, Vetterling & Flannery, Numerical Recipes,
// 3rd ed., 2007, §6.4; Abramowitz & Stegun 26.5.8 and 26.7.1 for the t distribution); the quantile inverts
// the CDF by bisection (monotone, so it always converges; 200 halvings exceed double precision).
// Checked against table values in pipeline/test/stats.test.ts.

// ln Γ(x), Lanczos approximation (g = 7, n = 9; accurate to ~15 digits for x > 0).
const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
  const z = x - 1;
  let s = LANCZOS[0];
  for (let i = 1; i < 9; i++) s += LANCZOS[i] / (z + i);
  const w = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(w) - w + Math.log(s);
}

function betaContinuedFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return h;
}

/** Regularized incomplete beta function I_x(a, b). */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); otherwise use the symmetry I_x(a, b) = 1 - I_{1-x}(b, a).
  return x < (a + 1) / (a + b + 2)
    ? (front * betaContinuedFraction(x, a, b)) / a
    : 1 - (front * betaContinuedFraction(1 - x, b, a)) / b;
}

/** P(T ≤ t) for Student's t with df degrees of freedom. */
export function tCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** The p-quantile of Student's t with df degrees of freedom (0 < p < 1, df > 0): tQuantile(0.975, 4) = 2.776. */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1) || !(df > 0)) return NaN;
  if (p === 0.5) return 0;
  if (p < 0.5) return -tQuantile(1 - p, df);
  let lo = 0;
  let hi = 1;
  while (tCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
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
