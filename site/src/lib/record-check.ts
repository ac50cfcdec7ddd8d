// Checks a reader's own records.csv / records.jsonl (from data/runs/<id>/) in the browser against the
// record schema (pipeline/schema/record.schema.json, the same contract samebox publish enforces).
// Nothing is uploaded: Explore calls this on the File the reader dropped or picked.
import { Ajv2020 } from "ajv/dist/2020.js";
import { csvParse } from "d3-dsv";
import recordSchema from "../../../pipeline/schema/record.schema.json";

export type RecordRow = Record<string, string | number | null>;
const columns: string[] = recordSchema.required;
const props = recordSchema.properties as Record<string, { type?: string | string[] }>;
const validate = new Ajv2020({ allErrors: false, strict: false }).compile(recordSchema);
export const MAX_FILE_BYTES = 50 * 1024 * 1024;
export const MAX_ROWS = 200_000;

export class RecordFileError extends Error {}

function typed(column: string, raw: string): string | number | null {
  const t = props[column]?.type;
  const types = Array.isArray(t) ? t : [t];
  if (raw === "" && types.includes("null")) return null;
  if (types.includes("integer") || types.includes("number")) {
    const n = raw.trim() === "" ? NaN : Number(raw);
    return Number.isFinite(n) ? n : (raw as unknown as number); // left as text: the schema check names it
  }
  return raw;
}

/** Parses and validates; throws RecordFileError with one line naming the file, row, field and what is valid. */
export function parseRecordFile(name: string, text: string): RecordRow[] {
  const lower = name.toLowerCase();
  let rows: RecordRow[];
  let rowLabel: (i: number) => string;
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) {
    const lines = text.split(/\r?\n/);
    rows = [];
    const lineOf: number[] = [];
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      try {
        rows.push(JSON.parse(line));
        lineOf.push(i + 1);
      } catch (e) {
        throw new RecordFileError(
          `${name} line ${i + 1}: not valid JSON (${(e as Error).message}); each line must be one record object`,
        );
      }
    });
    rowLabel = (i) => `line ${lineOf[i]}`;
  } else if (lower.endsWith(".csv")) {
    const parsed = csvParse(text);
    const missing = columns.filter((c) => !parsed.columns.includes(c));
    if (missing.length)
      throw new RecordFileError(
        `${name}: header lacks ${missing.map((c) => `"${c}"`).join(", ")}; a records.csv header has ${columns.join(",")}`,
      );
    rows = parsed.map((r) => Object.fromEntries(parsed.columns.map((c) => [c, typed(c, r[c] ?? "")])));
    rowLabel = (i) => `row ${i + 1} (line ${i + 2})`;
  } else {
    throw new RecordFileError(
      `${name}: not a records file; drop records.csv or records.jsonl from a data/runs/<run-id>/ folder`,
    );
  }
  if (rows.length === 0) throw new RecordFileError(`${name}: no records; a run's records file has one record per line`);
  if (rows.length > MAX_ROWS)
    throw new RecordFileError(
      `${name}: ${rows.length} records, more than the ${MAX_ROWS} Explore loads; drop one run's file`,
    );
  rows.forEach((r, i) => {
    if (!validate(r)) {
      const e = validate.errors![0];
      const field = e.instancePath
        ? e.instancePath.slice(1)
        : ((e.params as { additionalProperty?: string; missingProperty?: string }).additionalProperty ??
          (e.params as { missingProperty?: string }).missingProperty ??
          "(record)");
      const got = e.instancePath ? ` (got ${JSON.stringify(r[field])})` : "";
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
      throw new RecordFileError(
        `${name} ${rowLabel(i)}, field "${field}": ${e.message}${allowed ? ` ${allowed.join(", ")}` : ""}${got}; records must follow pipeline/schema/record.schema.json`,
      );
    }
    if (r.source !== "measured")
      throw new RecordFileError(
        `${name} ${rowLabel(i)}, field "source": "${r.source}" — only measured records (a data/runs/<run-id>/ file) can be compared`,
      );
  });
  return rows;
}
