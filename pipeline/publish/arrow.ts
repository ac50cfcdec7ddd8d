import { Dictionary, Float64, Int32, Table, tableToIPC, Utf8, vectorFromArray, type Vector } from "apache-arrow";
import { gzipSync } from "node:zlib";
import { columnType, type ColumnType } from "../lib/columns.ts";

// results.arrow.gz: the rows of results.csv as one Arrow IPC stream, for Explore. DuckDB-WASM ingests
// an IPC stream directly (insertArrowFromIPCStream), so the browser skips the CSV parse, and the
// strings, which repeat on almost every row (run ids, commits, machines, log paths), are
// dictionary-encoded: each distinct value is stored once. Column types are pipeline/lib/columns.ts's,
// as for Explore's read_csv; an empty CSV field is NULL there, so it is null here too, and both paths
// give the same table. Gzip-compressed (about 1/20 of the stream) because static hosts rarely
// compress an unknown type; the page inflates it.

type Cell = string | number | boolean | null | undefined;

// `index` is the dictionary's id: explicit, since apache-arrow otherwise numbers dictionaries from a
// process-wide counter and the same rows would give different bytes on a second call.
function column(values: Cell[], type: ColumnType, index: number): Vector {
  if (type === "VARCHAR") {
    const text = values.map((v) => (v === null || v === undefined || v === "" ? null : String(v)));
    return vectorFromArray(text, new Dictionary(new Utf8(), new Int32(), index));
  }
  const numbers = values.map((v) => (v === null || v === undefined || v === "" ? null : Number(v)));
  return vectorFromArray(numbers, type === "INTEGER" ? new Int32() : new Float64());
}

/** Rows (objects keyed by column) as an Arrow IPC stream with the given columns, in that order. */
export function rowsToArrowIPC(rows: Array<Record<string, Cell>>, columns: string[]): Uint8Array {
  const vectors: Record<string, Vector> = Object.fromEntries(
    columns.map((c, i) => [
      c,
      column(
        rows.map((r) => r[c]),
        columnType(c),
        i,
      ),
    ]),
  );
  return tableToIPC(new Table(vectors), "stream");
}

/** The same stream gzip-compressed (mtime 0 in the header, so equal input gives equal bytes). */
export function rowsToArrowGz(rows: Array<Record<string, Cell>>, columns: string[]): Uint8Array {
  return gzipSync(rowsToArrowIPC(rows, columns), { level: 9 });
}

/**
 * The rows Explore's first query reads: those of the newest measured run of each study (the largest
 * run_id among a study's measured rows, the rule of Explore's compared_runs table). Written as
 * results-latest.arrow.gz beside the whole file, so the page can show its default preset's live result
 * from a tenth of the rows while the rest downloads; every row of it is also in results.arrow.gz.
 */
export function latestRunRows<R extends { run_id?: Cell; study?: Cell; source?: Cell }>(rows: R[]): R[] {
  const latest = new Map<string, string>();
  for (const r of rows) {
    if (r.source !== "measured") continue;
    const study = String(r.study);
    if ((latest.get(study) ?? "") < String(r.run_id)) latest.set(study, String(r.run_id));
  }
  return rows.filter((r) => r.source === "measured" && latest.get(String(r.study)) === String(r.run_id));
}
