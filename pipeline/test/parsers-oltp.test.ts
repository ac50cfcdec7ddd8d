import { test } from "node:test";
import assert from "node:assert/strict";
import { publishable } from "../parsers/percentiles.ts";
import { readFileSync, readdirSync, existsSync } from "node:fs";
import path from "node:path";
import { fixtures } from "./helpers.ts";
import { parseSysbench } from "../parsers/sysbench.ts";
import { parsePgbench, latenciesFromLogs } from "../parsers/pgbench.ts";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";

// Real outputs of sysbench 1.0.20 and pgbench captured on this project's machines
// (fixtures/raw/oltp/capture.sh), one folder per system and workload.
const raw = path.join(fixtures, "raw", "oltp");
const cells = ["postgresql", "mariadb"].flatMap((s) =>
  existsSync(path.join(raw, s))
    ? readdirSync(path.join(raw, s))
        .filter((w) => existsSync(path.join(raw, s, w, "stdout.txt")))
        .map((w) => ({ system: s, workload: w, dir: path.join(raw, s, w) }))
    : [],
);
const one = (ms: Measurement[], metric: string) => {
  const found = ms.filter((m) => m.metric === metric && (m.t ?? null) === null);
  assert.equal(found.length, 1, `exactly one ${metric}`);
  return found[0].value;
};
const stdout = (dir: string) => readFileSync(path.join(dir, "stdout.txt"), "utf8");

test("fixtures cover every OLTP workload on PostgreSQL and the sysbench ones on MariaDB", () => {
  const names = cells.map((c) => `${c.system}/${c.workload}`);
  for (const w of [
    "oltp_read_write",
    "oltp_read_only",
    "select_random_points",
    "oltp_insert",
    "pgbench_tpcb",
    "pgbench_select_only",
  ])
    assert.ok(names.includes(`postgresql/${w}`), w);
  for (const w of ["oltp_read_write", "oltp_read_only", "select_random_points", "oltp_insert"])
    assert.ok(names.includes(`mariadb/${w}`), w);
});

for (const c of cells.filter((c) => !c.workload.startsWith("pgbench"))) {
  test(`sysbench ${c.system}/${c.workload}: summary, histogram percentiles and series agree with the raw text`, () => {
    const text = stdout(c.dir);
    const ms = parseSysbench(text);
    const tps = one(ms, "tps");
    const trx = Number(text.match(/transactions:\s+(\d+)/)![1]);
    const secs = Number(text.match(/total time:\s+([\d.]+)s/)![1]);
    assert.ok(Math.abs(tps - trx / secs) / tps < 0.02, "tps ≈ transactions / total time");
    // A percentile only from at least 10/(1-p) transactions (percentiles.ts).
    const min = one(ms, "latency_min"),
      max = one(ms, "latency_max"),
      avg = one(ms, "latency_avg");
    const ps = ["p50", "p95", "p99"].filter((k) => publishable(k, trx));
    for (const k of ["p50", "p95", "p99"])
      if (!ps.includes(k))
        assert.equal(ms.filter((m) => m.metric === `latency_${k}`).length, 0, `no ${k} from ${trx} transactions`);
    const pv = [min, ...ps.map((k) => one(ms, `latency_${k}`)), max + 0.01];
    assert.deepEqual(
      [...pv].sort((a, b) => a - b),
      pv,
      `ordered: ${pv}`,
    );
    assert.ok(min <= avg && avg <= max);
    // histogram counts add up to the number of events
    const events = Number(text.match(/total number of events:\s+(\d+)/)![1]);
    const histCount = [...text.matchAll(/^\s*[\d.]+\s*\|[*\s]*\s(\d+)\s*$/gm)].reduce((s, m) => s + Number(m[1]), 0);
    assert.equal(histCount, events);
    const series = ms.filter((m) => m.metric === "tps_series");
    assert.ok(series.length >= 2, "per-second series");
    assert.deepEqual(
      series.map((m) => m.t),
      [...series.map((m) => m.t)].sort((a, b) => a! - b!),
    );
    assert.equal(one(ms, "reconnects"), 0);
  });
}

for (const c of cells.filter((c) => c.workload.startsWith("pgbench"))) {
  test(`pgbench ${c.system}/${c.workload}: summary plus exact percentiles from the transaction log`, () => {
    const text = stdout(c.dir);
    const ms = parsePgbench(text, c.dir);
    assert.equal(one(ms, "tps"), Number(text.match(/^tps = ([\d.]+)/m)![1]));
    const logs = latenciesFromLogs(c.dir)!;
    assert.ok(logs.latenciesMs.length > 0);
    const p50 = one(ms, "latency_p50"),
      p99 = one(ms, "latency_p99");
    assert.ok(p50 <= p99 && p99 <= one(ms, "latency_max"));
    assert.ok(
      !ms.some((m) => m.metric === "latency_min"),
      "no minimum from the whole-microsecond log (0.000 ms artefacts)",
    );
    // the log's mean agrees with pgbench's own "latency average" within a few percent (or the sampling's noise)
    const mean = logs.latenciesMs.reduce((s, v) => s + v, 0) / logs.latenciesMs.length;
    assert.ok(
      Math.abs(mean - one(ms, "latency_avg")) / one(ms, "latency_avg") < 0.15,
      `log mean ${mean} vs avg ${one(ms, "latency_avg")}`,
    );
    assert.ok(ms.filter((m) => m.metric === "tps_series").length >= 2, "progress series (-P)");
  });
}

test("failed tool runs give a ParseError that quotes the tool's own error", () => {
  const broken = path.join(raw, "broken");
  const sb =
    readFileSync(path.join(broken, "sysbench-postgresql-stopped", "stdout.txt"), "utf8") +
    readFileSync(path.join(broken, "sysbench-postgresql-stopped", "stderr.txt"), "utf8");
  assert.throws(
    () => parseSysbench(sb),
    (e: unknown) => e instanceof ParseError && /sysbench/.test((e as Error).message),
  );
  const pg =
    readFileSync(path.join(broken, "pgbench-postgresql-stopped", "stdout.txt"), "utf8") +
    readFileSync(path.join(broken, "pgbench-postgresql-stopped", "stderr.txt"), "utf8");
  assert.throws(
    () => parsePgbench(pg),
    (e: unknown) => e instanceof ParseError && /pgbench/.test((e as Error).message),
  );
  assert.throws(() => parseSysbench(""), ParseError);
  // a truncated report (run killed mid-way) is not silently half-parsed
  const full = stdout(cells.find((c) => c.workload === "oltp_read_write")!.dir);
  assert.throws(() => parseSysbench(full.slice(0, full.indexOf("Latency (ms):"))), /Latency|no '/);
});
