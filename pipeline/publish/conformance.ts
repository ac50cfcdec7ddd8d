import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { readReport, type Report } from "../parsers/mcp-conformance.ts";
import { cellIdentity } from "../lib/servers.ts";
import type { ManifestLike } from "./provenance.ts";

// ---- conformance: records carry 1/0 per scenario only; each failure's message, the suite's
// version and the spec revisions checked stay in the cell folder (conformance.json, else stdout.txt, the
// report of mcp-servers/suite-conformance). conformance.json gives the site one entry per ok cell.
export interface ConformanceScenario {
  scenario: string;
  status: "pass" | "fail";
  message: string;
  spec_revisions: string[];
  own: boolean;
}
export interface ConformanceNegotiated {
  client: string;
  requested: string;
  answered: string | null;
  message: string;
}
export interface ConformanceReport {
  run_id: string;
  study: string;
  system: string;
  server: string;
  variant: string;
  cell: string;
  suite_version: string;
  scenarios: ConformanceScenario[];
  negotiated: ConformanceNegotiated[];
}

export function collectConformance(manifests: ManifestLike[], runs: string): ConformanceReport[] {
  const out: ConformanceReport[] = [];
  for (const m of manifests) {
    for (const c of m.cells ?? []) {
      if (c.workload !== "conformance" || c.status !== "ok" || c.id.includes("/") || c.id.includes("..")) continue;
      const dir = path.join(runs, m.run_id, "cells", c.id);
      const file = ["conformance.json", "stdout.txt"].map((f) => path.join(dir, f)).find((f) => existsSync(f));
      if (!file) continue;
      let doc: Report;
      try {
        doc = readReport(readFileSync(file, "utf8"));
      } catch {
        continue; // not a report (the parser would have failed the cell)
      }
      const { server, variant } = cellIdentity(c);
      out.push({
        run_id: m.run_id,
        study: c.study,
        system: c.system,
        server,
        variant,
        cell: c.id,
        suite_version: doc.suite_version,
        scenarios: doc.scenarios.map((s) => ({
          scenario: s.scenario,
          status: s.status,
          message: s.message ?? "",
          spec_revisions: (s.spec_revisions ?? []).map(String),
          own: s.own === true,
        })),
        negotiated: (doc.negotiated ?? []).map((n) => ({
          client: String(n.client ?? ""),
          requested: n.requested,
          answered: n.answered,
          message: n.message ?? "",
        })),
      });
    }
  }
  return out;
}
