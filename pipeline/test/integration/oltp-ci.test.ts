import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { execFileSync } from "node:child_process";
import { cli, tempDir } from "../helpers.ts";

// The real thing at CI size: the `ci` profile's OLTP study against real PostgreSQL and MariaDB
// servers with real sysbench and pgbench, through the same CLI a user runs. MySQL is only
// installable on the cloud box, so here its cells must be recorded as skipped, not failed.

test("ci profile: OLTP on real PostgreSQL and MariaDB gives plausible, complete records", {
  timeout: 1_200_000,
}, () => {
  const data = tempDir();
  const r = cli(
    ["run", "--profile", "ci", "--studies", "oltp", "--run-id", "20260101T000000Z-ci-integration"],
    { SAMEBOX_DATA_DIR: data },
    1_200_000,
  );
  const dir = path.join(data, "runs", "20260101T000000Z-ci-integration");
  const m = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const bad = m.cells.filter((c: { status: string }) => c.status === "failed" || c.status === "wrong_answer");
  assert.deepEqual(
    bad.map((c: { id: string; reason: string }) => `${c.id}: ${c.reason}`),
    [],
    "no failed cells",
  );
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  assert.equal(m.status, "complete");
  assert.match(m.systems.postgresql.version, /^\d+\.\d+/);
  assert.match(m.systems.mariadb.version, /^10\.|^1[1-9]\./);
  assert.ok(
    Object.keys(m.systems.postgresql.config).some((k) => /shared_buffers/.test(k)),
    "PostgreSQL tuning recorded",
  );
  assert.ok(
    Object.keys(m.systems.mariadb.config).some((k) => /innodb_buffer_pool_size/.test(k)),
    "MariaDB tuning recorded",
  );
  assert.match(m.tools.sysbench ?? "", /1\.0\.20/);
  assert.ok(m.machine.cores >= 1 && m.machine.memory_bytes > 0);
  const mysqlCells = m.cells.filter((c: { system: string }) => c.system === "mysql");
  if (!/Ubuntu/.test(m.machine.os))
    for (const c of mysqlCells) assert.equal(c.status, "skipped", `${c.id} skipped on ${m.machine.os}`);

  const recs = readFileSync(path.join(dir, "records.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const get = (system: string, workload: string, metric: string) =>
    recs.filter((x) => x.system === system && x.workload === workload && x.metric === metric && x.t === null);
  for (const system of ["postgresql", "mariadb"]) {
    for (const w of ["oltp_read_write", "oltp_read_only", "select_random_points", "oltp_insert"]) {
      const [tps] = get(system, w, "tps");
      assert.ok(tps && tps.value > 10, `${system} ${w} tps plausible (${tps?.value})`);
      const [p50] = get(system, w, "latency_p50");
      const [p95] = get(system, w, "latency_p95");
      const [p99] = get(system, w, "latency_p99");
      assert.ok(
        p50.value > 0 && p50.value <= p95.value && p95.value <= p99.value,
        `${system} ${w} percentiles ordered`,
      );
      // sysbench retries deadlocks/serialization failures ("ignored errors"); a few are normal on tiny tables, many are not.
      const errors = get(system, w, "errors")[0].value;
      assert.ok(
        errors <= 0.05 * get(system, w, "transactions")[0].value,
        `${system} ${w} errors ${errors} within 5 % of transactions`,
      );
      assert.ok(
        recs.some((x) => x.system === system && x.workload === w && x.metric === "tps_series" && x.t !== null),
        "per-second series",
      );
      assert.ok(get(system, w, "mem_load")[0].value > 10, `${system} server memory sampled`);
      assert.ok(get(system, w, "cpu_util")[0].value > 0, `${system} server CPU sampled`);
    }
  }
  for (const w of ["pgbench_tpcb", "pgbench_select_only"]) {
    assert.ok(get("postgresql", w, "tps")[0].value > 10, `pgbench ${w}`);
    assert.ok(get("postgresql", w, "latency_p99")[0].value > 0, `pgbench ${w} p99 from the transaction log`);
  }
  // nothing left listening after the run
  const listening = execFileSync("bash", ["-c", "ss -ltn 2>/dev/null || netstat -ltn"], { encoding: "utf8" });
  assert.doesNotMatch(listening, /127\.0\.0\.1:(54329|33069)\b/, "servers stopped after the run");
  assert.equal(cli(["validate", dir]).code, 0);
});
