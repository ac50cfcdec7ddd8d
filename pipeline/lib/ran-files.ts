import ranSchema from "../schema/ran.schema.json" with { type: "json" };
import type { RanCell } from "../schema/types.ts";

// The what-ran files a cell folder may keep (bench-scripts/studies/<st>/README.md names them), in the
// order a page shows them: how the cell runs, then its SQL in execution order. Defined once, in
// pipeline/schema/ran.schema.json; publish collects these and the site orders them by this list.
export type RanFileName = RanCell["files"][number]["name"];
export const RAN_FILES = ranSchema.$defs.cell.properties.files.items.properties.name.enum as readonly RanFileName[];
