// What every step of a run shares: where it writes, its plan, its manifest writer and the records so
// far. One object passed down instead of closures over runSuite's locals, so each step is its own module.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ResultRecord } from "../lib/records.ts";
import { fromJsonl } from "../lib/records.ts";
import type { ManifestWriter } from "./manifest.ts";
import type { Cell, CellStatus, NoiseGuardMode, Plan } from "./plan.ts";
import { NOT_RUN } from "./plan.ts";
import type { Progress } from "./progress.ts";
import type { SystemDef } from "../lib/catalog.ts";

export interface NoiseSettings {
  mode: NoiseGuardMode;
  /** attempts of a disturbed cell in strict mode, the first included */
  maxAttempts: number;
  flagged: number;
  reruns: number;
  /** cells judged at their first attempt in this runner, and how many of those were disturbed (contentionWarning) */
  judged: number;
  disturbedFirst: number;
  /** the contention warning was printed (once a run) */
  warned: boolean;
}

export interface RunContext {
  runId: string;
  runDir: string;
  plan: Plan;
  writer: ManifestWriter;
  machineLabel: string;
  commit: string;
  progress: Progress;
  noise: NoiseSettings;
  /** every record of the run so far (ok and noisy cells), for the sequential loop's judgements */
  records: ResultRecord[];
  /** each system's version and config verbs' answers at its first visit of this run (or of this resume):
   * neither changes while a run lasts, and the two verbs cost 0.1-1.1 s a visit */
  systemFacts: Map<string, Pick<SystemState, "version" | "config">>;
  interrupted: () => boolean;
  log: (s: string) => void;
  /** seconds the run has taken so far (run.ts runClock), for the profile's time limit */
  runSeconds: () => number;
}

export interface SystemState {
  def: SystemDef;
  version: string;
  env: Record<string, string>;
  pids: number[];
  config: Record<string, string>;
}

export const pending = (c: Cell) => c.reason === NOT_RUN;

export function verbLog(ctx: RunContext, name: string) {
  return {
    stdoutFile: path.join(ctx.runDir, "logs", `${name}.out`),
    stderrFile: path.join(ctx.runDir, "logs", `${name}.err`),
  };
}

/** Gives every still-pending cell matching `pred` a final status and reason. */
export function markCells(
  ctx: RunContext,
  pred: (c: Cell) => boolean,
  status: CellStatus,
  reason: string,
  logPath: string,
  code: number | null,
): void {
  for (const c of ctx.plan.cells)
    if (pred(c) && pending(c)) Object.assign(c, { status, reason, log: logPath, exit_code: code });
}

export function tail(text: string, lines = 3): string {
  return text.trim().split("\n").slice(-lines).join(" | ").slice(0, 500);
}

// The contract: a verb exiting 3 prints its one-line reason last on stdout (and a copy, prefixed, on
// stderr for a person watching); stderr's last line is the fallback for verbs that print only there.
export function unavailableReason(r: { stdout: string; stderr: string }): string {
  return tail(r.stdout, 1) || tail(r.stderr, 1);
}

const CELL_RECORDS = "records.jsonl";

/**
 * A finished cell's records: first into its own folder, then (after the manifest says the cell is done)
 * appended to the run's records.jsonl. The cell folders are the truth a resumed run rebuilds from, so a
 * runner killed between the two steps neither loses nor doubles a cell's records.
 */
export function saveCellRecords(cellDir: string, records: ResultRecord[]): void {
  writeFileSync(path.join(cellDir, CELL_RECORDS), records.map((r) => JSON.stringify(r) + "\n").join(""));
}

export function appendRunRecords(ctx: RunContext, records: ResultRecord[]): void {
  ctx.records.push(...records);
  appendFileSync(path.join(ctx.runDir, "records.jsonl"), records.map((r) => JSON.stringify(r) + "\n").join(""));
}

/** The run's records rebuilt from the folders of its finished cells (ok and noisy), in cell order. */
export function recordsFromCells(runDir: string, cells: Cell[]): ResultRecord[] {
  const out: ResultRecord[] = [];
  for (const c of cells) {
    if (c.status !== "ok" && c.status !== "noisy") continue;
    const f = path.join(runDir, "cells", c.id, CELL_RECORDS);
    if (existsSync(f)) out.push(...fromJsonl(readFileSync(f, "utf8"), f));
  }
  return out;
}

/**
 * Daemons a verb started outside the runner's tree but that belong to the system under test (Redis and
 * the api-service of mcp-servers, MCP servers started with setsid): verbs list their pid files in this
 * file (bench-scripts/lib/common.sh `inside_pidfile`), and the noise guard counts them as inside.
 */
export function insidePidfilesList(runDir: string): string {
  return path.join(runDir, "logs", "inside-pidfiles");
}

export function insidePids(listFile: string): number[] {
  if (!existsSync(listFile)) return [];
  const pids: number[] = [];
  for (const f of readFileSync(listFile, "utf8").split("\n").filter(Boolean)) {
    try {
      const pid = Number(readFileSync(f, "utf8").replace(/[^0-9]/g, ""));
      if (pid > 0) pids.push(pid);
    } catch {
      // a daemon that is not running has no pid file: nothing to count
    }
  }
  return pids;
}

export function ensureRunFolders(runDir: string): void {
  for (const d of ["cells", "logs"]) mkdirSync(path.join(runDir, d), { recursive: true });
}
