// One study's projection: its planned cells priced from the references, its systems' setups, the boxes
// it needs and what they cost.
import type { Plan } from "../../runner/plan.ts";
import { median } from "../stats.ts";
import { BOX_BOOTSTRAP_S, type BoxEstimate, limitMinutes, MAX_LIMIT_MIN, shardBoxes } from "./boxes.ts";
import { type Basis, type CellEstimate, estimateCell } from "./cells.ts";
import { type Price, round2 } from "./price.ts";
import type { References, ToolOf } from "./references.ts";
import { studySetup } from "./setup.ts";

export interface StudyEstimate {
  study: string;
  boxes: BoxEstimate[];
  cells: number;
  systems: string[];
  cell_seconds: number;
  setup_seconds: number;
  bootstrap_seconds: number;
  expected_seconds: number;
  limit_minutes: number;
  fits: boolean;
  usd_expected: number | null;
  usd_limit: number | null;
  bases: Partial<Record<Basis, number>>;
  capped_cells: number;
  notes: string[];
}

/** Every planned cell of the study projected; cells with no reference of their own workload get the study's median projected cell, or the cell timeout. */
function cellEstimates(study: string, plan: Plan, refs: References, toolOf: ToolOf): CellEstimate[] {
  const planned = plan.studies[study];
  const ofStudy = refs.flatMap((r) => r.cells).filter((r) => r.study === study); // newest run first
  const estimates = plan.cells
    .filter((c) => c.study === study)
    .map((c) => estimateCell(c, study, planned, ofStudy, toolOf));
  const known = estimates.filter((e) => e.basis !== "none" && e.basis !== "profile window").map((e) => e.seconds);
  const fallback = known.length ? median(known) : planned.cellTimeoutS;
  for (const e of estimates)
    if (e.basis === "none") Object.assign(e, { seconds: fallback, basis: known.length ? "study median" : "none" });
  return estimates;
}

export function studyEstimate(
  study: string,
  plan: Plan,
  refs: References,
  toolOf: ToolOf,
  price: Price | null,
): StudyEstimate | undefined {
  const planned = plan.studies[study];
  const cells = plan.cells.filter((c) => c.study === study);
  if (!cells.length) return undefined;
  const estimates = cellEstimates(study, plan, refs, toolOf);
  const systems = [...new Set(cells.map((c) => c.system))];
  const notes: string[] = [];
  const setup = studySetup(study, planned, systems, refs, notes);
  const cellSeconds = estimates.reduce((a, e) => a + e.seconds, 0);
  const boxes = shardBoxes(estimates, setup);
  const expected = boxes.reduce((a, b) => a + b.expected_seconds, 0);
  const limit = Math.max(...boxes.map((b) => b.limit_minutes));
  if (boxes.length > 1)
    notes.push(
      `${boxes.length} boxes: one box would need ${limitMinutes(BOX_BOOTSTRAP_S + setup + cellSeconds)} min, more than ${MAX_LIMIT_MIN}; workloads are split between boxes, every system runs on every box`,
    );
  const bases: Partial<Record<Basis, number>> = {};
  for (const e of estimates) bases[e.basis] = (bases[e.basis] ?? 0) + 1;
  const capped = estimates.filter((e) => e.capped).length;
  if (capped)
    notes.push(`${capped} cells project past the cell timeout (${planned.cellTimeoutS} s) and are counted at it`);
  return {
    study,
    boxes,
    cells: cells.length,
    systems,
    cell_seconds: Math.round(cellSeconds),
    setup_seconds: Math.round(setup * boxes.length),
    bootstrap_seconds: BOX_BOOTSTRAP_S * boxes.length,
    expected_seconds: Math.round(expected),
    limit_minutes: limit,
    fits: limit <= MAX_LIMIT_MIN,
    usd_expected: price ? round2((price.usd_per_hour * expected) / 3600) : null,
    usd_limit: price ? round2((price.usd_per_hour * boxes.reduce((a, b) => a + b.limit_minutes, 0)) / 60) : null,
    bases,
    capped_cells: capped,
    notes,
  };
}
