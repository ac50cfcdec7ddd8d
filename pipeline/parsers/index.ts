import type { Measurement } from "../lib/records.ts";
import { oneOf } from "../lib/errors.ts";
import type { WorkloadFile } from "../schema/types.ts";
import * as sysbench from "./sysbench.ts";
import * as pgbench from "./pgbench.ts";
import * as hyperfine from "./hyperfine.ts";
import * as pgwireTp from "./pgwire-tp.ts";
import * as mcpLoad from "./mcp-load.ts";
import * as k6 from "./k6.ts";
import * as reserva from "./reserva.ts";
import * as mcpServers from "./mcp-servers.ts";
import * as mcpConformance from "./mcp-conformance.ts";

export interface ParseContext {
  cellDir: string;
  stdout: string;
  workload: Record<string, unknown>;
}
export type Parser = (ctx: ParseContext) => Measurement[];

// A workload's "tool" names its parser here. Adding a tool = one parser file + one line, and its name in
// pipeline/schema/workload.schema.json (then npm run gen-types): the type makes the two lists agree.
export type Tool = WorkloadFile["tool"];
export const parsers: Record<Tool, Parser> = {
  sysbench: sysbench.parse,
  pgbench: pgbench.parse,
  hyperfine: hyperfine.parse,
  "pgwire-tp": pgwireTp.parse,
  "mcp-load": mcpLoad.parse,
  k6: k6.parse,
  reserva: reserva.parse,
  "mcp-servers": mcpServers.parse,
  "mcp-conformance": mcpConformance.parse,
};

const isTool = (tool: string): tool is Tool => Object.hasOwn(parsers, tool);

export function parserFor(tool: string): Parser {
  if (!isTool(tool)) throw oneOf("tool", tool, Object.keys(parsers));
  return parsers[tool];
}
