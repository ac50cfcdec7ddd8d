// The noise guard on the scripted toy study (pipeline/test/fixtures/fake-bench): a CPU burner outside
// the cell's process tree gets the cell flagged and re-run; a cell disturbed every time is kept as noisy.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { machineInfo } from "../runner/machine.ts";
import { cli, toyEnv } from "./helpers.ts";
import { type Manifest, manifestOf, profile } from "./runner-fixtures.ts";

test("noise guard: a CPU burner beside a cell gets it flagged and re-run; the disturbed attempt is kept aside", {
  timeout: 180_000,
}, () => {
  const { data, env } = toyEnv({ TOY_BURN_ATTEMPTS: "1" });
  const id = "20260101T000000Z-noise-rerun";
  const r = cli(
    [
      "run",
      "--profile",
      profile("noise", ["burn"], 1),
      "--systems",
      "fakedb",
      "--run-id",
      id,
      "--noise-guard",
      "strict",
      "--allow-busy",
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const m = manifestOf(data, id);
  const cell = m.cells[0];
  // The second attempt runs without the burner; whether it is clean depends on what else this machine
  // runs (a busy CI box may disturb it too), so its status is ok, or noisy after all 3 attempts.
  assert.ok(cell.status === "ok" || cell.status === "noisy", cell.reason);
  assert.ok((cell.noise?.attempts ?? 0) >= 2, "the disturbed first attempt was re-run");
  assert.ok(m.noise_guard!.flagged >= 1 && m.noise_guard!.reruns >= 1);
  const first = path.join(data, "runs", id, "cells", `${cell.id}.noisy-1`);
  assert.ok(existsSync(first), "the disturbed attempt's folder is kept aside");
  assert.match(readFileSync(path.join(first, "stdout.txt"), "utf8"), /SQL statistics/, "with its output");
  const noise = JSON.parse(readFileSync(path.join(first, "noise.json"), "utf8"));
  assert.equal(noise.disturbed, true);
  assert.match(noise.reason, /outside the cell .*\bsh\[\d+\]/, "the reason names the burner");
});

test("noise guard: a cell disturbed in every attempt is marked noisy, kept with its records and the reason", {
  timeout: 180_000,
}, () => {
  const { data, env } = toyEnv({ TOY_BURN_ATTEMPTS: "9" });
  const id = "20260101T000000Z-noise-noisy";
  const r = cli(
    [
      "run",
      "--profile",
      profile("noisy", ["burn"], 1),
      "--systems",
      "fakedb",
      "--run-id",
      id,
      "--noise-guard",
      "strict",
      "--allow-busy",
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 noisy/);
  const m = manifestOf(data, id);
  assert.equal(m.cells[0].status, "noisy");
  assert.match(m.cells[0].reason, /^noisy: .*outside.* in all 3 attempts/);
  assert.equal(m.noise_guard!.noisy, 1);
  assert.ok(
    readFileSync(path.join(data, "runs", id, "records.csv"), "utf8").includes(",tps,"),
    "a noisy cell's records are kept in data/",
  );
  const v = cli(["validate", path.join(data, "runs", id)], env);
  assert.equal(v.code, 0, v.stderr);
});

test("noise guard: a daemon declared part of the system under test (inside_pidfile) is not counted as outside work", {
  timeout: 120_000,
}, () => {
  const { data, env } = toyEnv();
  const id = "20260101T000000Z-noise-inside";
  const r = cli(
    [
      "run",
      "--profile",
      profile("inside", ["burninside"], 1),
      "--systems",
      "fakedb",
      "--run-id",
      id,
      "--noise-guard",
      "warn",
    ],
    env,
  );
  assert.equal(r.code, 0, r.stderr);
  const cell = manifestOf(data, id).cells[0] as Manifest["cells"][number] & { noise: { top_outside: string[] } };
  assert.equal(cell.status, "ok");
  const burner = Number(readFileSync(path.join(env.SAMEBOX_STATE, "inside.pid"), "utf8"));
  assert.ok(
    !cell.noise.top_outside.some((t) => t.includes(`[${burner}]`)),
    `the declared daemon ${burner} is inside: ${cell.noise.top_outside.join(", ")}`,
  );
});

test("host speed: a strict run refuses a host slower than the newest run on this machine; --allow-busy records why", {
  timeout: 120_000,
}, async () => {
  const { data, env } = toyEnv();
  // A reference no real host can match: 64 MiB hashed in 1 ms, in every one of its 20 cells.
  const label = (await machineInfo()).label;
  const ref = "20250101T000000Z-fast-host";
  mkdirSync(path.join(data, "runs", ref), { recursive: true });
  const cells = Array.from({ length: 20 }, () => ({ noise: { host_probe_ms: 1 } }));
  writeFileSync(
    path.join(data, "runs", ref, "manifest.json"),
    JSON.stringify({ run_id: ref, status: "complete", machine: { label }, cells }),
  );
  const args = (id: string) => [
    "run",
    "--profile",
    profile("host", ["good"], 1),
    "--systems",
    "fakedb",
    "--run-id",
    id,
  ];
  const refused = cli([...args("20260101T000000Z-host-refused"), "--noise-guard", "strict"], env);
  assert.notEqual(refused.code, 0, "refused");
  assert.match(
    refused.stderr,
    /not ready for a strict run: .*host probe .* slower than the 1 ms of run 20250101T000000Z-fast-host/,
  );
  assert.match(refused.stderr, /--allow-busy/, "names the way to measure anyway");
  assert.ok(!existsSync(path.join(data, "runs", "20260101T000000Z-host-refused")), "no run folder is made");

  const id = "20260101T000000Z-host-allowed";
  const r = cli([...args(id), "--noise-guard", "strict", "--allow-busy"], env);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /warning: before the run: the host probe/);
  const before = manifestOf(data, id).noise_guard!.before_run as Record<string, unknown>;
  assert.deepEqual(before.host_reference, { run_id: ref, host_probe_ms: 1 });
  assert.ok((before.host_probe_ms as number) > 1.1);
  const rtt = before.wakeup_rtt_us as { same_cpu: number; cross_cpu: number } | undefined;
  if (os.availableParallelism() >= 2) assert.ok(rtt && rtt.cross_cpu > 0 && rtt.same_cpu > 0, JSON.stringify(before));
  assert.match(String(before.host_slower), /slower than the 1 ms/);
  assert.ok((before.page_fault_us as number) > 0, `a fresh page's first touch: ${before.page_fault_us} µs`);
});

test("host speed: a cloud box records a slower host and runs (it cannot wait out its neighbours)", {
  timeout: 120_000,
}, async () => {
  const { data, env } = toyEnv();
  const cloudEnv = { ...env, SAMEBOX_CLOUD_INSTANCE_TYPE: "c6a.xlarge", SAMEBOX_CLOUD_REGION: "eu-west-1" };
  const saved = { ...process.env };
  Object.assign(process.env, { SAMEBOX_CLOUD_INSTANCE_TYPE: "c6a.xlarge", SAMEBOX_CLOUD_REGION: "eu-west-1" });
  const label = (await machineInfo()).label;
  process.env = saved;
  assert.match(label, /^c6a\.xlarge \(eu-west-1\)/);
  const ref = "20250101T000000Z-fast-box";
  mkdirSync(path.join(data, "runs", ref), { recursive: true });
  const cells = Array.from({ length: 20 }, () => ({ noise: { host_probe_ms: 1 } }));
  writeFileSync(
    path.join(data, "runs", ref, "manifest.json"),
    JSON.stringify({ run_id: ref, status: "complete", machine: { label }, cells }),
  );
  const id = "20260101T000000Z-box-slower";
  const r = cli(
    ["run", "--profile", profile("box", ["good"], 1), "--systems", "fakedb", "--run-id", id, "--noise-guard", "strict"],
    cloudEnv,
  );
  if (r.code !== 0) {
    // A machine busy beside the test (CI's other suites) still refuses, and for that reason alone.
    assert.match(r.stderr, /not ready for a strict run: machine already busy/);
    assert.doesNotMatch(r.stderr, /host probe/);
    return;
  }
  assert.match(
    r.stderr,
    /warning: before the run: the host probe .* slower than the 1 ms of run 20250101T000000Z-fast-box/,
  );
  const m = manifestOf(data, id);
  assert.equal((m.noise_guard as unknown as Record<string, unknown>).mode, "strict");
  assert.match(String((m.noise_guard!.before_run as Record<string, unknown>).host_slower), /slower than the 1 ms/);
});
