import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync, rmSync } from "node:fs";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { loadStudy, studyNames, profileNames, loadProfile } from "../lib/catalog.ts";
import { UserError } from "../lib/errors.ts";
import { publishedDir, repoRoot, runsDir, siteDir } from "../lib/paths.ts";
import { fromCsv, fromJsonl, toCsv } from "../lib/records.ts";
import type { ResultRecord } from "../lib/records.ts";
import { describeErrors, validateManifest } from "../lib/schema.ts";

// data/ → the site's data files. Reads everything, validates it with the same schemas the pipeline
// writes with, and (re)writes only derived files under site/: running it twice changes nothing.

export interface Loaded { records: ResultRecord[]; manifests: Record<string, unknown>[]; warnings: string[] }

export function loadAll(): Loaded {
  const records: ResultRecord[] = [];
  const manifests: Record<string, unknown>[] = [];
  const warnings: string[] = [];
  const dir = runsDir();
  const runIds = existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(path.join(dir, d, "manifest.json"))).sort() : [];
  for (const id of runIds) {
    const mfile = path.join(dir, id, "manifest.json");
    let manifest: Record<string, unknown>;
    try {
      manifest = JSON.parse(readFileSync(mfile, "utf8"));
    } catch (e) {
      throw new UserError(`${mfile} is not valid JSON: ${(e as Error).message}`);
    }
    if (!validateManifest(manifest)) throw new UserError(`${mfile} is invalid: ${describeErrors(validateManifest.errors)}`);
    if (manifest.status === "running") {
      warnings.push(`${id}: still running or crashed before it finished; its records are published as they are`);
    }
    const jsonl = path.join(dir, id, "records.jsonl");
    const csv = path.join(dir, id, "records.csv");
    const rs = existsSync(jsonl) ? fromJsonl(readFileSync(jsonl, "utf8"), jsonl) : existsSync(csv) ? fromCsv(readFileSync(csv, "utf8"), csv) : [];
    for (const r of rs) if (r.run_id !== id) throw new UserError(`${jsonl}: record has run_id '${r.run_id}' but lives in run folder '${id}'`);
    records.push(...rs);
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

function studiesCatalog(): unknown {
  const studies = studyNames().map((name) => {
    const s = loadStudy(name);
    const { dir, workloads, ...rest } = s;
    return {
      ...rest,
      dir: path.relative(repoRoot, dir),
      workloads: workloads.map(({ file, ...w }) => ({ ...w, file: path.relative(repoRoot, file) })),
    };
  });
  const profiles = profileNames().map((p) => loadProfile(p));
  return { studies, profiles };
}

// Writes a file only when its content differs, via a temporary file and rename, so a reader never
// sees half a file and an unchanged publish leaves timestamps alone.
function writeIfChanged(file: string, content: string | Buffer): boolean {
  mkdirSync(path.dirname(file), { recursive: true });
  if (existsSync(file) && Buffer.compare(readFileSync(file), Buffer.from(content)) === 0) return false;
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
  return true;
}

function sortRecords(records: ResultRecord[]): ResultRecord[] {
  const key = (r: ResultRecord) => [r.run_id, r.study, r.workload, r.system, r.variant, String(r.concurrency).padStart(6, "0"), String(r.repetition).padStart(6, "0"), r.metric, r.t === null ? "" : String(r.t).padStart(12, "0")].join("\u0000");
  return [...records].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
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
      'variant':'VARCHAR','concurrency':'INTEGER','repetition':'INTEGER','metric':'VARCHAR','value':'DOUBLE','unit':'VARCHAR',
      't':'DOUBLE','profile':'VARCHAR','machine':'VARCHAR','commit':'VARCHAR'})) TO ${q(tmp)} (FORMAT parquet, COMPRESSION zstd)`);
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
  const changed = writeIfChanged(parquetFile, readFileSync(tmp));
  rmSync(tmp, { force: true });
  return changed;
}

export async function publish(): Promise<{ records: number; runs: number; changed: string[]; warnings: string[] }> {
  const { records, manifests, warnings } = loadAll();
  const sorted = sortRecords(records);
  const site = siteDir();
  const csvFile = path.join(site, "public", "data", "results.csv");
  const outputs: Array<[string, string]> = [
    [csvFile, toCsv(sorted)],
    [path.join(site, "src", "generated", "records.json"), JSON.stringify(sorted)],
    [path.join(site, "src", "generated", "runs.json"), JSON.stringify(manifests, null, 1)],
    [path.join(site, "src", "generated", "studies.json"), JSON.stringify(studiesCatalog(), null, 1)],
  ];
  const changed: string[] = [];
  for (const [file, content] of outputs) if (writeIfChanged(file, content)) changed.push(path.relative(site, file));
  const parquet = path.join(site, "public", "data", "results.parquet");
  if (changed.includes(path.relative(site, csvFile)) || !existsSync(parquet)) {
    if (await writeParquet(csvFile, parquet)) changed.push(path.relative(site, parquet));
  }
  return { records: sorted.length, runs: manifests.length, changed, warnings };
}
