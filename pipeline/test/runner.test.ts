import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cli, fixtures, tempDir, toyEnv } from "./helpers.ts";
import { profile } from "./runner-fixtures.ts";
import { runClock, visitOrder, visitOrderByStudy } from "../runner/run.ts";
import type { Cell } from "../runner/plan.ts";

// The runner's mechanics with a scripted system (a `sleep` process as the server) and a toy study whose
// workloads succeed, fail, print garbage, give a wrong answer or hang. Real engines are covered by
// the integration suite; here we check that every outcome is recorded and the run goes on.

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
  assert.match(
    byId["toy.slow.fakedb.c2.warm.r1"].reason,
    /timed out after 12s/,
    "the workload's cell_timeout_s (12) raises the profile's (10)",
  );
  assert.equal(byId["toy.good.absentdb.c2.warm.r1"].status, "skipped");
  assert.match(byId["toy.good.absentdb.c2.warm.r1"].reason, /only available on the cloud box/);
  assert.equal(m.systems.fakedb.version, "1.2.3");
  assert.deepEqual(m.systems.fakedb.config, { buffer: "1MB" });
  assert.match(m.config_hash, /^[0-9a-f]{64}$/);

  const recs = readFileSync(path.join(dir, "records.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const tps = recs.filter((x) => x.metric === "tps");
  assert.equal(tps.length, 2, "one tps per ok repetition");
  assert.deepEqual(tps.map((x) => x.repetition).sort(), [1, 2]);
  for (const x of recs) assert.equal(x.system_version, "1.2.3");
  assert.ok(
    recs.some((x) => x.metric === "mem_load" && x.unit === "MiB" && x.value > 0),
    "memory of the server tree sampled",
  );
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
    [["run", "--profile", "nope"], /unknown profile 'nope'; valid: broken, interleave, toy/],
    [["run", "--profile", "toy", "--studies", "nope"], /unknown study 'nope'; valid: toy/],
    [["run", "--profile", "toy", "--systems", "oracle"], /unknown system 'oracle'; valid: absentdb, fakedb, fakedb2/],
    [["run", "--profile", "toy", "--workloads", "tpcc"], /unknown workload 'tpcc'; valid: .*good/],
    [["run", "--profile", "toy", "--repetitions", "0"], /expected a whole number from 1 to 50/],
    [["run", "--profile", "toy", "--run-id", "../x"], /invalid run id/],
    [["run", "--profile", "toy", "--order-seed", "-1"], /expected a whole number from 0 to 4294967295/],
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
  assert.match(
    r.stderr,
    /toy\.good\.fakedb\.c2\.warm\.r1\ntoy\.wrong\.fakedb\.c2\.warm\.r1\ntoy\.good\.fakedb\.c2\.warm\.r2/,
  );
  assert.match(r.stderr, /4 cells \(dry run/);
  assert.ok(!existsSync(path.join(data, "runs")));
});

test("the run's clock: wall time since a fresh run began; a resumed run counts its finished cells, not the hours it lay interrupted", () => {
  const cell = (reason: string, duration_s: number) => ({ reason, duration_s }) as Cell;
  const cells = [cell("", 100), cell("", 50.5), cell("not run", 0), cell("", 0)];
  const fresh = runClock({ started_at: new Date(Date.now() - 90_000).toISOString() }, cells)();
  assert.ok(fresh >= 90 && fresh < 95, `fresh run: ${fresh} s since its start`);
  const resumed = runClock(
    { started_at: "2020-01-01T00:00:00Z", resumed: [{ at: "", pending: 1, reason: "" }] },
    cells,
  )();
  assert.ok(resumed >= 150.5 && resumed < 155, `resumed run: ${resumed} s (its finished cells' 150.5 s)`);
});

test("visit order: every repetition visits every system once, shuffled by a seed that reproduces it", () => {
  const systems = ["a", "b", "c", "d"];
  const v = visitOrder(systems, 3, 42);
  assert.equal(v.length, 12);
  for (const rep of [1, 2, 3])
    assert.deepEqual(
      v
        .filter((x) => x.repetition === rep)
        .map((x) => x.system)
        .sort(),
      systems,
    );
  assert.deepEqual(
    v.map((x) => x.repetition),
    [1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3],
    "repetition by repetition",
  );
  assert.deepEqual(visitOrder(systems, 3, 42), v, "same seed, same order");
  const firsts = new Set(Array.from({ length: 40 }, (_, seed) => visitOrder(systems, 1, seed)[0].system));
  assert.equal(
    firsts.size,
    4,
    "over 40 seeds every system comes first at least once (it is a shuffle, not a fixed order)",
  );
  const four = visitOrder(systems, 4, 9);
  const firstOf = [1, 2, 3, 4].map((rep) => four.find((x) => x.repetition === rep)!.system);
  assert.deepEqual(
    [...firstOf].sort(),
    systems,
    "balanced: over as many repetitions as systems, each system runs first once",
  );
  assert.deepEqual(
    visitOrder(systems, 6, 9, 5),
    visitOrder(systems, 6, 9).filter((x) => x.repetition >= 5),
    "added repetitions continue the same rotation",
  );
});

function events(state: string): string[] {
  return readFileSync(path.join(state, "events"), "utf8").trim().split("\n");
}

test("interleaved run: study install once before any start, prepare once per system, cleanup after its last visit, server stopped between visits", {
  timeout: 120_000,
}, () => {
  const { data, env } = toyEnv();
  const r = cli(
    ["run", "--profile", "interleave", "--run-id", "20260101T000000Z-interleave", "--order-seed", "7"],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const m = JSON.parse(readFileSync(path.join(data, "runs", "20260101T000000Z-interleave", "manifest.json"), "utf8"));
  assert.equal(m.order.method, "seeded-rotation-by-study");
  assert.equal(m.order.seed, 7);
  assert.equal(m.order.servers_between_visits, "stopped");
  assert.deepEqual(m.order.visits, visitOrderByStudy([["toy", ["fakedb", "fakedb2"]]], 3, 7));
  // cells are listed (and ran) in visit order
  assert.deepEqual(
    m.cells.map((c: { system: string; repetition: number }) => `${c.system} r${c.repetition}`),
    m.order.visits.map((v: { system: string; repetition: number }) => `${v.system} r${v.repetition}`),
  );
  const started = m.cells.map((c: { started_at: string }) => c.started_at);
  assert.deepEqual([...started].sort(), started, "started_at increases along the list");
  assert.equal(m.summary.ok, 6);
  assert.equal(m.tools.toytool, "9.9.9", "the study's versions verb is recorded");
  assert.equal(m.study_installs.toy.status, "ok");
  assert.equal(m.systems.fakedb2.version, "2.0.0");

  const ev = events(env.SAMEBOX_STATE);
  assert.equal(
    ev[0],
    "install SYSTEMS=fakedb,fakedb2 WORKLOADS=good VARIANTS=warm TOY=1",
    "install first, with the plan's lists and the profile env",
  );
  assert.equal(ev.filter((e) => e.startsWith("install")).length, 1);
  for (const s of ["fakedb", "fakedb2"]) {
    assert.equal(ev.filter((e) => e === `prepare ${s}`).length, 1, `prepare ${s} once`);
    assert.equal(ev.filter((e) => e === `cleanup ${s}`).length, 1, `cleanup ${s} once`);
    assert.equal(ev.filter((e) => e === `start ${s}`).length, 3, `${s} started at each of its 3 visits`);
    assert.equal(ev.filter((e) => e === `stop ${s}`).length, 3, `${s} stopped after each visit`);
    // version and config cannot change within a run: asked at the first visit only (0.1-1.1 s a visit)
    assert.equal(ev.filter((e) => e === `version ${s}`).length, 1, `${s} version asked once`);
    assert.equal(ev.filter((e) => e === `config ${s}`).length, 1, `${s} config asked once`);
    const lastStart = ev.lastIndexOf(`start ${s}`);
    assert.ok(ev.indexOf(`cleanup ${s}`) > lastStart, `cleanup ${s} after its last visit started`);
  }
  // one server at a time: every start is followed by its own stop before the next start
  const ss = ev.filter((e) => e.startsWith("start ") || e.startsWith("stop "));
  for (let i = 0; i < ss.length; i += 2)
    assert.equal(
      ss[i + 1],
      ss[i].replace("start", "stop"),
      `visit ${i / 2 + 1} stops its server before the next starts`,
    );
});

test("a study install that is unavailable skips its cells with the reason; one that fails marks them failed with the log", {
  timeout: 120_000,
}, () => {
  for (const [code, status, re] of [
    ["3", "skipped", /toy tools not available here: toy tools need the cloud box/],
    ["5", "failed", /install toy exited 5: toy build broke/],
  ] as const) {
    const { data, env } = toyEnv();
    const id = `20260101T000000Z-install-${code}`;
    const r = cli(["run", "--profile", "interleave", "--run-id", id], { ...env, TOY_INSTALL_EXIT: code });
    assert.equal(r.code, code === "3" ? 0 : 1, r.stderr);
    const m = JSON.parse(readFileSync(path.join(data, "runs", id, "manifest.json"), "utf8"));
    for (const c of m.cells) {
      assert.equal(c.status, status);
      assert.match(c.reason, re);
      assert.equal(c.log, "logs/study.toy.install.err");
    }
    assert.ok(existsSync(path.join(data, "runs", id, "logs", "study.toy.install.err")));
    assert.equal(m.study_installs.toy.status, status);
    assert.ok(
      !events(env.SAMEBOX_STATE).some((e) => e.startsWith("prepare")),
      "nothing prepared for cells that cannot run",
    );
  }
});

// Which workloads a system runs is asked of the system: a workload whose `requires` the system's
// capabilities lack is a skipped cell naming the capability and the system's own note, and the study
// verb is never called for it (no cell folder); a profile naming a system that lacks the study's own
// requirements is refused before anything runs.
test("capabilities decide: unmet workload needs are skipped with the system's reason, unmet study needs refused", {
  timeout: 120_000,
}, () => {
  const { data, env } = toyEnv();
  const profile = path.join(tempDir(), "caps.json");
  writeFileSync(
    profile,
    JSON.stringify({
      name: "caps",
      description: "fakedb2 lacks sysbench, which the fails workload requires",
      repetitions: 1,
      studies: {
        toy: {
          systems: ["fakedb2"],
          workloads: ["good", "fails"],
          concurrency: [2],
          variants: ["warm"],
          cell_timeout_s: 10,
          env: {},
        },
      },
    }),
  );
  const r = cli(["run", "--profile", profile, "--run-id", "20260101T000000Z-caps-test"], env);
  assert.equal(r.code, 0, r.stderr);
  const dir = path.join(data, "runs", "20260101T000000Z-caps-test");
  const m = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
  const byId = Object.fromEntries(m.cells.map((c: { id: string }) => [c.id, c]));
  assert.equal(byId["toy.good.fakedb2.c2.warm.r1"].status, "ok");
  const fails = byId["toy.fails.fakedb2.c2.warm.r1"];
  assert.equal(fails.status, "skipped");
  assert.equal(
    fails.reason,
    "unsupported: fails needs capability 'sysbench', which fakedb2 lacks: fakedb2 runs only the good and wrong workloads (interleaving tests)",
  );
  assert.ok(
    !existsSync(path.join(dir, "cells", "toy.fails.fakedb2.c2.warm.r1")),
    "the study's run verb was not called",
  );

  // the real tree: sqlite has no sysbench driver, so it cannot be a system of the oltp study
  const bad = path.join(tempDir(), "bad.json");
  writeFileSync(
    bad,
    JSON.stringify({
      name: "bad",
      description: "sqlite in oltp",
      repetitions: 1,
      studies: { oltp: { systems: ["sqlite"], concurrency: [1], env: {} } },
    }),
  );
  const refused = cli(["run", "--profile", bad, "--dry-run"]);
  assert.equal(refused.code, 2, refused.stderr);
  assert.match(
    refused.stderr,
    /profile bad: study oltp: system 'sqlite' cannot run it: study oltp needs capability 'sysbench', which sqlite lacks: sysbench has no SQLite driver; systems that can: mariadb, mysql, postgresql/,
  );
});

// A server that keeps its data in memory only (system.json memory_only: seed 001's mskql) loses what prepare
// loaded when it is stopped between visits, so its study is prepared again at every visit, each with its own log.
test("a memory_only system is prepared at every visit, the others once", { timeout: 120_000 }, () => {
  const bench = tempDir("samebox-bench-");
  cpSync(path.join(fixtures, "fake-bench"), bench, { recursive: true });
  const sys = path.join(bench, "systems", "fakedb2", "system.json");
  writeFileSync(sys, JSON.stringify({ ...JSON.parse(readFileSync(sys, "utf8")), memory_only: true }, null, 2));
  const { data, env } = toyEnv({ SAMEBOX_BENCH_SCRIPTS: bench });
  const r = cli(
    ["run", "--profile", "interleave", "--run-id", "20260101T000000Z-memory-only", "--order-seed", "7"],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const ev = events(env.SAMEBOX_STATE);
  assert.equal(ev.filter((e) => e === "prepare fakedb").length, 1, "a system that keeps its data: prepared once");
  assert.equal(ev.filter((e) => e === "prepare fakedb2").length, 3, "memory_only: prepared at each of its 3 visits");
  for (const rep of [1, 2, 3])
    assert.ok(
      existsSync(path.join(data, "runs", "20260101T000000Z-memory-only", "logs", `fakedb2.toy.r${rep}.prepare.out`)),
      `prepare log of visit ${rep} kept`,
    );
});

test("final cleanup after the sequential loop starts the system, unless the study says its cleanup does not need it", {
  timeout: 240_000,
}, () => {
  for (const needs of [true, false]) {
    // a copy of the toy bench whose study.json says cleanup_needs_system: false (mcp-servers' case)
    const bench = path.join(tempDir(), "bench");
    cpSync(path.join(fixtures, "fake-bench"), bench, { recursive: true });
    const studyFile = path.join(bench, "studies", "toy", "study.json");
    if (!needs)
      writeFileSync(
        studyFile,
        JSON.stringify({ ...JSON.parse(readFileSync(studyFile, "utf8")), cleanup_needs_system: false }),
      );
    const { env } = toyEnv({ SAMEBOX_BENCH_SCRIPTS: bench, TOY_TPS_FAKEDB: "1300", TOY_TPS_FAKEDB2: "1000" });
    const seq = { max_repetitions: 6, budget_s: 600 };
    const r = cli(
      ["run", "--profile", profile(`cleanup-${needs}`, ["measured"], 5, seq), "--run-id", `20260101T000000Z-c${needs}`],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    const ev = events(env.SAMEBOX_STATE);
    for (const s of ["fakedb", "fakedb2"]) {
      const cleanupAt = ev.indexOf(`cleanup ${s}`);
      assert.ok(cleanupAt > 0, `cleanup ${s} ran`);
      // the events just before the cleanup: "start <s>" when the final cleanup started the system
      const startedForCleanup = ev.lastIndexOf(`start ${s}`) > ev.lastIndexOf(`stop ${s}`, cleanupAt);
      assert.equal(startedForCleanup, needs, `${s}: started for its cleanup = ${needs}`);
      assert.equal(
        ev.filter((e) => e === `start ${s}`).length,
        needs ? 6 : 5,
        `${s}: 5 visits${needs ? " + the cleanup" : ""}`,
      );
    }
  }
});
