import type { Measurement } from "../lib/records.ts";
import { oneOf } from "../lib/errors.ts";
import * as sysbench from "./sysbench.ts";
import * as pgbench from "./pgbench.ts";
import * as hyperfine from "./hyperfine.ts";
import * as pgwireTp from "./pgwire-tp.ts";
import * as mcpLoad from "./mcp-load.ts";
import * as k6 from "./k6.ts";
import * as reserva from "./reserva.ts";
import * as mcpServers from "./mcp-servers.ts";

export interface ParseContext {
  cellDir: string;
  stdout: string;
  workload: Record<string, unknown>;
}
export type Parser = (ctx: ParseContext) => Measurement[];

// A workload's "tool" names its parser here. Adding a tool = one parser file + one line.
export const parsers: Record<string, Parser> = {
  sysbench: sysbench.parse,
  pgbench: pgbench.parse,
  hyperfine: hyperfine.parse,
  "pgwire-tp": pgwireTp.parse,
  "mcp-load": mcpLoad.parse,
  k6: k6.parse,
  reserva: reserva.parse,
  "mcp-servers": mcpServers.parse,
};

export function parserFor(tool: string): Parser {
  const p = parsers[tool];
  if (!p) throw oneOf("tool", tool, Object.keys(parsers));
  return p;
}
