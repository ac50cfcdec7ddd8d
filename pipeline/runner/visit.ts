// A visit: one system started (start, check, env, pids; version and config at its first visit of the run), the pending cells of one
// repetition of one study (of every study in runs ordered before seeded-rotation-by-study) run on it (each study prepared at the system's first visit and
// cleaned up after its last), the system stopped again — whatever happened in between.
import path from "node:path";
import { loadSystem } from "../lib/catalog.ts";
import type { RunContext, SystemState } from "./context.ts";
import { markCells, pending, tail, unavailableReason, verbLog } from "./context.ts";
import { runCell } from "./cell.ts";
import type { Cell, CellStatus, PlannedStudy, Visit } from "./plan.ts";
import { inVisit, plannedList } from "./plan.ts";
import { prepareTimeoutS } from "./prepare-bound.ts";
import { treeMemoryMiB } from "./resources.ts";
import { EXIT_UNAVAILABLE, parseKeyValues, runVerb } from "./verbs.ts";

/** Which (system, study) pairs are prepared and cleaned up, across the visits of a run. */
export interface StudyLifecycle {
  prepared: Set<string>;
  cleaned: Set<string>;
  /** the last repetition planned per (system, study); cleanup follows its visit unless deferred */
  lastRep: Map<string, number>;
  /** (system, study) whose cleanup waits for the end of the run (more repetitions may still be added) */
  deferred: Set<string>;
}

export const lifecycleKey = (system: string, study: string) => `${system}\u0000${study}`;

export function newLifecycle(cells: Cell[], studies: Record<string, PlannedStudy>): StudyLifecycle {
  const lastRep = new Map<string, number>();
  const deferred = new Set<string>();
  for (const c of cells) {
    const key = lifecycleKey(c.system, c.study);
    lastRep.set(key, Math.max(lastRep.get(key) ?? 0, c.repetition));
    if (studies[c.study].sequential) deferred.add(key);
  }
  return { prepared: new Set(), cleaned: new Set(), lastRep, deferred };
}

class VerbFailure extends Error {
  log: string;
  code: number | null;
  constructor(message: string, log: string, code: number | null) {
    super(message);
    this.log = log;
    this.code = code;
  }
}

/** start + check + what the system reports about itself; null when the system is not available here (cells skipped). */
async function startSystem(ctx: RunContext, system: string, tag: string): Promise<SystemState | null> {
  const def = loadSystem(system);
  const verb = (v: string) => path.join(def.dir, v);
  const systemsOut = ctx.writer.manifest.systems;
  const s = await runVerb(verb("start"), [], { timeoutS: 300, ...verbLog(ctx, `${tag}.start`) });
  if (s.code === EXIT_UNAVAILABLE) {
    const why = unavailableReason(s) || "not available on this machine";
    markCells(
      ctx,
      (c) => c.system === system,
      "skipped",
      `${system} not available here: ${why}`,
      `logs/${tag}.start.err`,
      s.code,
    );
    Object.assign(systemsOut[system], { status: "skipped", reason: why });
    return null;
  }
  if (s.code !== 0)
    throw new VerbFailure(`start failed (exit ${s.code}): ${tail(s.stderr)}`, `logs/${tag}.start.err`, s.code);
  const chk = await runVerb(verb("check"), [], { timeoutS: 120, ...verbLog(ctx, `${tag}.check`) });
  if (chk.code !== 0)
    throw new VerbFailure(`check failed (exit ${chk.code}): ${tail(chk.stderr)}`, `logs/${tag}.check.err`, chk.code);
  const st: SystemState = { def, version: "", env: {}, pids: [], config: {} };
  Object.assign(st, await versionAndConfig(ctx, system, verb));
  st.env = parseKeyValues((await runVerb(verb("env"), [], { timeoutS: 60 })).stdout);
  st.pids = await readPids(st);
  if (systemsOut[system].status !== "ok") {
    Object.assign(systemsOut[system], {
      version: st.version || null,
      config: st.config,
      status: "ok",
      memory_after_start_mib: st.pids.length ? Math.round(treeMemoryMiB(st.pids)) : null,
    });
  }
  ctx.writer.write();
  return st;
}

/** The system's version and config, asked at its first visit of the run only (RunContext.systemFacts). */
async function versionAndConfig(
  ctx: RunContext,
  system: string,
  verb: (v: string) => string,
): Promise<Pick<SystemState, "version" | "config">> {
  const known = ctx.systemFacts.get(system);
  if (known) return known;
  const facts = {
    version: (await runVerb(verb("version"), [], { timeoutS: 60 })).stdout.trim().split("\n")[0] ?? "",
    config: parseKeyValues((await runVerb(verb("config"), [], { timeoutS: 60 })).stdout),
  };
  ctx.systemFacts.set(system, facts);
  return facts;
}

/**
 * The system's state without starting it, for a final cleanup whose studies all declare
 * cleanup_needs_system false (mcp-servers: starting each server would restart the shared Redis and
 * api-service only for the cleanup to stop them again, ~10 s a server).
 */
async function unstartedSystem(system: string): Promise<SystemState> {
  const def = loadSystem(system);
  const env = parseKeyValues((await runVerb(path.join(def.dir, "env"), [], { timeoutS: 60 })).stdout);
  return { def, version: "", env, pids: [], config: {} };
}

export async function readPids(st: SystemState): Promise<number[]> {
  return (await runVerb(path.join(st.def.dir, "pids"), [], { timeoutS: 60 })).stdout
    .split(/\s+/)
    .filter((x) => /^\d+$/.test(x))
    .map(Number);
}

/**
 * prepare at the (system, study)'s first visit, or at every visit of a system whose data lives in memory only
 * (system.json memory_only: a restart between visits loses what prepare loaded); false when it failed (its
 * cells are marked).
 */
async function prepareOnce(
  ctx: RunContext,
  lc: StudyLifecycle,
  st: SystemState,
  studyName: string,
  ps: PlannedStudy,
  env: Record<string, string>,
  rep: number,
): Promise<boolean> {
  const system = st.def.name;
  const key = lifecycleKey(system, studyName);
  const memoryOnly = st.def.memory_only === true;
  if (lc.prepared.has(key) && !memoryOnly) return true;
  const logName = `${system}.${studyName}${memoryOnly ? `.r${rep}` : ""}.prepare`;
  const ofStudy = (c: Cell) => c.system === system && c.study === studyName;
  ctx.progress.note(`${system}: prepare ${studyName}`);
  // The plan reaches the study as arguments and environment, never by reading the run's files:
  // WORKLOADS = this system's still-planned workloads of the study (as install gets them).
  const prepEnv = {
    ...env,
    WORKLOADS: plannedList(
      ctx.plan.cells.filter((c) => ofStudy(c) && pending(c)),
      "workload",
    ),
  };
  const prep = await runVerb(path.join(ps.study.dir, "prepare"), [system], {
    env: prepEnv,
    timeoutS: prepareTimeoutS(ps, system),
    ...verbLog(ctx, logName),
  });
  if (prep.code !== 0) {
    const status: CellStatus = prep.code === EXIT_UNAVAILABLE ? "skipped" : "failed";
    markCells(
      ctx,
      ofStudy,
      status,
      `prepare ${studyName} on ${system} ${prep.timedOut ? "timed out" : `exited ${prep.code}`}: ${tail(prep.stderr + prep.stdout)}`,
      `logs/${logName}.err`,
      prep.code,
    );
    return false;
  }
  lc.prepared.add(key);
  return true;
}

export async function cleanup(
  ctx: RunContext,
  lc: StudyLifecycle,
  system: string,
  studyName: string,
  env: Record<string, string>,
): Promise<void> {
  const key = lifecycleKey(system, studyName);
  if (!lc.prepared.has(key) || lc.cleaned.has(key)) return;
  await runVerb(path.join(ctx.plan.studies[studyName].study.dir, "cleanup"), [system], {
    env,
    timeoutS: 600,
    ...verbLog(ctx, `${system}.${studyName}.cleanup`),
  });
  lc.cleaned.add(key);
}

/** What a study's verbs get on a system: the profile's env, the system's env and where they are. */
const studyEnv = (ctx: RunContext, ps: PlannedStudy, st: SystemState) => ({
  ...ps.env,
  ...st.env,
  SAMEBOX_RUN_DIR: ctx.runDir,
  SYSTEM: st.def.name,
  SYSTEM_DIR: st.def.dir,
});

/**
 * After an interrupt: the cleanups that need no running system (study.json cleanup_needs_system false;
 * mcp-servers' stops the shared Redis and api-service), so an interrupted run leaves no helper busy on the
 * machine for the next run's busy check to find. The others wait: they would start each system, and a
 * resumed run prepares every (system, study) again anyway.
 */
export async function cleanupsWithoutSystem(ctx: RunContext, lc: StudyLifecycle): Promise<void> {
  for (const system of ctx.plan.systems)
    for (const [studyName, ps] of Object.entries(ctx.plan.studies)) {
      const key = lifecycleKey(system, studyName);
      if (ps.study.cleanup_needs_system !== false || !lc.prepared.has(key) || lc.cleaned.has(key)) continue;
      const st = await unstartedSystem(system);
      await cleanup(ctx, lc, system, studyName, studyEnv(ctx, ps, st));
    }
}

async function visitStudy(
  ctx: RunContext,
  lc: StudyLifecycle,
  visit: Visit,
  st: SystemState,
  studyName: string,
  ps: PlannedStudy,
  finalCleanup: boolean,
): Promise<void> {
  const system = visit.system;
  const key = lifecycleKey(system, studyName);
  const cells = ctx.plan.cells.filter((c) => c.study === studyName && inVisit(c, visit) && pending(c));
  const baseEnv = studyEnv(ctx, ps, st);
  if (cells.length && !(await prepareOnce(ctx, lc, st, studyName, ps, baseEnv, visit.repetition))) return;
  for (const cell of cells) {
    if (ctx.interrupted()) return;
    await runCell(ctx, cell, st, ps, baseEnv, () => readPids(st));
  }
  const last = visit.repetition >= (lc.lastRep.get(key) ?? 0);
  if (!ctx.interrupted() && (finalCleanup || (last && !lc.deferred.has(key))))
    await cleanup(ctx, lc, system, studyName, baseEnv);
}

/**
 * Runs one visit. With `finalCleanup` the visit only cleans up studies whose cleanup was deferred (the
 * sequential loop may add repetitions, so their data stays loaded until the run ends).
 */
export async function runVisit(ctx: RunContext, lc: StudyLifecycle, visit: Visit, finalCleanup = false): Promise<void> {
  const system = visit.system;
  const needsCleanup = (s: string) =>
    lc.prepared.has(lifecycleKey(system, s)) && !lc.cleaned.has(lifecycleKey(system, s));
  const work = finalCleanup
    ? Object.keys(ctx.plan.studies).some(needsCleanup)
    : ctx.plan.cells.some((c) => inVisit(c, visit) && pending(c));
  if (!work) return;
  const tag = `${system}${visit.study ? `.${visit.study}` : ""}.r${visit.repetition}${finalCleanup ? ".cleanup" : ""}`;
  ctx.writer.manifest.systems[system] ??= { version: null, config: {}, status: "pending", reason: "" };
  const withoutStart =
    finalCleanup &&
    Object.keys(ctx.plan.studies)
      .filter(needsCleanup)
      .every((s) => ctx.plan.studies[s].study.cleanup_needs_system === false);
  let started = false;
  try {
    const why = finalCleanup ? "cleanup" : `${visit.study ? `${visit.study}, ` : ""}repetition ${visit.repetition}`;
    ctx.progress.note(`${system}: ${withoutStart ? "cleanup (not started)" : `start (${why})`}`);
    started = !withoutStart;
    const st = withoutStart ? await unstartedSystem(system) : await startSystem(ctx, system, tag);
    if (!st) return;
    for (const [studyName, ps] of Object.entries(ctx.plan.studies)) {
      if (ctx.interrupted()) break;
      if (finalCleanup ? !needsCleanup(studyName) : visit.study && visit.study !== studyName) continue;
      await visitStudy(ctx, lc, visit, st, studyName, ps, finalCleanup);
    }
  } catch (e) {
    const err = e as Error & { log?: string; code?: number | null };
    // A server that does not start once is not retried at its later visits: its remaining cells fail with this reason.
    markCells(ctx, (c) => c.system === system, "failed", `${system}: ${err.message}`, err.log ?? "", err.code ?? null);
    Object.assign(ctx.writer.manifest.systems[system], { status: "failed", reason: err.message });
  } finally {
    if (started) {
      ctx.progress.note(`${system}: stop`);
      const stop = await runVerb(path.join(loadSystem(system).dir, "stop"), [], {
        timeoutS: 180,
        ...verbLog(ctx, `${tag}.stop`),
      });
      if (stop.code !== 0 && stop.code !== EXIT_UNAVAILABLE)
        ctx.log(`samebox: warning: ${system} stop exited ${stop.code}: ${tail(stop.stderr)}`);
    }
    ctx.writer.write();
  }
}
