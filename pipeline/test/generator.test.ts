// The load generator's share of a cell (pipeline/lib/generator.ts): a cell whose generator dropped more than
// 1 % of its planned calls is left out of verdicts, both where the site judges (countedRecords) and where the
// runner's sequential loop does (judgedRecords); a generator that spent at least the server's CPU per call
// marks the cell generator-bound and keeps it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DROP_LIMIT, SATURATED, assessGenerator } from "../lib/generator.ts";
import { countedRecords, judgeFromRun } from "../lib/claim-run.ts";
import { pairedSamples } from "../lib/verdicts.ts";
import { judgedRecords } from "../runner/sequential.ts";
import { claim, rec } from "./verdict-fixtures.ts";
import type { ResultRecord } from "../schema/types.ts";

const metric = (m: string, value: number) => rec("a", 1, value, { metric: m, unit: "count" });

test("a generator that drops more than 1 % of its planned calls is excluded; at 1 % it is not", () => {
  assert.equal(DROP_LIMIT, 0.01);
  const at = (dropped: number) => assessGenerator([metric("calls", 1000), metric("dropped", dropped)])!;
  assert.equal(at(10).excluded, false);
  assert.equal(at(11).excluded, true);
  assert.equal(at(11).achievedOfPlanned, 0.989);
  assert.match(at(11).reason!, /dropped 1\.1 % of its planned calls \(more than 1 %\): left out of verdicts/);
  assert.equal(assessGenerator([metric("tps", 5)]), undefined, "a cell without generator records");
});

test("generator-bound: the generator's CPU per call at least the server's; below it, not", () => {
  const cell = (gen: number, serverPerK: number) =>
    assessGenerator([metric("loadgen_cpu_per_call", gen), metric("server_cpu_per_1k_calls", serverPerK)])!;
  const bound = cell(1200, 0.447);
  assert.equal(bound.generatorBound, true);
  assert.equal(bound.serverCpuPerCallUs, 447);
  assert.equal(bound.excluded, false, "bound cells stay in the verdicts");
  assert.match(
    bound.reason!,
    /the generator used 1200 µs of CPU per call, the server 447 µs, on shared cores: generator-bound/,
  );
  assert.equal(cell(300, 0.447).generatorBound, false);
  assert.equal(cell(300, 0.447).reason, undefined);
});

test("an isolated generator at least 90 % busy on its own CPUs is saturated and excluded; isolated, it is never 'generator-bound'", () => {
  assert.equal(SATURATED, 0.9);
  const cell = (util: number, cpus: number) =>
    assessGenerator([
      metric("loadgen_cpu_per_call", 1200),
      metric("server_cpu_per_1k_calls", 0.447),
      metric("loadgen_cpu_util", util),
      metric("loadgen_cpus", cpus),
    ])!;
  assert.equal(cell(95, 1).saturated, true);
  assert.equal(cell(95, 1).excluded, true);
  assert.match(
    cell(95, 1).reason!,
    /and the dependencies beside it kept its 1 CPU 95 % busy \(at least 90 % of 100 %\): saturated, left out of verdicts/,
  );
  assert.equal(cell(95, 2).saturated, false, "95 % of one core is not 90 % of two");
  assert.equal(cell(89, 1).excluded, false);
  assert.equal(cell(50, 1).generatorBound, false, "its own CPUs: the server's share is not taken");
  assert.equal(cell(50, 1).generatorCpus, 1);
});

test("the dependencies pinned beside an isolated generator count in its CPU set's busy share", () => {
  // k6 57 % of CPU 0, Redis 0.1 s and the API service 0.35 s per 1,000 calls at 800 calls/s: 57 + 36 = 93 %
  const cell = (throughput: number) =>
    assessGenerator([
      metric("loadgen_cpu_per_call", 712),
      metric("server_cpu_per_1k_calls", 0.38),
      metric("loadgen_cpu_util", 57),
      metric("loadgen_cpus", 1),
      metric("redis_cpu_per_1k_calls", 0.1),
      metric("api_cpu_per_1k_calls", 0.35),
      metric("throughput", throughput),
    ])!;
  assert.equal(Math.round(cell(800).generatorSetCpuPct!), 93);
  assert.equal(cell(800).saturated, true);
  assert.equal(cell(800).excluded, true);
  assert.equal(cell(600).saturated, false, "57 + 27 = 84 % < 90 %");
  assert.equal(cell(600).generatorCpuPct, 57);
});

test("a cell whose generator dropped too much is left out of the verdict: n counts the other repetitions only", () => {
  const c = claim({ workload: "w", metric: "throughput" });
  const cells = (rep: number, droppedA: number): ResultRecord[] => [
    rec("a", rep, 200 + rep, { metric: "throughput" }),
    rec("b", rep, 100, { metric: "throughput" }),
    rec("a", rep, 1000, { metric: "calls" }),
    rec("a", rep, droppedA, { metric: "dropped" }),
  ];
  const records = [1, 2, 3, 4, 5, 6].flatMap((rep) => cells(rep, rep === 3 ? 50 : 0));
  const manifest = {
    run_id: "r1",
    profile: "quick",
    status: "complete",
    cells: [1, 2, 3, 4, 5, 6].flatMap((repetition) =>
      ["a", "b"].map((system) => ({
        study: "s",
        workload: "w",
        system,
        variant: "",
        concurrency: 4,
        repetition,
        status: "ok",
      })),
    ),
  };
  const counted = countedRecords(records, [manifest]);
  const samples = pairedSamples(counted, c);
  assert.deepEqual(
    samples.map((s) => s.repetition),
    [1, 2, 4, 5, 6],
    "repetition 3's cell is left out",
  );
  assert.equal(judgeFromRun(c, "s", manifest as never, samples).n, 5);
  const judged = judgedRecords(records, manifest.cells.map((x) => ({ ...x, id: "", status: "ok" })) as never, "s");
  assert.deepEqual(
    [...new Set(pairedSamples(judged, c).map((s) => s.repetition))],
    [1, 2, 4, 5, 6],
    "the runner's sequential loop leaves it out too",
  );
});
