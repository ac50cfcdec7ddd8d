// One box: a study, or a share of its workloads when the whole study cannot finish inside one box's
// limit. Every system of the study runs on every box, so each workload's systems are compared on one
// machine; the boxes are the same instance type. Each box gets its own time limit.
import type { CellEstimate } from "./cells.ts";

// The box clones, installs Node, the toolchains and the systems' packages before the suite starts.
// An assumption until a first real run measures it (docs/cloud.md says so).
export const BOX_BOOTSTRAP_S = 20 * 60;
// The limit adds this much to the estimate, then the upload margin the box keeps free.
export const LIMIT_SAFETY = 1.25;
export const UPLOAD_MARGIN_MIN = 15;
export const MIN_LIMIT_MIN = 30;
// terraform/run's max_minutes bound. A GitHub-hosted job ends at 360 min, so the bench workflow
// waits for a box in two jobs (launch-and-wait, then collect), each under that.
export const MAX_LIMIT_MIN = 600;

export interface BoxEstimate {
  workloads: string[] | null; // null: every workload of the study
  variants: string[] | null; // null: every variant; else one variant (a workload too long for one box)
  cells: number;
  cell_seconds: number;
  expected_seconds: number;
  limit_minutes: number;
}

export function limitMinutes(expectedSeconds: number): number {
  return Math.max(MIN_LIMIT_MIN, Math.ceil((expectedSeconds * LIMIT_SAFETY) / 60) + UPLOAD_MARGIN_MIN);
}

type PackItem = { workload: string; variant: string | null; seconds: number };

const sumOf = (of: CellEstimate[]) => of.reduce((a, e) => a + e.seconds, 0);

// Items to pack: a workload with all its variants, or, when that alone is too long for a box, the
// workload once per variant (boxes then hold one variant each: systems still compared on one box).
function packItems(cells: CellEstimate[], capacity: number): PackItem[] {
  const items: PackItem[] = [];
  for (const workload of [...new Set(cells.map((e) => e.workload))]) {
    const of = cells.filter((e) => e.workload === workload);
    const variants = [...new Set(of.map((e) => e.variant))];
    if (sumOf(of) <= capacity || variants.length < 2) items.push({ workload, variant: null, seconds: sumOf(of) });
    else
      for (const v of variants) items.push({ workload, variant: v, seconds: sumOf(of.filter((e) => e.variant === v)) });
  }
  return items;
}

// The fewest boxes whose limits all fit MAX_LIMIT_MIN: workloads (all their systems, variants and
// repetitions together) packed first-fit by decreasing time; a workload too long for one box is split
// by variant. A (workload, variant) that alone cannot fit keeps a box of its own and makes the study not fit.
export function shardBoxes(cells: CellEstimate[], setupSeconds: number): BoxEstimate[] {
  const box = (workloads: string[] | null, variant: string | null, of: CellEstimate[]): BoxEstimate => {
    const cellSeconds = sumOf(of);
    const expected = BOX_BOOTSTRAP_S + setupSeconds + cellSeconds;
    return {
      workloads,
      variants: variant === null ? null : [variant],
      cells: of.length,
      cell_seconds: Math.round(cellSeconds),
      expected_seconds: Math.round(expected),
      limit_minutes: limitMinutes(expected),
    };
  };
  const whole = box(null, null, cells);
  if (whole.limit_minutes <= MAX_LIMIT_MIN) return [whole];
  // The cell time one box can hold: limit = ceil(expected x safety / 60) + margin <= MAX_LIMIT_MIN.
  const capacity = ((MAX_LIMIT_MIN - UPLOAD_MARGIN_MIN) * 60) / LIMIT_SAFETY - BOX_BOOTSTRAP_S - setupSeconds - 60;
  const bins: Array<{ workloads: string[]; variant: string | null; seconds: number }> = [];
  for (const item of packItems(cells, capacity).sort(
    (a, b) => b.seconds - a.seconds || a.workload.localeCompare(b.workload),
  )) {
    const bin = bins.find((b) => b.variant === item.variant && b.seconds + item.seconds <= capacity);
    if (bin) {
      bin.workloads.push(item.workload);
      bin.seconds += item.seconds;
    } else bins.push({ workloads: [item.workload], variant: item.variant, seconds: item.seconds });
  }
  return bins.map((b) =>
    box(
      [...b.workloads].sort(),
      b.variant,
      cells.filter((e) => b.workloads.includes(e.workload) && (b.variant === null || e.variant === b.variant)),
    ),
  );
}
