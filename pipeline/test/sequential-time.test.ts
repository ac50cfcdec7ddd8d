import { test } from "node:test";
import assert from "node:assert/strict";
import type { Cell } from "../runner/plan.ts";
import { visitOverheadS } from "../runner/sequential.ts";

// A visit's overhead (for the sequential block's time estimate) from the run's own cells: the gap before each
// visit's first cell, first visits (which prepare) left out.
const t0 = Date.parse("2026-01-01T00:00:00Z");
const cell = (system: string, repetition: number, startS: number, duration_s: number, study = "toy") =>
  ({ study, system, repetition, started_at: new Date(t0 + startS * 1000).toISOString(), duration_s }) as Cell;

test("visitOverheadS: the median gap before a system's later visits; cells inside a visit and first visits do not count", () => {
  const cells = [
    cell("a", 1, 20, 5), // first visit: 20 s of prepare before it, left out
    cell("a", 1, 25.5, 5), // same visit: no gap counted
    cell("b", 1, 40, 5),
    cell("a", 2, 47, 5), // 2 s after b's cell
    cell("b", 2, 60, 5),
    cell("a", 3, 69, 5), // 4 s after
    cell("a", 4, 80, 5, "other"), // another study's visit is not this study's
  ];
  assert.equal(visitOverheadS(cells, "toy", "a"), 3);
  assert.equal(visitOverheadS(cells, "toy", "b"), 8, "b: its second visit, 8 s after a's cell (its first left out)");
  assert.equal(visitOverheadS(cells, "toy", "c"), undefined, "never visited");
  assert.equal(visitOverheadS(cells.slice(0, 3), "toy", "a"), undefined, "only a first visit so far");
});
