import { csvFormat } from "d3-dsv";
import type { ResultRecord } from "../lib/records.ts";
import { recordColumns } from "../lib/schema.ts";
import { cellIdentity } from "../lib/servers.ts";
import type { RunManifest } from "../schema/types.ts";

// ---- provenance: every published row names the run's config hash, whether the code was dirty, the
// cell that produced it and that cell's raw log (served beside the data, linked from the run page).

// What provenance, logs and what-ran read of a manifest and its cells (tests' fixtures pass just these).
type ManifestCell = Pick<
  RunManifest["cells"][number],
  "id" | "study" | "workload" | "system" | "concurrency" | "variant" | "repetition" | "status" | "log"
> & { server?: string };
export type ManifestLike = Pick<RunManifest, "run_id"> &
  Partial<Pick<RunManifest, "config_hash" | "dirty">> & { cells?: ManifestCell[] };

export interface Provenance {
  config_hash: string;
  dirty: boolean | "";
  cell: string;
  log: string;
}
export const provenanceColumns = ["config_hash", "dirty", "cell", "log"] as const;
export type PublishedRow = ResultRecord & Provenance;

/** Published path of a run file, relative to the site root (site/public/...). */
export function publishedLogPath(runId: string, rel: string): string {
  return rel ? `data/runs/${runId}/${rel}` : "";
}

// Finds the manifest cell of a record: exact identity, else (older runs, whose hyperfine records used the
// run index as repetition) the only cell with that identity apart from the repetition.
function cellFinder(
  manifests: ManifestLike[],
): (r: ResultRecord) => { m: ManifestLike; cell?: ManifestCell } | undefined {
  const byRun = new Map<
    string,
    { m: ManifestLike; exact: Map<string, ManifestCell>; loose: Map<string, ManifestCell[]> }
  >();
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
    const cell =
      run.exact.get(`${k}\u0000${r.repetition}`) ??
      (run.loose.get(k)?.filter((c) => c.status === "ok").length === 1
        ? run.loose.get(k)!.find((c) => c.status === "ok")
        : undefined);
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
  return (
    csvFormat(
      rows.map((r) => ({ ...r, t: r.t ?? "", dirty: r.dirty === "" ? "" : String(r.dirty) })) as unknown as Record<
        string,
        string
      >[],
      columns,
    ) + "\n"
  );
}
