// The server rule of a study read from its folder (bench-scripts/studies/<st>/study.json and workloads):
// how rows and manifest cells from before the server field get it (servers.ts says what the rule is).
import { loadStudy, studyNames } from "./catalog.ts";
import { splitServer, serverRule } from "./servers.ts";
import type { ServerRule, ServerSplit } from "./servers.ts";

const rules = new Map<string, ServerRule | undefined>();

/** The rule of a study from its folder (cached); a study no longer in bench-scripts/studies has none. */
export function catalogRule(study: string): ServerRule | undefined {
  if (!rules.has(study)) rules.set(study, studyNames().includes(study) ? serverRule(loadStudy(study)) : undefined);
  return rules.get(study);
}

/** Server and state of a row written before the server column (records of old runs, data/published): derived from the study folder. */
export function legacyServer(r: { study: string; workload: string; variant: string }): ServerSplit {
  return splitServer(catalogRule(r.study), r.workload, r.variant);
}

/** A manifest cell with its server: as written (new runs), else derived from the study folder (runs from before the field). */
export function withCellServer<C extends { study: string; workload: string; variant: string; server?: string }>(
  c: C,
): C {
  if (c.server !== undefined) return c;
  const { server } = legacyServer(c);
  return server ? { ...c, server } : c;
}

/** A claims file kept by a run from before claim sides named their server (variant <server>-<state>): each such side as server + state. */
export function withSideServers<F extends { claims: Array<{ workload: string; a: Side; b: Side }> }>(
  study: string,
  file: F,
): F {
  const rule = catalogRule(study);
  if (!rule) return file;
  const side = (workload: string, s: Side): Side => {
    if (s.server !== undefined || s.variant === undefined) return s;
    const split = splitServer(rule, workload, s.variant);
    return split.server ? { ...s, server: split.server, variant: split.variant } : s;
  };
  return { ...file, claims: file.claims.map((c) => ({ ...c, a: side(c.workload, c.a), b: side(c.workload, c.b) })) };
}
type Side = { system: string; server?: string; variant?: string; concurrency?: number };
