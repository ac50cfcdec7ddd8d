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
