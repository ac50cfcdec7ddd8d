import { test } from "node:test";
import assert from "node:assert/strict";
import { beyondNoise, interval95, median, percentileFromBuckets, percentileSorted, perRepetition, relativeHalfWidth } from "../lib/stats.ts";

test("nearest-rank percentiles return observed values", () => {
  const v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  assert.equal(percentileSorted(v, 50), 5);
  assert.equal(percentileSorted(v, 95), 10);
  assert.equal(percentileSorted(v, 99), 10);
  assert.equal(percentileSorted(v, 10), 1);
  assert.ok(Number.isNaN(percentileSorted([], 50)));
});

test("histogram percentiles walk cumulative counts", () => {
  const b = [{ value: 1, count: 50 }, { value: 2, count: 45 }, { value: 9, count: 5 }];
  assert.equal(percentileFromBuckets(b, 50), 1);
  assert.equal(percentileFromBuckets(b, 51), 2);
  assert.equal(percentileFromBuckets(b, 95), 2);
  assert.equal(percentileFromBuckets(b, 99), 9);
});

test("median of odd and even counts", () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
});

test("intervals are over repetitions: a tool's several values per repetition count once (their mean)", () => {
  const recs = [
    { repetition: 2, value: 30 }, { repetition: 1, value: 10 }, { repetition: 1, value: 12 }, { repetition: 1, value: 50 },
    { repetition: 3, value: 20 },
  ];
  assert.deepEqual(perRepetition(recs), [24, 30, 20]);
  const ci = interval95(perRepetition(recs));
  assert.equal(ci.n, 3);
  assert.ok(Math.abs(ci.half_width - (4.303 * 5.0332) / Math.sqrt(3)) < 0.01, String(ci.half_width));
  assert.ok(Math.abs(relativeHalfWidth(ci) - ci.half_width / Math.abs(ci.mean)) < 1e-12);
  assert.ok(Number.isNaN(relativeHalfWidth(interval95([5]))), "no interval from one repetition");
  // non-overlapping intervals are beyond noise; overlapping ones are not; no interval: unknown
  assert.equal(beyondNoise(interval95([10, 11, 12]), interval95([20, 21, 22])), true);
  assert.equal(beyondNoise(interval95([10, 15, 20]), interval95([14, 18, 22])), false);
  assert.equal(beyondNoise(interval95([10]), interval95([20, 21])), undefined);
});
