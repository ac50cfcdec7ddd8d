import { appendFileSync, mkdirSync, writeFileSync, existsSync } from "node:fs";
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { loadProfile, loadStudy, loadSystem, systemNames, studyNames, workloadMismatch } from "../lib/catalog.ts";
import type { Profile, StudyDef, SystemDef, WorkloadDef } from "../lib/catalog.ts";
import { UserError, ParseError } from "../lib/errors.ts";
import { repoRoot, runsDir } from "../lib/paths.ts";
import { toCsv } from "../lib/records.ts";
import type { Measurement, ResultRecord } from "../lib/records.ts";
import type { RunManifest } from "../schema/types.ts";
import { assertValid, validateManifest, validateRecord, describeErrors } from "../lib/schema.ts";
import { parserFor } from "../parsers/index.ts";
import { gitInfo, machineInfo, toolVersions } from "./machine.ts";
import type { MachineInfo } from "./machine.ts";
import { Progress } from "./progress.ts";
import { ResourceSampler, treeMemoryMiB } from "./resources.ts";
import { EXIT_UNAVAILABLE, EXIT_WRONG_ANSWER, parseKeyValues, runVerb } from "./verbs.ts";

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
}

// A cell as the manifest records it (pipeline/schema/manifest.schema.json); the runner sets the fields
// older manifests may lack on every cell it plans.
type ManifestCell = RunManifest["cells"][number];
export type CellStatus = ManifestCell["status"];
export type Cell = ManifestCell & Required<Pick<ManifestCell, "started_at" | "cache" | "records">>;

interface PlannedStudy {
  study: StudyDef;
  workloads: WorkloadDef[];
  concurrency: number[];
  variants: string[];
  repetitions: number;
  env: Record<string, string>;
  cellTimeoutS: number;
}

export interface Plan {
  profile: Profile;
  systems: string[];
  studies: Record<string, PlannedStudy>;
  cells: Cell[];
  config: Record<string, unknown>;
}

const DEFAULT_VARIANT = "default";

function validateNames(kind: string, given: string[] | undefined, valid: string[]): void {
  for (const g of given ?? []) if (!valid.includes(g)) throw new UserError(`unknown ${kind} '${g}'; valid: ${valid.join(", ")}`);
}

// Expands profile × requested studies/systems/workloads into the list of cells (system by system);
// runSuite then orders them into interleaved visits (interleave below).
export function planRun(opts: RunOptions): Plan {
  const profile = loadProfile(opts.profile);
  validateNames("study", opts.studies, studyNames());
  validateNames("system", opts.systems, systemNames());
  const inProfile = Object.keys(profile.studies);
  const studies = opts.studies?.length ? opts.studies : inProfile;
  for (const s of studies) if (!inProfile.includes(s)) throw new UserError(`profile '${profile.name}' has no study '${s}'; it has: ${inProfile.join(", ")}`);

  const planned: Record<string, PlannedStudy> = {};
  const allWorkloads = new Set<string>();
  for (const name of studies) {
    const sp = profile.studies[name];
    const study = loadStudy(name);
    let workloads = study.workloads.filter((w) => !sp.workloads || sp.workloads.includes(w.name));
    for (const w of study.workloads) allWorkloads.add(w.name);
    if (opts.workloads?.length) workloads = workloads.filter((w) => opts.workloads!.includes(w.name));
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(sp.env)) env[k] = String(v);
    planned[name] = {
      study,
      workloads,
      concurrency: sp.concurrency,
      variants: sp.variants ?? [DEFAULT_VARIANT],
      repetitions: opts.repetitions ?? sp.repetitions ?? profile.repetitions,
      env,
      cellTimeoutS: sp.cell_timeout_s ?? 600,
    };
  }
  validateNames("workload", opts.workloads, [...allWorkloads]);

  const profileSystems = [...new Set(studies.flatMap((s) => profile.studies[s].systems))];
  for (const s of opts.systems ?? []) {
    if (!profileSystems.includes(s)) throw new UserError(`system '${s}' is not in profile '${profile.name}' for studies ${studies.join(", ")}; there: ${profileSystems.join(", ")}`);
  }
  const systems = opts.systems?.length ? profileSystems.filter((s) => opts.systems!.includes(s)) : profileSystems;

  // Which workloads a system runs is asked of the system (its capabilities), never listed by name: a
  // workload whose needs the system lacks is planned as a skipped cell naming the capability and the
  // system's own note, and its study verb is not called (loadProfile already refused profile systems
  // that lack the study's own requirements).
  const cells: Cell[] = [];
  for (const system of systems) {
    const def = loadSystem(system);
    for (const name of studies) {
      const p = planned[name];
      if (!profile.studies[name].systems.includes(system)) continue;
      for (let rep = 1; rep <= p.repetitions; rep++) {
        for (const w of p.workloads) {
          const mismatch = workloadMismatch(def, w);
          // A workload may pin its own concurrency (e.g. one agent); otherwise the profile's list applies.
          const concurrency = Array.isArray(w.concurrency) ? (w.concurrency as number[]) : p.concurrency;
          for (const c of concurrency) {
            // Likewise a workload may pin its variants (e.g. the MCP client ceiling runs only as 'trivial').
            const variants = Array.isArray(w.variants) ? (w.variants as string[]) : p.variants;
            for (const variant of variants) {
              cells.push({
                id: `${name}.${w.name}.${system}.c${c}.${variant}.r${rep}`,
                study: name, workload: w.name, system, concurrency: c, variant, repetition: rep,
                status: "skipped", exit_code: null, reason: mismatch ? `unsupported: ${mismatch}` : "not run", log: "", started_at: "", duration_s: 0,
                cache: typeof p.study.cache === "string" ? p.study.cache : "", records: 0,
              });
            }
          }
        }
      }
    }
  }
  if (cells.length === 0) throw new UserError(`nothing to run: profile '${profile.name}' with studies ${studies.join(", ")} and systems ${systems.join(", ") || "(none)"} gives no cells`);

  const config = {
    profile: profile.name,
    description: profile.description,
    studies: Object.fromEntries(Object.entries(planned).map(([n, p]) => [n, {
      systems: profile.studies[n].systems.filter((s) => systems.includes(s)),
      workloads: p.workloads.map((w) => w.name),
      concurrency: p.concurrency, variants: p.variants, repetitions: p.repetitions, env: p.env, cell_timeout_s: p.cellTimeoutS,
    }])),
  };
  return { profile, systems, studies: planned, cells, config };
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v && typeof v === "object") return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(",")}}`;
  return JSON.stringify(v);
}

function slug(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "").slice(0, 30) || "host";
}

export function newRunId(profile: string, now = new Date()): string {
  const ts = now.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  return `${ts}-${slug(profile)}-${slug(os.hostname())}`;
}

function tail(text: string, lines = 3): string {
  return text.trim().split("\n").slice(-lines).join(" | ").slice(0, 500);
}

// The contract: a verb exiting 3 prints its one-line reason last on stdout (and a copy, prefixed, on
// stderr for a person watching); stderr's last line is the fallback for verbs that print only there.
function unavailableReason(r: { stdout: string; stderr: string }): string {
  return tail(r.stdout, 1) || tail(r.stderr, 1);
}

interface SystemState { def: SystemDef; version: string; env: Record<string, string>; pids: number[]; config: Record<string, string> }

// A visit: one system started, the cells of one repetition of every selected study run on it, the
// system stopped again. Visits are ordered repetition by repetition, systems shuffled anew in each
// repetition with a seeded generator, so slow drift of the machine (other load, thermal state,
// background jobs) spreads over all systems instead of favouring whichever ran first.
// The manifest's `order` (servers_between_visits "stopped": one database runs at a time; prepare: studies'
// data load runs at a system's first visit, cleanup after its last).
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

/** Visits of a run: for each repetition, the systems in a seeded random order (Fisher-Yates). */
export function visitOrder(systems: string[], repetitions: number, seed: number): Visit[] {
  const rand = mulberry32(seed);
  const visits: Visit[] = [];
  for (let rep = 1; rep <= repetitions; rep++) {
    const order = [...systems];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const system of order) visits.push({ repetition: rep, system });
  }
  return visits;
}

/** Orders the plan's cells as they will run: visit by visit, within a visit study by study in profile order. */
export function interleave(plan: Plan, seed: number): RunOrder {
  const maxRep = Math.max(...plan.cells.map((c) => c.repetition));
  const visits = visitOrder(plan.systems, maxRep, seed).filter((v) => plan.cells.some((c) => c.system === v.system && c.repetition === v.repetition));
  const rank = new Map(visits.map((v, i) => [`${v.system}\u0000${v.repetition}`, i]));
  const studyRank = new Map(Object.keys(plan.studies).map((s, i) => [s, i]));
  const original = new Map(plan.cells.map((c, i) => [c, i]));
  plan.cells.sort((a, b) => rank.get(`${a.system}\u0000${a.repetition}`)! - rank.get(`${b.system}\u0000${b.repetition}`)!
    || studyRank.get(a.study)! - studyRank.get(b.study)! || original.get(a)! - original.get(b)!);
  return { method: "seeded-shuffle", seed, servers_between_visits: "stopped", prepare: "once per system and study per run", visits };
}

// The systems / workloads / variants (incl. those workloads pin) of a study's cells, sorted, for its install and versions verbs.
function plannedList(cells: Cell[], key: "system" | "workload" | "variant"): string {
  return [...new Set(cells.map((c) => c[key]))].sort().join(",");
}

export async function runSuite(opts: RunOptions, log: (s: string) => void = (s) => process.stderr.write(s + "\n")): Promise<{ runDir: string; manifest: RunManifest | null; exitCode: number }> {
  const plan = planRun(opts);
  const runId = opts.runId ?? newRunId(plan.profile.name);
  if (!/^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]+$/.test(runId)) throw new UserError(`invalid run id '${runId}'; expected YYYYMMDDTHHMMSSZ-<lowercase-slug>, e.g. ${newRunId(plan.profile.name)}`);
  const order = interleave(plan, opts.orderSeed ?? defaultOrderSeed(runId));
  if (opts.dryRun) {
    for (const c of plan.cells) log(c.id);
    log(`${plan.cells.length} cells (dry run: nothing started, nothing written) in ${order.visits.length} visits, order seed ${order.seed}`);
    return { runDir: "", manifest: null, exitCode: 0 };
  }

  const runDir = path.join(runsDir(), runId);
  mkdirSync(runsDir(), { recursive: true });
  try {
    mkdirSync(runDir); // not recursive: fails if it exists, so a run folder is never written twice
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") throw new UserError(`run folder ${runDir} already exists; runs are never overwritten (choose another --run-id)`);
    throw e;
  }
  mkdirSync(path.join(runDir, "cells"));
  mkdirSync(path.join(runDir, "logs"));

  const machine: MachineInfo = await machineInfo();
  const git = gitInfo(repoRoot);
  const startedAt = new Date();
  const systemsOut: RunManifest["systems"] = {};
  const installsOut: NonNullable<RunManifest["study_installs"]> = {};
  const loadAverage: NonNullable<RunManifest["load_average"]> = { start: os.loadavg().map((x) => Math.round(x * 100) / 100), end: null };
  const manifest: RunManifest = {
    run_id: runId,
    status: "running",
    profile: plan.profile.name,
    studies: Object.keys(plan.studies),
    systems_requested: plan.systems,
    started_at: startedAt.toISOString(),
    ended_at: null,
    duration_s: null,
    commit: git.commit,
    dirty: git.dirty,
    // Other work on the machine skews every figure: the 1/5/15-minute load averages at start and end say how quiet it was.
    load_average: loadAverage,
    command: process.argv.slice(1).map((a) => path.relative(repoRoot, a) || a).join(" "),
    machine,
    tools: toolVersions(),
    systems: systemsOut,
    study_installs: installsOut,
    order,
    config: plan.config,
    config_hash: "",
    cells: plan.cells,
    summary: { ok: 0, failed: 0, skipped: 0, wrong_answer: 0 },
  };
  const writeManifest = () => {
    const summary = { ok: 0, failed: 0, skipped: 0, wrong_answer: 0 };
    for (const c of plan.cells) summary[c.status]++;
    manifest.summary = summary;
    manifest.config_hash = createHash("sha256").update(canonicalJson({ config: plan.config, systems: Object.fromEntries(Object.entries(systemsOut).map(([k, v]) => [k, v.config])) })).digest("hex");
    writeFileSync(path.join(runDir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  };
  writeManifest();

  const records: ResultRecord[] = [];
  const recordsJsonl = path.join(runDir, "records.jsonl");
  writeFileSync(recordsJsonl, "");
  const progress = new Progress(plan.cells.length);
  let interrupted = false;
  const onSignal = () => { interrupted = true; progress.note("interrupt received: finishing the current step, then stopping servers"); };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const verbLog = (name: string) => ({
    stdoutFile: path.join(runDir, "logs", `${name}.out`),
    stderrFile: path.join(runDir, "logs", `${name}.err`),
  });
  const rel = (p: string) => path.relative(runDir, p);
  const pending = (c: Cell) => c.reason === "not run";

  const markCells = (pred: (c: Cell) => boolean, status: CellStatus, reason: string, logPath: string, code: number | null) => {
    for (const c of plan.cells) if (pred(c) && pending(c)) Object.assign(c, { status, reason, log: logPath, exit_code: code });
  };

  const emit = (cell: Cell, st: SystemState, ms: Measurement[]) => {
    const out: ResultRecord[] = ms.map((m) => ({
      run_id: runId, source: "measured", study: cell.study, workload: cell.workload, system: cell.system,
      system_version: st.version, variant: m.variant ?? cell.variant, concurrency: cell.concurrency,
      repetition: m.repetition ?? cell.repetition, metric: m.metric, value: m.value, unit: m.unit, t: m.t ?? null,
      profile: plan.profile.name, machine: machine.label, commit: git.commit,
    }));
    for (const r of out) {
      // A boolean, not the validator's type guard: r is already typed, the check is of its values.
      const valid: boolean = validateRecord(r);
      if (!valid) throw new ParseError(`record for ${cell.id} ${r.metric} is invalid: ${describeErrors(validateRecord.errors)}`);
    }
    records.push(...out);
    appendFileSync(recordsJsonl, out.map((r) => JSON.stringify(r) + "\n").join(""));
    return out.length;
  };

  // 1. Installs, before anything is started: every system's install verb, then every study's (a
  //    study's tools may build on a system's client, e.g. pgbench). A study's install gets the plan's
  //    SYSTEMS, WORKLOADS and VARIANTS so it installs only what the selected cells need.
  if (!opts.skipInstall) {
    for (const system of plan.systems) {
      if (interrupted) break;
      const def = loadSystem(system);
      systemsOut[system] = { version: null, config: {}, status: "pending", reason: "" };
      progress.note(`${system}: install`);
      const r = await runVerb(path.join(def.dir, "install"), [], { timeoutS: 1800, ...verbLog(`${system}.install`) });
      if (r.code === EXIT_UNAVAILABLE) {
        const why = unavailableReason(r) || "not available on this machine";
        markCells((c) => c.system === system, "skipped", `${system} not available here: ${why}`, `logs/${system}.install.err`, r.code);
        Object.assign(systemsOut[system], { status: "skipped", reason: why });
      } else if (r.code !== 0) {
        const why = `install failed (${r.timedOut ? "timed out" : `exit ${r.code}`}): ${tail(r.stderr)}`;
        markCells((c) => c.system === system, "failed", `${system}: ${why}`, `logs/${system}.install.err`, r.code);
        Object.assign(systemsOut[system], { status: "failed", reason: why });
      }
    }
    for (const [studyName, ps] of Object.entries(plan.studies)) {
      if (interrupted) break;
      const ofStudy = (c: Cell) => c.study === studyName;
      const cells = plan.cells.filter((c) => ofStudy(c) && pending(c));
      const script = path.join(ps.study.dir, "install");
      if (cells.length === 0 || !existsSync(script)) continue;
      progress.note(`${studyName}: install`);
      const env = { ...ps.env, SAMEBOX_RUN_DIR: runDir, SYSTEMS: plannedList(cells, "system"), WORKLOADS: plannedList(cells, "workload"), VARIANTS: plannedList(cells, "variant") };
      const logName = `study.${studyName}.install`;
      const r = await runVerb(script, [], { env, timeoutS: 3600, ...verbLog(logName) });
      const entry: (typeof installsOut)[string] = { status: "ok", reason: "", log: `logs/${logName}.err`, seconds: Math.round(r.seconds * 10) / 10 };
      if (r.code === EXIT_UNAVAILABLE) {
        entry.status = "skipped";
        entry.reason = unavailableReason(r) || "not available on this machine";
        markCells(ofStudy, "skipped", `${studyName} tools not available here: ${entry.reason}`, entry.log, r.code);
      } else if (r.code !== 0) {
        entry.status = "failed";
        entry.reason = `install ${studyName} ${r.timedOut ? "timed out" : `exited ${r.code}`}: ${tail(r.stderr)}`;
        markCells(ofStudy, "failed", entry.reason, entry.log, r.code);
      }
      installsOut[studyName] = entry;
      writeManifest();
    }
  }

  // Versions of the study's own tools (MCP servers, load generators built by its install), read after
  // the installs: each study's optional `versions` verb prints tool=version lines.
  for (const [studyName, ps] of Object.entries(plan.studies)) {
    const script = path.join(ps.study.dir, "versions");
    if (!existsSync(script)) continue;
    const cells = plan.cells.filter((c) => c.study === studyName);
    const r = await runVerb(script, [], { env: { ...ps.env, SYSTEMS: plannedList(cells, "system"), WORKLOADS: plannedList(cells, "workload"), VARIANTS: plannedList(cells, "variant") }, timeoutS: 120, ...verbLog(`study.${studyName}.versions`) });
    for (const [k, v] of Object.entries(parseKeyValues(r.stdout))) manifest.tools[k] = v || null;
  }
  writeManifest();

  // 2. Visits in the interleaved order. prepare runs at a (system, study)'s first visit, cleanup after
  //    the visit of its last repetition; the server is stopped after every visit.
  const prepared = new Set<string>();
  const cleaned = new Set<string>();
  const lastRep = new Map<string, number>();
  for (const c of plan.cells) lastRep.set(`${c.system}\u0000${c.study}`, Math.max(lastRep.get(`${c.system}\u0000${c.study}`) ?? 0, c.repetition));

  for (const visit of order.visits) {
    if (interrupted) break;
    const system = visit.system;
    const inVisit = (c: Cell) => c.system === system && c.repetition === visit.repetition;
    if (!plan.cells.some((c) => inVisit(c) && pending(c))) continue;
    const def = loadSystem(system);
    const verb = (v: string) => path.join(def.dir, v);
    const st: SystemState = { def, version: "", env: {}, pids: [], config: {} };
    systemsOut[system] ??= { version: null, config: {}, status: "pending", reason: "" };
    const tag = `${system}.r${visit.repetition}`;
    let started = false;
    try {
      progress.note(`${system}: start (repetition ${visit.repetition})`);
      const s = await runVerb(verb("start"), [], { timeoutS: 300, ...verbLog(`${tag}.start`) });
      started = true;
      if (s.code === EXIT_UNAVAILABLE) {
        const why = unavailableReason(s) || "not available on this machine";
        markCells((c) => c.system === system, "skipped", `${system} not available here: ${why}`, `logs/${tag}.start.err`, s.code);
        Object.assign(systemsOut[system], { status: "skipped", reason: why });
        continue;
      }
      if (s.code !== 0) throw Object.assign(new Error(`start failed (exit ${s.code}): ${tail(s.stderr)}`), { log: `logs/${tag}.start.err`, code: s.code });
      const chk = await runVerb(verb("check"), [], { timeoutS: 120, ...verbLog(`${tag}.check`) });
      if (chk.code !== 0) throw Object.assign(new Error(`check failed (exit ${chk.code}): ${tail(chk.stderr)}`), { log: `logs/${tag}.check.err`, code: chk.code });
      st.version = (await runVerb(verb("version"), [], { timeoutS: 60 })).stdout.trim().split("\n")[0] ?? "";
      st.env = parseKeyValues((await runVerb(verb("env"), [], { timeoutS: 60 })).stdout);
      st.config = parseKeyValues((await runVerb(verb("config"), [], { timeoutS: 60 })).stdout);
      const readPids = async () => (await runVerb(verb("pids"), [], { timeoutS: 60 })).stdout.split(/\s+/).filter((x) => /^\d+$/.test(x)).map(Number);
      st.pids = await readPids();
      if (systemsOut[system].status !== "ok") {
        Object.assign(systemsOut[system], { version: st.version || null, config: st.config, status: "ok", memory_after_start_mib: st.pids.length ? Math.round(treeMemoryMiB(st.pids)) : null });
      }
      writeManifest();

      for (const [studyName, ps] of Object.entries(plan.studies)) {
        if (interrupted) break;
        const key = `${system}\u0000${studyName}`;
        const ofStudy = (c: Cell) => c.system === system && c.study === studyName;
        const visitCells = plan.cells.filter((c) => ofStudy(c) && c.repetition === visit.repetition && pending(c));
        if (visitCells.length === 0 && !(prepared.has(key) && !cleaned.has(key) && visit.repetition >= lastRep.get(key)!)) continue;
        const studyVerb = (v: string) => path.join(ps.study.dir, v);
        const baseEnv = { ...ps.env, ...st.env, SAMEBOX_RUN_DIR: runDir, SYSTEM: system, SYSTEM_DIR: def.dir };
        if (visitCells.length && !prepared.has(key)) {
          progress.note(`${system}: prepare ${studyName}`);
          // The plan reaches the study as arguments and environment, never by reading the run's files:
          // WORKLOADS = this system's still-planned workloads of the study (as install gets them).
          const prepEnv = { ...baseEnv, WORKLOADS: plannedList(plan.cells.filter((c) => ofStudy(c) && pending(c)), "workload") };
          const prep = await runVerb(studyVerb("prepare"), [system], { env: prepEnv, timeoutS: Math.max(600, ps.cellTimeoutS * 4), ...verbLog(`${system}.${studyName}.prepare`) });
          if (prep.code !== 0) {
            const status: CellStatus = prep.code === EXIT_UNAVAILABLE ? "skipped" : "failed";
            markCells(ofStudy, status, `prepare ${studyName} on ${system} ${prep.timedOut ? "timed out" : `exited ${prep.code}`}: ${tail(prep.stderr + prep.stdout)}`, `logs/${system}.${studyName}.prepare.err`, prep.code);
            continue;
          }
          prepared.add(key);
        }
        for (const cell of visitCells) {
          if (interrupted) break;
          const workload = ps.workloads.find((w) => w.name === cell.workload)!;
          const cellDir = path.join(runDir, "cells", cell.id);
          mkdirSync(cellDir);
          cell.started_at = new Date().toISOString();
          cell.log = rel(path.join(cellDir, "stderr.txt"));
          // A cell may restart the server (cold variants): read its pids afresh for every cell.
          if (st.pids.length) st.pids = await readPids();
          // Server memory/CPU only where the workload exercises the system's server.
          const sampleServer = st.pids.length > 0 && workload.uses_server !== false;
          const idleMiB = sampleServer ? treeMemoryMiB(st.pids) : null;
          const sampler = sampleServer ? new ResourceSampler(st.pids, cellDir) : null;
          sampler?.start();
          // A workload may raise (never lower) the profile's cell timeout: write workloads that keep the seed's batch size.
          const timeoutS = typeof workload.cell_timeout_s === "number" ? Math.max(workload.cell_timeout_s, ps.cellTimeoutS) : ps.cellTimeoutS;
          const r = await runVerb(studyVerb("run"), [system, cell.workload], {
            env: { ...baseEnv, CELL_DIR: cellDir, THREADS: String(cell.concurrency), VARIANT: cell.variant, REPETITION: String(cell.repetition), WORKLOAD: cell.workload },
            timeoutS,
            stdoutFile: path.join(cellDir, "stdout.txt"),
            stderrFile: path.join(cellDir, "stderr.txt"),
          });
          const res = sampler?.stop();
          cell.duration_s = Math.round(r.seconds * 1000) / 1000;
          cell.exit_code = r.code;
          if (r.code === 0) {
            try {
              const ms = parserFor(workload.tool)({ cellDir, stdout: r.stdout, workload });
              if (ms.length === 0) throw new ParseError(`${workload.tool} output gave no measurements`);
              if (idleMiB !== null && res) {
                ms.push({ metric: "mem_idle", value: Math.round(idleMiB * 10) / 10, unit: "MiB" });
                ms.push({ metric: "mem_load", value: Math.round(res.peakMiB * 10) / 10, unit: "MiB" });
                ms.push({ metric: "cpu_util", value: Math.round(res.cpuPercent * 10) / 10, unit: "%" });
                cell.resource_window = res.window;
              }
              cell.records = emit(cell, st, ms);
              Object.assign(cell, { status: "ok", reason: "" });
            } catch (e) {
              Object.assign(cell, { status: "failed", reason: `output did not parse: ${(e as Error).message}` });
              writeFileSync(path.join(cellDir, "parse-error.txt"), String((e as Error).stack ?? e) + "\n");
            }
          } else if (r.code === EXIT_WRONG_ANSWER) {
            Object.assign(cell, { status: "wrong_answer", reason: tail(r.stdout + r.stderr) || "result checksum mismatch" });
          } else if (r.code === EXIT_UNAVAILABLE) {
            Object.assign(cell, { status: "skipped", reason: unavailableReason(r) || "not supported" });
          } else {
            Object.assign(cell, { status: "failed", reason: r.timedOut ? `timed out after ${timeoutS}s` : `exited ${r.code}: ${tail(r.stderr)}` });
          }
          progress.cellDone(cell.id, cell.status, r.seconds);
          writeManifest();
        }
        if (!interrupted && prepared.has(key) && !cleaned.has(key) && visit.repetition >= lastRep.get(key)!) {
          await runVerb(studyVerb("cleanup"), [system], { env: baseEnv, timeoutS: 600, ...verbLog(`${system}.${studyName}.cleanup`) });
          cleaned.add(key);
        }
      }
    } catch (e) {
      const err = e as Error & { log?: string; code?: number | null };
      // A server that does not start once is not retried at its later visits: its remaining cells fail with this reason.
      markCells((c) => c.system === system, "failed", `${system}: ${err.message}`, err.log ?? "", err.code ?? null);
      Object.assign(systemsOut[system], { status: "failed", reason: err.message });
    } finally {
      if (started) {
        progress.note(`${system}: stop`);
        const stop = await runVerb(verb("stop"), [], { timeoutS: 180, ...verbLog(`${tag}.stop`) });
        if (stop.code !== 0 && stop.code !== EXIT_UNAVAILABLE) log(`samebox: warning: ${system} stop exited ${stop.code}: ${tail(stop.stderr)}`);
      }
      writeManifest();
    }
  }
  progress.stop();
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);

  for (const c of plan.cells) if (pending(c)) c.reason = interrupted ? "run interrupted before this cell" : "not run";
  for (const v of Object.values(systemsOut)) if (v.status === "pending") v.status = interrupted ? "interrupted" : "not run";
  writeFileSync(path.join(runDir, "records.csv"), toCsv(records));
  const endedAt = new Date();
  loadAverage.end = os.loadavg().map((x) => Math.round(x * 100) / 100);
  manifest.status = interrupted ? "interrupted" : "complete";
  manifest.ended_at = endedAt.toISOString();
  manifest.duration_s = Math.round((endedAt.getTime() - startedAt.getTime()) / 100) / 10;
  writeManifest();
  assertValid(validateManifest, manifest, `manifest of ${runId}`);
  const sum = manifest.summary;
  const exitCode = sum.failed + sum.wrong_answer > 0 || interrupted ? 1 : 0;
  if (!existsSync(path.join(runDir, "records.csv"))) throw new Error("records.csv was not written");
  return { runDir, manifest, exitCode };
}
