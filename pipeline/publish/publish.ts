import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { UserError } from "../lib/errors.ts";
import { publishedDir, runsDir, siteDir, studiesDir } from "../lib/paths.ts";
import { csvFormat } from "d3-dsv";
import { latestRunRows, rowsToArrowGz } from "./arrow.ts";
import { cellKey, fromCsv, fromJsonl } from "../lib/records.ts";
import { withCellServer } from "../lib/servers-catalog.ts";
import { deadRunnerReason } from "../lib/liveness.ts";
import type { ResultRecord } from "../lib/records.ts";
import type { RunManifest } from "../schema/types.ts";
import { runCatalogues, studiesCatalog } from "./site-catalog.ts";
import { describeErrors, recordColumns, validateManifest } from "../lib/schema.ts";
import { aggregates } from "./aggregates.ts";
import { collectConformance } from "./conformance.ts";
import { collectRan } from "./ran.ts";
import { type ManifestLike, provenanceColumns, publishedLogPath, rowsToCsv, withProvenance } from "./provenance.ts";

// The parts of publish live one concern a module; these re-exports keep their importers unchanged.
export { type Aggregate, aggregates } from "./aggregates.ts";
export {
  type ConformanceNegotiated,
  type ConformanceReport,
  type ConformanceScenario,
  collectConformance,
} from "./conformance.ts";
export { collectRan, RAN_FILES, RAN_HEAD_CAP } from "./ran.ts";
export {
  type ManifestLike,
  type Provenance,
  provenanceColumns,
  type PublishedRow,
  publishedLogPath,
  rowsToCsv,
  withProvenance,
} from "./provenance.ts";

// data/ → the site's data files. Reads everything, validates it with the same schemas the pipeline
// writes with, and (re)writes only derived files under site/: running it twice changes nothing.

export interface Loaded {
  records: ResultRecord[];
  manifests: RunManifest[];
  warnings: string[];
}

export function loadAll(): Loaded {
  const records: ResultRecord[] = [];
  const manifests: RunManifest[] = [];
  const warnings: string[] = [];
  const dir = runsDir();
  const runIds = existsSync(dir)
    ? readdirSync(dir)
        .filter((d) => existsSync(path.join(dir, d, "manifest.json")))
        .sort()
    : [];
  for (const id of runIds) {
    const mfile = path.join(dir, id, "manifest.json");
    let manifest: RunManifest;
    try {
      manifest = JSON.parse(readFileSync(mfile, "utf8"));
    } catch (e) {
      throw new UserError(`${mfile} is not valid JSON: ${(e as Error).message}`);
    }
    if (!validateManifest(manifest))
      throw new UserError(`${mfile} is invalid: ${describeErrors(validateManifest.errors)}`);
    // A run from before the cell's server field (and records.csv's server column, fromCsv/fromJsonl): derived
    // from the study folder (servers-catalog.ts), in what publish writes only; the run folder stays as it is.
    manifest = { ...manifest, cells: manifest.cells.map(withCellServer) };
    if (manifest.status === "running") {
      const dead = deadRunnerReason(manifest);
      warnings.push(
        `${id}: ${dead ? `says running but ${dead} (continue it: samebox run --resume ${id})` : "still running"}; its records are published as they are`,
      );
    }
    const jsonl = path.join(dir, id, "records.jsonl");
    const csv = path.join(dir, id, "records.csv");
    const rs = existsSync(jsonl)
      ? fromJsonl(readFileSync(jsonl, "utf8"), jsonl)
      : existsSync(csv)
        ? fromCsv(readFileSync(csv, "utf8"), csv)
        : [];
    for (const r of rs)
      if (r.run_id !== id)
        throw new UserError(`${jsonl}: record has run_id '${r.run_id}' but lives in run folder '${id}'`);
    // A noisy cell (disturbed by other work in every attempt) stays in data/ but is left out of the
    // site's results, so no ranking, chart or verdict uses it; the run's page lists it with its reason.
    const noisy = new Set(manifest.cells.filter((c) => c.status === "noisy").map(cellKey));
    const kept = noisy.size ? rs.filter((r) => !noisy.has(cellKey(r))) : rs;
    if (kept.length < rs.length)
      warnings.push(
        `${id}: ${rs.length - kept.length} records of ${noisy.size} noisy cell(s) left out of the site's results`,
      );
    records.push(...kept);
    manifests.push(manifest);
  }
  const pdir = publishedDir();
  if (existsSync(pdir)) {
    for (const f of readdirSync(pdir)
      .filter((f) => f.endsWith(".csv"))
      .sort()) {
      const file = path.join(pdir, f);
      const rs = fromCsv(readFileSync(file, "utf8"), file);
      for (const r of rs)
        if (r.source !== "published")
          throw new UserError(`${file}: every row must have source=published (found '${r.source}')`);
      records.push(...rs);
    }
  }
  return { records, manifests, warnings };
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
  const key = (r: ResultRecord) =>
    [
      r.run_id,
      r.study,
      r.workload,
      r.system,
      r.server,
      r.variant,
      String(r.concurrency).padStart(6, "0"),
      String(r.repetition).padStart(6, "0"),
      r.metric,
      r.t === null ? "" : String(r.t).padStart(12, "0"),
    ].join("\u0000");
  return [...records].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
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
      if (content.length > LOG_CAP)
        content = Buffer.concat([
          content.subarray(0, LOG_CAP),
          Buffer.from(
            `\n[samebox publish: cut at ${LOG_CAP} of ${content.length} bytes; the whole file is data/runs/${m.run_id}/${rel} in the repository]\n`,
          ),
        ]);
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
// left out of what the site and Explore publish, with the reason.
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
    [
      path.join(site, "public", "data", "results.arrow.gz"),
      rowsToArrowGz(sorted as unknown as Array<Record<string, string | number | null>>, [
        ...recordColumns,
        ...provenanceColumns,
      ]),
    ],
    [
      path.join(site, "public", "data", "results-latest.arrow.gz"),
      rowsToArrowGz(latestRunRows(sorted) as unknown as Array<Record<string, string | number | null>>, [
        ...recordColumns,
        ...provenanceColumns,
      ]),
    ],
    [
      path.join(site, "public", "data", "aggregates.csv"),
      csvFormat(aggs.map((a) => ({ ...a, dirty: String(a.dirty) })) as unknown as Record<string, string>[]) + "\n",
    ],
    [
      path.join(site, "public", "data", "aggregates.json"),
      JSON.stringify({
        method:
          "95 % Student-t confidence interval of the mean over a cell's repetitions (n - 1 degrees of freedom); one value per repetition (a tool's several numbers per repetition, e.g. hyperfine runs, are reduced to their median first); method none below 2 repetitions",
        aggregates: aggs,
      }),
    ],
    [path.join(site, "src", "generated", "records.json"), JSON.stringify(plain)],
    [path.join(site, "src", "generated", "runs.json"), JSON.stringify(manifests, null, 1)],
    [path.join(site, "src", "generated", "studies.json"), JSON.stringify(studiesCatalog(), null, 1)],
    [path.join(site, "src", "generated", "catalogues.json"), JSON.stringify(runCatalogues(manifests, runsDir()))],
  ];
  const changed: string[] = [];
  for (const [file, content] of outputs) if (writeIfChanged(file, content)) changed.push(path.relative(site, file));
  changed.push(...publishLogs(manifests, site));
  const { ran, files: ranFiles } = collectRan(manifests, runsDir());
  if (writeIfChanged(path.join(site, "src", "generated", "ran.json"), JSON.stringify(ran)))
    changed.push(path.join("src", "generated", "ran.json"));
  const conformance = JSON.stringify({ reports: collectConformance(manifests, runsDir()) }, null, 1);
  if (writeIfChanged(path.join(site, "src", "generated", "conformance.json"), conformance))
    changed.push(path.join("src", "generated", "conformance.json"));
  // Which conformance scenarios apply and why: written once in the mcp-servers study (also read for mcp-db).
  const scenarios = path.join(studiesDir, "mcp-servers", "conformance-scenarios.json");
  const scenariosOut = path.join(site, "src", "generated", "conformance-scenarios.json");
  if (existsSync(scenarios) && writeIfChanged(scenariosOut, readFileSync(scenarios)))
    changed.push(path.relative(site, scenariosOut));
  if (!existsSync(scenarios)) rmSync(scenariosOut, { force: true });
  for (const [rel, content] of ranFiles)
    if (writeIfChanged(path.join(site, "public", rel), content)) changed.push(path.join("public", rel));
  const parquet = path.join(site, "public", "data", "results.parquet");
  if (changed.includes(path.relative(site, csvFile)) || !existsSync(parquet)) {
    if (await writeParquet(csvFile, parquet)) changed.push(path.relative(site, parquet));
  }
  return { records: sorted.length, runs: manifests.length, changed, warnings };
}
