import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { cli, fixtures, tempDir } from "./helpers.ts";

// The runner's mechanics with a scripted system (a `sleep` process as the server) and a toy study whose
// workloads succeed, fail, print garbage, give a wrong answer or hang. Real engines are covered by
// the integration suite; here we check that every outcome is recorded and the run goes on.

function sysbenchFixture(): string {
  const f = path.join(fixtures, "raw", "oltp", "postgresql", "oltp_read_write", "stdout.txt");
  assert.ok(existsSync(f), `sysbench fixture ${f}`);
  return f;
}

function toyEnv() {
  const data = tempDir();
  return {
    data,
    env: {
      SAMEBOX_BENCH_SCRIPTS: path.join(fixtures, "fake-bench"),
      SAMEBOX_PROFILES_DIR: path.join(fixtures, "fake-profiles"),
      SAMEBOX_DATA_DIR: data,
      SAMEBOX_STATE: tempDir("samebox-state-"),
      TOY_FIXTURE: sysbenchFixture(),
    },
  };
}

test("every cell outcome is recorded and the run goes on", { timeout: 120_000 }, () => {
  const { data, env } = toyEnv();
  const r = cli(["run", "--profile", "toy", "--run-id", "20260101T000000Z-toy-test"], env);
  assert.equal(r.code, 1, `exit 1 because cells failed; stderr: ${r.stderr}`);
  assert.match(r.stdout, /2 ok, 6 failed, 2 wrong answer, 10 skipped/);
  const dir = path.join(data, "runs", "20260101T000000Z-toy-test");
  const m = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
  assert.equal(m.status, "complete");
  const byId = Object.fromEntries(m.cells.map((c: { id: string }) => [c.id, c]));
  assert.equal(byId["toy.good.fakedb.c2.warm.r1"].status, "ok");
  assert.equal(byId["toy.fails.fakedb.c2.warm.r1"].status, "failed");
  assert.match(byId["toy.fails.fakedb.c2.warm.r1"].reason, /exited 1: FATAL: connection refused/);
  assert.ok(existsSync(path.join(dir, byId["toy.fails.fakedb.c2.warm.r1"].log)), "failed cell keeps its log");
  assert.match(byId["toy.garbage.fakedb.c2.warm.r2"].reason, /did not parse: sysbench output has no 'SQL statistics:'/);
  assert.equal(byId["toy.wrong.fakedb.c2.warm.r1"].status, "wrong_answer");
  assert.match(byId["toy.slow.fakedb.c2.warm.r1"].reason, /timed out after 10s/);
  assert.equal(byId["toy.good.absentdb.c2.warm.r1"].status, "skipped");
  assert.match(byId["toy.good.absentdb.c2.warm.r1"].reason, /only available on the cloud box/);
  assert.equal(m.systems.fakedb.version, "1.2.3");
  assert.deepEqual(m.systems.fakedb.config, { buffer: "1MB" });
  assert.match(m.config_hash, /^[0-9a-f]{64}$/);

  const recs = readFileSync(path.join(dir, "records.jsonl"), "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const tps = recs.filter((x) => x.metric === "tps");
  assert.equal(tps.length, 2, "one tps per ok repetition");
  assert.deepEqual(tps.map((x) => x.repetition).sort(), [1, 2]);
  for (const x of recs) assert.equal(x.system_version, "1.2.3");
  assert.ok(recs.some((x) => x.metric === "mem_load" && x.unit === "MiB" && x.value > 0), "memory of the server tree sampled");
  assert.equal(readFileSync(path.join(dir, "records.csv"), "utf8").trim().split("\n").length, recs.length + 1);
  // the scripted server was stopped
  assert.ok(existsSync(path.join(env.SAMEBOX_STATE, "fakedb", "stopped")));

  const again = cli(["run", "--profile", "toy", "--run-id", "20260101T000000Z-toy-test"], env);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /already exists; runs are never overwritten/);
  assert.equal(JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")).started_at, m.started_at);

  const v = cli(["validate", dir], env);
  assert.equal(v.code, 0, v.stderr);
});

test("bad input gets one clear line naming the valid values", () => {
  const { env } = toyEnv();
  const cases: Array<[string[], RegExp]> = [
    [["run", "--profile", "nope"], /unknown profile 'nope'; valid: broken, toy/],
    [["run", "--profile", "toy", "--studies", "nope"], /unknown study 'nope'; valid: toy/],
    [["run", "--profile", "toy", "--systems", "oracle"], /unknown system 'oracle'; valid: absentdb, fakedb/],
    [["run", "--profile", "toy", "--workloads", "tpcc"], /unknown workload 'tpcc'; valid: .*good/],
    [["run", "--profile", "toy", "--repetitions", "0"], /expected a whole number from 1 to 50/],
    [["run", "--profile", "toy", "--run-id", "../x"], /invalid run id/],
    [["run", "--profile", "broken"], /profile .*broken\.json is invalid: \/repetitions must be >= 1/],
    [["parse", "nosuchtool", "x"], /unknown tool 'nosuchtool'; valid: .*sysbench/],
    [["bogus"], /unknown command 'bogus'/],
  ];
  for (const [args, re] of cases) {
    const r = cli(args, env);
    assert.equal(r.code, 2, `${args.join(" ")} → exit 2 (got ${r.code}: ${r.stderr})`);
    assert.match(r.stderr, re, args.join(" "));
    assert.doesNotMatch(r.stderr, /\n\s+at /, "no stack trace");
  }
});

test("dry run lists cells in order and writes nothing", () => {
  const { data, env } = toyEnv();
  const r = cli(["run", "--profile", "toy", "--systems", "fakedb", "--workloads", "good,wrong", "--dry-run"], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /toy\.good\.fakedb\.c2\.warm\.r1\ntoy\.wrong\.fakedb\.c2\.warm\.r1\ntoy\.good\.fakedb\.c2\.warm\.r2/);
  assert.match(r.stderr, /4 cells \(dry run/);
  assert.ok(!existsSync(path.join(data, "runs")));
});
