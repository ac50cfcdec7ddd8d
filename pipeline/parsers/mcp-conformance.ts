import { ParseError } from "../lib/errors.ts";
import type { Measurement } from "../lib/records.ts";
import { parseJson } from "./json-output.ts";

// The conformance workload of the MCP studies: stdout is the report of
// bench-scripts/studies/mcp-servers/suite-conformance, which ran the official suite
// (@modelcontextprotocol/conformance) scenario by scenario against one server. Records carry numbers
// only, so each scenario is one record conformance_<scenario> (1 = passed, 0 = failed; a hung scenario
// is failed), plus conformance_passed and conformance_applicable; the suite version, spec revisions and
// each failure's message stay in the cell folder (conformance.json and the suite's checks.json files).
// The report also carries samebox's own checks as scenarios marked own (recorded the same way) and, not
// as records, the protocol revision the server answered per client revision ("negotiated").

export interface ScenarioResult {
  scenario: string;
  status: "pass" | "fail";
  message?: string;
  spec_revisions?: string[];
  /** samebox's own check (own_checks.py: invalid-arguments-rejected, unknown-tool-rejected), not the suite's. */
  own?: boolean;
}
/** The protocolVersion the server answered to initialize for one client revision (null: initialize failed, see message). */
export interface Negotiated {
  client: string;
  requested: string;
  answered: string | null;
  message?: string;
}
export interface Report {
  tool: "mcp-conformance";
  suite_version: string;
  applicable: number;
  passed: number;
  scenarios: ScenarioResult[];
  negotiated?: Negotiated[];
}

const SCENARIO = /^[a-z0-9][a-z0-9-]*$/;

/** The record metric of one scenario: conformance_server_initialize for server-initialize. */
export const scenarioMetric = (scenario: string): string => `conformance_${scenario.replaceAll("-", "_")}`;

/** The suite-conformance report in TEXT (a cell's stdout.txt or conformance.json), checked; ParseError if it is not one. */
export function readReport(text: string): Report {
  return validReport(parseJson(text, "conformance report"));
}

function validReport(doc: unknown): Report {
  const r = doc as Partial<Report>;
  if (r?.tool !== "mcp-conformance")
    throw new ParseError(`conformance report: tool is ${JSON.stringify(r?.tool)}, expected "mcp-conformance"`);
  if (!Array.isArray(r.scenarios) || r.scenarios.length === 0)
    throw new ParseError("conformance report: no scenarios (expected at least one applicable scenario)");
  for (const s of r.scenarios) {
    if (typeof s?.scenario !== "string" || !SCENARIO.test(s.scenario))
      throw new ParseError(
        `conformance report: scenario name ${JSON.stringify(s?.scenario)} is not valid (lowercase words joined by -)`,
      );
    if (s.status !== "pass" && s.status !== "fail")
      throw new ParseError(
        `conformance report: ${s.scenario} has status ${JSON.stringify(s.status)} (valid: pass, fail)`,
      );
  }
  if (
    r.negotiated !== undefined &&
    (!Array.isArray(r.negotiated) ||
      r.negotiated.some(
        (n) => typeof n?.requested !== "string" || (n.answered !== null && typeof n.answered !== "string"),
      ))
  ) {
    throw new ParseError(
      "conformance report: negotiated must be a list of {client, requested, answered (string or null)}",
    );
  }
  return r as Report;
}

export function parse(ctx: { stdout: string }): Measurement[] {
  const report = readReport(ctx.stdout);
  const perScenario: Measurement[] = report.scenarios.map((s) => ({
    metric: scenarioMetric(s.scenario),
    value: s.status === "pass" ? 1 : 0,
    unit: "count",
  }));
  const passed = report.scenarios.filter((s) => s.status === "pass").length;
  return [
    ...perScenario,
    { metric: "conformance_passed", value: passed, unit: "count" },
    { metric: "conformance_applicable", value: report.scenarios.length, unit: "count" },
  ];
}
