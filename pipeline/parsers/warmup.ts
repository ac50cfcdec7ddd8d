import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { parseJson } from "./json-output.ts";

// The steady-state warm-up of a cell as two record metrics:
//   warmup_s  (s)      the warm-up the cell took before its measured window
//   steady    (count)  1 = successive windows' throughputs agreed within the tolerance before the
//                      bound, 0 = the bound (WARMUP_MAX) was hit and the cell was measured anyway
// Our Go load generators put warmup_s/steady in their own report; for foreign tools (sysbench,
// pgbench, k6 after an mcp-load pre-warm) the run verb writes $CELL_DIR/warmup.json through
// bench-scripts/lib/steady.sh: {warmup_s, steady, window_s, windows, tolerance, min_s, max_s, window_rates}.

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

export function warmupMeasurements(doc: { warmup_s?: unknown; steady?: unknown }): Measurement[] {
  const out: Measurement[] = [];
  if (isNum(doc.warmup_s)) out.push({ metric: "warmup_s", value: doc.warmup_s, unit: "s", t: null });
  if (typeof doc.steady === "boolean")
    out.push({ metric: "steady", value: doc.steady ? 1 : 0, unit: "count", t: null });
  return out;
}

/** warmup_s/steady from $CELL_DIR/warmup.json, or nothing when the run verb wrote none. */
export function warmupFromCell(cellDir: string | undefined): Measurement[] {
  if (!cellDir) return [];
  const file = path.join(cellDir, "warmup.json");
  if (!existsSync(file)) return [];
  const doc = parseJson(readFileSync(file, "utf8"), "warmup.json") as Record<string, unknown>;
  if (!doc || typeof doc !== "object" || !isNum(doc.warmup_s) || typeof doc.steady !== "boolean") {
    throw new ParseError(
      "warmup.json: expected {warmup_s: number, steady: boolean, ...} (bench-scripts/lib/steady.sh)",
    );
  }
  return warmupMeasurements(doc);
}
