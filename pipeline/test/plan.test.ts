import { test } from "node:test";
import assert from "node:assert/strict";
import { planRun } from "../runner/plan.ts";

// A once_per_run workload (a check, not a timing: protocol conformance) is planned in repetition 1 only,
// so repetitions 2..n cost no cell; the timed workloads beside it keep every repetition.
test("a once_per_run workload is planned in repetition 1 only; timed workloads in every repetition", () => {
  const plan = planRun({ profile: "quick", studies: ["mcp-servers", "mcp-db"], systems: ["mcp-go", "sqlite"] });
  const reps = (study: string, workload: string) => [...new Set(plan.cells.filter((c) => c.study === study && c.workload === workload).map((c) => c.repetition))].sort((a, b) => a - b);
  const all = Array.from({ length: plan.studies["mcp-servers"].repetitions }, (_, i) => i + 1);
  assert.ok(all.length >= 5, "quick has at least 5 repetitions");
  assert.deepEqual(reps("mcp-servers", "conformance"), [1]);
  assert.deepEqual(reps("mcp-db", "conformance"), [1]);
  assert.deepEqual(reps("mcp-servers", "seed_k6"), all);
  assert.deepEqual(reps("mcp-db", "point_reads"), all);
});
