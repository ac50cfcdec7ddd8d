import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { cli, fixtures, nodeBin, repoRoot, tempDir, toyEnv } from "./helpers.ts";

// What makes a run's answers trustworthy, with the scripted toy study (pipeline/test/fixtures/fake-bench):
// claim-driven sequential repetitions (stop when decided, stop at the budget), the noise guard (a CPU
// burner outside the cell's process tree gets the cell flagged and re-run), and --resume after SIGKILL.

import { type Manifest, manifestOf, profile } from "./runner-fixtures.ts";

test("sequential: a claim decided after the base repetitions adds none and says why it stopped", {
  timeout: 180_000,
}, () => {
  const { data, env } = toyEnv({ TOY_TPS_FAKEDB: "1300", TOY_TPS_FAKEDB2: "1000", TOY_NOISE: "0.02" });
  const r = cli(
    [
      "run",
      "--profile",
      profile("seq-clear", ["measured"], 5, { max_repetitions: 9, budget_s: 600 }),
      "--run-id",
      "20260101T000000Z-seq-clear",
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const m = manifestOf(data, "20260101T000000Z-seq-clear");
  const seq = m.sequential!.toy;
  assert.equal(seq.repetitions_added, 0);
  assert.equal(seq.looks, 2, "two looks: after the base repetitions and after the added ones");
  assert.deepEqual([seq.alpha_spending!.base, seq.alpha_spending!.max], [5, 9]);
  assert.ok(
    Math.abs(seq.alpha_spending!.alpha1 + seq.alpha_spending!.alpha2 - 0.05) < 1e-12,
    "the two looks spend 5 % in all",
  );
  assert.match(seq.stopped, /every measurable claim is decided/);
  assert.equal(seq.claims[0].verdict, "reproduces");
  assert.equal(seq.claims[0].n, 5);
});

test("sequential: a claim undecided at look 1 gets more paired repetitions of just its cells and is decided at look 2", {
  timeout: 300_000,
}, () => {
  // 6 % apart with ±8 % wobble (the toy's values are a fixed function of system and repetition): five
  // repetitions at look 1's level cannot tell (0.995×–1.18×), ten at look 2's can (1.015×–1.11×)
  const { data, env } = toyEnv({ TOY_TPS_FAKEDB: "1060", TOY_TPS_FAKEDB2: "1000", TOY_NOISE: "0.08" });
  const r = cli(
    [
      "run",
      "--profile",
      profile("seq-more", ["measured", "good"], 5, { max_repetitions: 10, budget_s: 600 }),
      "--run-id",
      "20260101T000000Z-seq-more",
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const m = manifestOf(data, "20260101T000000Z-seq-more");
  const seq = m.sequential!.toy;
  assert.ok(seq.repetitions_added > 0, `repetitions were added (${seq.stopped})`);
  const extra = m.cells.filter((c) => c.repetition > 5);
  assert.ok(
    extra.length > 0 && extra.every((c) => c.id.startsWith("toy.measured.")),
    "only the claim's cells are repeated, never the unrelated 'good' workload",
  );
  for (let rep = 6; rep <= 5 + seq.repetitions_added; rep++)
    assert.equal(extra.filter((c) => c.repetition === rep).length, 2, `repetition ${rep} pairs both sides`);
  assert.equal(seq.repetitions_added, 5, "no decision is taken between the looks: the block runs to the maximum");
  assert.equal(seq.claims[0].verdict, "reproduces", `decided at look 2: ${seq.stopped}`);
  assert.equal(seq.claims[0].n, 10);
  assert.match(
    seq.stopped,
    /reached the maximum of 10 repetitions; look 2 judged the 1 claim\(s\) undecided at look 1/,
  );
  // `samebox report` judges the claim from this run as the site does: look 2, ten paired repetitions
  const rep = cli(["report", path.join(data, "runs", "20260101T000000Z-seq-more")], env);
  assert.equal(rep.code, 0, rep.stderr);
  assert.match(
    rep.stdout,
    /\| fakedb-over-fakedb2 \| ordering \| 1\.25× \| 1\.06× \| 1\.0\d×–1\.1\d× \| reproduces \| 10 \(2\) \|/,
  );
  assert.match(rep.stdout, /Verdicts: 1 reproduces, 0 does not reproduce, 0 tie, 0 undecided, 0 not measured/);
  const bad = cli(["report", path.join(data, "runs", "no-such-run")], env);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /no-such-run: no manifest\.json \(give a data\/runs\/<run-id> folder\)/);
  assert.ok(seq.claims[0].lo! > 0);
});

test("sequential: the study's budget ends the loop with the claim still undecided", { timeout: 180_000 }, () => {
  // the look-2-decidable case of the test above, with no budget for one more repetition
  const { data, env } = toyEnv({ TOY_TPS_FAKEDB: "1060", TOY_TPS_FAKEDB2: "1000", TOY_NOISE: "0.08" });
  const r = cli(
    [
      "run",
      "--profile",
      profile("seq-budget", ["measured"], 5, { max_repetitions: 10, budget_s: 0 }),
      "--run-id",
      "20260101T000000Z-seq-budget",
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const seq = manifestOf(data, "20260101T000000Z-seq-budget").sequential!.toy;
  assert.equal(seq.repetitions_added, 0);
  assert.match(seq.stopped, /would exceed the study's budget of 0 s .* look 2 judged the 1 claim\(s\) undecided/);
  assert.equal(seq.claims[0].verdict, "undecided");
});

test("sequential: the profile's time limit ends the loop before the study's budget does", { timeout: 180_000 }, () => {
  // the look-2-decidable case again, with a budget that allows the repetitions and a run limit (0.6 s) that
  // the base repetitions alone already pass
  const { data, env } = toyEnv({ TOY_TPS_FAKEDB: "1060", TOY_TPS_FAKEDB2: "1000", TOY_NOISE: "0.08" });
  const id = "20260101T000000Z-seq-limit";
  const file = profile("seq-limit", ["measured"], 5, { max_repetitions: 10, budget_s: 600 }, { time_limit_min: 0.01 });
  const r = cli(["run", "--profile", file, "--run-id", id], env);
  assert.equal(r.code, 0, r.stderr);
  const m = manifestOf(data, id);
  const seq = m.sequential!.toy;
  assert.equal(seq.repetitions_added, 0);
  assert.match(
    seq.stopped,
    /the next repetition \(~\d+ s\) would pass the profile's time limit of 0\.01 min \(the run has taken [\d.]+ min\); look 2 judged the 1 claim\(s\) undecided/,
  );
  assert.equal(seq.claims[0].verdict, "undecided");
  assert.equal((m as unknown as { config: { time_limit_min?: number } }).config.time_limit_min, 0.01);
});

test("sequential: a claim whose ratio sits on a bound gets no repetitions (look 2 could not decide it within the maximum)", {
  timeout: 180_000,
}, () => {
  // equal throughputs with ±40 % wobble: look 1 sees 1.12× with a log-ratio spread of 0.27, so ten
  // repetitions at look 2's level would still have a half-width (~0.25) above the 0.12 that decides
  const { data, env } = toyEnv({ TOY_TPS_FAKEDB: "1000", TOY_TPS_FAKEDB2: "1000", TOY_NOISE: "0.4" });
  const r = cli(
    [
      "run",
      "--profile",
      profile("seq-hopeless", ["measured"], 5, { max_repetitions: 10, budget_s: 600 }),
      "--run-id",
      "20260101T000000Z-seq-hopeless",
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const seq = manifestOf(data, "20260101T000000Z-seq-hopeless").sequential!.toy;
  assert.equal(seq.repetitions_added, 0);
  assert.match(
    seq.stopped,
    /no repetitions added; 1 claim\(s\) undecided at look 1 that 10 repetitions could not decide at look 2's level/,
  );
  assert.equal(seq.claims[0].verdict, "undecided");
});

/** On another host type a run is not continued (a paired repetition never spans two hosts), and nothing changes. */
function refusedOnAnotherHost(mfile: string, id: string, data: string, env: Record<string, string>): void {
  const raw = readFileSync(mfile, "utf8");
  const elsewhere = JSON.parse(raw) as Manifest;
  elsewhere.machine.cpu_model = "Other Vendor CPU";
  writeFileSync(mfile, JSON.stringify(elsewhere));
  const refused = cli(["run", "--resume", id], env);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /began on Other Vendor CPU.*; this machine is .*--studies toy\b/s);
  assert.equal(manifestOf(data, id).resumed, undefined, "a refused resume changes nothing");
  writeFileSync(mfile, raw);
}

test("resume: a runner killed with SIGKILL mid-run is recognised, and --resume ends with every planned cell done once", {
  timeout: 240_000,
}, async () => {
  const { data, env } = toyEnv();
  const id = "20260101T000000Z-resume";
  const file = profile("resume", ["nap"], 3);
  const child = spawn(
    nodeBin,
    [
      "--disable-warning=ExperimentalWarning",
      path.join(repoRoot, "pipeline", "cli.ts"),
      "run",
      "--profile",
      file,
      "--run-id",
      id,
    ],
    {
      env: { ...process.env, CI: "1", ...env },
      stdio: "ignore",
      detached: true,
    },
  );
  const mfile = path.join(data, "runs", id, "manifest.json");
  const okCells = () =>
    existsSync(mfile)
      ? (JSON.parse(readFileSync(mfile, "utf8")) as Manifest).cells.filter((c) => c.status === "ok").length
      : 0;
  for (let i = 0; i < 600 && okCells() < 2; i++) await new Promise((res) => setTimeout(res, 100));
  assert.ok(okCells() >= 2, "two cells finished before the kill");
  process.kill(-child.pid!, "SIGKILL");
  await new Promise((res) => child.once("exit", res));
  const before = manifestOf(data, id);
  assert.equal(before.status, "running");
  assert.ok(
    before.cells.some((c) => c.reason === "not run"),
    "killed mid-run: cells left",
  );
  const v = cli(["validate", path.join(data, "runs", id)], env);
  assert.equal(v.code, 2);
  assert.match(
    v.stderr,
    /is no longer running: the run was interrupted; continue it with: samebox run --resume 20260101T000000Z-resume/,
  );

  refusedOnAnotherHost(mfile, id, data, env);

  const r = cli(["run", "--resume", id], env);
  assert.equal(r.code, 0, r.stderr);
  const m = manifestOf(data, id);
  assert.equal(m.resumed?.[0].host?.startsWith(m.machine.cpu_model), true, "the resume records its host type");
  assert.equal(m.status, "complete");
  assert.equal(m.cells.length, 6);
  assert.deepEqual(
    m.cells.map((c) => c.status),
    Array(6).fill("ok"),
  );
  assert.equal(m.resumed?.length, 1);
  const recs = readFileSync(path.join(data, "runs", id, "records.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const tps = recs
    .filter((x) => x.metric === "tps")
    .map((x) => `${x.system} r${x.repetition}`)
    .sort();
  assert.deepEqual(
    tps,
    ["fakedb r1", "fakedb r2", "fakedb r3", "fakedb2 r1", "fakedb2 r2", "fakedb2 r3"],
    "one tps record per planned cell: none lost, none doubled",
  );
  assert.equal(cli(["validate", path.join(data, "runs", id)], env).code, 0);
  const again = cli(["run", "--resume", id], env);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /is complete; nothing to resume/);
});

test("an interrupted run (SIGTERM) still runs the cleanups that need no system, and no other", {
  timeout: 240_000,
}, async () => {
  for (const needs of [false, true]) {
    // a copy of the toy bench whose study.json says cleanup_needs_system: false (mcp-servers' case: its
    // cleanup stops the shared Redis and api-service, which an interrupted run would otherwise leave up)
    const bench = path.join(tempDir(), "bench");
    cpSync(path.join(fixtures, "fake-bench"), bench, { recursive: true });
    const studyFile = path.join(bench, "studies", "toy", "study.json");
    writeFileSync(
      studyFile,
      JSON.stringify({ ...JSON.parse(readFileSync(studyFile, "utf8")), cleanup_needs_system: needs }),
    );
    const { data, env } = toyEnv({ SAMEBOX_BENCH_SCRIPTS: bench });
    const id = `20260101T000000Z-term-${needs}`;
    const child = spawn(
      nodeBin,
      [
        "--disable-warning=ExperimentalWarning",
        path.join(repoRoot, "pipeline", "cli.ts"),
        "run",
        "--profile",
        profile(`term-${needs}`, ["nap"], 4),
        "--run-id",
        id,
      ],
      { env: { ...process.env, CI: "1", ...env }, stdio: "ignore" },
    );
    const mfile = path.join(data, "runs", id, "manifest.json");
    const okCells = () =>
      existsSync(mfile)
        ? (JSON.parse(readFileSync(mfile, "utf8")) as Manifest).cells.filter((c) => c.status === "ok").length
        : 0;
    for (let i = 0; i < 600 && okCells() < 3; i++) await new Promise((res) => setTimeout(res, 100));
    assert.ok(okCells() >= 3, "both systems prepared before the interrupt");
    const exited = new Promise((res) => child.once("exit", res));
    child.kill("SIGTERM");
    await exited;
    const m = manifestOf(data, id);
    assert.equal(m.status, "interrupted");
    const ev = readFileSync(path.join(env.SAMEBOX_STATE, "events"), "utf8").trim().split("\n");
    const lastStop = Math.max(ev.lastIndexOf("stop fakedb"), ev.lastIndexOf("stop fakedb2"));
    for (const s of ["fakedb", "fakedb2"]) {
      const at = ev.indexOf(`cleanup ${s}`);
      if (needs) assert.equal(at, -1, `${s}: a cleanup that needs its system waits for the resume`);
      else assert.ok(at > lastStop, `${s}: cleaned up after the interrupt, without starting it`);
    }
    assert.equal(ev.filter((e) => e.startsWith("start ")).length, ev.filter((e) => e.startsWith("stop ")).length);
  }
});

test("one run at a time per state folder: a second run beside a live one is refused; a dead runner's lock is taken over", {
  timeout: 180_000,
}, async () => {
  const { data, env } = toyEnv();
  const lock = path.join(env.SAMEBOX_STATE, "runner.lock");
  const child = spawn(
    nodeBin,
    [
      "--disable-warning=ExperimentalWarning",
      path.join(repoRoot, "pipeline", "cli.ts"),
      "run",
      "--profile",
      profile("lock", ["nap"], 3),
      "--run-id",
      "20260101T000000Z-lock-first",
    ],
    {
      env: { ...process.env, CI: "1", ...env },
      stdio: "ignore",
      detached: true,
    },
  );
  const ended = new Promise((res) => child.once("exit", res));
  const mfile = path.join(data, "runs", "20260101T000000Z-lock-first", "manifest.json");
  for (let i = 0; i < 600 && !existsSync(mfile); i++) await new Promise((res) => setTimeout(res, 100));
  assert.ok(existsSync(lock), "the live run holds the lock");
  const second = cli(
    ["run", "--profile", profile("lock2", ["nap"], 1), "--run-id", "20260101T000000Z-lock-second"],
    env,
  );
  assert.equal(second.code, 2);
  assert.match(
    second.stderr,
    /another samebox run \(20260101T000000Z-lock-first, pid \d+, since .*\) is using SAMEBOX_STATE=.*give this run its own SAMEBOX_STATE/,
  );
  assert.ok(!existsSync(path.join(data, "runs", "20260101T000000Z-lock-second")), "the refused run wrote nothing");
  await ended;
  assert.ok(!existsSync(lock), "the lock is released when the run ends");
  // a lock left by a runner that died (a pid that is not running) does not block the next run
  writeFileSync(
    lock,
    JSON.stringify({
      run_id: "20260101T000000Z-dead",
      started_at: "2026-01-01T00:00:00Z",
      runner: { pid: 2 ** 22 + 1, host: (await import("node:os")).hostname(), boot_id: "" },
    }),
  );
  const third = cli(["run", "--profile", profile("lock3", ["nap"], 1), "--run-id", "20260101T000000Z-lock-third"], env);
  assert.equal(third.code, 0, third.stderr);
  assert.ok(!existsSync(lock));
});
