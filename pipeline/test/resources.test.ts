import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { MEASURE_END, MEASURE_START, ResourceSampler, useOver } from "../runner/resources.ts";

// The server CPU/memory window: read from the markers' mtimes and bracketed by timestamped samples,
// so a late event loop (a loaded machine) cannot turn a busy window into 0 % CPU.

const s = (at: number, cpu: number, pssMiB = 10) => ({ at, cpu, pssMiB });

test("a window no sample falls inside is measured by the samples around it", () => {
  const samples = [s(0, 0), s(1000, 0.1), s(6000, 8.1, 50), s(6500, 8.2)];
  const u = useOver(samples, 1200, 5800);
  assert.equal(u.window, "measured");
  assert.equal(u.cpuSeconds, 8);
  assert.equal(u.cpuPercent, 160); // 8 CPU seconds over the 5 s between the bracketing samples
  assert.equal(u.peakMiB, 50);
});

test("samples inside the window bound it tightly; warm-up before it is left out", () => {
  const samples = [s(0, 0, 900), s(250, 5, 900), s(500, 5.25, 20), s(750, 5.5, 30), s(1000, 5.75, 25), s(1250, 9, 900)];
  const u = useOver(samples, 250, 1000);
  assert.equal(u.cpuSeconds, 0.75);
  assert.equal(u.cpuPercent, 100);
  assert.equal(u.peakMiB, 900); // the bracketing sample at the start marker belongs to the window
  const inner = useOver(samples, 400, 1000);
  assert.equal(inner.peakMiB, 900); // bracket starts at 250
  assert.equal(useOver(samples, 500, 1000).peakMiB, 30);
});

test("without markers (or with an end before the start) the window is the whole cell", () => {
  const samples = [s(0, 0), s(1000, 0.5), s(2000, 1)];
  for (const [from, to] of [
    [null, null],
    [1500, null],
    [1500, 1000],
  ] as const) {
    const u = useOver(samples, from, to);
    assert.equal(u.window, "whole-cell");
    assert.equal(u.cpuPercent, 50);
  }
});

test("a real busy process between markers shows CPU even when the sampler never ticked in between", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "samebox-res-"));
  const burner = spawn(process.execPath, ["-e", "const end = Date.now() + 30000; while (Date.now() < end);"], {
    stdio: "ignore",
  });
  try {
    const sampler = new ResourceSampler([burner.pid!], dir);
    sampler.start(60_000); // no tick during the test: only the start and stop samples exist
    await new Promise((r) => setTimeout(r, 200));
    writeFileSync(path.join(dir, MEASURE_START), "");
    await new Promise((r) => setTimeout(r, 1200));
    writeFileSync(path.join(dir, MEASURE_END), "");
    const u = sampler.stop();
    assert.equal(u.window, "measured");
    // The old code measured a zero-length window here: exactly 0. Any share of a core passes, since on a
    // loaded machine (the test suites at load 9 on 2 cores) the burner may get only a fraction of one.
    assert.ok(u.cpuSeconds > 0.02, `the burner's CPU seconds were counted (${u.cpuSeconds})`);
    assert.ok(u.cpuPercent > 1, `cpu ${u.cpuPercent} %`);
    assert.ok(u.peakMiB > 1, `memory ${u.peakMiB} MiB`);
  } finally {
    burner.kill("SIGKILL");
  }
});
