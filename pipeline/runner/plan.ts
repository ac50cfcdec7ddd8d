// The plan of a run: profile × requested studies/systems/workloads expanded into cells, and the
// interleaved order in which they run. Pure: reads the catalogue, starts nothing, writes nothing.
import { createHash } from "node:crypto";
import os from "node:os";
import {
  loadProfile,
  loadStudy,
  loadSystem,
  systemNames,
  studyNames,
  variantMismatch,
  workloadMismatch,
} from "../lib/catalog.ts";
import type { Profile, StudyDef, WorkloadDef } from "../lib/catalog.ts";
import { loadStudyClaims } from "../lib/claims.ts";
import { UserError } from "../lib/errors.ts";
import { cellMatchesSide, claimSides } from "../lib/verdicts.ts";
import { serverRule, splitServer } from "../lib/servers.ts";
import type { RunManifest } from "../schema/types.ts";

/** strict | warn | off: the manifest schema's noise_guard.mode (one definition, generated). */
export type NoiseGuardMode = NonNullable<RunManifest["noise_guard"]>["mode"];

export interface RunOptions {
  profile: string;
  studies?: string[];
  systems?: string[];
  workloads?: string[];
  repetitions?: number;
  runId?: string;
  skipInstall?: boolean;
  dryRun?: boolean;
  /** seed of the visit order (default: derived from the run id) */
  orderSeed?: number;
  /** strict: a disturbed cell is re-run, then marked noisy; warn: recorded only; off: not sampled */
  noiseGuard?: NoiseGuardMode;
  /** start even when the machine is busy before the run (strict mode refuses otherwise) */
  allowBusy?: boolean;
  /** no claim-driven extra repetitions (the profile's `sequential` block is ignored) */
  noSequential?: boolean;
}

// A cell as the manifest records it (pipeline/schema/manifest.schema.json); the runner sets the fields
// older manifests may lack on every cell it plans.
type ManifestCell = RunManifest["cells"][number];
export type CellStatus = ManifestCell["status"];
export type Cell = ManifestCell & Required<Pick<ManifestCell, "started_at" | "cache" | "records">>;

/** Claim-driven extra repetitions of one study (profile `sequential`); absent: the base repetitions only. */
export interface SequentialPlan {
  maxRepetitions: number;
  budgetS: number;
}

export interface PlannedStudy {
  study: StudyDef;
  workloads: WorkloadDef[];
  concurrency: number[];
  variants: string[];
  repetitions: number;
  env: Record<string, string>;
  cellTimeoutS: number;
  /** system -> prepare timeout raised above the default from the estimate (prepare-bound.ts); absent: the default. */
  prepareTimeoutS?: Record<string, number>;
  sequential?: SequentialPlan;
  /** Profile `cells: "claims"`: whether a claim reads this cell (absent: every cell is planned). */
  claimCell?: CellFilter;
}

/** Whether a cell (workload, variant, concurrency) of this system is planned. */
export type CellFilter = (system: string, workload: string, variant: string, concurrency: number) => boolean;

export interface Plan {
  profile: Profile;
  systems: string[];
  studies: Record<string, PlannedStudy>;
  cells: Cell[];
  config: Record<string, unknown>;
}

export const DEFAULT_VARIANT = "default";
/** A cell that has not run yet says so in its reason (the runner's "pending"). */
export const NOT_RUN = "not run";
export const INTERRUPTED_BEFORE = "run interrupted before this cell";

function validateNames(kind: string, given: string[] | undefined, valid: string[]): void {
  for (const g of given ?? [])
    if (!valid.includes(g)) throw new UserError(`unknown ${kind} '${g}'; valid: ${valid.join(", ")}`);
}

function planStudy(name: string, profile: Profile, opts: RunOptions, allWorkloads: Set<string>): PlannedStudy {
  const sp = profile.studies[name];
  const study = loadStudy(name);
  let workloads = study.workloads.filter((w) => !sp.workloads || sp.workloads.includes(w.name));
  for (const w of study.workloads) allWorkloads.add(w.name);
  if (opts.workloads?.length) workloads = workloads.filter((w) => opts.workloads!.includes(w.name));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(sp.env)) env[k] = String(v);
  const repetitions = opts.repetitions ?? sp.repetitions ?? profile.repetitions;
  const seq = sp.sequential ?? profile.sequential;
  const sequential =
    seq && !opts.noSequential && seq.max_repetitions > repetitions
      ? { maxRepetitions: seq.max_repetitions, budgetS: seq.budget_s }
      : undefined;
  const claimCell = sp.cells === "claims" ? withContext(claimCellFilter(name), sp.context, sp.variants) : undefined;
  return {
    study,
    workloads,
    concurrency: sp.concurrency,
    variants: sp.variants ?? [DEFAULT_VARIANT],
    repetitions,
    env,
    cellTimeoutS: sp.cell_timeout_s ?? 600,
    sequential,
    claimCell,
  };
}

/** The cells the study's claims read: a side's system on the claim's workload(s), in its pinned variant and concurrency if any. */
export function claimCellFilter(study: string): CellFilter {
  const claims = loadStudyClaims(study)?.claims;
  if (!claims?.length)
    throw new UserError(
      `profile sets cells "claims" for study '${study}', but bench-scripts/studies/${study}/claims.json has no claims; use cells "all" (the default)`,
    );
  const sides = claims.flatMap((c) => Object.values(claimSides(c)));
  const rule = serverRule(loadStudy(study));
  return (system, workload, variant, concurrency) =>
    sides.some((s) => cellMatchesSide({ workload, system, ...splitServer(rule, workload, variant), concurrency }, s));
}

/** A claims filter that also keeps the profile's context cells (systems no claim compares, on a few workloads). */
function withContext(
  claimCell: CellFilter,
  context: Profile["studies"][string]["context"],
  variants: string[] | undefined,
): CellFilter {
  if (!context) return claimCell;
  const inVariant = (v: string) => (context.variants ?? variants ?? [v]).includes(v);
  return (system, workload, variant, concurrency) =>
    claimCell(system, workload, variant, concurrency) ||
    (context.systems.includes(system) && context.workloads.includes(workload) && inVariant(variant));
}

/** The cells of one repetition of a study on a system; a workload the system cannot run is a skipped cell saying why. */
export function studyCells(
  name: string,
  p: PlannedStudy,
  system: string,
  rep: number,
  only?: (w: string, variant: string, c: number) => boolean,
): Cell[] {
  const def = loadSystem(system);
  const rule = serverRule(p.study);
  const cells: Cell[] = [];
  for (const w of p.workloads) {
    // A check, not a timing (conformance): repetition 1 only, so later repetitions cost no cell.
    if (w.once_per_run === true && rep > 1) continue;
    const mismatch = workloadMismatch(def, w);
    // A workload may pin its own concurrency (e.g. one agent) and variants (the MCP client ceiling runs only as 'trivial').
    const concurrency = Array.isArray(w.concurrency) ? (w.concurrency as number[]) : p.concurrency;
    const variants = Array.isArray(w.variants) ? (w.variants as string[]) : p.variants;
    for (const c of concurrency) {
      for (const variant of variants) {
        if (only && !only(w.name, variant, c)) continue;
        const unsupported = mismatch ?? variantMismatch(def, p.study, variant);
        // A study with servers (mcp-db): the cell's server from its variant <server>-<state> or the workload's pinned server.
        const { server } = splitServer(rule, w.name, variant);
        cells.push({
          id: `${name}.${w.name}.${system}.c${c}.${variant}.r${rep}`,
          study: name,
          workload: w.name,
          system,
          concurrency: c,
          variant,
          ...(server ? { server } : {}),
          repetition: rep,
          status: "skipped",
          exit_code: null,
          reason: unsupported ? `unsupported: ${unsupported}` : NOT_RUN,
          log: "",
          started_at: "",
          duration_s: 0,
          cache: typeof p.study.cache === "string" ? p.study.cache : "",
          records: 0,
        });
      }
    }
  }
  return cells;
}

function configOf(profile: Profile, planned: Record<string, PlannedStudy>, systems: string[]): Record<string, unknown> {
  return {
    profile: profile.name,
    description: profile.description,
    ...(profile.time_limit_min !== undefined ? { time_limit_min: profile.time_limit_min } : {}),
    studies: Object.fromEntries(
      Object.entries(planned).map(([n, p]) => [
        n,
        {
          systems: profile.studies[n].systems.filter((s) => systems.includes(s)),
          workloads: p.workloads.map((w) => w.name),
          concurrency: p.concurrency,
          variants: p.variants,
          ...(p.claimCell ? { cells: "claims" } : {}),
          ...(profile.studies[n].context ? { context: profile.studies[n].context } : {}),
          repetitions: p.repetitions,
          env: p.env,
          cell_timeout_s: p.cellTimeoutS,
          ...(p.sequential
            ? { sequential: { max_repetitions: p.sequential.maxRepetitions, budget_s: p.sequential.budgetS } }
            : {}),
        },
      ]),
    ),
  };
}

// Expands profile × requested studies/systems/workloads into the list of cells (system by system);
// interleave then orders them into visits. Which workloads a system runs is asked of the system (its
// capabilities), never listed by name (loadProfile already refused systems lacking a study's needs).
export function planRun(opts: RunOptions): Plan {
  const profile = loadProfile(opts.profile);
  validateNames("study", opts.studies, studyNames());
  validateNames("system", opts.systems, systemNames());
  const inProfile = Object.keys(profile.studies);
  const studies = opts.studies?.length ? opts.studies : inProfile;
  for (const s of studies)
    if (!inProfile.includes(s))
      throw new UserError(`profile '${profile.name}' has no study '${s}'; it has: ${inProfile.join(", ")}`);
  const allWorkloads = new Set<string>();
  const planned = Object.fromEntries(studies.map((name) => [name, planStudy(name, profile, opts, allWorkloads)]));
  validateNames("workload", opts.workloads, [...allWorkloads]);

  const profileSystems = [...new Set(studies.flatMap((s) => profile.studies[s].systems))];
  for (const s of opts.systems ?? []) {
    if (!profileSystems.includes(s))
      throw new UserError(
        `system '${s}' is not in profile '${profile.name}' for studies ${studies.join(", ")}; there: ${profileSystems.join(", ")}`,
      );
  }
  const systems = opts.systems?.length ? profileSystems.filter((s) => opts.systems!.includes(s)) : profileSystems;
  const cells: Cell[] = [];
  for (const system of systems) {
    for (const name of studies) {
      if (!profile.studies[name].systems.includes(system)) continue;
      const claimCell = planned[name].claimCell;
      const only = claimCell && ((w: string, variant: string, c: number) => claimCell(system, w, variant, c));
      for (let rep = 1; rep <= planned[name].repetitions; rep++)
        cells.push(...studyCells(name, planned[name], system, rep, only));
    }
  }
  if (cells.length === 0)
    throw new UserError(
      `nothing to run: profile '${profile.name}' with studies ${studies.join(", ")} and systems ${systems.join(", ") || "(none)"} gives no cells`,
    );
  return { profile, systems, studies: planned, cells, config: configOf(profile, planned, systems) };
}

function slug(s: string): string {
  return (
    s
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "")
      .slice(0, 30) || "host"
  );
}

export function newRunId(profile: string, now = new Date()): string {
  const ts = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  return `${ts}-${slug(profile)}-${slug(os.hostname())}`;
}

// A visit: one system started, the cells of one repetition of every selected study run on it, the
// system stopped again. Visits are ordered repetition by repetition so slow drift of the machine
// (other load, thermal state, background jobs) spreads over all systems instead of favouring whichever
// ran first. The manifest's `order` (servers_between_visits "stopped": one database runs at a time;
// prepare: studies' data load runs at a system's first visit, cleanup after its last).
export type RunOrder = NonNullable<RunManifest["order"]>;
export type Visit = RunOrder["visits"][number];

// mulberry32: a tiny, well-known 32-bit generator; only used to order visits reproducibly.
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The order seed used when none is given: derived from the run id, so a run's order is reproducible from its id. */
export function defaultOrderSeed(runId: string): number {
  return parseInt(createHash("sha256").update(runId).digest("hex").slice(0, 8), 16);
}

/**
 * Visits of a run, for repetitions `from`..`to`: one seeded random permutation (Fisher-Yates), rotated by
 * one place per repetition, so every system is first (and last) equally often over any run of
 * consecutive repetitions as long as the systems — a balanced order, where independent shuffles could
 * put the same system first every time (payments: PostgreSQL first in all 3 repetitions while the load rose).
 */
export function visitOrder(systems: string[], repetitions: number, seed: number, from = 1): Visit[] {
  const rand = mulberry32(seed);
  const base = [...systems];
  for (let i = base.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [base[i], base[j]] = [base[j], base[i]];
  }
  const visits: Visit[] = [];
  for (let rep = from; rep <= repetitions; rep++) {
    const k = base.length ? (rep - 1) % base.length : 0;
    for (const system of [...base.slice(k), ...base.slice(0, k)]) visits.push({ repetition: rep, system });
  }
  return visits;
}

/**
 * Visits study by study within each repetition: each study's systems (STUDIES: [study, systems] in run
 * order) in its own balanced rotation (visitOrder, seeded per study), so the two sides of a claim run
 * back to back. Visiting a system for all its studies at once put a pair's sides minutes apart, with
 * other studies' servers between them, and host-speed drift over those minutes reached the paired ratios
 * (run 20261124T223541Z: the same OLTP cells 10-35 % slower and twice as spread as the run before).
 */
export function visitOrderByStudy(
  studies: Array<[string, string[]]>,
  repetitions: number,
  seed: number,
  from = 1,
): Visit[] {
  const perStudy = studies.map(([study, systems], i) =>
    visitOrder(systems, repetitions, (seed + i * 0x9e3779b1) >>> 0, from).map((v) => ({ ...v, study })),
  );
  const visits: Visit[] = [];
  for (let rep = from; rep <= repetitions; rep++)
    for (const vs of perStudy) visits.push(...vs.filter((v) => v.repetition === rep));
  return visits;
}

/** The key of the visit a cell (or visit) belongs to: per study when the visit names one. */
export const visitKey = (v: { system: string; repetition: number; study?: string }) =>
  `${v.system}\u0000${v.repetition}\u0000${v.study ?? ""}`;

/** Whether CELL runs in VISIT: its system and repetition, and its study when the visit names one. */
export const inVisit = (c: Cell, v: Visit) =>
  c.system === v.system && c.repetition === v.repetition && (!v.study || c.study === v.study);

/** Sorts cells as they will run: visit by visit, within a visit study by study in `studyOrder`, then as planned. */
export function sortByVisits(cells: Cell[], visits: Visit[], studyOrder: string[]): void {
  const rank = new Map(visits.map((v, i) => [visitKey(v), i]));
  const studyRank = new Map(studyOrder.map((s, i) => [s, i]));
  const original = new Map(cells.map((c, i) => [c, i]));
  const r = (c: Cell) =>
    rank.get(visitKey(c)) ??
    rank.get(visitKey({ system: c.system, repetition: c.repetition })) ??
    Number.MAX_SAFE_INTEGER;
  cells.sort(
    (a, b) => r(a) - r(b) || studyRank.get(a.study)! - studyRank.get(b.study)! || original.get(a)! - original.get(b)!,
  );
}

/** Each study (in run order) with the systems among SYSTEMS that have cells of it satisfying KEEP. */
export function systemsByStudy(
  plan: Plan,
  systems: string[],
  keep: (c: Cell) => boolean = () => true,
): Array<[string, string[]]> {
  return Object.keys(plan.studies).map((study) => [
    study,
    systems.filter((s) => plan.cells.some((c) => c.system === s && c.study === study && keep(c))),
  ]);
}

/** Orders the plan's cells as they will run and returns the order the manifest records. */
export function interleave(plan: Plan, seed: number): RunOrder {
  const maxRep = Math.max(...plan.cells.map((c) => c.repetition));
  const visits = visitOrderByStudy(systemsByStudy(plan, plan.systems), maxRep, seed).filter((v) =>
    plan.cells.some((c) => inVisit(c, v)),
  );
  sortByVisits(plan.cells, visits, Object.keys(plan.studies));
  return {
    method: "seeded-rotation-by-study",
    seed,
    servers_between_visits: "stopped",
    prepare: "once per system and study per run",
    visits,
  };
}

// The systems / workloads / variants (incl. those workloads pin) of a study's cells, sorted, for its install and versions verbs.
export function plannedList(cells: Cell[], key: "system" | "workload" | "variant"): string {
  return [...new Set(cells.map((c) => c[key]))].sort().join(",");
}
