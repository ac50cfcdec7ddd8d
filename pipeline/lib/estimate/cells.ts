// One planned cell's projected seconds, from the newest measured cell that matches it best.
//
// - time-bound tools (sysbench, pgbench, mcp-load, k6, pgwire-tp, anything whose profile sets DURATION
//   and is not hyperfine): reference time - (its WARMUP + DURATION) + (target WARMUP + DURATION); the
//   remainder is the tool's own start-up and shutdown, carried over unchanged;
// - hyperfine: reference time x (target HF_RUNS + HF_WARMUP) / (reference's) x target REPEAT_SCALE /
//   reference REPEAT_SCALE (linear in runs and in repeat counts: start-up is scaled too, so it errs high);
// - every cell is capped at the profile's cell_timeout_s (the runner kills it there).
import type { Plan } from "../../runner/plan.ts";
import { median } from "../stats.ts";
import { num, type ReferenceCell, type ToolOf } from "./references.ts";

export const COUNT_BOUND_TOOLS = new Set(["hyperfine"]);
// A time-bound cell with no measured reference lasts its window plus this much tool start-up (an assumption).
export const WINDOW_OVERHEAD_S = 30;

export type Basis =
  | "same cell"
  | "same workload, system and variant"
  | "same workload and system"
  | "same workload"
  | "profile window"
  | "study median"
  | "none";

export interface CellEstimate {
  id: string;
  study: string;
  system: string;
  workload: string;
  variant: string;
  concurrency: number;
  seconds: number;
  basis: Basis;
  reference?: string; // run id of the reference
  capped: boolean;
}

export function projectCell(
  ref: Pick<ReferenceCell, "duration_s" | "env" | "tool">,
  target: Record<string, string>,
): number {
  const r = ref.env;
  if (COUNT_BOUND_TOOLS.has(ref.tool)) {
    const runs = (e: Record<string, string>) => num(e.HF_RUNS, 10) + num(e.HF_WARMUP, 0);
    const repeat = (e: Record<string, string>) => num(e.REPEAT_SCALE, 1);
    return ref.duration_s * (runs(target) / runs(r)) * (repeat(target) / repeat(r));
  }
  if (target.DURATION !== undefined) {
    const window = (e: Record<string, string>) => num(e.DURATION) + num(e.WARMUP);
    return Math.max(ref.duration_s - window(r), 0) + window(target);
  }
  return ref.duration_s;
}

/** One planned cell's projected seconds: the newest measured cell that matches it best, scaled to the target's parameters. */
export function estimateCell(
  c: Plan["cells"][number],
  study: string,
  planned: Plan["studies"][string],
  ofStudy: ReferenceCell[],
  toolOf: ToolOf,
): CellEstimate {
  const target = planned.env;
  const id = {
    id: c.id,
    study,
    system: c.system,
    workload: c.workload,
    variant: c.variant,
    concurrency: c.concurrency,
  };
  const tiers: Array<[Basis, (r: ReferenceCell) => boolean]> = [
    [
      "same cell",
      (r) =>
        r.workload === c.workload &&
        r.system === c.system &&
        r.variant === c.variant &&
        r.concurrency === c.concurrency,
    ],
    [
      "same workload, system and variant",
      (r) => r.workload === c.workload && r.system === c.system && r.variant === c.variant,
    ],
    ["same workload and system", (r) => r.workload === c.workload && r.system === c.system],
    ["same workload", (r) => r.workload === c.workload],
  ];
  for (const [basis, match] of tiers) {
    const found = ofStudy.filter(match);
    if (!found.length) continue;
    // The newest run that has a match; the median over that run's matching cells (its repetitions).
    const newest = found.filter((r) => r.run_id === found[0].run_id);
    const projected = median(
      newest.map((r) => projectCell({ ...r, tool: r.tool || toolOf(study, c.workload) || "" }, target)),
    );
    return {
      ...id,
      seconds: Math.min(projected, planned.cellTimeoutS),
      basis,
      reference: found[0].run_id,
      capped: projected > planned.cellTimeoutS,
    };
  }
  // No measurement of this workload anywhere: a time-bound tool still lasts its window.
  const tool = toolOf(study, c.workload) ?? "";
  if (!COUNT_BOUND_TOOLS.has(tool) && target.DURATION !== undefined) {
    const seconds = num(target.DURATION) + num(target.WARMUP) + WINDOW_OVERHEAD_S;
    return {
      ...id,
      seconds: Math.min(seconds, planned.cellTimeoutS),
      basis: "profile window" as Basis,
      capped: seconds > planned.cellTimeoutS,
    };
  }
  return { ...id, seconds: NaN, basis: "none" as Basis, capped: false };
}
