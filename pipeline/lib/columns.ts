import recordSchema from "../schema/record.schema.json" with { type: "json" };

// The DuckDB type of a results column, from the record schema: integer → INTEGER, number → DOUBLE,
// anything else (and publish's provenance columns, which the schema does not have) → VARCHAR. One
// mapping for publish's results.arrow.gz and Explore's read_csv, so both give the same table.

export type ColumnType = "INTEGER" | "DOUBLE" | "VARCHAR";

const props = recordSchema.properties as Record<string, { type?: string | string[] }>;

export function columnType(column: string): ColumnType {
  const t = props[column]?.type;
  const types = Array.isArray(t) ? t : [t];
  return types.includes("integer") ? "INTEGER" : types.includes("number") ? "DOUBLE" : "VARCHAR";
}
