// The measured durations an estimate starts from: every run folder's manifest (data/runs/*/manifest.json),
// its finished cells (cells[].duration_s) and each system's setup gap before its first cell of a study.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Cell } from "../../runner/plan.ts";
import type { RunManifest } from "../../schema/types.ts";
import { cellGaps } from "../cell-gaps.ts";

export type ReferenceCell = Pick<
  Cell,
  "started_at" | "study" | "workload" | "system" | "variant" | "concurrency" | "duration_s"
> & {
  run_id: string;
  env: Record<string, string>;
  tool: string;
};

/** A system's measured setup for a study (seconds) and the study's parameters in that run. */
export interface MeasuredSetup {
  seconds: number;
  env: Record<string, string>;
}

export interface RefRun {
  run_id: string;
  started_at: string;
  cells: ReferenceCell[];
  setups: Map<string, MeasuredSetup>;
}

export type ToolOf = (study: string, workload: string) => string | undefined;
export type References = RefRun[];

export const num = (v: unknown, dflt = 0): number => {
  const n = Number(v);
  return Number.isFinite(n) ? n : dflt;
};

// Data size of a study's prepare, per parameter, so the ratio between two profiles can be taken.
function dataSizes(env: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  if (env.SB_TABLES !== undefined && env.SB_TABLE_SIZE !== undefined)
    out.sysbench_rows = num(env.SB_TABLES) * num(env.SB_TABLE_SIZE);
  for (const key of Object.keys(env)) if (/(^|_)SCALE$/.test(key) && key !== "REPEAT_SCALE") out[key] = num(env[key]);
  return out;
}

export function dataRatio(target: Record<string, string>, reference: Record<string, string>): number {
  const t = dataSizes(target);
  const r = dataSizes(reference);
  let ratio = 1;
  for (const key of Object.keys(t)) if (r[key] > 0 && t[key] > 0) ratio = Math.max(ratio, t[key] / r[key]);
  return ratio;
}

/** Setup time of a system for a study: from the end of whatever ran before to its first cell. */
function measuredSetups(
  all: Cell[],
  runStartedAt: unknown,
  envOf: (study: string) => Record<string, string>,
): Map<string, MeasuredSetup> {
  const setups = new Map<string, MeasuredSetup>();
  for (const { cell: c, gapS } of cellGaps(all, String(runStartedAt))) {
    const key = `${c.system}/${c.study}`;
    if (!setups.has(key) && Number.isFinite(gapS)) setups.set(key, { seconds: gapS, env: envOf(c.study) });
  }
  return setups;
}

/** One run's references, from its manifest read without validation (older manifests may lack newer fields). */
function referenceRun(m: Partial<RunManifest>, toolOf: ToolOf): RefRun {
  const studiesCfg = (m.config?.studies ?? {}) as Record<string, { env?: Record<string, unknown> }>;
  const envOf = (study: string) =>
    Object.fromEntries(Object.entries(studiesCfg[study]?.env ?? {}).map(([k, v]) => [k, String(v)]));
  const all = (Array.isArray(m.cells) ? m.cells : []) as Cell[];
  const cells: ReferenceCell[] = [];
  for (const c of all) {
    if ((c.status !== "ok" && c.status !== "wrong_answer") || !(c.duration_s > 0)) continue;
    cells.push({
      run_id: String(m.run_id),
      started_at: c.started_at,
      study: c.study,
      workload: c.workload,
      system: c.system,
      variant: c.variant,
      concurrency: c.concurrency,
      duration_s: c.duration_s,
      env: envOf(c.study),
      tool: toolOf(c.study, c.workload) ?? "",
    });
  }
  return {
    run_id: String(m.run_id),
    started_at: String(m.started_at ?? ""),
    cells,
    setups: measuredSetups(all, m.started_at, envOf),
  };
}

// Every run folder with a manifest; cells that finished (ok or wrong_answer: their time is real) become references.
export function loadReferences(dir: string, toolOf: ToolOf): RefRun[] {
  if (!existsSync(dir)) return [];
  const runs: RefRun[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name, "manifest.json");
    if (!existsSync(file)) continue;
    // Every field is checked where used.
    let m: Partial<RunManifest>;
    try {
      m = JSON.parse(readFileSync(file, "utf8"));
    } catch {
      continue;
    }
    runs.push(referenceRun(m, toolOf));
  }
  // Newest first: the latest measured duration wins.
  return runs.sort((a, b) => b.started_at.localeCompare(a.started_at));
}
