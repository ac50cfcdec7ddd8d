import { csvFormat, csvParse } from "d3-dsv";
import { ParseError } from "./errors.ts";
import { recordColumns, validateRecord, describeErrors } from "./schema.ts";
import type { ResultRecord } from "../schema/types.ts";
import { cellIdentity } from "./servers.ts";
import { legacyServer } from "./servers-catalog.ts";
import type { ServerSplit } from "./servers.ts";

// The record's shape is pipeline/schema/record.schema.json, via the generated types.
export type { ResultRecord };
export type Unit = ResultRecord["unit"];

// What a parser returns: one number of one cell. The runner adds the cell's identity (and t, variant,
// repetition where the parser does not set them).
export type Measurement = Pick<ResultRecord, "metric" | "value" | "unit"> &
  Partial<Pick<ResultRecord, "t" | "variant" | "repetition">>;

/**
 * The cell a record belongs to: run cells and records share these fields (a cell's id is not on its records).
 * A cell of a study with servers has its verb variant (<server>-<state>) and its server; its records the
 * server and the state: both give the same key (servers.ts cellIdentity).
 */
export const cellKey = (
  c: Pick<ResultRecord, "study" | "workload" | "system" | "variant" | "concurrency" | "repetition"> & {
    server?: string;
  },
): string => {
  const id = cellIdentity(c);
  return [c.study, c.workload, c.system, id.server, id.variant, c.concurrency, c.repetition].join("\u0000");
};

/** How a row written before the server column gets its server and state (default: the study folder's rule). */
export type LegacyServer = (r: { study: string; workload: string; variant: string }) => ServerSplit;

/** A row without a server field (old runs, data/published) with server and variant derived; others as they are. */
function withServer(rec: Record<string, unknown>, legacy: LegacyServer): Record<string, unknown> {
  if (
    rec.server !== undefined ||
    typeof rec.study !== "string" ||
    typeof rec.workload !== "string" ||
    typeof rec.variant !== "string"
  )
    return rec;
  return { ...rec, ...legacy({ study: rec.study, workload: rec.workload, variant: rec.variant }) };
}

export function toCsv(records: ResultRecord[]): string {
  // t=null is written as an empty field, read back as null.
  return (
    csvFormat(records.map((r) => ({ ...r, t: r.t ?? "" })) as unknown as Record<string, string>[], recordColumns) + "\n"
  );
}

export function toJsonl(records: ResultRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join("\n") + (records.length ? "\n" : "");
}

// Reads records.csv / data/published/*.csv; every row is checked against the schema and the first
// bad row is reported by file and line. A file from before the server column gets it derived (LEGACY).
export function fromCsv(text: string, fileLabel: string, legacy: LegacyServer = legacyServer): ResultRecord[] {
  const rows = csvParse(text);
  const missing = recordColumns.filter((c) => !rows.columns.includes(c) && c !== "server");
  if (missing.length)
    throw new ParseError(
      `${fileLabel}: missing column(s) ${missing.join(", ")}; expected header: ${recordColumns.join(",")}`,
    );
  return rows.map((row, i) => {
    const rec: Record<string, unknown> = withServer(
      {
        ...row,
        concurrency: Number(row.concurrency),
        repetition: Number(row.repetition),
        value: Number(row.value),
        t: row.t === "" || row.t === undefined ? null : Number(row.t),
      },
      legacy,
    );
    for (const k of Object.keys(rec)) if (!recordColumns.includes(k)) delete rec[k];
    if (!validateRecord(rec))
      throw new ParseError(`${fileLabel} line ${i + 2}: ${describeErrors(validateRecord.errors)}`);
    return rec;
  });
}

export function fromJsonl(text: string, fileLabel: string, legacy: LegacyServer = legacyServer): ResultRecord[] {
  return text
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line, i) => {
      let rec: unknown;
      try {
        rec = JSON.parse(line);
      } catch {
        throw new ParseError(`${fileLabel} line ${i + 1}: not JSON`);
      }
      if (rec && typeof rec === "object" && !Array.isArray(rec))
        rec = withServer(rec as Record<string, unknown>, legacy);
      if (!validateRecord(rec))
        throw new ParseError(`${fileLabel} line ${i + 1}: ${describeErrors(validateRecord.errors)}`);
      return rec;
    });
}
