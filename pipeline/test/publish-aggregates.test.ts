// Publish's per-cell aggregates count repetitions, never a tool's several runs within one (hyperfine's time_run).
import { test } from "node:test";
import assert from "node:assert/strict";
import { aggregates, type PublishedRow } from "../publish/publish.ts";

const row = (repetition: number, value: number): PublishedRow =>
  ({
    run_id: "r1",
    source: "measured",
    study: "analytical",
    workload: "aggregate",
    system: "duckdb",
    system_version: "1",
    variant: "hot",
    concurrency: 1,
    repetition,
    metric: "time_run",
    value,
    unit: "ms",
    t: null,
    profile: "quick",
    machine: "m",
    commit: "c",
    config_hash: "h",
    dirty: false,
    cell: `c.r${repetition}`,
    log: "",
  }) as PublishedRow;

test("aggregates: n is the number of repetitions; each repetition's hyperfine runs count once, as their median", () => {
  // 3 repetitions × 10 timed runs each
  const rows = [1, 2, 3].flatMap((rep) => Array.from({ length: 10 }, (_, i) => row(rep, rep * 10 + (i % 2 ? 1 : -1))));
  const [a] = aggregates(rows);
  assert.equal(a.n, 3, "30 hyperfine runs over 3 repetitions are n = 3");
  assert.equal(a.mean, 20);
  assert.equal(a.median, 20);
  assert.equal(a.min, 10);
  assert.equal(a.max, 30);
  assert.equal(a.method, "t");
  // t(0.975, 2) = 4.303 over the 3 repetition means (10, 20, 30: sd 10)
  assert.ok(Math.abs(a.half_width! - (4.302653 * 10) / Math.sqrt(3)) < 1e-4, String(a.half_width));
});
