// Which way ours points against the claim's (pipeline/lib/direction.ts): five labels read from our interval and
// the seed's ratio alone, a size claim's own band or ×/÷ 1.25, and the seed ratio inside the tie margin noted.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_BAND, directionOf } from "../lib/direction.ts";

const ordering = { kind: "ordering" as const };
const size96 = { kind: "size" as const, size: { ratio: 96, tolerance: 0.5 } };

test("each of the five labels, against the default band around an ordering's seed ratio", () => {
  assert.equal(DEFAULT_BAND, 0.25);
  const d = (lo: number, hi: number) => directionOf(ordering, 2, lo, hi)!.direction;
  assert.equal(d(0.5, 0.9), "the other way round");
  assert.equal(d(0.9, 1.1), "no clear difference");
  assert.equal(d(1.0, 1.1), "no clear difference", "an interval touching 1 holds it");
  assert.equal(d(2.6, 3), "ahead by more than claimed", "above 2 × 1.25");
  assert.equal(d(1.1, 1.5), "ahead by less than claimed", "below 2 / 1.25");
  assert.equal(d(1.5, 1.7), "ahead by about as much as claimed", "overlapping 1.6-2.5");
  assert.equal(directionOf(ordering, 2, undefined, undefined), undefined, "no interval, no label");
});

test("a size claim is compared with its own band; a seed ratio inside the tie margin is noted", () => {
  const d = directionOf(size96, 96, 150, 200)!;
  assert.deepEqual(d.band, { lo: 64, hi: 144 });
  assert.equal(d.direction, "ahead by more than claimed");
  assert.equal(directionOf(size96, 96, 100, 150)!.direction, "ahead by about as much as claimed");
  assert.equal(directionOf(ordering, 1.02, 1.1, 1.2)!.seedInsideTie, true);
  assert.equal(directionOf(ordering, 1.06, 1.1, 1.2)!.seedInsideTie, false);
});
