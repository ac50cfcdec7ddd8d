import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { cli, tempDir } from "../helpers.ts";

// The analytical study at CI size through the CLI on real PostgreSQL, DuckDB and SQLite, then the
// pgwire path (any PostgreSQL-wire server by DSN) against our own PostgreSQL, started by its verbs.

test("ci profile: analytical cells run with checked answers, Parquet/vectors marked unsupported where they are", {
  timeout: 900_000,
}, () => {
  const data = tempDir();
  const runId = "20260101T000000Z-ci-analytical";
  const r = cli(
    ["run", "--profile", "ci", "--studies", "analytical", "--run-id", runId],
    { SAMEBOX_DATA_DIR: data },
    900_000,
  );
  const dir = path.join(data, "runs", runId);
  const m = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const byId = Object.fromEntries(m.cells.map((c: { id: string }) => [c.id, c]));
  const bad = m.cells.filter((c: { status: string }) => c.status === "failed" || c.status === "wrong_answer");
  assert.deepEqual(
    bad.map((c: { id: string; reason: string }) => `${c.id}: ${c.reason}`),
    [],
  );
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.equal(byId["analytical.pq_aggregate.sqlite.c1.hot.r1"].status, "skipped");
  assert.match(byId["analytical.pq_aggregate.sqlite.c1.hot.r1"].reason, /Parquet/);
  assert.equal(byId["analytical.pq_aggregate.duckdb.c1.hot.r1"].status, "ok");
  const recs = readFileSync(path.join(dir, "records.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  for (const system of ["postgresql", "duckdb", "sqlite"]) {
    for (const w of ["noop", "aggregate", "join", "window_functions"]) {
      const runs = recs.filter((x) => x.system === system && x.workload === w && x.metric === "time_run");
      assert.equal(runs.length, 3, `${system} ${w}: HF_RUNS=3 timed runs`);
      const med = recs.find((x) => x.system === system && x.workload === w && x.metric === "time_median");
      assert.ok(med && med.value > 0 && med.unit === "ms", `${system} ${w} median`);
    }
  }
  const tp = recs.find((x) => x.workload === "tp_point_lookup" && x.metric === "qps");
  assert.ok(tp && tp.value > 100 && tp.concurrency === 8, "pgwire throughput over 8 connections");
});
