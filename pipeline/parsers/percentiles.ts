import type { Measurement } from "../lib/records.ts";

// When a percentile may be published. A percentile p is emitted only when its sample
// has at least 10 / (1 - p) observations, i.e. at least 10 observations lie beyond it:
//   p50 ≥ 20, p90 ≥ 100, p95 ≥ 200, p99 ≥ 1,000, p99.9 ≥ 10,000.
// Below that the "percentile" is one of the few largest values (a p99.9 from 500 calls is the
// maximum), so the cell publishes max/mean instead and no tail figure. One rule for every parser.

/** The smallest sample that may publish percentile p (0 < p < 100, in percent). */
export function minSampleFor(p: number): number {
  return Math.ceil(Math.round((10 / (1 - p / 100)) * 1e6) / 1e6);
}

/** p50 → 50, p999 → 99.9, p99 → 99: the percent a latency key names (null for max, mean, ...). */
export function percentOfKey(key: string): number | null {
  const m = key.match(/^p(\d+)$/);
  if (!m) return null;
  const digits = m[1];
  // p999 = 99.9, p9999 = 99.99: digits after the first two are decimals.
  return digits.length <= 2 ? Number(digits) : Number(`${digits.slice(0, 2)}.${digits.slice(2)}`);
}

/** Whether the latency key (p50, p999, max, mean, ...) may be published from n observations. */
export function publishable(key: string, n: number): boolean {
  const p = percentOfKey(key);
  return p === null || n >= minSampleFor(p);
}

/** Drops the percentile measurements (metric ending in _p<digits>) whose sample is too small. */
export function keepPublishable(ms: Measurement[], n: number, prefix = ""): Measurement[] {
  return ms.filter((m) => {
    if (prefix && !m.metric.startsWith(prefix)) return true;
    const k = m.metric.match(/_(p\d+)$/);
    return !k || publishable(k[1], n);
  });
}
