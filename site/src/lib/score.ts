// Explore's tunable relative score, ClickBench-style: per workload each selected system's ratio to the
// best selected system, summarised per system by the geometric mean. Pure functions: the browser runs
// them over a DuckDB aggregate; the e2e test recomputes from records independently.
import { higherIsBetter } from "./stats.ts";

export interface ScoreInput {
  workload: string;
  system: string;
  metric: string;
  unit: string;
  /** median of the cell's values over the compared runs */
  value: number;
}
export interface ScoreSelection {
  systems: string[];
  workloads: string[];
  metric: string;
}
export interface SystemScore {
  system: string;
  score: number;
  measured: number;
  missing: number;
}
/** Added to times before dividing (ClickBench adds 10 ms), so sub-millisecond noise does not dominate. */
export const TIME_OFFSET = { ms: 10, us: 10_000, s: 0.01 } as Record<string, number>;
/** A workload the system did not run counts as this many times worse than the best. */
export const MISSING_RATIO = 10;

export function formulaText(metric: string, unit: string): string {
  const c = TIME_OFFSET[unit];
  const per = higherIsBetter(unit)
    ? `ratio = best ${metric} ÷ this system's ${metric} (higher ${unit} is better)`
    : `ratio = (this system's ${metric} + ${c ?? 0} ${unit}) ÷ (best ${metric} + ${c ?? 0} ${unit}) (lower is better)`;
  return `${per}; a workload the system has no value for counts as ratio ${MISSING_RATIO}; score = geometric mean of the ratios over the selected workloads (1 = best on every workload; lower is better).`;
}

export function relativeScores(
  rows: ScoreInput[],
  sel: ScoreSelection,
): { scores: SystemScore[]; unit: string; workloads: string[] } {
  const sys = new Set(sel.systems);
  const use = rows.filter(
    (r) =>
      r.metric === sel.metric && sys.has(r.system) && sel.workloads.includes(r.workload) && Number.isFinite(r.value),
  );
  const unit = use[0]?.unit ?? "";
  const hb = higherIsBetter(unit);
  const c = hb ? 0 : (TIME_OFFSET[unit] ?? 0);
  const workloads = sel.workloads.filter((w) => use.some((r) => r.workload === w));
  const logSum = new Map<string, number>();
  const measured = new Map<string, number>();
  for (const w of workloads) {
    const cells = use.filter((r) => r.workload === w);
    const best = hb ? Math.max(...cells.map((r) => r.value)) : Math.min(...cells.map((r) => r.value));
    for (const s of sel.systems) {
      const cell = cells.find((r) => r.system === s);
      const ratio = !cell
        ? MISSING_RATIO
        : hb
          ? cell.value > 0
            ? best / cell.value
            : MISSING_RATIO
          : (cell.value + c) / (best + c);
      logSum.set(s, (logSum.get(s) ?? 0) + Math.log(ratio));
      if (cell) measured.set(s, (measured.get(s) ?? 0) + 1);
    }
  }
  const scores = sel.systems
    .map((s) => ({
      system: s,
      score: workloads.length ? Math.exp((logSum.get(s) ?? 0) / workloads.length) : NaN,
      measured: measured.get(s) ?? 0,
      missing: workloads.length - (measured.get(s) ?? 0),
    }))
    .sort((a, b) => a.score - b.score || a.system.localeCompare(b.system));
  return { scores, unit, workloads };
}
