// `samebox run`: plans a run (plan.ts), writes its folder and manifest (manifest.ts), installs
// (install.ts), runs the visits in their interleaved order (visit.ts → cell.ts), adds claim-driven
// repetitions (sequential.ts), and ends with records.csv and a valid manifest. `--resume <run-id>`
// continues a run whose runner died, appending only the cells not yet done.
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { snapshotCatalogue } from "../lib/catalog.ts";
import { UserError } from "../lib/errors.ts";
import { prepareBounds } from "../lib/estimate.ts";
import { runsDir } from "../lib/paths.ts";
import { toCsv, toJsonl } from "../lib/records.ts";
import type { RunManifest } from "../schema/types.ts";
import type { NoiseSettings, RunContext } from "./context.ts";
import { ensureRunFolders, insidePidfilesList, pending, recordsFromCells } from "./context.ts";
import { installAll, readStudyVersions } from "./install.ts";
import { deadRunnerReason, ManifestWriter, runnerIdentity } from "./manifest.ts";
import type { Cell, NoiseGuardMode, Plan, RunOptions } from "./plan.ts";
import {
  defaultOrderSeed,
  INTERRUPTED_BEFORE,
  inVisit,
  interleave,
  newRunId,
  NOT_RUN,
  planRun,
  sortByVisits,
  systemsByStudy,
  visitOrder,
  visitOrderByStudy,
} from "./plan.ts";
import type { Visit } from "./plan.ts";
import { applyPrepareBounds, recordedPrepareBounds } from "./prepare-bound.ts";
import { machineInfo } from "./machine.ts";
import { Progress } from "./progress.ts";
import { sequentialStudy } from "./sequential.ts";
import { acquireRunLock } from "./run-lock.ts";
import { defaultNoiseGuard, MAX_ATTEMPTS, newManifest, checkBeforeRun, refuseOtherHost } from "./run-start.ts";
import { cleanupsWithoutSystem, lifecycleKey, newLifecycle, runVisit } from "./visit.ts";

// The plan's pieces are imported from here by the CLI, estimate and tests.
export { defaultOrderSeed, interleave, newRunId, planRun, visitOrder, visitOrderByStudy } from "./plan.ts";
export type { Cell, CellStatus, Plan, RunOptions, RunOrder, Visit } from "./plan.ts";

export { defaultNoiseGuard } from "./run-start.ts";

export interface RunResult {
  runDir: string;
  manifest: RunManifest | null;
  exitCode: number;
}

/**
 * The run's clock for its time limit (profile time_limit_min): wall time since the run began, as its
 * duration_s counts it. A resumed run counts its cells finished before (their durations: the gaps of the
 * earlier runner are not known) plus this runner's time, not the hours it may have lain interrupted.
 */
export function runClock(m: Pick<RunManifest, "started_at" | "resumed">, cells: Cell[]): () => number {
  const since = Date.now();
  const before = m.resumed?.length
    ? cells.filter((c) => !pending(c)).reduce((s, c) => s + (c.duration_s || 0), 0)
    : (since - Date.parse(m.started_at)) / 1000;
  return () => before + (Date.now() - since) / 1000;
}

function newContext(
  plan: Plan,
  runDir: string,
  writer: ManifestWriter,
  mode: NoiseGuardMode,
  log: (s: string) => void,
): { ctx: RunContext; stopSignals: () => void } {
  let interrupted = false;
  // every verb inherits where to list the pid files of daemons that belong to the system under test
  process.env.SAMEBOX_INSIDE_PIDFILES = insidePidfilesList(runDir);
  const m = writer.manifest;
  const noise: NoiseSettings = {
    mode,
    maxAttempts: MAX_ATTEMPTS,
    flagged: m.noise_guard?.flagged ?? 0,
    reruns: m.noise_guard?.reruns ?? 0,
    judged: 0,
    disturbedFirst: 0,
    warned: false,
  };
  const progress = new Progress(plan.cells.filter(pending).length);
  const ctx: RunContext = {
    runId: m.run_id,
    runDir,
    plan,
    writer,
    machineLabel: m.machine.label ?? "",
    commit: m.commit,
    progress,
    noise,
    records: [],
    systemFacts: new Map(),
    interrupted: () => interrupted,
    log,
    runSeconds: runClock(m, plan.cells),
  };
  const onSignal = () => {
    interrupted = true;
    progress.note("interrupt received: finishing the current step, then stopping servers");
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    ctx,
    stopSignals: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

/** After the sequential loops: clean up the studies whose cleanup waited for them, one visit per system. */
async function deferredCleanups(ctx: RunContext, lc: ReturnType<typeof newLifecycle>): Promise<void> {
  for (const system of ctx.plan.systems) {
    if (ctx.interrupted()) return;
    const open = Object.keys(ctx.plan.studies).some(
      (s) => lc.prepared.has(lifecycleKey(system, s)) && !lc.cleaned.has(lifecycleKey(system, s)),
    );
    if (open) await runVisit(ctx, lc, { repetition: 0, system }, true);
  }
}

/**
 * The visit order over the systems that can still run after the installs (a system skipped at install,
 * such as MySQL here, would otherwise hold a place in the rotation and unbalance who runs first).
 */
function orderAvailable(ctx: RunContext, seed: number): void {
  const order = ctx.writer.manifest.order;
  if (!order) return;
  const available = ctx.plan.systems.filter((s) => ctx.plan.cells.some((c) => c.system === s && pending(c)));
  const maxRep = Math.max(0, ...ctx.plan.cells.map((c) => c.repetition));
  const hasPending = (v: Visit) => ctx.plan.cells.some((c) => inVisit(c, v) && pending(c));
  const done = order.visits.filter((v) => !hasPending(v));
  // A run begun with per-system visits (seeded-rotation) is resumed the way it began.
  const todo = (
    order.method === "seeded-rotation"
      ? visitOrder(available, maxRep, seed)
      : visitOrderByStudy(systemsByStudy(ctx.plan, available, pending), maxRep, seed)
  ).filter(hasPending);
  order.visits = [...done, ...todo];
  sortByVisits(ctx.plan.cells, order.visits, Object.keys(ctx.plan.studies));
  ctx.writer.write();
}

async function execute(ctx: RunContext, install: boolean, seed: number, startedAtMs: number): Promise<RunResult> {
  if (install) await installAll(ctx);
  await readStudyVersions(ctx);
  orderAvailable(ctx, seed);
  const lc = newLifecycle(ctx.plan.cells, ctx.plan.studies);
  for (const visit of [...(ctx.writer.manifest.order?.visits ?? [])]) {
    if (ctx.interrupted()) break;
    await runVisit(ctx, lc, visit);
  }
  for (const study of Object.keys(ctx.plan.studies)) {
    if (ctx.interrupted()) break;
    await sequentialStudy(ctx, lc, study, seed);
  }
  await deferredCleanups(ctx, lc);
  if (ctx.interrupted()) await cleanupsWithoutSystem(ctx, lc);
  return finish(ctx, startedAtMs);
}

function finish(ctx: RunContext, startedAtMs: number): RunResult {
  ctx.progress.stop();
  const m = ctx.writer.manifest;
  const interrupted = ctx.interrupted();
  for (const c of ctx.plan.cells) if (pending(c)) c.reason = interrupted ? INTERRUPTED_BEFORE : NOT_RUN;
  for (const v of Object.values(m.systems))
    if (v.status === "pending") v.status = interrupted ? "interrupted" : "not run";
  if (interrupted)
    m.interrupted_reason = "the runner received SIGINT or SIGTERM; continue it with samebox run --resume " + m.run_id;
  if (m.noise_guard)
    Object.assign(m.noise_guard, {
      flagged: ctx.noise.flagged,
      reruns: ctx.noise.reruns,
      noisy: ctx.plan.cells.filter((c) => c.status === "noisy").length,
    });
  writeFileSync(path.join(ctx.runDir, "records.csv"), toCsv(ctx.records));
  ctx.writer.close(
    interrupted ? "interrupted" : "complete",
    startedAtMs,
    os.loadavg().map((x) => Math.round(x * 100) / 100),
  );
  const sum = m.summary;
  return { runDir: ctx.runDir, manifest: m, exitCode: sum.failed + sum.wrong_answer > 0 || interrupted ? 1 : 0 };
}

export async function runSuite(
  opts: RunOptions & { resume?: string },
  log: (s: string) => void = (s) => process.stderr.write(s + "\n"),
): Promise<RunResult> {
  if (opts.resume) return resumeRun(opts.resume, opts, log);
  const plan = planRun(opts);
  applyPrepareBounds(plan, prepareBounds(plan)); // a profile's larger data gets a longer prepare (the estimate's projection)
  const runId = opts.runId ?? newRunId(plan.profile.name);
  if (!/^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]+$/.test(runId))
    throw new UserError(
      `invalid run id '${runId}'; expected YYYYMMDDTHHMMSSZ-<lowercase-slug>, e.g. ${newRunId(plan.profile.name)}`,
    );
  const seed = opts.orderSeed ?? defaultOrderSeed(runId);
  if (opts.dryRun) {
    const order = interleave(plan, seed);
    for (const c of plan.cells) log(c.id);
    log(
      `${plan.cells.length} cells (dry run: nothing started, nothing written) in ${order.visits.length} visits, order seed ${order.seed}`,
    );
    return { runDir: "", manifest: null, exitCode: 0 };
  }
  const runDir = path.join(runsDir(), runId);
  if (existsSync(runDir))
    throw new UserError(
      `run folder ${runDir} already exists; runs are never overwritten (choose another --run-id, or continue it with --resume ${runId})`,
    );
  const release = acquireRunLock(runId);
  try {
    return await startRun(plan, runId, runDir, seed, opts, log);
  } finally {
    release();
  }
}

async function startRun(
  plan: Plan,
  runId: string,
  runDir: string,
  seed: number,
  opts: RunOptions,
  log: (s: string) => void,
): Promise<RunResult> {
  const mode = opts.noiseGuard ?? defaultNoiseGuard();
  const machine = await machineInfo();
  const beforeRun = await checkBeforeRun(mode, !!opts.allowBusy, machine);
  mkdirSync(runsDir(), { recursive: true });
  mkdirSync(runDir); // not recursive: fails if it exists, so a run folder is never written twice
  ensureRunFolders(runDir);
  snapshotCatalogue(runDir, Object.keys(plan.studies));
  const manifest = await newManifest(plan, runId, opts, mode, seed, machine);
  if (manifest.noise_guard && beforeRun) manifest.noise_guard.before_run = beforeRun;
  const writer = new ManifestWriter(runDir, manifest);
  writer.write();
  writeFileSync(path.join(runDir, "records.jsonl"), "");
  const { ctx, stopSignals } = newContext(plan, runDir, writer, mode, log);
  try {
    return await execute(ctx, !opts.skipInstall, seed, Date.parse(manifest.started_at));
  } finally {
    stopSignals();
  }
}

/** A pending cell whose folder exists was cut short when the runner died: its folder is kept aside, never reused or deleted. */
function setAsideCutShort(runDir: string, cells: Cell[]): void {
  for (const c of cells) {
    if (!pending(c) && c.reason !== INTERRUPTED_BEFORE) continue;
    Object.assign(c, {
      status: "skipped",
      reason: NOT_RUN,
      log: "",
      started_at: "",
      duration_s: 0,
      exit_code: null,
      records: 0,
    });
    const dir = path.join(runDir, "cells", c.id);
    let k = 1;
    while (existsSync(`${dir}.interrupted-${k}`)) k++;
    if (existsSync(dir)) renameSync(dir, `${dir}.interrupted-${k}`);
  }
}

async function resumeRun(runId: string, opts: RunOptions, log: (s: string) => void): Promise<RunResult> {
  const runDir = path.join(runsDir(), runId);
  const m = ManifestWriter.read(runDir);
  if (m.status === "complete")
    throw new UserError(`run ${runId} is complete; nothing to resume (a new run needs a new run id)`);
  const dead = deadRunnerReason(m);
  if (m.status === "running" && !dead)
    throw new UserError(
      `run ${runId} is still being written by pid ${m.runner?.pid} on ${m.runner?.host}; stop that runner first`,
    );
  const release = acquireRunLock(runId);
  try {
    return await continueRun(runId, runDir, m, dead, opts, log);
  } finally {
    release();
  }
}

async function continueRun(
  runId: string,
  runDir: string,
  m: ReturnType<typeof ManifestWriter.read>,
  dead: string | null,
  opts: RunOptions,
  log: (s: string) => void,
): Promise<RunResult> {
  const left = (m.cells as Cell[]).filter((c) => pending(c) || c.reason === INTERRUPTED_BEFORE);
  const host = refuseOtherHost(runId, m.machine, await machineInfo(), [...new Set(left.map((c) => c.study))]);
  const po = m.plan_options;
  if (!po?.profile)
    throw new UserError(
      `run ${runId} does not record the options it was planned with (made before --resume existed); it cannot be continued`,
    );
  const opt = {
    profile: po.profile,
    studies: po.studies,
    systems: po.systems,
    workloads: po.workloads,
    repetitions: po.repetitions,
    noSequential: po.no_sequential,
  };
  const plan = planRun(opt);
  applyPrepareBounds(plan, recordedPrepareBounds(m.config)); // the bounds the run began with
  plan.cells = m.cells as Cell[]; // the manifest's cells, including repetitions the sequential loop added
  setAsideCutShort(runDir, plan.cells);
  const pendingCount = plan.cells.filter(pending).length;
  m.resumed = m.resumed ?? [];
  m.resumed.push({
    at: new Date().toISOString(),
    pending: pendingCount,
    host,
    reason:
      m.status === "running"
        ? `runner died: ${dead}`
        : `status was ${m.status}${m.interrupted_reason ? ` (${m.interrupted_reason})` : ""}`,
  });
  Object.assign(m, { status: "running", runner: runnerIdentity(), ended_at: null, duration_s: null });
  delete m.interrupted_reason;
  const writer = new ManifestWriter(runDir, m);
  writer.write();
  ensureRunFolders(runDir);
  const mode = po.noise_guard ?? defaultNoiseGuard();
  const { ctx, stopSignals } = newContext(plan, runDir, writer, mode, log);
  // The run's records are derived from its finished cells' folders: rebuilt, so a cell cut short adds nothing and none counts twice.
  ctx.records.push(...recordsFromCells(runDir, plan.cells));
  writeFileSync(path.join(runDir, "records.jsonl"), toJsonl(ctx.records));
  log(`samebox: resuming ${runId}: ${pendingCount} cell(s) to run`);
  try {
    return await execute(ctx, !opts.skipInstall, po.order_seed ?? defaultOrderSeed(runId), Date.parse(m.started_at));
  } finally {
    stopSignals();
  }
}
