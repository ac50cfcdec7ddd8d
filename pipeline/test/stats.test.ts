import { test } from "node:test";
import assert from "node:assert/strict";
import { median, percentileFromBuckets, percentileSorted } from "../lib/stats.ts";

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
