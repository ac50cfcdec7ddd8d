// "Does it reproduce?": each seed's claims (bench-scripts/studies/<study>/claims.json, format in
// bench-scripts/studies/CLAIMS.md) beside samebox's measurement of the same comparison, with a verdict
// decided by the 95 % intervals (stats.ts). Read at build time; analysis pages stay free of JS.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ResultRecord, RunManifest, Study } from "./data.ts";
import { cellStats, featuredRun, pooledBySystem, interval95, type CellStat, type Interval95 } from "./stats.ts";
import claimsSchema from "../../../pipeline/schema/claims.schema.json";
import type { Claim, ClaimSide, ClaimsFile } from "../../../pipeline/schema/types.ts";

// claims.json's shape and schema: pipeline/schema/claims.schema.json and its generated types.
export type { Claim, ClaimSide, ClaimsFile };
const validateClaims = new Ajv2020({ allErrors: false, strict: false }).compile<ClaimsFile>(claimsSchema);

function repoRoot(): string {
  // Set by astro.config.mjs; the build runs from the repo root otherwise.
  return process.env.SAMEBOX_REPO_ROOT ?? path.resolve(".");
}

export function claimsPath(study: string): string {
  return path.join(repoRoot(), "bench-scripts", "studies", study, "claims.json");
}

/** The study's claims, or undefined when the study has no claims.json. A malformed file fails the build naming the file and field. */
export function loadClaims(study: string): ClaimsFile | undefined {
  const file = claimsPath(study);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new Error(`samebox site: ${file} is not valid JSON (${(e as Error).message})`);
  }
  if (!validateClaims(raw)) {
    const e = validateClaims.errors?.[0];
    throw new Error(`samebox site: ${file} ${e?.instancePath || "(file)"} ${e?.message}; see bench-scripts/studies/CLAIMS.md for the format`);
  }
  const ids = new Set<string>();
  for (const c of raw.claims) {
    if (ids.has(c.id)) throw new Error(`samebox site: ${file} claim id "${c.id}" appears twice; ids must be unique within a study`);
    ids.add(c.id);
  }
  return raw;
}

export type VerdictKind = "reproduces" | "within noise" | "does not reproduce" | "not measured";

export interface ClaimVerdict {
  claim: Claim;
  /** How many times better a is than b as the seed published it (oriented by `better`). */
  publishedRatio: number;
  verdict: VerdictKind;
  /** Ours, same orientation: ratio of the two cells' means, and the interval from their 95 % intervals. */
  ratio?: number;
  lo?: number;
  hi?: number;
  hasInterval: boolean;
  a?: CellStat;
  b?: CellStat;
  why: string;
}

/** "a is `ratio` times better than b": a/b for higher-is-better metrics, b/a for lower-is-better. */
export function orientedRatio(a: number, b: number, better: "higher" | "lower"): number {
  return better === "higher" ? a / b : b / a;
}

/** Interval of the oriented ratio from the two means' 95 % intervals (conservative: opposite ends). */
export function ratioInterval(a: Interval95, b: Interval95, better: "higher" | "lower"): { lo: number; hi: number } | undefined {
  if (a.method === "none" || b.method === "none") return undefined;
  const div = (x: number, y: number) => (y > 0 ? x / y : Infinity);
  const [num, den] = better === "higher" ? [a, b] : [b, a];
  return { lo: Math.max(0, den.hi > 0 ? num.lo / den.hi : 0), hi: div(num.hi, den.lo) };
}

/** Verdict of a ratio (point and optional interval) against the range in which the claim holds. */
export function judge(ratio: number, interval: { lo: number; hi: number } | undefined, holds: { min?: number; max?: number }): Exclude<VerdictKind, "not measured"> {
  const min = holds.min ?? -Infinity;
  const max = holds.max ?? Infinity;
  if (!interval) return ratio >= min && ratio <= max ? "reproduces" : "does not reproduce";
  if (interval.lo >= min && interval.hi <= max) return "reproduces";
  if (interval.hi < min || interval.lo > max) return "does not reproduce";
  return "within noise";
}

function matches(c: CellStat, s: ClaimSide): boolean {
  return c.system === s.system && (s.variant === undefined || c.variant === s.variant) && (s.concurrency === undefined || c.concurrency === s.concurrency);
}

/** Picks one cell per side: the highest concurrency both sides ran (the claim may pin it), then the first variant by name. */
function pickCells(stats: CellStat[], claim: Claim): { a?: CellStat; b?: CellStat } {
  let pool = stats.filter((c) => c.metric === claim.metric);
  if (claim.workload === "*") pool = pooledBySystem(pool, claim.metric).map((c) => ({ ...c, ci: interval95(c.values) }));
  else pool = pool.filter((c) => c.workload === claim.workload);
  const as = pool.filter((c) => matches(c, claim.a));
  const bs = pool.filter((c) => matches(c, claim.b));
  const common = as.map((c) => c.concurrency).filter((k) => bs.some((c) => c.concurrency === k));
  const conc = common.length ? Math.max(...common) : undefined;
  const first = (cs: CellStat[]) => cs.filter((c) => conc === undefined || c.concurrency === conc).sort((x, y) => x.variant.localeCompare(y.variant))[0];
  return { a: first(as), b: first(bs) };
}

function missingWhy(s: ClaimSide, claim: Claim, study: string, run: RunManifest | undefined, found: boolean): string | undefined {
  if (found) return undefined;
  if (!run) return `no measured run of ${study} yet`;
  const cell = run.cells.find((c) => c.study === study && c.system === s.system && (claim.workload === "*" || c.workload === claim.workload) && (s.variant === undefined || c.variant === s.variant) && c.status !== "ok");
  const what = `${s.system}${s.variant ? ` (${s.variant})` : ""}`;
  if (cell) return `${what}: cell ${cell.status} in run ${run.run_id}${cell.reason ? ` — ${cell.reason}` : ""}`;
  return `${what} was not measured on ${claim.workload === "*" ? "any workload" : claim.workload} (${claim.metric}) in run ${run.run_id}`;
}

export interface StudyVerdicts {
  study: Study;
  claims: ClaimsFile;
  run: RunManifest | undefined;
  rows: ClaimVerdict[];
  counts: Record<VerdictKind, number>;
}

/** Every claim of the study judged against the study's featured run (stats.ts featuredRun). */
export function studyVerdicts(study: Study, runs: RunManifest[], records: ResultRecord[]): StudyVerdicts | undefined {
  const claims = loadClaims(study.name);
  if (!claims) return undefined;
  const run = featuredRun(study, runs, records);
  const stats = run ? cellStats(records.filter((r) => r.source === "measured" && r.run_id === run.run_id && r.study === study.name)) : [];
  const rows = claims.claims.map((claim): ClaimVerdict => {
    const publishedRatio = claim.published.ratio ?? orientedRatio(claim.published.a!, claim.published.b!, claim.better);
    const { a, b } = pickCells(stats, claim);
    if (!a || !b) {
      const why = [missingWhy(claim.a, claim, study.name, run, !!a), missingWhy(claim.b, claim, study.name, run, !!b)].filter(Boolean).join("; ");
      return { claim, publishedRatio, verdict: "not measured", hasInterval: false, a, b, why };
    }
    const ratio = orientedRatio(a.ci.mean, b.ci.mean, claim.better);
    const iv = ratioInterval(a.ci, b.ci, claim.better);
    const verdict = judge(ratio, iv, claim.holds_if);
    const range = holdsText(claim.holds_if);
    const why = iv
      ? `ours ${fmtRatio(ratio)} (95 % interval ${fmtRatio(iv.lo)}–${fmtRatio(iv.hi)}); the claim holds for ${range}`
      : `ours ${fmtRatio(ratio)} from ${Math.min(a.n, b.n)} repetition: no interval, judged by the point estimate; the claim holds for ${range}`;
    return { claim, publishedRatio, verdict, ratio, lo: iv?.lo, hi: iv?.hi, hasInterval: !!iv, a, b, why };
  });
  const counts = { reproduces: 0, "within noise": 0, "does not reproduce": 0, "not measured": 0 } as Record<VerdictKind, number>;
  for (const r of rows) counts[r.verdict]++;
  return { study, claims, run, rows, counts };
}

export function holdsText(h: { min?: number; max?: number }): string {
  if (h.min !== undefined && h.max !== undefined) return `a ratio of ${fmtRatio(h.min)} to ${fmtRatio(h.max)}`;
  if (h.min !== undefined) return `a ratio of at least ${fmtRatio(h.min)}`;
  return `a ratio of at most ${fmtRatio(h.max!)}`;
}

/** 1.046 → "1.05×", 43 → "43×", 0.5 → "0.5×". */
export function fmtRatio(r: number): string {
  if (!Number.isFinite(r)) return "∞";
  return `${r >= 100 ? Math.round(r).toLocaleString("en-US") : Number(r.toPrecision(3)).toString()}×`;
}

export const verdictClass: Record<VerdictKind, string> = {
  reproduces: "v-yes",
  "within noise": "v-noise",
  "does not reproduce": "v-no",
  "not measured": "v-none",
};
