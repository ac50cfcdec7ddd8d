// What a run starts from: the noise guard's mode and its check of the machine before anything runs, and
// the manifest a new run folder begins with (manifest.ts's ManifestWriter writes every later change).
import os from "node:os";
import path from "node:path";
import { UserError } from "../lib/errors.ts";
import { hostType } from "../lib/replicates.ts";
import { repoRoot, runsDir } from "../lib/paths.ts";
import type { RunManifest } from "../schema/types.ts";
import { gitInfo, toolVersions } from "./machine.ts";
import { runnerIdentity } from "./manifest.ts";
import { hostProbeMedian, hostSlowerReason, pageFaultUs, referenceProbe, wakeupRttUs } from "./host-speed.ts";
import { DEFAULT_NOISE_THRESHOLDS, machineBusy } from "./noise.ts";
import type { NoiseGuardMode, Plan, RunOptions } from "./plan.ts";
import { interleave } from "./plan.ts";

/** Attempts of a disturbed cell in strict mode (the first and two re-runs). */
export const MAX_ATTEMPTS = 3;
/** Seconds the machine is watched before a run starts: long enough to refuse on (strict), or only to record (warn). */
const BUSY_CHECK_S = { strict: 5, warn: 1 } as const;

/** Set by the cloud box's entry script (terraform/box/run-on-box.sh). */
const onCloudBox = () => !!process.env.SAMEBOX_CLOUD_INSTANCE_TYPE;

/** strict on the cloud box (nothing else runs there), warn elsewhere; SAMEBOX_NOISE_GUARD overrides. */
export function defaultNoiseGuard(): NoiseGuardMode {
  const env = process.env.SAMEBOX_NOISE_GUARD;
  if (env === "strict" || env === "warn" || env === "off") return env;
  if (env) throw new UserError(`SAMEBOX_NOISE_GUARD '${env}' is not valid; valid: strict, warn, off`);
  return onCloudBox() ? "strict" : "warn";
}

/**
 * The check before a run: the machine must not be busy (machineBusy), and the host not slower than the newest
 * complete run on this machine (host-speed.ts). Strict refuses on either unless allowBusy; warn only says so.
 * A cloud box refuses only when busy: it cannot wait out its host's neighbours (another box is another host), so
 * refusing would cost the box's install and return nothing; it records the slower host, and the pull request
 * that brings the run back says so (terraform/scripts/place_runs.py).
 */
export async function checkBeforeRun(
  mode: NoiseGuardMode,
  allowBusy: boolean,
  machine: Pick<RunManifest["machine"], "label" | "cpu_identity">,
): Promise<NonNullable<RunManifest["noise_guard"]>["before_run"]> {
  if (mode === "off") return undefined;
  const b = await machineBusy(BUSY_CHECK_S[mode], DEFAULT_NOISE_THRESHOLDS, [process.pid]);
  const probeMs = hostProbeMedian();
  const reference = referenceProbe(runsDir(), machine.label);
  const slower = hostSlowerReason(probeMs, reference, machine.cpu_identity);
  const rtt = wakeupRttUs();
  const before = {
    busy: b.busy,
    outside_cpu_pct: Math.round(b.report.outside_cpu_pct * 10) / 10,
    reason: b.reason,
    host_probe_ms: probeMs,
    ...(reference ? { host_reference: reference } : {}),
    ...(slower ? { host_slower: slower } : {}),
    ...(rtt ? { wakeup_rtt_us: rtt } : {}),
    page_fault_us: pageFaultUs(),
  };
  const problems = [b.reason, slower].filter(Boolean);
  const refusals = [b.reason, onCloudBox() ? "" : slower].filter(Boolean);
  if (refusals.length && mode === "strict" && !allowBusy) {
    throw new UserError(
      `the machine is not ready for a strict run: ${refusals.join("; and ")}. Figures measured now would carry that; wait until it is quiet (uptime, top; the host's neighbours may take longer), or pass --allow-busy (or --noise-guard warn) to measure anyway`,
    );
  }
  for (const p of problems) process.stderr.write(`samebox: warning: before the run: ${p}\n`);
  return before;
}

export async function newManifest(
  plan: Plan,
  runId: string,
  opts: RunOptions,
  mode: NoiseGuardMode,
  seed: number,
  machine: RunManifest["machine"],
): Promise<RunManifest> {
  const git = gitInfo(repoRoot);
  return {
    run_id: runId,
    status: "running",
    profile: plan.profile.name,
    studies: Object.keys(plan.studies),
    systems_requested: plan.systems,
    started_at: new Date().toISOString(),
    ended_at: null,
    duration_s: null,
    commit: git.commit,
    dirty: git.dirty,
    // Other work on the machine skews every figure: the 1/5/15-minute load averages at start and end say how quiet it was.
    load_average: { start: os.loadavg().map((x) => Math.round(x * 100) / 100), end: null },
    command: process.argv
      .slice(1)
      .map((a) => path.relative(repoRoot, a) || a)
      .join(" "),
    machine,
    tools: toolVersions(),
    systems: {},
    study_installs: {},
    order: interleave(plan, seed),
    config: plan.config,
    config_hash: "",
    cells: plan.cells,
    summary: { ok: 0, failed: 0, skipped: 0, wrong_answer: 0, noisy: 0 },
    runner: runnerIdentity(),
    plan_options: {
      profile: opts.profile,
      studies: opts.studies ?? [],
      systems: opts.systems ?? [],
      workloads: opts.workloads ?? [],
      ...(opts.repetitions ? { repetitions: opts.repetitions } : {}),
      order_seed: seed,
      noise_guard: mode,
      no_sequential: !!opts.noSequential,
    },
    noise_guard: {
      mode,
      outside_cpu_pct: DEFAULT_NOISE_THRESHOLDS.outsideCpuPct,
      steal_pct: DEFAULT_NOISE_THRESHOLDS.stealPct,
      max_attempts: MAX_ATTEMPTS,
      flagged: 0,
      reruns: 0,
      noisy: 0,
    },
  };
}

/**
 * A run is continued only on the host type it began on (replicates.ts hostType): a paired repetition compares
 * systems measured on one host, and the replicate analysis takes each run as one host's replicate. On another
 * host the finished part stays a replicate of its own (an interrupted run's finished comparisons are counted)
 * and what is left is a new run. Returns the host type, recorded with the resume.
 */
export function refuseOtherHost(
  runId: string,
  began: Pick<RunManifest["machine"], "cpu_model" | "kernel">,
  here: Pick<RunManifest["machine"], "cpu_model" | "kernel">,
  unfinishedStudies: string[],
): string {
  const before = hostType(began);
  const now = hostType(here);
  if (before !== now)
    throw new UserError(
      `run ${runId} began on ${before}; this machine is ${now}. A paired comparison never spans two hosts, so a run ` +
        `is continued only on the host it began on. Start a new run for what is left (samebox run --profile <profile> ` +
        `--studies ${unfinishedStudies.join(",") || "<studies>"}); the cells ${runId} finished stay its own replicate`,
    );
  return now;
}
