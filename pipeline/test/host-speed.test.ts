// The host-speed check before a run (runner/host-speed.ts): which run is the reference, and when a host is
// too slow to compare with it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import os from "node:os";
import {
  HOST_SLOWER_SHARE,
  hostProbeMedian,
  hostSlowerReason,
  referenceProbe,
  wakeupRttUs,
} from "../runner/host-speed.ts";
import { machineInfo } from "../runner/machine.ts";
import { tempDir } from "./helpers.ts";

const LABEL = "local: Test CPU, 2 cores, 24 GiB";

function writeRun(runs: string, id: string, m: Record<string, unknown> | string): void {
  mkdirSync(path.join(runs, id), { recursive: true });
  writeFileSync(path.join(runs, id, "manifest.json"), typeof m === "string" ? m : JSON.stringify({ run_id: id, ...m }));
}
const probed = (ms: number[]) => ms.map((x) => ({ noise: { host_probe_ms: x } }));
const twenty = (ms: number) => probed(Array.from({ length: 20 }, (_, i) => ms + (i % 3) - 1));

test("referenceProbe: the newest complete run on the same label with 20 probed cells; its cells' median", () => {
  const runs = tempDir();
  writeRun(runs, "20260101T000000Z-old", { status: "complete", machine: { label: LABEL }, cells: twenty(30) });
  writeRun(runs, "20260102T000000Z-ref", { status: "complete", machine: { label: LABEL }, cells: twenty(40) });
  writeRun(runs, "20260103T000000Z-other-label", {
    status: "complete",
    machine: { label: "local: Other" },
    cells: twenty(10),
  });
  writeRun(runs, "20260104T000000Z-running", { status: "running", machine: { label: LABEL }, cells: twenty(10) });
  writeRun(runs, "20260105T000000Z-few", {
    status: "complete",
    machine: { label: LABEL },
    cells: probed([10, 10, 10]),
  });
  writeRun(runs, "20260106T000000Z-unprobed", { status: "complete", machine: { label: LABEL }, cells: [{}, {}] });
  writeRun(runs, "20260107T000000Z-broken", "{not json");
  mkdirSync(path.join(runs, "20260108T000000Z-no-manifest"));
  assert.deepEqual(referenceProbe(runs, LABEL), { run_id: "20260102T000000Z-ref", host_probe_ms: 40 });
  assert.equal(referenceProbe(runs, "local: Nowhere"), undefined, "no run on that machine: no reference");
  assert.equal(referenceProbe(path.join(runs, "absent"), LABEL), undefined, "no runs folder: no reference");
});

test("hostSlowerReason: silent up to 10 % slower and without a reference; above, names both figures and the run", () => {
  const ref = { run_id: "20260102T000000Z-ref", host_probe_ms: 40 };
  assert.equal(HOST_SLOWER_SHARE, 0.1);
  assert.equal(hostSlowerReason(30, ref), "", "a faster host");
  assert.equal(hostSlowerReason(44, ref), "", "10 % slower is within the limit");
  assert.equal(hostSlowerReason(99, undefined), "", "nothing to compare with");
  const why = hostSlowerReason(46.8, ref);
  assert.match(
    why,
    /takes 46\.8 ms, 17 % slower than the 40 ms of run 20260102T000000Z-ref on this machine \(limit 10 %\)/,
  );
});

test("hostProbeMedian: a positive time in ms, to 0.1 ms", () => {
  const ms = hostProbeMedian(3);
  assert.ok(ms > 0 && Number.isFinite(ms), String(ms));
  assert.equal(Math.round(ms * 10) / 10, ms);
});

test("wakeupRttUs: both round trips measured on two CPUs; on one CPU the script says it needs two", async (t) => {
  if (os.availableParallelism() < 2) return t.skip("needs two CPUs");
  const rtt = wakeupRttUs();
  assert.ok(rtt, "measured");
  assert.ok(rtt.same_cpu > 0 && rtt.same_cpu < 10_000, `same ${rtt.same_cpu}`);
  assert.ok(rtt.cross_cpu > 0 && rtt.cross_cpu < 10_000, `cross ${rtt.cross_cpu}`);
  const script = path.join(import.meta.dirname, "..", "runner", "wakeup-rtt.py");
  const one = spawnSync("taskset", ["-c", "0", "python3", script], { encoding: "utf8" });
  assert.equal(one.status, 3, one.stderr);
  assert.match(one.stderr, /needs two CPUs, this process may use 1/);
  assert.match((await machineInfo()).cpuidle, /^(driver \S+, governor \S+|unknown)/);
});
