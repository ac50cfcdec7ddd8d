import { readFileSync, existsSync } from "node:fs";
import path from "node:path";
import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";

// hyperfine 1.15 `--export-json $CELL_DIR/hyperfine.json` (times in seconds), as written by the
// analytical study's run verb: one benchmarked command per cell. Summary statistics come from
// hyperfine itself; every individual run becomes a time_run measurement of the cell's repetition (a
// hyperfine run is not a repetition: repetitions are separate cells, interleaved with other systems).

interface HyperfineResult {
  command: string;
  mean: number;
  stddev: number | null;
  median: number;
  min: number;
  max: number;
  times: number[];
  exit_codes?: number[];
}

function finite(v: unknown, what: string): number {
  if (typeof v !== "number" || !Number.isFinite(v))
    throw new ParseError(`hyperfine.json: '${what}' is not a number (got ${JSON.stringify(v)})`);
  return v;
}

export function parseHyperfineJson(text: string): Measurement[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ParseError(`hyperfine.json is not JSON: ${(e as Error).message}`);
  }
  const results = (doc as { results?: unknown }).results;
  if (!Array.isArray(results) || results.length === 0)
    throw new ParseError("hyperfine.json has no 'results' array (did hyperfine finish?)");
  if (results.length !== 1)
    throw new ParseError(
      `hyperfine.json has ${results.length} results; the analytical run verb times exactly one command per cell`,
    );
  const r = results[0] as HyperfineResult;
  if (!Array.isArray(r.times) || r.times.length === 0)
    throw new ParseError("hyperfine.json result has no 'times' (individual runs)");
  const failed = (r.exit_codes ?? []).filter((c) => c !== 0).length;
  if (failed) throw new ParseError(`hyperfine.json: ${failed} of ${r.times.length} runs exited non-zero`);
  const ms = (s: number) => s * 1000;
  const out: Measurement[] = [
    { metric: "time_mean", value: ms(finite(r.mean, "mean")), unit: "ms" },
    { metric: "time_median", value: ms(finite(r.median, "median")), unit: "ms" },
    // hyperfine writes stddev null when there was a single run
    ...(r.stddev === null || r.stddev === undefined
      ? []
      : [{ metric: "time_stddev", value: ms(finite(r.stddev, "stddev")), unit: "ms" as const }]),
    { metric: "time_min", value: ms(finite(r.min, "min")), unit: "ms" },
    { metric: "time_max", value: ms(finite(r.max, "max")), unit: "ms" },
  ];
  r.times.forEach((t, i) => {
    out.push({ metric: "time_run", value: ms(finite(t, `times[${i}]`)), unit: "ms" });
  });
  return out;
}

export function parse(ctx: { cellDir: string; stdout: string; workload: Record<string, unknown> }): Measurement[] {
  const file = path.join(ctx.cellDir, "hyperfine.json");
  if (!existsSync(file)) {
    const last = ctx.stdout.trim().split("\n").pop() ?? "";
    throw new ParseError(`no hyperfine.json in ${ctx.cellDir}${last ? ` (last output line: ${last})` : ""}`);
  }
  return parseHyperfineJson(readFileSync(file, "utf8"));
}
