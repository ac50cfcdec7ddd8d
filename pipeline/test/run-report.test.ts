import { test } from "node:test";
import assert from "node:assert/strict";
import { claimKindText } from "../lib/run-report.ts";
import type { Claim } from "../schema/types.ts";

// The report's kind column prints a size claim's band as its rule reads it (×/÷ 1 + tolerance), so
// "about 96×" with tolerance 0.5 reads 64×–144×, never "±0.5", which reads as an absolute margin.
const claim = (over: Partial<Claim>): Claim =>
  ({ id: "x", kind: "ordering", a: { system: "a" }, b: { system: "b" }, ...over }) as unknown as Claim;

test("report kind column: a size claim's band, a threshold's bound, an ordering", () => {
  assert.equal(
    claimKindText(claim({ kind: "size", size: { ratio: 96, tolerance: 0.5 } } as Partial<Claim>)),
    "size about 96×: 64×–144×",
  );
  assert.equal(
    claimKindText(claim({ kind: "size", size: { ratio: 3.5, tolerance: 0.25 } } as Partial<Claim>)),
    "size about 3.5×: 2.8×–4.38×",
  );
  assert.equal(
    claimKindText(claim({ kind: "threshold", threshold: { min: 43 } } as Partial<Claim>)),
    "threshold ≥ 43×",
  );
  assert.equal(claimKindText(claim({})), "ordering");
});
