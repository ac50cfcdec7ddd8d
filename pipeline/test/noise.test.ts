import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import {
  CONTENTION_MIN_CELLS,
  contentionWarning,
  DEFAULT_NOISE_THRESHOLDS,
  hostProbeMs,
  judgeNoise,
  machineBusy,
  NoiseSampler,
  type NoiseReport,
} from "../runner/noise.ts";
import { hostProbeLine } from "../lib/run-report.ts";
import { noiseGuardSummary } from "../lib/noise-guard-summary.ts";
import { processTree, treeCpuSeconds } from "../runner/resources.ts";

// The noise guard against real processes: a busy loop is the neighbour. The machine running the tests
// may itself be busy, so no assertion compares a figure with an absolute near-zero: when a burner is
// inside and outside the roots, two samplers watch the same window and we compare their difference
// with the CPU the burner actually got.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Every burner stops by itself after 30 s, should the test die before its finally.
const BURN = `const end = Date.now() + 30000; while (Date.now() < end);`;
const LOOP = [process.execPath, "-e", BURN];
// Cells that do their work in children: short-lived ones (their time reaches the parent's cutime
// only) and ones that live across sample windows (seen alive, then reaped: counted once).
// (--foreground: timeout stays in the cell's process group, which the test kills.)
const FORKER = ["timeout", "--foreground", "30", "sh", "-c", "while :; do /bin/true; done"];
const SPANNER = [
  "timeout",
  "--foreground",
  "30",
  "sh",
  "-c",
  `while :; do timeout --foreground 0.3 sh -c 'while :; do :; done'; done`,
];

function startDetached(argv: string[]): ChildProcess {
  return spawn(argv[0], argv.slice(1), { detached: true, stdio: "ignore" });
}

const comm = (pid: number) => readFileSync(`/proc/${pid}/comm`, "utf8").trim();

function kill(p: ChildProcess | number | undefined): void {
  const pid = typeof p === "number" ? p : p?.pid;
  if (!pid) return;
  for (const target of [-pid, ...processTree([pid])]) {
    // its process group, and its tree should one have left it
    try {
      process.kill(target, "SIGKILL");
    } catch {
      /* already gone */
    }
  }
}

// A burner that is not our descendant (double fork: its parent exits and it is re-parented), so it is
// outside the test process's tree, like another user's job is outside the runner's.
function startOrphanBurner(): number {
  const r = spawnSync("sh", ["-c", `setsid '${process.execPath}' -e '${BURN}' >/dev/null 2>&1 </dev/null & echo $!`], {
    encoding: "utf8",
    timeout: 10_000,
  });
  const pid = Number(r.stdout.trim());
  assert.ok(pid > 0, `orphan burner started: ${r.stdout} ${r.stderr}`);
  return pid;
}

/** Samples `seconds` with two samplers at once: one with `cell` outside the roots, one with it inside. */
async function sampleOutsideAndInside(argv: string[], seconds: number) {
  const sleeper = startDetached(["sleep", "60"]);
  const cell = startDetached(argv);
  try {
    await sleep(100); // let it start
    const outsideRoots = [sleeper.pid!];
    // top: 50, so that the cell is listed even when busier processes share a loaded machine.
    const a = new NoiseSampler(() => outsideRoots, { intervalMs: 250, top: 50 });
    const b = new NoiseSampler(() => [sleeper.pid!, cell.pid!], { intervalMs: 250, top: 50 });
    // The cell's CPU in the window: its tree's ticks, alive and reaped (resources.ts).
    const t0 = treeCpuSeconds([cell.pid!]);
    const at = performance.now();
    a.start();
    b.start();
    await sleep(seconds * 1000);
    const outside = a.stop();
    const inside = b.stop();
    const cellComm = comm(cell.pid!); // node renames itself MainThread once started
    const cellPct = (100 * (treeCpuSeconds([cell.pid!]) - t0)) / ((performance.now() - at) / 1000);
    return { outside, inside, cellPct, cellPid: cell.pid!, cellComm };
  } finally {
    kill(cell);
    kill(sleeper);
  }
}

test("a busy loop outside the roots disturbs the cell and is named; inside the roots it does not count", {
  timeout: 30_000,
}, async (t) => {
  const { outside, inside, cellPct, cellPid, cellComm } = await sampleOutsideAndInside(LOOP, 2);
  t.diagnostic(
    `burner ${cellPct.toFixed(1)} %; outside: ${JSON.stringify(outside)}; inside: ${JSON.stringify(inside)}`,
  );
  assert.ok(outside.samples >= 2, `samples: ${outside.samples}`);
  if (cellPct < 10) return t.skip(`the machine is too loaded: the burner got ${cellPct.toFixed(0)} % of a core`);
  const v = judgeNoise(outside);
  assert.equal(v.disturbed, true, JSON.stringify(outside));
  assert.ok(v.reason.includes(`${cellComm}[${cellPid}] `), v.reason);
  assert.match(v.reason, /CPU used outside the cell [\d.]+% of a core > 20%/);
  // Same window, same background: the difference is the burner (a full core on an idle box; less on
  // a loaded one, hence compared with the CPU it actually got; measured within a point, the margin
  // covers the two samplers reading /proc a few milliseconds apart).
  const diff = outside.outside_cpu_pct - inside.outside_cpu_pct;
  assert.ok(
    diff >= Math.min(50, 0.7 * cellPct - 3),
    `outside ${outside.outside_cpu_pct} inside ${inside.outside_cpu_pct} burner ${cellPct.toFixed(0)} %`,
  );
  assert.ok(
    !(inside.top_outside ?? []).some((s) => s.includes(`[${cellPid}]`)),
    `inside burner listed as outside: ${inside.top_outside}`,
  );
});

for (const [name, argv] of [
  ["short-lived children", FORKER],
  ["children living across sample windows", SPANNER],
] as const) {
  test(`${name} of a cell count as inside (through the parent's cutime), once`, { timeout: 30_000 }, async (t) => {
    const { outside, inside, cellPct } = await sampleOutsideAndInside([...argv], 3);
    t.diagnostic(
      `cell ${cellPct.toFixed(1)} %; outside: ${JSON.stringify(outside)}; inside: ${JSON.stringify(inside)}`,
    );
    if (cellPct < 10) return t.skip(`the machine is too loaded: the cell got ${cellPct.toFixed(0)} % of a core`);
    const diff = outside.outside_cpu_pct - inside.outside_cpu_pct;
    assert.ok(
      diff >= 0.7 * cellPct - 3,
      `outside ${outside.outside_cpu_pct} inside ${inside.outside_cpu_pct} cell ${cellPct.toFixed(0)} %`,
    );
    // Counting a reaped child twice would make the inside sampler subtract more than the cell used.
    assert.ok(
      diff <= 1.3 * cellPct + 10,
      `outside ${outside.outside_cpu_pct} inside ${inside.outside_cpu_pct} cell ${cellPct.toFixed(0)} %`,
    );
  });
}

const report = (over: Partial<NoiseReport> = {}): NoiseReport => ({
  samples: 20,
  seconds: 10,
  outside_cpu_pct: 3,
  outside_cpu_pct_max: 8,
  steal_pct: 0,
  kernel_cpu_pct: 1,
  load1_start: 0.2,
  load1_max: 0.4,
  top_outside: ["node[42] 2%"],
  ...over,
});

test("judgeNoise: thresholds are strict upper bounds, steal is judged apart, the reason names figure, threshold and culprit", () => {
  assert.deepEqual(DEFAULT_NOISE_THRESHOLDS, { outsideCpuPct: 20, stealPct: 10 });
  assert.deepEqual(judgeNoise(report()), { disturbed: false, reason: "" });
  assert.deepEqual(judgeNoise(report({ outside_cpu_pct: 20, steal_pct: 10 })), { disturbed: false, reason: "" });
  assert.deepEqual(judgeNoise(report({ outside_cpu_pct: 20.1, top_outside: ["cc1[77] 15%", "make[70] 4%"] })), {
    disturbed: true,
    reason: "CPU used outside the cell 20.1% of a core > 20% (busiest: cc1[77] 15%, make[70] 4%); load 0.4 over 10s",
  });
  assert.deepEqual(judgeNoise(report({ steal_pct: 12.5 })), {
    disturbed: true,
    reason: "steal 12.5% of a core > 10%; load 0.4 over 10s",
  });
  assert.deepEqual(
    judgeNoise(report({ outside_cpu_pct: 99, steal_pct: 30, top_outside: [] }), { outsideCpuPct: 50, stealPct: 25 }),
    {
      disturbed: true,
      reason: "CPU used outside the cell 99% of a core > 50%; steal 30% of a core > 25%; load 0.4 over 10s",
    },
  );
  // Too short to judge: a 10 ms jiffy is 10 % of a 0.1 s window.
  assert.deepEqual(judgeNoise(report({ seconds: 0.5, outside_cpu_pct: 300 })), { disturbed: false, reason: "" });
});

test("machineBusy: a busy loop that is not the runner's descendant makes the machine busy, with a culprit named", {
  timeout: 30_000,
}, async (t) => {
  const pid = startOrphanBurner();
  try {
    const t0 = treeCpuSeconds([pid]);
    const { busy, report: r, reason } = await machineBusy(2);
    const burnerPct = (100 * (treeCpuSeconds([pid]) - t0)) / r.seconds;
    t.diagnostic(`burner ${burnerPct.toFixed(1)} %; ${reason}`);
    assert.equal(busy, true, JSON.stringify(r));
    // The three busiest outside processes: the burner itself on a quiet machine (above it shares the
    // machine with the test suite's other work, which may be busier).
    assert.match(
      reason,
      /^machine already busy: CPU used outside the cell [\d.]+% of a core > 20% \(busiest: \S+\[\d+\] \d+%/,
    );
    assert.ok(r.outside_cpu_pct >= 0.7 * burnerPct, `outside ${r.outside_cpu_pct} burner ${burnerPct.toFixed(0)} %`);
  } finally {
    kill(pid);
  }
});

// The host-speed probe: taken when a sampler starts (before its first sample, so not in the cell's
// figures), reported with the cell's noise, summarised by `samebox report`.
test("host probe: a positive time in every noise report, and the report's line gives its median and range", async () => {
  const one = hostProbeMs();
  assert.ok(one > 0 && one < 60_000, `probe ${one} ms`);
  const s = new NoiseSampler(() => [process.pid], { intervalMs: 100 });
  s.start();
  await sleep(250);
  const r = s.stop();
  assert.ok((r.host_probe_ms ?? 0) > 0, `host_probe_ms in the report: ${JSON.stringify(r)}`);
  const cell = (ms?: number) => ({
    study: "s",
    workload: "w",
    system: "x",
    variant: "v",
    concurrency: 1,
    repetition: 1,
    status: "ok",
    duration_s: 1,
    noise: ms === undefined ? undefined : { host_probe_ms: ms },
  });
  assert.equal(
    hostProbeLine({ cells: [cell(50), cell(70), cell(), cell(60)] }),
    "Host probe (SHA-256 of 64 MiB before each cell; compare runs on one machine): median 60 ms, range 50–70 ms over 3 cells.",
  );
  assert.equal(hostProbeLine({ cells: [cell()] }), "", "runs before the probe: no line");
});

test("contentionWarning: silent before CONTENTION_MIN_CELLS judged cells and below a quarter disturbed; then names the share and --resume", () => {
  assert.equal(CONTENTION_MIN_CELLS, 20);
  assert.equal(contentionWarning(19, 19), null, "too few cells judged to say anything");
  assert.equal(contentionWarning(20, 4), null, "4 of 20 is below a quarter");
  assert.equal(contentionWarning(82, 20), null, "20 of 82 is below a quarter");
  const w = contentionWarning(20, 5);
  assert.ok(w, "5 of 20 is a quarter");
  assert.match(w, /^5 of the first 20 cells were disturbed/);
  assert.match(w, /--resume/);
  assert.ok(contentionWarning(82, 24), "the contended run of 2026-11-29: 24 of 82");
});

test("noiseGuardSummary: one sentence for the report and the run page; every recorded part, nothing invented", () => {
  assert.equal(noiseGuardSummary(undefined), "not recorded (this run has no noise guard record)");
  assert.equal(
    noiseGuardSummary({ mode: "warn", flagged: 0, reruns: 0, noisy: 0 } as Parameters<typeof noiseGuardSummary>[0]),
    "warn: 0 cell attempt(s) disturbed, 0 re-run, 0 left noisy",
  );
  assert.equal(
    noiseGuardSummary({
      mode: "strict",
      outside_cpu_pct: 20,
      steal_pct: 10,
      max_attempts: 3,
      flagged: 4,
      reruns: 3,
      noisy: 1,
      before_run: {
        busy: true,
        outside_cpu_pct: 35.5,
        reason: "load 3",
        host_probe_ms: 44,
        host_reference: { run_id: "r0", host_probe_ms: 37.4 },
        host_slower: "slower",
        wakeup_rtt_us: { same_cpu: 7, cross_cpu: 80.5 },
        page_fault_us: 2.34,
      },
    }),
    "strict: 4 cell attempt(s) disturbed, 3 re-run, 1 left noisy; before the run 35.5 % of a core used outside (busy: load 3); " +
      "host probe 44 ms (run r0: 37.4 ms, more than 10 % faster); pipe round trip 7 µs on one vCPU, 80.5 µs across two; " +
      "a fresh page's first touch 2.34 µs",
  );
});
