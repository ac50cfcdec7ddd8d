// One cell: the study's run verb for one workload × system × concurrency × variant × repetition,
// sampled for server resources and for other work on the machine (the noise guard), its output
// parsed into records. A disturbed attempt is re-run in strict mode (bounded) and its folder kept aside.
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { WorkloadDef } from "../lib/catalog.ts";
import { ParseError } from "../lib/errors.ts";
import type { Measurement, ResultRecord } from "../lib/records.ts";
import { describeErrors, validateRecord } from "../lib/schema.ts";
import { stateOf } from "../lib/servers.ts";
import { parserFor } from "../parsers/index.ts";
import type { RunContext, SystemState } from "./context.ts";
import {
  appendRunRecords,
  insidePids,
  insidePidfilesList,
  saveCellRecords,
  tail,
  unavailableReason,
} from "./context.ts";
import { contentionWarning, judgeNoise, NoiseSampler } from "./noise.ts";
import type { NoiseReport } from "./noise.ts";
import type { Cell, CellStatus, PlannedStudy } from "./plan.ts";
import { ResourceSampler, treeMemoryMiB } from "./resources.ts";
import { EXIT_UNAVAILABLE, EXIT_WRONG_ANSWER, runVerb } from "./verbs.ts";

type CellNoise = NonNullable<Cell["noise"]>;

interface Attempt {
  status: CellStatus;
  reason: string;
  exitCode: number | null;
  seconds: number;
  records: ResultRecord[];
  resourceWindow?: Cell["resource_window"];
  noise?: CellNoise;
}

function toRecords(ctx: RunContext, cell: Cell, st: SystemState, ms: Measurement[]): ResultRecord[] {
  const out: ResultRecord[] = ms.map((m) => ({
    run_id: ctx.runId,
    source: "measured",
    study: cell.study,
    workload: cell.workload,
    system: cell.system,
    // a study with servers: the cell's server, and its variant without the '<server>-' prefix (the state)
    system_version: st.version,
    server: cell.server ?? "",
    variant: m.variant ?? stateOf(cell),
    concurrency: cell.concurrency,
    repetition: m.repetition ?? cell.repetition,
    metric: m.metric,
    value: m.value,
    unit: m.unit,
    t: m.t ?? null,
    profile: ctx.plan.profile.name,
    machine: ctx.machineLabel,
    commit: ctx.commit,
  }));
  for (const r of out) {
    // A boolean, not the validator's type guard: r is already typed, the check is of its values.
    const valid: boolean = validateRecord(r);
    if (!valid)
      throw new ParseError(`record for ${cell.id} ${r.metric} is invalid: ${describeErrors(validateRecord.errors)}`);
  }
  return out;
}

function noiseOf(report: NoiseReport): CellNoise {
  const v = judgeNoise(report);
  const round = (x: number) => Math.round(x * 10) / 10;
  return {
    outside_cpu_pct: round(report.outside_cpu_pct),
    outside_cpu_pct_max: round(report.outside_cpu_pct_max),
    steal_pct: round(report.steal_pct),
    load1_start: report.load1_start,
    load1_max: report.load1_max,
    samples: report.samples,
    seconds: round(report.seconds),
    top_outside: report.top_outside ?? [],
    disturbed: v.disturbed,
    reason: v.reason,
    ...(report.host_probe_ms ? { host_probe_ms: report.host_probe_ms } : {}),
  };
}

/** The verb's outcome as a status, parsing its output when it succeeded. */
function outcome(
  ctx: RunContext,
  cell: Cell,
  st: SystemState,
  workload: WorkloadDef,
  r: Awaited<ReturnType<typeof runVerb>>,
  cellDir: string,
  timeoutS: number,
  extra: Measurement[],
): Pick<Attempt, "status" | "reason" | "records"> {
  if (r.code === EXIT_WRONG_ANSWER)
    return { status: "wrong_answer", reason: tail(r.stdout + r.stderr) || "result checksum mismatch", records: [] };
  if (r.code === EXIT_UNAVAILABLE)
    return { status: "skipped", reason: unavailableReason(r) || "not supported", records: [] };
  if (r.code !== 0)
    return {
      status: "failed",
      reason: r.timedOut ? `timed out after ${timeoutS}s` : `exited ${r.code}: ${tail(r.stderr)}`,
      records: [],
    };
  try {
    const ms = parserFor(workload.tool)({ cellDir, stdout: r.stdout, workload });
    if (ms.length === 0) throw new ParseError(`${workload.tool} output gave no measurements`);
    return { status: "ok", reason: "", records: toRecords(ctx, cell, st, [...ms, ...extra]) };
  } catch (e) {
    writeFileSync(path.join(cellDir, "parse-error.txt"), String((e as Error).stack ?? e) + "\n");
    return { status: "failed", reason: `output did not parse: ${(e as Error).message}`, records: [] };
  }
}

async function attempt(
  ctx: RunContext,
  cell: Cell,
  st: SystemState,
  ps: PlannedStudy,
  workload: WorkloadDef,
  baseEnv: Record<string, string>,
  readPids: () => Promise<number[]>,
): Promise<Attempt> {
  const cellDir = path.join(ctx.runDir, "cells", cell.id);
  mkdirSync(cellDir);
  // A cell may restart the server (cold variants): read its pids afresh for every cell.
  if (st.pids.length) st.pids = await readPids();
  // Server memory/CPU only where the workload exercises the system's server.
  const sampleServer = st.pids.length > 0 && workload.uses_server !== false;
  const idleMiB = sampleServer ? treeMemoryMiB(st.pids) : null;
  const sampler = sampleServer ? new ResourceSampler(st.pids, cellDir) : null;
  // Inside the cell: this runner, the verb and everything it starts (its children), and the server's tree.
  const listFile = insidePidfilesList(ctx.runDir);
  const noise =
    ctx.noise.mode === "off" ? null : new NoiseSampler(() => [process.pid, ...st.pids, ...insidePids(listFile)]);
  sampler?.start();
  noise?.start();
  // A workload may raise (never lower) the profile's cell timeout: write workloads that keep the seed's batch size.
  const timeoutS =
    typeof workload.cell_timeout_s === "number" ? Math.max(workload.cell_timeout_s, ps.cellTimeoutS) : ps.cellTimeoutS;
  const r = await runVerb(path.join(ps.study.dir, "run"), [cell.system, cell.workload], {
    env: {
      ...baseEnv,
      CELL_DIR: cellDir,
      THREADS: String(cell.concurrency),
      VARIANT: cell.variant,
      REPETITION: String(cell.repetition),
      WORKLOAD: cell.workload,
    },
    timeoutS,
    stdoutFile: path.join(cellDir, "stdout.txt"),
    stderrFile: path.join(cellDir, "stderr.txt"),
  });
  const res = sampler?.stop();
  const noiseReport = noise?.stop();
  const extra: Measurement[] =
    idleMiB !== null && res
      ? [
          { metric: "mem_idle", value: Math.round(idleMiB * 10) / 10, unit: "MiB" },
          { metric: "mem_load", value: Math.round(res.peakMiB * 10) / 10, unit: "MiB" },
          { metric: "cpu_util", value: Math.round(res.cpuPercent * 10) / 10, unit: "%" },
        ]
      : [];
  const o = outcome(ctx, cell, st, workload, r, cellDir, timeoutS, extra);
  return {
    ...o,
    exitCode: r.code,
    seconds: r.seconds,
    resourceWindow: extra.length ? res?.window : undefined,
    noise: noiseReport ? noiseOf(noiseReport) : undefined,
  };
}

/** Counts a cell's first attempt and says once, when the share disturbed is high, that the host is contended. */
function warnIfContended(ctx: RunContext, disturbed: boolean): void {
  const n = ctx.noise;
  n.judged++;
  if (disturbed) n.disturbedFirst++;
  const warning = n.warned ? null : contentionWarning(n.judged, n.disturbedFirst);
  if (!warning) return;
  n.warned = true;
  ctx.log(`samebox: warning: ${warning}`);
}

/** Moves a disturbed attempt's folder aside (kept, never deleted) so the next attempt gets a fresh one. */
function setAside(runDir: string, cell: Cell, n: number): void {
  const dir = path.join(runDir, "cells", cell.id);
  let k = n;
  while (existsSync(`${dir}.noisy-${k}`)) k++;
  renameSync(dir, `${dir}.noisy-${k}`);
}

export async function runCell(
  ctx: RunContext,
  cell: Cell,
  st: SystemState,
  ps: PlannedStudy,
  baseEnv: Record<string, string>,
  readPids: () => Promise<number[]>,
): Promise<void> {
  const workload = ps.workloads.find((w) => w.name === cell.workload)!;
  const strict = ctx.noise.mode === "strict";
  let a: Attempt;
  for (let n = 1; ; n++) {
    cell.started_at = new Date().toISOString();
    cell.log = path.join("cells", cell.id, "stderr.txt");
    a = await attempt(ctx, cell, st, ps, workload, baseEnv, readPids);
    if (a.noise) {
      a.noise.attempts = n;
      writeFileSync(path.join(ctx.runDir, "cells", cell.id, "noise.json"), JSON.stringify(a.noise, null, 2) + "\n");
    }
    const disturbed = a.status === "ok" && a.noise?.disturbed === true;
    if (disturbed) {
      ctx.noise.flagged++;
      ctx.progress.note(`${cell.id}: disturbed (${a.noise!.reason})`);
    }
    if (n === 1 && a.noise) warnIfContended(ctx, disturbed);
    if (!disturbed || !strict || n >= ctx.noise.maxAttempts || ctx.interrupted()) break;
    saveCellRecords(path.join(ctx.runDir, "cells", cell.id), a.records);
    setAside(ctx.runDir, cell, n);
    ctx.noise.reruns++;
  }
  const noisy = strict && a.status === "ok" && a.noise?.disturbed === true;
  Object.assign(cell, {
    status: noisy ? "noisy" : a.status,
    reason: noisy
      ? `noisy: ${a.noise!.reason} in all ${a.noise!.attempts} attempts; kept, excluded from verdicts and rankings`
      : a.reason,
    exit_code: a.exitCode,
    duration_s: Math.round(a.seconds * 1000) / 1000,
    records: a.records.length,
  });
  if (a.resourceWindow) cell.resource_window = a.resourceWindow;
  if (a.noise) cell.noise = a.noise;
  saveCellRecords(path.join(ctx.runDir, "cells", cell.id), a.records);
  ctx.writer.write();
  appendRunRecords(ctx, a.records);
  ctx.progress.cellDone(cell.id, cell.status, a.seconds);
}
