import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { csvParse } from "d3-dsv";
import { planRun } from "../runner/plan.ts";
import { defaultPrepareBoundS, prepareBoundS, type PrepareBounds } from "../runner/prepare-bound.ts";
import type { Cell, Plan } from "../runner/plan.ts";
import type { RunManifest } from "../schema/types.ts";
import { dataDir, runsDir } from "./paths.ts";
import { UserError } from "./errors.ts";
import { median } from "./stats.ts";

// What a cloud run will cost before it is launched: cells, expected wall time per study and dollars,
// from the durations of cells that were actually measured (data/runs/*/manifest.json, cells[].duration_s)
// scaled by the profile's parameters. One study runs on one box, so each study gets its own time limit.
//
// How a cell's time is projected from its reference (the newest measured cell that matches best):
// - time-bound tools (sysbench, pgbench, mcp-load, k6, pgwire-tp, anything whose profile sets DURATION
//   and is not hyperfine): reference time - (its WARMUP + DURATION) + (target WARMUP + DURATION); the
//   remainder is the tool's own start-up and shutdown, carried over unchanged;
// - hyperfine: reference time x (target HF_RUNS + HF_WARMUP) / (reference's) x target REPEAT_SCALE /
//   reference REPEAT_SCALE (linear in runs and in repeat counts: start-up is scaled too, so it errs high);
// - every cell is capped at the profile's cell_timeout_s (the runner kills it there).
// Setup per system and study (install, start, check, prepare: the gap before the system's first cell of
// the study) is scaled linearly by the data-size parameters (rows); the runner's prepare bound is raised
// to fit it (runner/prepare-bound.ts), so it is counted in full up to the largest bound + INSTALL_START_ALLOWANCE_S.
// No speed-up is assumed for a larger machine: the references come from whatever machine measured them.

export const COUNT_BOUND_TOOLS = new Set(["hyperfine"]);
// The box clones, installs Node, the toolchains and the systems' packages before the suite starts.
// An assumption until a first real run measures it (docs/cloud.md says so).
export const BOX_BOOTSTRAP_S = 20 * 60;
export const INSTALL_START_ALLOWANCE_S = 300;
// Setup of a system for a study nothing has measured yet (install, start, load): an assumption, noted.
export const SETUP_ASSUMED_S = 15 * 60;
// The limit adds this much to the estimate, then the upload margin the box keeps free.
export const LIMIT_SAFETY = 1.25;
export const UPLOAD_MARGIN_MIN = 15;
export const MIN_LIMIT_MIN = 30;
// terraform/run's max_minutes bound. A GitHub-hosted job ends at 360 min, so the bench workflow
// waits for a box in two jobs (launch-and-wait, then collect), each under that.
export const MAX_LIMIT_MIN = 600;

export type Basis = "same cell" | "same workload, system and variant" | "same workload and system" | "same workload" | "profile window" | "study median" | "none";
// A time-bound cell with no measured reference lasts its window plus this much tool start-up (an assumption).
export const WINDOW_OVERHEAD_S = 30;

export type ReferenceCell = Pick<Cell, "started_at" | "study" | "workload" | "system" | "variant" | "concurrency" | "duration_s"> & {
  run_id: string;
  env: Record<string, string>;
  tool: string;
};

export interface CellEstimate {
  id: string; study: string; system: string; workload: string; variant: string; concurrency: number;
  seconds: number;
  basis: Basis;
  reference?: string; // run id of the reference
  capped: boolean;
}

// One box: a study, or a share of its workloads when the whole study cannot finish inside one box's
// limit. Every system of the study runs on every box, so each workload's systems are compared on one
// machine; the boxes are the same instance type.
export interface BoxEstimate {
  workloads: string[] | null; // null: every workload of the study
  variants: string[] | null; // null: every variant; else one variant (a workload too long for one box)
  cells: number;
  cell_seconds: number;
  expected_seconds: number;
  limit_minutes: number;
}

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

export interface Price { usd_per_hour: number; date: string; source_url: string }

export interface Estimate {
  profile: string;
  instance_type: string;
  region: string;
  price: Price | null;
  price_reason?: string;
  references: string[];
  studies: StudyEstimate[];
  total: { cells: number; expected_hours: number; usd_expected: number | null; usd_limit: number | null };
  method: string[];
}

export interface EstimateOptions {
  profile: string;
  studies?: string[];
  systems?: string[];
  instanceType: string;
  region: string;
  runsDir?: string;
  pricesFile?: string;
}

const num = (v: unknown, dflt = 0): number => {
  const n = Number(v);
  return Number.isFinite(n) ? n : dflt;
};

// Data size of a study's prepare, per parameter, so the ratio between two profiles can be taken.
function dataSizes(env: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  if (env.SB_TABLES !== undefined && env.SB_TABLE_SIZE !== undefined) out.sysbench_rows = num(env.SB_TABLES) * num(env.SB_TABLE_SIZE);
  for (const key of Object.keys(env)) if (/(^|_)SCALE$/.test(key) && key !== "REPEAT_SCALE") out[key] = num(env[key]);
  return out;
}

export function dataRatio(target: Record<string, string>, reference: Record<string, string>): number {
  const t = dataSizes(target);
  const r = dataSizes(reference);
  let ratio = 1;
  for (const key of Object.keys(t)) if (r[key] > 0 && t[key] > 0) ratio = Math.max(ratio, t[key] / r[key]);
  return ratio;
}

export function projectCell(ref: Pick<ReferenceCell, "duration_s" | "env" | "tool">, target: Record<string, string>): number {
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

interface RefRun { run_id: string; started_at: string; cells: ReferenceCell[]; setups: Map<string, { seconds: number; env: Record<string, string> }> }

// Every run folder with a manifest; cells that finished (ok or wrong_answer: their time is real) become references.
export function loadReferences(dir: string, toolOf: (study: string, workload: string) => string | undefined): RefRun[] {
  if (!existsSync(dir)) return [];
  const runs: RefRun[] = [];
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name, "manifest.json");
    if (!existsSync(file)) continue;
    // Read without validation (older manifests may lack newer fields): every field is checked where used.
    let m: Partial<RunManifest>;
    try { m = JSON.parse(readFileSync(file, "utf8")); } catch { continue; }
    const studiesCfg = (m.config?.studies ?? {}) as Record<string, { env?: Record<string, unknown> }>;
    const envOf = (study: string) => Object.fromEntries(Object.entries(studiesCfg[study]?.env ?? {}).map(([k, v]) => [k, String(v)]));
    const all = (Array.isArray(m.cells) ? m.cells : []) as Cell[];
    const cells: ReferenceCell[] = [];
    for (const c of all) {
      if ((c.status !== "ok" && c.status !== "wrong_answer") || !(c.duration_s > 0)) continue;
      cells.push({ run_id: String(m.run_id), started_at: c.started_at, study: c.study, workload: c.workload, system: c.system, variant: c.variant,
        concurrency: c.concurrency, duration_s: c.duration_s, env: envOf(c.study), tool: toolOf(c.study, c.workload) ?? "" });
    }
    // Setup time of a system for a study: from the end of whatever ran before to its first cell.
    const timed = all.filter((c) => c.started_at && c.duration_s > 0).sort((a, b) => a.started_at.localeCompare(b.started_at));
    const setups = new Map<string, { seconds: number; env: Record<string, string> }>();
    let previousEnd = Date.parse(String(m.started_at));
    for (const c of timed) {
      const start = Date.parse(c.started_at);
      const key = `${c.system}/${c.study}`;
      if (!setups.has(key) && Number.isFinite(previousEnd)) setups.set(key, { seconds: Math.max((start - previousEnd) / 1000, 0), env: envOf(c.study) });
      previousEnd = start + c.duration_s * 1000;
    }
    runs.push({ run_id: String(m.run_id), started_at: String(m.started_at ?? ""), cells, setups });
  }
  // Newest first: the latest measured duration wins.
  return runs.sort((a, b) => b.started_at.localeCompare(a.started_at));
}

export function loadPrice(file: string, region: string, instanceType: string): Price | null {
  if (!existsSync(file)) return null;
  const rows = csvParse(readFileSync(file, "utf8"))
    .filter((r) => r.region === region && r.instance_type === instanceType && r.confirmed === "yes" && (r.usd_per_hour ?? "").trim() !== "")
    .sort((a, b) => String(b.date).localeCompare(String(a.date)));
  if (!rows.length) return null;
  return { usd_per_hour: Number(rows[0].usd_per_hour), date: String(rows[0].date), source_url: String(rows[0].source_url) };
}

export function limitMinutes(expectedSeconds: number): number {
  return Math.max(MIN_LIMIT_MIN, Math.ceil((expectedSeconds * LIMIT_SAFETY) / 60) + UPLOAD_MARGIN_MIN);
}

type ToolOf = (study: string, workload: string) => string | undefined;
type References = ReturnType<typeof loadReferences>;

/** One planned cell's projected seconds: the newest measured cell that matches it best, scaled to the target's parameters. */
function estimateCell(c: Plan["cells"][number], study: string, planned: Plan["studies"][string], ofStudy: ReferenceCell[], toolOf: ToolOf): CellEstimate {
  const target = planned.env;
  const id = { id: c.id, study, system: c.system, workload: c.workload, variant: c.variant, concurrency: c.concurrency };
  const tiers: Array<[Basis, (r: ReferenceCell) => boolean]> = [
    ["same cell", (r) => r.workload === c.workload && r.system === c.system && r.variant === c.variant && r.concurrency === c.concurrency],
    ["same workload, system and variant", (r) => r.workload === c.workload && r.system === c.system && r.variant === c.variant],
    ["same workload and system", (r) => r.workload === c.workload && r.system === c.system],
    ["same workload", (r) => r.workload === c.workload],
  ];
  for (const [basis, match] of tiers) {
    const found = ofStudy.filter(match);
    if (!found.length) continue;
    // The newest run that has a match; the median over that run's matching cells (its repetitions).
    const newest = found.filter((r) => r.run_id === found[0].run_id);
    const projected = median(newest.map((r) => projectCell({ ...r, tool: r.tool || toolOf(study, c.workload) || "" }, target)));
    return { ...id, seconds: Math.min(projected, planned.cellTimeoutS), basis, reference: found[0].run_id, capped: projected > planned.cellTimeoutS };
  }
  // No measurement of this workload anywhere: a time-bound tool still lasts its window.
  const tool = toolOf(study, c.workload) ?? "";
  if (!COUNT_BOUND_TOOLS.has(tool) && target.DURATION !== undefined) {
    const seconds = num(target.DURATION) + num(target.WARMUP) + WINDOW_OVERHEAD_S;
    return { ...id, seconds: Math.min(seconds, planned.cellTimeoutS), basis: "profile window" as Basis, capped: seconds > planned.cellTimeoutS };
  }
  return { ...id, seconds: NaN, basis: "none" as Basis, capped: false };
}

/**
 * The measured setup nearest the target's data size (the smallest data ratio; the newest among equals, refs being
 * newest first). The newest alone would let a tiny run (the ci profile's, made by the README's `main`) stand for a
 * full-size prepare, multiplying its fixed start-up by the whole size ratio (a ci run's 15 s became 1,363 min).
 */
function nearestSetup(key: string, target: Record<string, string>, refs: References): { seconds: number; env: Record<string, string> } | undefined {
  let best: { seconds: number; env: Record<string, string> } | undefined;
  let bestRatio = Number.POSITIVE_INFINITY;
  for (const r of refs) {
    const s = r.setups.get(key);
    if (s && dataRatio(target, s.env) < bestRatio) [best, bestRatio] = [s, dataRatio(target, s.env)];
  }
  return best;
}

/** A system's projected setup for a study: its measured setup nearest the target's size, scaled to it, else the study's median, else assumed. */
function projectedSetup(study: string, target: Record<string, string>, system: string, refs: References): { seconds: number; note?: string } {
  const ref = nearestSetup(`${system}/${study}`, target, refs);
  if (ref) return { seconds: ref.seconds * dataRatio(target, ref.env) };
  const measured = refs.flatMap((r) => [...r.setups.entries()].filter(([k]) => k.endsWith(`/${study}`)).map(([, v]) => v.seconds * dataRatio(target, v.env)));
  return { seconds: measured.length ? median(measured) : SETUP_ASSUMED_S,
    note: `${system}: no measured setup for ${study}; ${measured.length ? "the study's median" : `${SETUP_ASSUMED_S / 60} min assumed`} used` };
}

/** The prepare bounds the runner raises above its default from the projected setups (prepare-bound.ts): study -> system -> s. */
export function prepareBounds(plan: Plan, dir: string = runsDir()): PrepareBounds {
  const toolOf: ToolOf = (study, workload) => plan.studies[study]?.workloads.find((w) => w.name === workload)?.tool;
  const refs = loadReferences(dir, toolOf);
  const out: PrepareBounds = {};
  for (const [study, planned] of Object.entries(plan.studies)) {
    const raised: Record<string, number> = {};
    for (const system of new Set(plan.cells.filter((c) => c.study === study).map((c) => c.system))) {
      const bound = prepareBoundS(planned.cellTimeoutS, projectedSetup(study, planned.env, system, refs).seconds);
      if (bound > defaultPrepareBoundS(planned.cellTimeoutS)) raised[system] = bound;
    }
    if (Object.keys(raised).length) out[study] = raised;
  }
  return out;
}

/** Setup seconds of a study (each system's projected setup, capped at the prepare bound the runner will allow it) plus the sequential budget. */
function studySetup(study: string, planned: Plan["studies"][string], systems: string[], refs: References, notes: string[]): number {
  let setup = 0;
  for (const system of systems) {
    const { seconds: s, note } = projectedSetup(study, planned.env, system, refs);
    if (note) notes.push(note);
    const bound = prepareBoundS(planned.cellTimeoutS, s);
    if (bound > defaultPrepareBoundS(planned.cellTimeoutS)) notes.push(`${system}: projected setup ${Math.round(s)} s; the runner's prepare bound for ${study} is raised to ${bound} s`);
    const cap = bound + INSTALL_START_ALLOWANCE_S;
    if (s > cap) notes.push(`${system}: projected setup ${Math.round(s)} s is above the largest prepare bound; counted as ${cap} s (the prepare would time out there)`);
    setup += Math.min(s, cap);
  }
  // Claim-driven extra repetitions may use up to the study's budget: counted in full, so the limit holds.
  if (planned.sequential) {
    setup += planned.sequential.budgetS;
    notes.push(`up to ${planned.sequential.budgetS} s of claim-driven extra repetitions (at most ${planned.sequential.maxRepetitions} in all) counted in full`);
  }
  return setup;
}

function studyEstimate(study: string, plan: Plan, refs: References, toolOf: ToolOf, price: ReturnType<typeof loadPrice>): StudyEstimate | undefined {
  const planned = plan.studies[study];
  const cells = plan.cells.filter((c) => c.study === study);
  if (!cells.length) return undefined;
  const ofStudy = refs.flatMap((r) => r.cells).filter((r) => r.study === study); // newest run first
  const estimates = cells.map((c) => estimateCell(c, study, planned, ofStudy, toolOf));
  // Cells with no reference of their own workload: the median projected cell of the study, or the cell timeout.
  const known = estimates.filter((e) => e.basis !== "none" && e.basis !== "profile window").map((e) => e.seconds);
  const fallback = known.length ? median(known) : planned.cellTimeoutS;
  for (const e of estimates) if (e.basis === "none") Object.assign(e, { seconds: fallback, basis: known.length ? "study median" : "none" });
  const systems = [...new Set(cells.map((c) => c.system))];
  const notes: string[] = [];
  const setup = studySetup(study, planned, systems, refs, notes);
  const cellSeconds = estimates.reduce((a, e) => a + e.seconds, 0);
  const boxes = shardBoxes(estimates, setup);
  const expected = boxes.reduce((a, b) => a + b.expected_seconds, 0);
  const limit = Math.max(...boxes.map((b) => b.limit_minutes));
  if (boxes.length > 1) notes.push(`${boxes.length} boxes: one box would need ${limitMinutes(BOX_BOOTSTRAP_S + setup + cellSeconds)} min, more than ${MAX_LIMIT_MIN}; workloads are split between boxes, every system runs on every box`);
  const bases: Partial<Record<Basis, number>> = {};
  for (const e of estimates) bases[e.basis] = (bases[e.basis] ?? 0) + 1;
  const capped = estimates.filter((e) => e.capped).length;
  if (capped) notes.push(`${capped} cells project past the cell timeout (${planned.cellTimeoutS} s) and are counted at it`);
  return {
    study, boxes, cells: cells.length, systems, cell_seconds: Math.round(cellSeconds), setup_seconds: Math.round(setup * boxes.length),
    bootstrap_seconds: BOX_BOOTSTRAP_S * boxes.length, expected_seconds: Math.round(expected), limit_minutes: limit, fits: limit <= MAX_LIMIT_MIN,
    usd_expected: price ? round2((price.usd_per_hour * expected) / 3600) : null,
    usd_limit: price ? round2((price.usd_per_hour * boxes.reduce((a, b) => a + b.limit_minutes, 0)) / 60) : null,
    bases, capped_cells: capped, notes,
  };
}

export function estimate(opts: EstimateOptions): Estimate {
  const plan: Plan = planRun({ profile: opts.profile, studies: opts.studies, systems: opts.systems });
  const toolOf: ToolOf = (study, workload) => plan.studies[study]?.workloads.find((w) => w.name === workload)?.tool;
  const refs = loadReferences(opts.runsDir ?? runsDir(), toolOf);
  const pricesFile = opts.pricesFile ?? path.join(dataDir(), "prices", "ec2-on-demand.csv");
  const price = loadPrice(pricesFile, opts.region, opts.instanceType);
  const studies = Object.keys(plan.studies).flatMap((study) => studyEstimate(study, plan, refs, toolOf, price) ?? []);
  const sum = (f: (s: StudyEstimate) => number | null) => (studies.some((s) => f(s) === null) ? null : round2(studies.reduce((a, s) => a + (f(s) ?? 0), 0)));
  return {
    profile: plan.profile.name, instance_type: opts.instanceType, region: opts.region, price,
    ...(price ? {} : { price_reason: `no confirmed price for ${opts.instanceType} in ${opts.region} in ${path.basename(pricesFile)}` }),
    references: refs.filter((r) => r.cells.length).map((r) => r.run_id),
    studies,
    total: { cells: studies.reduce((a, s) => a + s.cells, 0), expected_hours: round2(studies.reduce((a, s) => a + s.expected_seconds, 0) / 3600),
      usd_expected: sum((s) => s.usd_expected), usd_limit: sum((s) => s.usd_limit) },
    method: ESTIMATE_METHOD,
  };
}

const ESTIMATE_METHOD = [
  "cell time = newest measured matching cell (data/runs/*/manifest.json cells[].duration_s), scaled: time-bound tools swap the reference's WARMUP+DURATION for the target's; hyperfine scales with (HF_RUNS+HF_WARMUP) and REPEAT_SCALE; capped at cell_timeout_s",
  `setup per system = measured gap before its first cell in the run nearest the target's data size (newest among equals), x the data-size ratio (rows/scale) (never measured for the study: ${SETUP_ASSUMED_S / 60} min assumed); the runner's prepare bound is raised to 1.5 x it where that is above the default`,
  `a time-bound cell never measured = its WARMUP + DURATION + ${WINDOW_OVERHEAD_S} s; any other cell never measured = the study's median projected cell`,
  `box bootstrap (clone, Node, toolchains) = ${BOX_BOOTSTRAP_S / 60} min, assumed until a first cloud run measures it`,
  `limit per box = ceil(expected x ${LIMIT_SAFETY}) + ${UPLOAD_MARGIN_MIN} min upload margin, at least ${MIN_LIMIT_MIN}, at most ${MAX_LIMIT_MIN}; a study whose one box would need more is split by workload over the fewest boxes (first-fit by decreasing time), every system on every box`,
  "no speed-up is assumed for a larger machine than the one that measured the references",
];

// The fewest boxes whose limits all fit MAX_LIMIT_MIN: workloads (all their systems, variants and
// repetitions together) packed first-fit by decreasing time; a workload too long for one box is split
// by variant. A (workload, variant) that alone cannot fit keeps a box of its own and makes the study not fit.
export function shardBoxes(cells: CellEstimate[], setupSeconds: number): BoxEstimate[] {
  const box = (workloads: string[] | null, variant: string | null, of: CellEstimate[]): BoxEstimate => {
    const cellSeconds = of.reduce((a, e) => a + e.seconds, 0);
    const expected = BOX_BOOTSTRAP_S + setupSeconds + cellSeconds;
    return { workloads, variants: variant === null ? null : [variant], cells: of.length, cell_seconds: Math.round(cellSeconds),
      expected_seconds: Math.round(expected), limit_minutes: limitMinutes(expected) };
  };
  const whole = box(null, null, cells);
  if (whole.limit_minutes <= MAX_LIMIT_MIN) return [whole];
  // The cell time one box can hold: limit = ceil(expected x safety / 60) + margin <= MAX_LIMIT_MIN.
  const capacity = ((MAX_LIMIT_MIN - UPLOAD_MARGIN_MIN) * 60) / LIMIT_SAFETY - BOX_BOOTSTRAP_S - setupSeconds - 60;
  // Items to pack: a workload with all its variants, or, when that alone is too long for a box, the
  // workload once per variant (boxes then hold one variant each: systems still compared on one box).
  const sumOf = (of: CellEstimate[]) => of.reduce((a, e) => a + e.seconds, 0);
  const items: Array<{ workload: string; variant: string | null; seconds: number }> = [];
  for (const workload of [...new Set(cells.map((e) => e.workload))]) {
    const of = cells.filter((e) => e.workload === workload);
    const variants = [...new Set(of.map((e) => e.variant))];
    if (sumOf(of) <= capacity || variants.length < 2) items.push({ workload, variant: null, seconds: sumOf(of) });
    else for (const v of variants) items.push({ workload, variant: v, seconds: sumOf(of.filter((e) => e.variant === v)) });
  }
  const bins: Array<{ workloads: string[]; variant: string | null; seconds: number }> = [];
  for (const item of items.sort((a, b) => b.seconds - a.seconds || a.workload.localeCompare(b.workload))) {
    const bin = bins.find((b) => b.variant === item.variant && b.seconds + item.seconds <= capacity);
    if (bin) { bin.workloads.push(item.workload); bin.seconds += item.seconds; } else bins.push({ workloads: [item.workload], variant: item.variant, seconds: item.seconds });
  }
  return bins.map((b) => box([...b.workloads].sort(), b.variant,
    cells.filter((e) => b.workloads.includes(e.workload) && (b.variant === null || e.variant === b.variant))));
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

const hm = (s: number) => {
  const minutes = Math.round(s / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
};
const usd = (x: number | null) => (x === null ? "n/a" : `$${x.toFixed(2)}`);

export function estimateMarkdown(e: Estimate): string {
  const lines = [
    `Estimate for profile \`${e.profile}\` on ${e.instance_type} (${e.region}), one box per study; ` +
      (e.price ? `$${e.price.usd_per_hour}/h (${e.price.date}, ${e.price.source_url})` : `no price: ${e.price_reason}`) + ".",
    "",
    "| study | cells | systems | boxes | cells time | setup | box bootstrap | expected box-hours | longest box limit | expected $ | at most $ | fits |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ...e.studies.map((s) => `| ${s.study} | ${s.cells} | ${s.systems.join(", ")} | ${s.boxes.length} | ${hm(s.cell_seconds)} | ${hm(s.setup_seconds)} | ${hm(s.bootstrap_seconds)} | ${hm(s.expected_seconds)} | ${s.limit_minutes} min | ${usd(s.usd_expected)} | ${usd(s.usd_limit)} | ${s.fits ? "yes" : `no (> ${MAX_LIMIT_MIN} min)`} |`),
    `| **total** | ${e.total.cells} | | ${e.studies.reduce((a, s) => a + s.boxes.length, 0)} | | | | ${e.total.expected_hours} h | | ${usd(e.total.usd_expected)} | ${usd(e.total.usd_limit)} | |`,
    "",
    `References: ${e.references.length ? e.references.join(", ") : "none (every cell counted at its timeout)"}.`,
    ...e.studies.map((s) => `- ${s.study}: cells by basis: ${Object.entries(s.bases).map(([b, n]) => `${b} ${n}`).join(", ")}${s.notes.length ? "; " + s.notes.join("; ") : ""}`),
    "",
    "Method: " + e.method.join("; ") + ".",
  ];
  return lines.join("\n") + "\n";
}

export function parseInstanceType(v: string): string {
  if (!/^[a-z0-9]+\.[a-z0-9]+$/.test(v)) throw new UserError(`invalid instance type '${v}'; expected an EC2 type like c6a.4xlarge`);
  return v;
}
