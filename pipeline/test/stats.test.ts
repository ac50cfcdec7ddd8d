import { test } from "node:test";
import assert from "node:assert/strict";
import {
  beyondNoise,
  interval95,
  median,
  percentileFromBuckets,
  percentileSorted,
  perRepetition,
  relativeHalfWidth,
  tCdf,
  tQuantile,
} from "../lib/stats.ts";

test("nearest-rank percentiles return observed values", () => {
  const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentileSorted(v, 50), 5);
  assert.equal(percentileSorted(v, 95), 10);
  assert.equal(percentileSorted(v, 99), 10);
  assert.equal(percentileSorted(v, 10), 1);
  assert.ok(Number.isNaN(percentileSorted([], 50)));
});

test("histogram percentiles walk cumulative counts", () => {
  const b = [
    { value: 1, count: 50 },
    { value: 2, count: 45 },
    { value: 9, count: 5 },
  ];
  assert.equal(percentileFromBuckets(b, 50), 1);
  assert.equal(percentileFromBuckets(b, 51), 2);
  assert.equal(percentileFromBuckets(b, 95), 2);
  assert.equal(percentileFromBuckets(b, 99), 9);
});

test("median of odd and even counts", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
});

test("intervals are over repetitions: a tool's several values per repetition count once (their median: one slow run does not move it)", () => {
  const recs = [
    { repetition: 2, value: 30 },
    { repetition: 1, value: 10 },
    { repetition: 1, value: 12 },
    { repetition: 1, value: 50 },
    { repetition: 3, value: 20 },
  ];
  assert.deepEqual(perRepetition(recs), [12, 30, 20]);
  assert.deepEqual(
    perRepetition([
      { repetition: 1, value: 10 },
      { repetition: 1, value: 14 },
    ]),
    [12],
    "an even count: the middle two's mean",
  );
  const ci = interval95(perRepetition(recs));
  assert.equal(ci.n, 3);
  assert.ok(Math.abs(ci.half_width - (4.303 * 9.0185) / Math.sqrt(3)) < 0.01, String(ci.half_width));
  assert.ok(Math.abs(relativeHalfWidth(ci) - ci.half_width / Math.abs(ci.mean)) < 1e-12);
  assert.ok(Number.isNaN(relativeHalfWidth(interval95([5]))), "no interval from one repetition");
  // non-overlapping intervals are beyond noise; overlapping ones are not; no interval: unknown
  assert.equal(beyondNoise(interval95([10, 11, 12]), interval95([20, 21, 22])), true);
  assert.equal(beyondNoise(interval95([10, 15, 20]), interval95([14, 18, 22])), false);
  assert.equal(beyondNoise(interval95([10]), interval95([20, 21])), undefined);
});

test("Student-t quantiles equal table values at any level (incomplete beta + bisection)", () => {
  // Two-sided table values (e.g. NIST/SEMATECH e-Handbook, Table 1.3.6.7.2), 6 decimals.
  const table: Array<[number, number, number]> = [
    [0.975, 1, 12.706205],
    [0.975, 2, 4.302653],
    [0.975, 4, 2.776445],
    [0.975, 30, 2.042272],
    [0.95, 10, 1.812461],
    [0.995, 9, 3.249836],
    [0.995, 4, 4.604095],
    [0.9995, 3, 12.923979],
    [0.99, 10, 2.763769],
    [0.995, 1, 63.656741],
  ];
  for (const [p, df, want] of table)
    assert.ok(Math.abs(tQuantile(p, df) - want) < 2e-5, `t(${p}, ${df}) = ${tQuantile(p, df)}, table ${want}`);
  assert.equal(tQuantile(0.5, 7), 0);
  assert.ok(Math.abs(tQuantile(0.025, 4) + 2.776445) < 2e-5);
  assert.ok(Math.abs(tQuantile(0.975, 1e6) - 1.959964) < 1e-4, "large df tends to the normal");
  assert.ok(Math.abs(tCdf(tQuantile(0.99375, 7), 7) - 0.99375) < 1e-10, "the quantile inverts the CDF");
  assert.ok(Number.isNaN(tQuantile(1, 3)));
});
