import { ParseError } from "../lib/errors.ts";

// A tool's JSON report, possibly preceded by log lines: parse from the first "{" on, and name the
// file (or stream) in the error when it is not one JSON document. Shared by the MCP parsers.
export function parseJson(text: string, what: string): unknown {
  const start = text.indexOf("{");
  if (start < 0) throw new ParseError(`${what} has no JSON object`);
  try {
    return JSON.parse(text.slice(start));
  } catch (e) {
    throw new ParseError(`${what} is not one JSON document: ${(e as Error).message}`);
  }
}
