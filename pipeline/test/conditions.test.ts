// The seed's conditions beside ours (pipeline/lib/conditions.ts): ours read from a run's machine, its
// profile env (else the study's defaults), the cells' concurrency and the repetitions; the factor ours ÷
// seed; which rows a workload gets; and the studies' own seed_conditions all readable from a real run.
import { test } from "node:test";
import assert from "node:assert/strict";
import { appliesTo, conditionDifferences, conditionRows, fmtFactor } from "../lib/conditions.ts";
import { loadStudy, studyNames } from "../lib/catalog.ts";
import type { SeedCondition } from "../schema/types.ts";

const GiB = 2 ** 30;
const study = (rows: SeedCondition[], parameters: Record<string, { default?: number | string }> = {}) => ({
  seed_conditions: { source: "test", rows },
  parameters,
});
const one = (row: SeedCondition, ctx: Parameters<typeof conditionRows>[2], parameters = {}) =>
  conditionRows(study([row], parameters), [], ctx)[0];

test("ours from the machine: cores, and memory in GiB times a share", () => {
  const m = { cores: 2, memory_bytes: 24 * GiB };
  const cpus = one({ id: "cpus", label: "vCPUs", unit: "vCPU", seed: 4, ours: { machine: "cores" } }, { machine: m });
  assert.equal(cpus.factor, 0.5);
  assert.equal(cpus.oursText, "2 vCPU");
  assert.equal(cpus.summary, "vCPUs ×0.5: 2 vCPU against the seed's 4 vCPU");
  const buf = one(
    { id: "b", label: "buffer", unit: "GiB", seed: 2, ours: { machine: "memory_gib", times: 0.25 } },
    { machine: m },
  );
  assert.equal(buf.factor, 3);
  assert.equal(one({ id: "c", label: "cores", seed: 4, ours: { machine: "cores" } }, {}).oursText, "not recorded");
});

test("ours from the env: the product of the run's values, else the study's defaults; a range up to max_env", () => {
  const rows: SeedCondition = { id: "rows", label: "rows", unit: "rows", seed: 1000000, ours: { env: ["T", "S"] } };
  const params = { T: { default: 10 }, S: { default: 100000 } };
  assert.equal(one(rows, { env: { T: "4", S: "25000" } }, params).factor, 0.1);
  assert.equal(one(rows, { env: { T: "4" } }, params).factor, 0.4, "S from the study's default");
  assert.equal(one(rows, { env: {} }, params).differs, false, "both defaults: the seed's scale");
  assert.equal(one(rows, { env: {} }).oursText, "not recorded", "no value, no default");
  const scaled: SeedCondition = { id: "r", label: "rows", seed: 25600000, ours: { env: ["SCALE"], times: 25600000 } };
  assert.equal(one(scaled, { env: { SCALE: 0.002 } }).oursText, "51,200");
  const warm: SeedCondition = {
    id: "w",
    label: "warm-up",
    unit: "s",
    seed: 0,
    seed_text: "none",
    ours: { env: ["WARMUP"], max_env: "WARMUP_MAX" },
  };
  const w = one(warm, { env: { WARMUP: 2, WARMUP_MAX: 10 } });
  assert.equal(w.oursText, "2–10 s");
  assert.equal(w.factor, undefined, "no factor against a seed of 0 or for a range");
  assert.equal(w.summary, "warm-up: 2–10 s (the seed: none)");
  assert.equal(one(warm, { env: { WARMUP: 10 } }).oursText, "at least 10 s", "an unset bound is the tool's own");
  const cpus: SeedCondition = {
    id: "c",
    label: "server CPUs",
    seed: 2,
    ours: { env: ["LIMIT"], else_machine: "cores" },
  };
  assert.equal(one(cpus, { env: {}, machine: { cores: 8 } }).factor, 4, "no limit: the machine's cores");
  assert.equal(one(cpus, { env: { LIMIT: 1 }, machine: { cores: 8 } }).factor, 0.5);
});

test("ours from the cells: their concurrency (a range when several) and the repetitions, with singular units", () => {
  const c: SeedCondition = { id: "c", label: "threads", unit: "threads", seed: 16, ours: { cell: "concurrency" } };
  assert.equal(one(c, { concurrency: [8, 8] }).summary, "threads ×0.5: 8 threads against the seed's 16 threads");
  assert.equal(one(c, { concurrency: [1, 25, 8] }).oursText, "1–25 threads");
  assert.equal(one(c, { concurrency: [] }).oursText, "not recorded");
  const r: SeedCondition = {
    id: "r",
    label: "repetitions",
    unit: "runs",
    seed: 1,
    inferred: true,
    ours: { cell: "repetitions" },
  };
  assert.equal(one(r, { repetitions: 7 }).summary, "repetitions ×7: 7 runs against the seed's 1 run (inferred)");
  assert.equal(one(r, { repetitions: 1 }).summary, "repetitions: 1 run, as the seed");
});

test("ours from the run's CPU sets: the system under test's own CPUs, else the seed's limit, else every core", () => {
  const count: SeedCondition = {
    id: "c",
    label: "server CPUs",
    unit: "CPU",
    seed: 2,
    ours: { cpu_sets: { count: true, shared: "all" } },
  };
  const words: SeedCondition = {
    id: "w",
    label: "share",
    seed: "own container",
    ours: { cpu_sets: { count: false, shared: "shared cores" } },
  };
  const isolated = { env: { SAMEBOX_SUT_CPUS: "2-3,5", SAMEBOX_LOADGEN_CPUS: "0-1" }, machine: { cores: 8 } };
  assert.equal(one(count, isolated).oursText, "3 CPU");
  assert.equal(one(count, { env: { SAMEBOX_MCP_CPUS: 2 }, machine: { cores: 8 } }).differs, false);
  assert.equal(one(count, { env: {}, machine: { cores: 8 } }).factor, 4);
  assert.equal(
    one(words, isolated).oursText,
    "CPU 2-3,5 to itself; the load generator and the dependencies on CPU 0-1 (taskset)",
  );
  assert.equal(one(words, { env: {} }).oursText, "shared cores");
});

test("a text row differs unless it says it is the seed's setup; a seed in words gives no factor", () => {
  const same = one(
    { id: "s", label: "client", seed: "sysbench", ours: { text: "sysbench here", matches_seed: true } },
    {},
  );
  assert.equal(same.differs, false);
  const other = one(
    { id: "n", label: "connection", seed: "a unix socket", inferred: true, ours: { text: "loopback TCP" } },
    {},
  );
  assert.equal(other.summary, "connection: loopback TCP (the seed, inferred: a unix socket)");
  const words = one(
    { id: "c", label: "CPUs", unit: "vCPU", seed: "not stated", seed_text: "a laptop", ours: { machine: "cores" } },
    { machine: { cores: 2 } },
  );
  assert.equal(words.factor, undefined);
  assert.equal(words.differs, true);
  assert.equal(words.summary, "CPUs: 2 vCPU (the seed: a laptop)");
});

test("rows apply by workload (a trailing * a prefix, not_workloads excluded); beside a verdict only what matters and differs", () => {
  const tp: SeedCondition = { id: "t", label: "x", seed: 1, workloads: ["tp_*"], ours: { text: "y" } };
  const batch: SeedCondition = { id: "b", label: "x", seed: 1, not_workloads: ["tp_*"], ours: { text: "y" } };
  const all: SeedCondition = { id: "a", label: "x", seed: 1, ours: { text: "y" } };
  assert.ok(appliesTo(tp, ["tp_group_sum"]) && !appliesTo(tp, ["aggregate"]));
  assert.ok(appliesTo(batch, ["aggregate", "order_by"]) && !appliesTo(batch, ["aggregate", "tp_join"]));
  assert.ok(appliesTo(all, "*") && !appliesTo(tp, "*") && !appliesTo(batch, "*"));
  const s = study([
    { id: "cpus", label: "vCPUs", seed: 4, ours: { machine: "cores" } },
    { id: "mem", label: "memory", seed: 8, matters: false, ours: { machine: "memory_gib" } },
    { id: "same", label: "client", seed: "k6", ours: { text: "k6", matches_seed: true } },
  ]);
  assert.deepEqual(
    conditionDifferences(s, ["w"], { machine: { cores: 2, memory_bytes: 24 * GiB } }).map((r) => r.id),
    ["cpus"],
  );
  assert.equal(fmtFactor(0.0020000001), "0.002");
  assert.equal(fmtFactor(1 / 60), "0.017");
});

test("every study's seed conditions read a real quick run's configuration without a gap", () => {
  const env: Record<string, Record<string, unknown>> = {
    oltp: { SB_TABLES: 4, SB_TABLE_SIZE: 25000, DURATION: 3, WARMUP: 2, WARMUP_MAX: 10, PGBENCH_SCALE: 5 },
    analytical: { HF_RUNS: 3, HF_MAX_RUNS: 15, HF_WARMUP: 1, REPEAT_SCALE: 1, DURATION: 3, WARMUP: 1, WARMUP_MAX: 8 },
    "mcp-db": { MCPDB_SCALE: 0.002, DURATION: 3, WARMUP: 1, WARMUP_MAX: 8 },
    "mcp-servers": { DURATION: 3, WARMUP: 3, K6_HOLD_S: 3, K6_WARMUP_S: 1 },
    payments: { ACCOUNTS: 100000, DURATION: 6, WARMUP: 3, WARMUP_MAX: 15 },
  };
  for (const name of studyNames()) {
    const s = loadStudy(name);
    if (!s.seed) continue;
    assert.ok(s.seed_conditions?.rows.length, `${name}: a seed study without seed_conditions`);
    const rows = conditionRows(s, [], {
      machine: { cores: 2, memory_bytes: 24 * GiB },
      env: env[name],
      concurrency: [8],
      repetitions: 5,
    });
    const gaps = rows.filter((r) => r.oursText === "not recorded").map((r) => r.id);
    assert.deepEqual(gaps, [], `${name}: rows ours cannot be read for`);
  }
});
