// Expected figures for the e2e tests, computed independently from the site-data files the build used
// (records.json), so the tests check the pages' arithmetic rather than restating it.
import { readFileSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "./harness.ts";
import type { ResultRecord, RunManifest } from "../../pipeline/schema/types.ts";
import type { Study } from "../src/lib/data.ts";

// The published files' shapes: the types generated from pipeline/schema/*.schema.json.
export type { ResultRecord as Rec, RunManifest as Manifest };
export const siteDir = path.resolve(repoRoot, process.env.SAMEBOX_SITE_DIR ?? "site");
export const records: ResultRecord[] = JSON.parse(
  readFileSync(path.join(siteDir, "src/generated/records.json"), "utf8"),
);
export const runs: RunManifest[] = JSON.parse(readFileSync(path.join(siteDir, "src/generated/runs.json"), "utf8"));

function med(v: number[]): number {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Best system per workload by median tps (qps for select_random_points) in one run (of one study, when given), with the runner-up. */
export function leaders(
  runId: string,
  study?: string,
): Array<{ workload: string; best: string; second?: string; ratio?: number }> {
  const rs = records.filter(
    (r) =>
      r.run_id === runId &&
      (study === undefined || r.study === study) &&
      r.t === null &&
      (r.workload === "select_random_points" ? r.metric === "qps" : r.metric === "tps"),
  );
  // Cells, as the page ranks them: one per system × variant × concurrency (payments runs two variants of each system).
  const byW = new Map<string, Map<string, { s: string; v: number[] }>>();
  for (const r of rs) {
    const m = byW.get(r.workload) ?? byW.set(r.workload, new Map()).get(r.workload)!;
    const key = `${r.system}|${r.server}|${r.variant}|${r.concurrency}`;
    (m.get(key) ?? m.set(key, { s: r.system, v: [] }).get(key)!).v.push(r.value);
  }
  return [...byW.entries()].map(([workload, m]) => {
    const ranked = [...m.values()].map(({ s, v }) => ({ s, m: med(v) })).sort((a, b) => b.m - a.m);
    return {
      workload,
      best: ranked[0].s,
      second: ranked[1]?.s,
      ratio: ranked[1] ? ranked[0].m / ranked[1].m : undefined,
    };
  });
}

/** The run the home page features: newest run with measured records, preferring a non-ci profile. */
export function featuredRunId(): string | undefined {
  const measured = new Set(records.filter((r) => r.source === "measured").map((r) => r.run_id));
  const sorted = runs.filter((m) => measured.has(m.run_id)).sort((a, b) => b.started_at.localeCompare(a.started_at));
  return (sorted.find((m) => m.profile !== "ci") ?? sorted[0])?.run_id;
}

// ---- study-specific pages (analytical = seed 001, mcp-db = seed 000) ----------------------------
export const manifests = runs;
const studiesRaw = JSON.parse(readFileSync(path.join(siteDir, "src/generated/studies.json"), "utf8"));
export const studies: Study[] = Array.isArray(studiesRaw) ? studiesRaw : studiesRaw.studies;
export { med as median };

/** Workloads that do not exercise the systems (uses_server: false, e.g. the MCP client ceiling): a run with only their records did not measure the study. */
function calibrationWorkloads(study: string): Set<string> {
  const def = studies.find((s) => s.name === study);
  return new Set((def?.workloads ?? []).filter((w) => w.uses_server === false).map((w) => w.name));
}
function runsMeasuring(study: string): Set<string> {
  const cal = calibrationWorkloads(study);
  return new Set(
    records.filter((r) => r.source === "measured" && r.study === study && !cal.has(r.workload)).map((r) => r.run_id),
  );
}

/** The run a study page features: newest complete run with measured records of the study from workloads that exercise its systems, preferring a non-ci profile. */
export function featuredRunOf(study: string): RunManifest | undefined {
  const withData = runsMeasuring(study);
  const sorted = manifests
    .filter((m) => withData.has(m.run_id) && m.status !== "running")
    .sort((a, b) => b.started_at.localeCompare(a.started_at));
  return sorted.find((m) => m.profile !== "ci") ?? sorted[0];
}

/** Runs newer than the featured one (all, when none) with cells of the study that did not measure it: the page must name each. */
export function newerUnmeasuredOf(study: string): RunManifest[] {
  const featured = featuredRunOf(study);
  const measured = runsMeasuring(study);
  const cal = calibrationWorkloads(study);
  return manifests.filter(
    (m) =>
      m.run_id !== featured?.run_id &&
      (!featured || m.started_at > featured.started_at) &&
      !(measured.has(m.run_id) && m.status !== "running") &&
      m.cells.some((c) => c.study === study && !cal.has(c.workload)),
  );
}

/** Number formatting as the pages print it (format.ts num): integers with separators from 100, else 3 significant digits. */
export function num(v: number): string {
  if (!Number.isFinite(v)) return "–";
  return Math.abs(v) >= 100
    ? new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 }).format(v)
    : new Intl.NumberFormat("en-US", { maximumSignificantDigits: 3 }).format(v);
}
