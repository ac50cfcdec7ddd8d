import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, rmSync, statSync } from "node:fs";
import { readReport, type Report } from "../parsers/mcp-conformance.ts";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { createHash } from "node:crypto";
import { UserError } from "../lib/errors.ts";
import { publishedDir, runsDir, siteDir, studiesDir } from "../lib/paths.ts";
import { csvFormat } from "d3-dsv";
import { latestRunRows, rowsToArrowGz } from "./arrow.ts";
import { cellKey, fromCsv, fromJsonl } from "../lib/records.ts";
import { cellIdentity } from "../lib/servers.ts";
import { withCellServer } from "../lib/servers-catalog.ts";
import { deadRunnerReason } from "../lib/liveness.ts";
import type { ResultRecord } from "../lib/records.ts";
import type { Ran, RanCell, RanText, RunManifest } from "../schema/types.ts";
import { RAN_FILES } from "../lib/ran-files.ts";
import { runCatalogues, studiesCatalog } from "./site-catalog.ts";
import { assertValid, describeErrors, recordColumns, validateManifest, validateRan } from "../lib/schema.ts";
import { interval95, median, perRepetition, relativeHalfWidth } from "../lib/stats.ts";

// data/ → the site's data files. Reads everything, validates it with the same schemas the pipeline
// writes with, and (re)writes only derived files under site/: running it twice changes nothing.

export interface Loaded { records: ResultRecord[]; manifests: RunManifest[]; warnings: string[] }

export function loadAll(): Loaded {
  const records: ResultRecord[] = [];
  const manifests: RunManifest[] = [];
  const warnings: string[] = [];
  const dir = runsDir();
  const runIds = existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(path.join(dir, d, "manifest.json"))).sort() : [];
  for (const id of runIds) {
    const mfile = path.join(dir, id, "manifest.json");
    let manifest: RunManifest;
    try {
      manifest = JSON.parse(readFileSync(mfile, "utf8"));
    } catch (e) {
      throw new UserError(`${mfile} is not valid JSON: ${(e as Error).message}`);
    }
    if (!validateManifest(manifest)) throw new UserError(`${mfile} is invalid: ${describeErrors(validateManifest.errors)}`);
    // A run from before the cell's server field (and records.csv's server column, fromCsv/fromJsonl): derived
    // from the study folder (servers-catalog.ts), in what publish writes only; the run folder stays as it is.
    manifest = { ...manifest, cells: manifest.cells.map(withCellServer) };
    if (manifest.status === "running") {
      const dead = deadRunnerReason(manifest);
      warnings.push(`${id}: ${dead ? `says running but ${dead} (continue it: samebox run --resume ${id})` : "still running"}; its records are published as they are`);
    }
    const jsonl = path.join(dir, id, "records.jsonl");
    const csv = path.join(dir, id, "records.csv");
    const rs = existsSync(jsonl) ? fromJsonl(readFileSync(jsonl, "utf8"), jsonl) : existsSync(csv) ? fromCsv(readFileSync(csv, "utf8"), csv) : [];
    for (const r of rs) if (r.run_id !== id) throw new UserError(`${jsonl}: record has run_id '${r.run_id}' but lives in run folder '${id}'`);
    // A noisy cell (disturbed by other work in every attempt) stays in data/ but is left out of the
    // site's results, so no ranking, chart or verdict uses it; the run's page lists it with its reason.
    const noisy = new Set(manifest.cells.filter((c) => c.status === "noisy").map(cellKey));
    const kept = noisy.size ? rs.filter((r) => !noisy.has(cellKey(r))) : rs;
    if (kept.length < rs.length) warnings.push(`${id}: ${rs.length - kept.length} records of ${noisy.size} noisy cell(s) left out of the site's results`);
    records.push(...kept);
    manifests.push(manifest);
  }
  const pdir = publishedDir();
  if (existsSync(pdir)) {
    for (const f of readdirSync(pdir).filter((f) => f.endsWith(".csv")).sort()) {
      const file = path.join(pdir, f);
      const rs = fromCsv(readFileSync(file, "utf8"), file);
      for (const r of rs) if (r.source !== "published") throw new UserError(`${file}: every row must have source=published (found '${r.source}')`);
      records.push(...rs);
    }
  }
  return { records, manifests, warnings };
}

// ---- what ran: the exact SQL and command lines a cell executed, as its cell folder keeps them
// (bench-scripts/studies/<st>/README.md names them). The site shows these texts, never a re-rendering.
// One copy per distinct text: site/public/data/ran/<sha256>.<ext> in full, and in ran.json its first
// RAN_HEAD_CAP bytes (cut at a line end) for the page, with each cell naming its texts by hash.
// Shapes: pipeline/schema/ran.schema.json (the types generated from it); the file names: RAN_FILES.
export { RAN_FILES };
export const RAN_HEAD_CAP = 8 * 1024;

function headOf(content: Buffer): { head: string; cut: boolean } {
  if (content.length <= RAN_HEAD_CAP) return { head: content.toString("utf8"), cut: false };
  const window = content.subarray(0, RAN_HEAD_CAP);
  const nl = window.lastIndexOf(0x0a);
  // Cut after the last whole line, or (one long line, e.g. JSON) at the cap, never inside a UTF-8 character.
  let end = nl >= RAN_HEAD_CAP / 2 ? nl + 1 : RAN_HEAD_CAP;
  while (end > 0 && (content[end] & 0xc0) === 0x80) end--;
  return { head: content.subarray(0, end).toString("utf8"), cut: true };
}

/** Reads the what-ran files of every cell of MANIFESTS under RUNS; returns ran.json and the distinct texts to publish. */
export function collectRan(manifests: ManifestLike[], runs: string): { ran: Ran; files: Map<string, Buffer> } {
  const texts: Record<string, RanText> = {};
  const files = new Map<string, Buffer>();
  const cells = new Map<string, RanCell>();
  for (const m of manifests) {
    for (const c of m.cells ?? []) {
      if (c.id.includes("/") || c.id.includes("..")) continue;
      for (const name of RAN_FILES) {
        const src = path.join(runs, m.run_id, "cells", c.id, name);
        if (!existsSync(src) || !statSync(src).isFile()) continue;
        const content = readFileSync(src);
        const sha = createHash("sha256").update(content).digest("hex");
        if (!texts[sha]) {
          const rel = `data/ran/${sha}${path.extname(name) || ".txt"}`;
          texts[sha] = { bytes: content.length, ...headOf(content), file: rel };
          files.set(rel, content);
        }
        const id = cellIdentity(c);
        const key = [m.run_id, c.study, c.workload, c.system, id.server, id.variant, c.concurrency].join("\u0000");
        const cell = cells.get(key) ?? { run_id: m.run_id, study: c.study, workload: c.workload, system: c.system, ...(id.server ? { server: id.server } : {}), variant: id.variant, concurrency: c.concurrency, files: [] };
        cells.set(key, cell);
        const f = cell.files.find((x) => x.name === name && x.text === sha);
        if (f) f.repetitions.push(c.repetition);
        else cell.files.push({ name, text: sha, repetitions: [c.repetition] });
      }
    }
  }
  const ran = { head_cap: RAN_HEAD_CAP, texts, cells: [...cells.values()] };
  assertValid(validateRan, ran, "ran.json as publish writes it (pipeline/schema/ran.schema.json)");
  return { ran, files };
}

// ---- conformance (issue 22): records carry 1/0 per scenario only; each failure's message, the suite's
// version and the spec revisions checked stay in the cell folder (conformance.json, else stdout.txt, the
// report of mcp-servers/suite-conformance). conformance.json gives the site one entry per ok cell.
export interface ConformanceScenario { scenario: string; status: "pass" | "fail"; message: string; spec_revisions: string[]; own: boolean }
export interface ConformanceNegotiated { client: string; requested: string; answered: string | null; message: string }
export interface ConformanceReport { run_id: string; study: string; system: string; server: string; variant: string; cell: string; suite_version: string; scenarios: ConformanceScenario[]; negotiated: ConformanceNegotiated[] }

export function collectConformance(manifests: ManifestLike[], runs: string): ConformanceReport[] {
  const out: ConformanceReport[] = [];
  for (const m of manifests) {
    for (const c of m.cells ?? []) {
      if (c.workload !== "conformance" || c.status !== "ok" || c.id.includes("/") || c.id.includes("..")) continue;
      const dir = path.join(runs, m.run_id, "cells", c.id);
      const file = ["conformance.json", "stdout.txt"].map((f) => path.join(dir, f)).find((f) => existsSync(f));
      if (!file) continue;
      let doc: Report;
      try {
        doc = readReport(readFileSync(file, "utf8"));
      } catch {
        continue; // not a report (the parser would have failed the cell)
      }
      out.push({
        run_id: m.run_id, study: c.study, system: c.system, server: cellIdentity(c).server, variant: cellIdentity(c).variant, cell: c.id, suite_version: doc.suite_version,
        scenarios: doc.scenarios.map((s) => ({ scenario: s.scenario, status: s.status, message: s.message ?? "", spec_revisions: (s.spec_revisions ?? []).map(String), own: s.own === true })),
        negotiated: (doc.negotiated ?? []).map((n) => ({ client: String(n.client ?? ""), requested: n.requested, answered: n.answered, message: n.message ?? "" })),
      });
    }
  }
  return out;
}

// Writes a file only when its content differs, via a temporary file and rename, so a reader never
// sees half a file and an unchanged publish leaves timestamps alone.
function writeIfChanged(file: string, content: string | Uint8Array): boolean {
  mkdirSync(path.dirname(file), { recursive: true });
  if (existsSync(file) && Buffer.compare(readFileSync(file), Buffer.from(content)) === 0) return false;
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
  return true;
}

function sortRecords(records: ResultRecord[]): ResultRecord[] {
  const key = (r: ResultRecord) => [r.run_id, r.study, r.workload, r.system, r.server, r.variant, String(r.concurrency).padStart(6, "0"), String(r.repetition).padStart(6, "0"), r.metric, r.t === null ? "" : String(r.t).padStart(12, "0")].join("\u0000");
  return [...records].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

// ---- provenance: every published row names the run's config hash, whether the code was dirty, the
// cell that produced it and that cell's raw log (served beside the data, linked from the run page).

// What provenance, logs and what-ran read of a manifest and its cells (tests' fixtures pass just these).
type ManifestCell = Pick<RunManifest["cells"][number], "id" | "study" | "workload" | "system" | "concurrency" | "variant" | "repetition" | "status" | "log"> & { server?: string };
export type ManifestLike = Pick<RunManifest, "run_id"> & Partial<Pick<RunManifest, "config_hash" | "dirty">> & { cells?: ManifestCell[] };

export interface Provenance { config_hash: string; dirty: boolean | ""; cell: string; log: string }
export const provenanceColumns = ["config_hash", "dirty", "cell", "log"] as const;
export type PublishedRow = ResultRecord & Provenance;

/** Published path of a run file, relative to the site root (site/public/...). */
export function publishedLogPath(runId: string, rel: string): string {
  return rel ? `data/runs/${runId}/${rel}` : "";
}

// Finds the manifest cell of a record: exact identity, else (older runs, whose hyperfine records used the
// run index as repetition) the only cell with that identity apart from the repetition.
function cellFinder(manifests: ManifestLike[]): (r: ResultRecord) => { m: ManifestLike; cell?: ManifestCell } | undefined {
  const byRun = new Map<string, { m: ManifestLike; exact: Map<string, ManifestCell>; loose: Map<string, ManifestCell[]> }>();
  for (const m of manifests) {
    const exact = new Map<string, ManifestCell>();
    const loose = new Map<string, ManifestCell[]>();
    for (const c of m.cells ?? []) {
      const id = cellIdentity(c);
      const k = [c.study, c.workload, c.system, c.concurrency, id.server, id.variant].join("\u0000");
      exact.set(`${k}\u0000${c.repetition}`, c);
      (loose.get(k) ?? loose.set(k, []).get(k)!).push(c);
    }
    byRun.set(m.run_id, { m, exact, loose });
  }
  return (r) => {
    const run = byRun.get(r.run_id);
    if (!run) return undefined;
    const k = [r.study, r.workload, r.system, r.concurrency, r.server, r.variant].join("\u0000");
    const cell = run.exact.get(`${k}\u0000${r.repetition}`) ?? (run.loose.get(k)?.filter((c) => c.status === "ok").length === 1 ? run.loose.get(k)!.find((c) => c.status === "ok") : undefined);
    return { m: run.m, cell };
  };
}

export function withProvenance(records: ResultRecord[], manifests: ManifestLike[]): PublishedRow[] {
  const find = cellFinder(manifests);
  return records.map((r) => {
    if (r.source !== "measured") return { ...r, config_hash: "", dirty: "", cell: "", log: "" };
    const f = find(r);
    return {
      ...r,
      config_hash: f?.m.config_hash ?? "",
      dirty: f?.m.dirty ?? "",
      cell: f?.cell?.id ?? "",
      log: f?.cell ? publishedLogPath(r.run_id, f.cell.log) : "",
    };
  });
}

export function rowsToCsv(rows: PublishedRow[]): string {
  const columns = [...recordColumns, ...provenanceColumns];
  return csvFormat(rows.map((r) => ({ ...r, t: r.t ?? "", dirty: r.dirty === "" ? "" : String(r.dirty) })) as unknown as Record<string, string>[], columns) + "\n";
}

// ---- per-cell aggregates: one row per run × study × workload × system × variant × concurrency × metric,
// over the cell's repetitions (one value each, see perRepetition), with the 95 % Student-t interval.

export type Aggregate = Pick<ResultRecord, "run_id" | "study" | "workload" | "system" | "system_version" | "server" | "variant" | "concurrency" | "metric" | "unit" | "profile" | "machine" | "commit">
  & Pick<Provenance, "config_hash" | "dirty"> & {
    n: number; mean: number; sd: number | null; ci_lo: number | null; ci_hi: number | null;
    half_width: number | null; rel_half_width: number | null; median: number; min: number; max: number;
    method: "t" | "none"; cells: string;
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
      run_id: f.run_id, study: f.study, workload: f.workload, system: f.system, system_version: f.system_version, server: f.server, variant: f.variant,
      concurrency: f.concurrency, metric: f.metric, unit: f.unit, n: values.length, mean: ci.mean, sd: finiteOrNull(ci.sd),
      ci_lo: finiteOrNull(ci.lo), ci_hi: finiteOrNull(ci.hi), half_width: finiteOrNull(ci.half_width), rel_half_width: finiteOrNull(relativeHalfWidth(ci)),
      median: median(values), min: Math.min(...values), max: Math.max(...values), method: ci.method,
      profile: f.profile, machine: f.machine, commit: f.commit, config_hash: f.config_hash, dirty: f.dirty,
      cells: [...new Set(g.map((r) => r.cell).filter(Boolean))].join(" "),
    };
  });
}

// Raw logs beside the data: each cell's stdout/stderr and the log its manifest entry names, so a figure
// leads to the output it was parsed from. Large files are cut at LOG_CAP bytes with a note.
const LOG_CAP = 512 * 1024;
function publishLogs(manifests: ManifestLike[], site: string): string[] {
  const changed: string[] = [];
  for (const m of manifests) {
    const runDir = path.join(runsDir(), m.run_id);
    const files = new Set<string>();
    for (const c of m.cells ?? []) {
      if (c.log) files.add(c.log);
      for (const f of ["stdout.txt", "stderr.txt"]) files.add(path.join("cells", c.id, f));
    }
    for (const rel of files) {
      const src = path.join(runDir, rel);
      if (rel.includes("..") || !existsSync(src) || !statSync(src).isFile()) continue;
      let content = readFileSync(src);
      if (content.length > LOG_CAP) content = Buffer.concat([content.subarray(0, LOG_CAP), Buffer.from(`\n[samebox publish: cut at ${LOG_CAP} of ${content.length} bytes; the whole file is data/runs/${m.run_id}/${rel} in the repository]\n`)]);
      const dest = path.join(site, "public", publishedLogPath(m.run_id, rel));
      if (writeIfChanged(dest, content)) changed.push(path.relative(site, dest));
    }
  }
  return changed;
}

async function writeParquet(csvFile: string, parquetFile: string): Promise<boolean> {
  const tmp = `${parquetFile}.tmp-${process.pid}`;
  const instance = await DuckDBInstance.create(":memory:");
  const conn = await instance.connect();
  try {
    const q = (s: string) => `'${s.replaceAll("'", "''")}'`;
    // Explicit types so an all-empty column (t) does not become VARCHAR.
    await conn.run(`COPY (SELECT * FROM read_csv(${q(csvFile)}, header=true, columns={
      'run_id':'VARCHAR','source':'VARCHAR','study':'VARCHAR','workload':'VARCHAR','system':'VARCHAR','system_version':'VARCHAR',
      'server':'VARCHAR','variant':'VARCHAR','concurrency':'INTEGER','repetition':'INTEGER','metric':'VARCHAR','value':'DOUBLE','unit':'VARCHAR',
      't':'DOUBLE','profile':'VARCHAR','machine':'VARCHAR','commit':'VARCHAR',
      'config_hash':'VARCHAR','dirty':'BOOLEAN','cell':'VARCHAR','log':'VARCHAR'})) TO ${q(tmp)} (FORMAT parquet, COMPRESSION zstd)`);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  const changed = writeIfChanged(parquetFile, readFileSync(tmp));
  rmSync(tmp, { force: true });
  return changed;
}

// Figures found to be measurement artefacts after they were recorded: kept in data/runs (never rewritten),
// left out of what the site and Explore publish, with the reason (issue 9).
export const WITHDRAWN: Array<{ match: (r: ResultRecord) => boolean; why: string }> = [
  {
    match: (r) => r.source === "measured" && r.workload.startsWith("pgbench") && r.metric === "latency_min",
    why: "pgbench latency_min: the transaction log has whole microseconds and its minimum is often 0.000 ms, a resolution artefact (the parser no longer emits it)",
  },
];

export async function publish(): Promise<{ records: number; runs: number; changed: string[]; warnings: string[] }> {
  const loaded = loadAll();
  const { manifests, warnings } = loaded;
  const records = loaded.records.filter((r) => !WITHDRAWN.some((w) => w.match(r)));
  for (const w of WITHDRAWN) {
    const n = loaded.records.filter((r) => w.match(r)).length;
    if (n) warnings.push(`left out ${n} record(s): ${w.why}`);
  }
  const plain = sortRecords(records);
  // results.csv/parquet and aggregates carry provenance columns; records.json stays schema-exact (the site validates it).
  const sorted = withProvenance(plain, manifests);
  const aggs = aggregates(sorted);
  const site = siteDir();
  const csvFile = path.join(site, "public", "data", "results.csv");
  const outputs: Array<[string, string | Uint8Array]> = [
    [csvFile, rowsToCsv(sorted)],
    [path.join(site, "public", "data", "results.arrow.gz"), rowsToArrowGz(sorted as unknown as Array<Record<string, string | number | null>>, [...recordColumns, ...provenanceColumns])],
    [path.join(site, "public", "data", "results-latest.arrow.gz"), rowsToArrowGz(latestRunRows(sorted) as unknown as Array<Record<string, string | number | null>>, [...recordColumns, ...provenanceColumns])],
    [path.join(site, "public", "data", "aggregates.csv"), csvFormat(aggs.map((a) => ({ ...a, dirty: String(a.dirty) })) as unknown as Record<string, string>[]) + "\n"],
    [path.join(site, "public", "data", "aggregates.json"), JSON.stringify({
      method: "95 % Student-t confidence interval of the mean over a cell's repetitions (n - 1 degrees of freedom); one value per repetition (a tool's several numbers per repetition, e.g. hyperfine runs, are reduced to their median first); method none below 2 repetitions",
      aggregates: aggs,
    })],
    [path.join(site, "src", "generated", "records.json"), JSON.stringify(plain)],
    [path.join(site, "src", "generated", "runs.json"), JSON.stringify(manifests, null, 1)],
    [path.join(site, "src", "generated", "studies.json"), JSON.stringify(studiesCatalog(), null, 1)],
    [path.join(site, "src", "generated", "catalogues.json"), JSON.stringify(runCatalogues(manifests, runsDir()))],
  ];
  const changed: string[] = [];
  for (const [file, content] of outputs) if (writeIfChanged(file, content)) changed.push(path.relative(site, file));
  changed.push(...publishLogs(manifests, site));
  const { ran, files: ranFiles } = collectRan(manifests, runsDir());
  if (writeIfChanged(path.join(site, "src", "generated", "ran.json"), JSON.stringify(ran))) changed.push(path.join("src", "generated", "ran.json"));
  const conformance = JSON.stringify({ reports: collectConformance(manifests, runsDir()) }, null, 1);
  if (writeIfChanged(path.join(site, "src", "generated", "conformance.json"), conformance)) changed.push(path.join("src", "generated", "conformance.json"));
  // Which conformance scenarios apply and why: written once in the mcp-servers study (also read for mcp-db).
  const scenarios = path.join(studiesDir, "mcp-servers", "conformance-scenarios.json");
  const scenariosOut = path.join(site, "src", "generated", "conformance-scenarios.json");
  if (existsSync(scenarios) && writeIfChanged(scenariosOut, readFileSync(scenarios))) changed.push(path.relative(site, scenariosOut));
  if (!existsSync(scenarios)) rmSync(scenariosOut, { force: true });
  for (const [rel, content] of ranFiles) if (writeIfChanged(path.join(site, "public", rel), content)) changed.push(path.join("public", rel));
  const parquet = path.join(site, "public", "data", "results.parquet");
  if (changed.includes(path.relative(site, csvFile)) || !existsSync(parquet)) {
    if (await writeParquet(csvFile, parquet)) changed.push(path.relative(site, parquet));
  }
  return { records: sorted.length, runs: manifests.length, changed, warnings };
}
