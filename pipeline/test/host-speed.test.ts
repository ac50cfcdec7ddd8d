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
  pageFaultUs,
  wakeupRttUs,
} from "../runner/host-speed.ts";
import { cpuIdentity, machineInfo } from "../runner/machine.ts";
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
  writeRun(runs, "20260109T000000Z-identified", {
    status: "complete",
    machine: { label: LABEL, cpu_identity: "AuthenticAMD family 25 model 1 stepping 1" },
    cells: twenty(50),
  });
  assert.deepEqual(referenceProbe(runs, LABEL), {
    run_id: "20260109T000000Z-identified",
    host_probe_ms: 50,
    cpu_identity: "AuthenticAMD family 25 model 1 stepping 1",
  });
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

test("hostSlowerReason: with both runs' CPU identities, says whether the hardware differs or the host is shared", () => {
  const zen3 = "AuthenticAMD family 25 model 1 stepping 1, 2445 MHz, L2 512K, L3 32768K";
  const zen4 = "AuthenticAMD family 25 model 17 stepping 1, 3700 MHz, L2 1024K, L3 32768K";
  const ref = { run_id: "20260102T000000Z-ref", host_probe_ms: 40, cpu_identity: zen4 };
  assert.match(
    hostSlowerReason(50, ref, zen3),
    new RegExp(`other hardware under the same label \\(that run: ${zen4}; this one: ${zen3}\\)`),
  );
  assert.match(
    hostSlowerReason(50, ref, zen4),
    /the same CPU as that run's \(.*model 17.*\), so a host shared with other work/,
  );
  for (const [r, now] of [
    [{ run_id: "x", host_probe_ms: 40 }, zen3],
    [ref, "unknown"],
    [ref, ""],
  ] as const)
    assert.match(
      hostSlowerReason(50, r, now),
      /a host shared with other work, or slower hardware under the same label/,
    );
  assert.equal(hostSlowerReason(41, ref, zen3), "", "within the limit the CPUs are not compared");
});

test("cpuIdentity: vendor, family, model, stepping, clock and caches of the first CPU; 'unknown' without cpuinfo", () => {
  const dir = tempDir();
  const cache = (i: number, level: number, size: string) => {
    mkdirSync(path.join(dir, "cache", `index${i}`), { recursive: true });
    writeFileSync(path.join(dir, "cache", `index${i}`, "level"), `${level}\n`);
    writeFileSync(path.join(dir, "cache", `index${i}`, "size"), `${size}\n`);
  };
  cache(0, 1, "32K");
  cache(1, 1, "32K");
  cache(2, 2, "512K");
  cache(3, 3, "32768K");
  const x86 = (n: number, mhz: string) =>
    `processor\t: ${n}\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC\nstepping\t: 1\nmicrocode\t: 0x1000065\ncpu MHz\t\t: ${mhz}\n`;
  const info = `${x86(0, "2445.424")}\n${x86(1, "1800.000")}`;
  assert.equal(cpuIdentity(info, dir), "AuthenticAMD family 25 model 1 stepping 1, 2445 MHz, L2 512K, L3 32768K");
  mkdirSync(path.join(dir, "cpufreq"));
  writeFileSync(path.join(dir, "cpufreq", "cpuinfo_max_freq"), "3700000\n");
  assert.match(cpuIdentity(info, dir), /, 3700 MHz,/, "cpufreq's maximum, not the moment's clock");
  const arm =
    "processor\t: 0\nBogoMIPS\t: 243.75\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd0c\nCPU revision\t: 1\n";
  assert.equal(cpuIdentity(arm, path.join(dir, "absent")), "0x41 family 8 model 0xd0c stepping 1");
  assert.equal(cpuIdentity("", dir), "unknown");
});

test("hostProbeMedian: a positive time in ms, to 0.1 ms", () => {
  const ms = hostProbeMedian(3);
  assert.ok(ms > 0 && Number.isFinite(ms), String(ms));
  assert.equal(Math.round(ms * 10) / 10, ms);
});

test("pageFaultUs: µs per fresh page, to 0.01, and more than touching pages already mapped", () => {
  const us = pageFaultUs(3);
  assert.ok(us > 0 && us < 1000, String(us));
  assert.equal(Math.round(us * 100) / 100, us);
  // the same writes to a buffer whose pages are already mapped cost a small fraction: the figure is the faults
  const b = Buffer.alloc(64 << 20, 1);
  const t0 = performance.now();
  for (let off = 0; off < b.length; off += 4096) b[off] = 2;
  const mappedUs = ((performance.now() - t0) * 1000) / ((64 << 20) / 4096);
  assert.ok(mappedUs < us / 2, `mapped ${mappedUs.toFixed(3)} µs vs fresh ${us} µs`);
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
  const m = await machineInfo();
  assert.match(m.cpuidle, /^(driver \S+, governor \S+|unknown)/);
  assert.match(m.cpu_identity, /^(\S+ family \S+ model \S+ stepping \S+|unknown)/);
});
