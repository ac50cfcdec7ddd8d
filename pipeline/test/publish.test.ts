import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { cli, repoRoot, tempDir } from "./helpers.ts";
import { toCsv, toJsonl } from "../lib/records.ts";
import type { ResultRecord } from "../lib/records.ts";

const runId = "20260102T030405Z-ci-test";
const rec = (metric: string, value: number, repetition = 1): ResultRecord => ({
  run_id: runId,
  source: "measured",
  study: "oltp",
  workload: "oltp_read_write",
  system: "postgresql",
  system_version: "15.18",
  server: "",
  variant: "warm",
  concurrency: 4,
  repetition,
  metric,
  value,
  unit: "tx/s",
  t: null,
  profile: "ci",
  machine: "local: test",
  commit: "abc",
});
const manifest = {
  run_id: runId,
  status: "complete",
  profile: "ci",
  studies: ["oltp"],
  systems_requested: ["postgresql"],
  started_at: "2026-01-02T03:04:05.000Z",
  ended_at: "2026-01-02T03:05:05.000Z",
  duration_s: 60,
  commit: "abc",
  dirty: false,
  machine: {
    label: "local: test",
    cpu_model: "x",
    cores: 2,
    memory_bytes: 1,
    kernel: "k",
    os: "o",
    cloud: null,
    topology: "single",
  },
  tools: { sysbench: "sysbench 1.0.20" },
  systems: { postgresql: { version: "15.18", config: { shared_buffers: "1GB" } } },
  config: {},
  config_hash: "0".repeat(64),
  summary: { ok: 2, failed: 0, skipped: 0, wrong_answer: 0 },
  cells: [1, 2].map((rep) => ({
    id: `oltp.oltp_read_write.postgresql.c4.warm.r${rep}`,
    study: "oltp",
    workload: "oltp_read_write",
    system: "postgresql",
    concurrency: 4,
    variant: "warm",
    repetition: rep,
    status: "ok",
    exit_code: 0,
    reason: "",
    log: `cells/oltp.oltp_read_write.postgresql.c4.warm.r${rep}/stderr.txt`,
    duration_s: 1,
  })),
};

function dataWithOneRun() {
  const data = tempDir();
  const site = tempDir();
  mkdirSync(path.join(data, "runs", runId), { recursive: true });
  writeFileSync(path.join(data, "runs", runId, "manifest.json"), JSON.stringify(manifest));
  writeFileSync(path.join(data, "runs", runId, "records.jsonl"), toJsonl([rec("tps", 100), rec("tps", 110, 2)]));
  writeFileSync(path.join(data, "runs", runId, "records.csv"), toCsv([rec("tps", 100), rec("tps", 110, 2)]));
  for (const c of manifest.cells) {
    mkdirSync(path.join(data, "runs", runId, "cells", c.id), { recursive: true });
    writeFileSync(path.join(data, "runs", runId, "cells", c.id, "stdout.txt"), `raw output of ${c.id}\n`);
    writeFileSync(path.join(data, "runs", runId, "cells", c.id, "stderr.txt"), `log of ${c.id}\n`);
  }
  cpSync(path.join(repoRoot, "data", "published"), path.join(data, "published"), { recursive: true });
  return { data, site, env: { SAMEBOX_DATA_DIR: data, SAMEBOX_SITE_DIR: site } };
}

test("publish writes CSV, Parquet and JSON for the site, and a second publish changes nothing", {
  timeout: 60_000,
}, async () => {
  const { site, env } = dataWithOneRun();
  const r1 = cli(["publish"], env);
  assert.equal(r1.code, 0, r1.stderr);
  const csv = readFileSync(path.join(site, "public", "data", "results.csv"), "utf8");
  const pdir = path.join(repoRoot, "data", "published");
  const published = readdirSync(pdir)
    .filter((f) => f.endsWith(".csv"))
    .reduce((n, f) => n + readFileSync(path.join(pdir, f), "utf8").trim().split("\n").length - 1, 0);
  assert.equal(csv.trim().split("\n").length - 1, 2 + published);
  const recs = JSON.parse(readFileSync(path.join(site, "src", "generated", "records.json"), "utf8"));
  assert.equal(recs.length, 2 + published);
  assert.ok(recs.some((x: ResultRecord) => x.source === "published" && x.system === "mysql"));
  const runs = JSON.parse(readFileSync(path.join(site, "src", "generated", "runs.json"), "utf8"));
  assert.equal(runs[0].run_id, runId);
  const studies = JSON.parse(readFileSync(path.join(site, "src", "generated", "studies.json"), "utf8"));
  assert.ok(Array.isArray(studies.studies) && Array.isArray(studies.profiles));

  const parquet = path.join(site, "public", "data", "results.parquet");
  const db = await DuckDBInstance.create(":memory:");
  const conn = await db.connect();
  const rows = (
    await conn.runAndReadAll(
      `SELECT count(*)::INT AS n, sum(value) FILTER (WHERE run_id='${runId}') AS s, typeof(any_value(t)) AS tt FROM '${parquet}'`,
    )
  ).getRowObjects();
  conn.closeSync();
  assert.equal(rows[0].n, 2 + published);
  assert.equal(rows[0].s, 210);
  assert.equal(rows[0].tt, "DOUBLE");

  // provenance on every measured row: config hash, dirty flag, the cell and its raw log (published beside the data)
  const header = csv.split("\n")[0].split(",");
  for (const col of ["commit", "config_hash", "dirty", "cell", "log"])
    assert.ok(header.includes(col), `results.csv has ${col}`);
  const row = csv
    .split("\n")
    .find((l) => l.startsWith(runId))!
    .split(",");
  const at = (col: string) => row[header.indexOf(col)];
  assert.equal(at("config_hash"), "0".repeat(64));
  assert.equal(at("dirty"), "false");
  assert.equal(at("cell"), "oltp.oltp_read_write.postgresql.c4.warm.r1");
  assert.equal(
    readFileSync(path.join(site, "public", at("log")), "utf8"),
    "log of oltp.oltp_read_write.postgresql.c4.warm.r1\n",
  );
  assert.ok(
    readFileSync(
      path.join(site, "public", "data", "runs", runId, "cells", at("cell"), "stdout.txt"),
      "utf8",
    ).startsWith("raw output"),
  );
  // per-cell aggregate over the 2 repetitions with its 95 % t interval: mean 105, sd 7.07, t(0.975, 1) = 12.706205
  const agg = JSON.parse(readFileSync(path.join(site, "public", "data", "aggregates.json"), "utf8"));
  assert.match(agg.method, /Student-t/);
  const a = agg.aggregates.find((x: { run_id: string; metric: string }) => x.run_id === runId && x.metric === "tps");
  assert.equal(a.n, 2);
  assert.equal(a.mean, 105);
  assert.ok(Math.abs(a.half_width - (12.706205 * Math.sqrt(50)) / Math.sqrt(2)) < 1e-4, `half width ${a.half_width}`);
  assert.ok(Math.abs(a.ci_lo - (105 - a.half_width)) < 1e-9 && Math.abs(a.rel_half_width - a.half_width / 105) < 1e-9);
  assert.equal(a.cells, "oltp.oltp_read_write.postgresql.c4.warm.r1 oltp.oltp_read_write.postgresql.c4.warm.r2");
  assert.ok(
    agg.aggregates.every((x: { run_id: string }) => !x.run_id.startsWith("published")),
    "published figures have no repetitions to aggregate",
  );
  const aggCsv = readFileSync(path.join(site, "public", "data", "aggregates.csv"), "utf8");
  assert.equal(aggCsv.trim().split("\n").length - 1, agg.aggregates.length);

  const mtime = statSync(parquet).mtimeMs;
  const r2 = cli(["publish"], env);
  assert.equal(r2.code, 0, r2.stderr);
  assert.match(r2.stdout, /changed: nothing/);
  assert.equal(statSync(parquet).mtimeMs, mtime);
});

test("publish refuses invalid data with the file and what is wrong", () => {
  const { data, env } = dataWithOneRun();
  writeFileSync(
    path.join(data, "runs", runId, "records.jsonl"),
    JSON.stringify({ ...rec("tps", 1), unit: "parsecs" }) + "\n",
  );
  let r = cli(["publish"], env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /records\.jsonl line 1: \/unit must be equal to one of the allowed values/);

  const other = dataWithOneRun();
  writeFileSync(
    path.join(other.data, "runs", runId, "records.jsonl"),
    JSON.stringify({ ...rec("tps", 1), run_id: "20990101T000000Z-x" }) + "\n",
  );
  r = cli(["publish"], other.env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /lives in run folder/);

  const third = dataWithOneRun();
  writeFileSync(path.join(third.data, "runs", runId, "manifest.json"), "{");
  r = cli(["publish"], third.env);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /manifest\.json is not valid JSON/);
});

test("the repository's own data/ publishes cleanly", () => {
  const site = tempDir();
  const r = cli(["publish"], { SAMEBOX_SITE_DIR: site });
  assert.equal(r.code, 0, r.stderr);
});

test("withdrawn artefacts (pgbench latency_min) stay in data/ but are not published, with a warning", () => {
  const { data, site, env } = dataWithOneRun();
  const pg = { ...rec("latency_min", 0, 1), workload: "pgbench_select_only", unit: "ms" as const };
  writeFileSync(path.join(data, "runs", runId, "records.jsonl"), toJsonl([rec("tps", 100), rec("tps", 110, 2), pg]));
  const r = cli(["publish"], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /left out 1 record\(s\): pgbench latency_min/);
  const recs = JSON.parse(readFileSync(path.join(site, "src", "generated", "records.json"), "utf8"));
  assert.ok(!recs.some((x: ResultRecord) => x.metric === "latency_min"));
  assert.match(
    readFileSync(path.join(data, "runs", runId, "records.jsonl"), "utf8"),
    /latency_min/,
    "the run folder is untouched",
  );
});
