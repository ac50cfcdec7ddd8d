import type { ResultRecord } from "../lib/records.ts";
import { interval95, median, perRepetition, relativeHalfWidth } from "../lib/stats.ts";
import type { PublishedRow, Provenance } from "./provenance.ts";

// ---- per-cell aggregates: one row per run × study × workload × system × variant × concurrency × metric,
// over the cell's repetitions (one value each, see perRepetition), with the 95 % Student-t interval.

export type Aggregate = Pick<
  ResultRecord,
  | "run_id"
  | "study"
  | "workload"
  | "system"
  | "system_version"
  | "server"
  | "variant"
  | "concurrency"
  | "metric"
  | "unit"
  | "profile"
  | "machine"
  | "commit"
> &
  Pick<Provenance, "config_hash" | "dirty"> & {
    n: number;
    mean: number;
    sd: number | null;
    ci_lo: number | null;
    ci_hi: number | null;
    half_width: number | null;
    rel_half_width: number | null;
    median: number;
    min: number;
    max: number;
    method: "t" | "none";
    cells: string;
  };

const finiteOrNull = (v: number): number | null => (Number.isFinite(v) ? v : null);

export function aggregates(rows: PublishedRow[]): Aggregate[] {
  const groups = new Map<string, PublishedRow[]>();
  for (const r of rows) {
    if (r.source !== "measured" || r.t !== null) continue;
    const k = [r.run_id, r.study, r.workload, r.system, r.server, r.variant, r.concurrency, r.metric].join("\u0000");
    (groups.get(k) ?? groups.set(k, []).get(k)!).push(r);
  }
  return [...groups.values()].map((g) => {
    const f = g[0];
    const values = perRepetition(g);
    const ci = interval95(values);
    return {
      run_id: f.run_id,
      study: f.study,
      workload: f.workload,
      system: f.system,
      system_version: f.system_version,
      server: f.server,
      variant: f.variant,
      concurrency: f.concurrency,
      metric: f.metric,
      unit: f.unit,
      n: values.length,
      mean: ci.mean,
      sd: finiteOrNull(ci.sd),
      ci_lo: finiteOrNull(ci.lo),
      ci_hi: finiteOrNull(ci.hi),
      half_width: finiteOrNull(ci.half_width),
      rel_half_width: finiteOrNull(relativeHalfWidth(ci)),
      median: median(values),
      min: Math.min(...values),
      max: Math.max(...values),
      method: ci.method,
      profile: f.profile,
      machine: f.machine,
      commit: f.commit,
      config_hash: f.config_hash,
      dirty: f.dirty,
      cells: [...new Set(g.map((r) => r.cell).filter(Boolean))].join(" "),
    };
  });
}
