// The parameters table of a study page: what the featured run itself used (its manifest's
// config.studies[<study>]: env and concurrency), beside samebox's default and the published study's
// value (studies.json). Without it the table would show only the full profile's values (DURATION 60,
// 10 × 100,000 rows) beside a quick run that used 3 s and 4 × 25,000.
import type { RunManifest, Study } from "./data.ts";

export interface ParameterRow {
  name: string;
  /** The value the run used; undefined when the run did not set it (the script's default applied). */
  thisRun: string | undefined;
  defaultValue: string | undefined;
  seed: string | undefined;
  what: string;
}

interface StudyRunConfig {
  env?: Record<string, string | number>;
  concurrency?: number[];
}

const text = (v: unknown) => (v === undefined || v === null ? undefined : String(v));

/** One row per parameter the study declares, then any other variable the run set; THREADS is the run's concurrency (the runner sets it per cell). */
export function parameterRows(study: Study, run: RunManifest | undefined): ParameterRow[] {
  const declared = (study.parameters ?? {}) as Record<string, { default?: unknown; seed?: unknown; what?: string }>;
  const cfg = (run?.config as { studies?: Record<string, StudyRunConfig> } | undefined)?.studies?.[study.name];
  const env = cfg?.env ?? {};
  const used = (k: string): string | undefined =>
    k === "THREADS" && cfg?.concurrency?.length ? cfg.concurrency.join(", ") : text(env[k]);
  const rows: ParameterRow[] = Object.entries(declared).map(([name, p]) => ({
    name,
    thisRun: used(name),
    defaultValue: text(p.default),
    seed: text(p.seed),
    what: p.what ?? "",
  }));
  for (const [name, v] of Object.entries(env)) {
    if (!(name in declared)) rows.push({ name, thisRun: text(v), defaultValue: undefined, seed: undefined, what: "" });
  }
  return rows;
}
