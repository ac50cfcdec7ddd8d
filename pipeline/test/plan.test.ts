import { test } from "node:test";
import assert from "node:assert/strict";
import { interleave, planRun, visitOrder, visitOrderByStudy } from "../runner/plan.ts";

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

// The two sides of a claim run back to back: each repetition visits study by study, and a visit runs one
// system's cells of one study, so no other study's server runs between a pair's sides.
test("visits go study by study within a repetition: a study's systems are consecutive, each study in a balanced rotation", () => {
  const plan = planRun({ profile: "quick", studies: ["oltp", "payments"], systems: ["postgresql", "mariadb"] });
  const order = interleave(plan, 11);
  assert.equal(order.method, "seeded-rotation-by-study");
  const reps = plan.studies.oltp.repetitions;
  assert.equal(order.visits.length, 2 * 2 * reps, "one visit per system, study and repetition");
  for (let rep = 1; rep <= reps; rep++) {
    const vs = order.visits.filter((v) => v.repetition === rep);
    assert.deepEqual(vs.map((v) => v.study), ["oltp", "oltp", "payments", "payments"], `repetition ${rep}: study by study`);
  }
  for (const study of ["oltp", "payments"]) {
    const firsts = order.visits.filter((v) => v.study === study).filter((_, i) => i % 2 === 0).map((v) => v.system);
    const n = (s: string) => firsts.filter((f) => f === s).length;
    assert.ok(Math.abs(n("postgresql") - n("mariadb")) <= 1, `${study}: each system first equally often (${firsts.join(", ")})`);
  }
  // Cells follow their visits: each visit's cells are contiguous and belong to its study.
  const cellVisits = plan.cells.map((c) => `${c.study}/${c.system}/${c.repetition}`);
  const visitSeq = order.visits.map((v) => `${v.study}/${v.system}/${v.repetition}`);
  assert.deepEqual([...new Set(cellVisits)], visitSeq);
  assert.deepEqual(visitOrderByStudy([["oltp", ["a", "b"]]], 3, 5), visitOrder(["a", "b"], 3, 5).map((v) => ({ ...v, study: "oltp" })), "one study: its rotation, named");
});
