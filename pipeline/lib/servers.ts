// The server dimension of a study whose cells run behind a server (mcp-db: the MCP server between the
// load client and the database). Its verbs take VARIANT=<server>-<state> (study.json variants.servers,
// e.g. faucet-indexed) or a workload's pinned variant (the client ceiling's trivial, against the workload's
// trivial_server, mcp-null); its records carry the server and the state apart: server faucet, variant
// indexed. Runs from before the record's server column (and manifests before the cell's server) are read
// with both derived by the same rule from the study folder (servers-catalog.ts): old run folders are never
// rewritten. Pure (no file system): the site and verdicts.ts use it.
import type { StudyFile, WorkloadFile } from "../schema/types.ts";

export interface ServerSplit {
  server: string;
  variant: string;
}

/** What a study says about its servers: the servers its variants start with, and the server a workload pins. */
export interface ServerRule {
  servers: string[];
  pinned: Record<string, string>;
}

/** The study's server rule (study.json variants.servers, workloads' trivial_server); undefined: a study without servers. */
export function serverRule(def: Pick<StudyFile, "variants"> & { workloads: WorkloadFile[] }): ServerRule | undefined {
  const v = def.variants as { servers?: unknown } | undefined;
  const servers =
    v && !Array.isArray(v) && Array.isArray(v.servers)
      ? v.servers.filter((s): s is string => typeof s === "string")
      : [];
  const pinned: Record<string, string> = {};
  for (const w of def.workloads) if (typeof w.trivial_server === "string") pinned[w.name] = w.trivial_server;
  return servers.length || Object.keys(pinned).length ? { servers, pinned } : undefined;
}

/**
 * A verb variant of WORKLOAD as server and state: <server>-<state> when server is one of the study's, a
 * server's name alone as that server with no state (seed 000's published improvement factors, whose
 * variant was the server), a pinned workload's server, else no server.
 */
export function splitServer(rule: ServerRule | undefined, workload: string, variant: string): ServerSplit {
  if (!rule) return { server: "", variant };
  if (rule.servers.includes(variant)) return { server: variant, variant: "" };
  const server = rule.servers.find((s) => variant.startsWith(`${s}-`));
  if (server) return { server, variant: variant.slice(server.length + 1) };
  return { server: rule.pinned[workload] ?? "", variant };
}

/** The state part of a cell's variant: its variant without the '<server>-' prefix (a record's variant is already the state). */
export function stateOf(c: { server?: string; variant: string }): string {
  return c.server && c.variant.startsWith(`${c.server}-`) ? c.variant.slice(c.server.length + 1) : c.variant;
}

/** A cell (or record) as its records name it: server ("" when none) and the state as variant. */
export function cellIdentity<C extends { server?: string; variant: string }>(c: C): C & ServerSplit {
  return { ...c, server: c.server ?? "", variant: stateOf(c) };
}

/** The key of a run's cell, the same for the cell (variant <server>-<state>, its server) and its records (server, state). */
export function runCellKey(
  c: {
    study: string;
    workload: string;
    system: string;
    server?: string;
    variant: string;
    concurrency: number;
    repetition: number;
  },
  runId: string,
): string {
  const id = cellIdentity(c);
  return [runId, c.study, c.workload, c.system, id.server, id.variant, c.concurrency, c.repetition].join("\u0000");
}

/** How a page names a cell's or a claim side's server and state together: faucet-indexed (as the verbs and cell ids do); the state alone without a server. */
export function serverVariantLabel(s: { server?: string; variant?: string }): string {
  return [s.server, s.variant].filter(Boolean).join("-");
}
