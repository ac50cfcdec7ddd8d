// Explore's result: DuckDB's answer as plain columns and rows, the table (first TABLE_ROW_LIMIT rows) and
// the CSV download of every row; and the read_csv call for CSV files (results.csv, a dropped run).
import type * as duckdb from "@duckdb/duckdb-wasm";
import { csvFormat } from "d3-dsv";
import { formatCell } from "../lib/explore-format.ts";
import type { Column, Row } from "./explore-chart.ts";

export const TABLE_ROW_LIMIT = 1000;

export function readCsv(file: string, types: Record<string, string>): string {
  const columns = Object.entries(types)
    .map(([name, type]) => `'${name}': '${type}'`)
    .join(", ");
  return `read_csv('${file}', header = true, auto_detect = false, delim = ',', quote = '"', escape = '"', columns = {${columns}})`;
}

function isNumericType(typeId: number): boolean {
  // Arrow type ids: Int = 2, Float = 3, Decimal = 7.
  return typeId === 2 || typeId === 3 || typeId === 7;
}

export async function query(
  text: string,
  c: duckdb.AsyncDuckDBConnection,
): Promise<{ columns: Column[]; rows: Row[] }> {
  const table = await c.query(text);
  const columns: Column[] = table.schema.fields.map((f) => ({ name: f.name, numeric: isNumericType(f.type.typeId) }));
  const rows: Row[] = table.toArray().map((r) => {
    const o = r.toJSON() as Row;
    for (const k of Object.keys(o)) if (typeof o[k] === "bigint") o[k] = Number(o[k]);
    return o;
  });
  return { columns, rows };
}

export function resultTable(columns: Column[], rows: Row[]): HTMLTableElement {
  const table = document.createElement("table");
  const caption = table.createCaption();
  caption.textContent = "Query result";
  const head = table.createTHead().insertRow();
  for (const c of columns) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = c.name;
    if (c.numeric) th.className = "num";
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const row of rows.slice(0, TABLE_ROW_LIMIT)) {
    const tr = body.insertRow();
    for (const c of columns) {
      const td = tr.insertCell();
      td.textContent = formatCell(row[c.name]);
      if (c.numeric) td.className = "num";
    }
  }
  return table;
}

export function downloadCsv(lastResult: { columns: Column[]; rows: Row[] }): void {
  const text = csvFormat(
    lastResult.rows.map((r) =>
      Object.fromEntries(
        lastResult.columns.map((c) => [c.name, r[c.name] === null || r[c.name] === undefined ? "" : String(r[c.name])]),
      ),
    ),
    lastResult.columns.map((c) => c.name),
  );
  const blob = new Blob([text + "\n"], { type: "text/csv" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = "samebox-query.csv";
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}
