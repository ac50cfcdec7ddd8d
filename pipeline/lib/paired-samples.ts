// Which records a claim reads and how they pair: a claim's two sides as cell selectors, and one value per
// side in each repetition (pairedSamples). Pure functions, no file system; verdicts.ts judges the pairs and
// re-exports these, so importers of verdicts.ts are unchanged.
import type { Claim, ClaimSide, ResultRecord } from "../schema/types.ts";
import { cellIdentity } from "./servers.ts";
import { repetitionValue } from "./stats.ts";

/** Raw metric values of side a and b in one repetition. */
export interface PairedSample {
  repetition: number;
  a: number;
  b: number;
  /** A claim about each of several workloads (claims.json each_of): the workload this pair measured. */
  workload?: string;
}

/** Which cells a side of a claim needs ("*" workload = every workload; "each": the workloads listed). */
export interface SideSelector {
  workload: string;
  workloads?: string[];
  system: string;
  /** the server (studies with servers, e.g. mcp-db's faucet); absent: any */
  server?: string;
  variant?: string;
  concurrency?: number;
  metric: string;
}

/** The cells a claim needs: its workload and metric, each side's system (and variant/concurrency when pinned). */
export function claimSides(claim: Claim): { a: SideSelector; b: SideSelector } {
  const side = (s: ClaimSide): SideSelector => ({
    workload: claim.workload,
    ...(claim.each_of ? { workloads: claim.each_of } : {}),
    system: s.system,
    ...(s.server !== undefined ? { server: s.server } : {}),
    ...(s.variant !== undefined ? { variant: s.variant } : {}),
    ...(s.concurrency !== undefined ? { concurrency: s.concurrency } : {}),
    metric: claim.metric,
  });
  return { a: side(claim.a), b: side(claim.b) };
}

/** Whether a side's cells include this workload ("*": any; "each": the listed ones). */
export function sideHasWorkload(s: SideSelector, workload: string): boolean {
  return s.workload === "*" || (s.workloads ? s.workloads.includes(workload) : workload === s.workload);
}

/** Whether a planned cell (workload, system, server, variant, concurrency) is one a side of a claim reads (a cell's variant <server>-<state> read as its state, servers.ts). */
export function cellMatchesSide(
  c: { workload: string; system: string; server?: string; variant: string; concurrency: number },
  s: SideSelector,
): boolean {
  const id = cellIdentity(c);
  return (
    sideHasWorkload(s, c.workload) &&
    c.system === s.system &&
    (s.server === undefined || id.server === s.server) &&
    (s.variant === undefined || id.variant === s.variant) &&
    (s.concurrency === undefined || c.concurrency === s.concurrency)
  );
}

/** Whether a claim reads this workload ("*": any; "each": the listed ones). */
export function claimHasWorkload(claim: Claim, workload: string): boolean {
  return claim.workload === "*" || (claim.each_of ?? [claim.workload]).includes(workload);
}

/** The claim's workload in words: "all workloads", "each of aggregate, order_by", or its name. */
export function workloadText(claim: Claim): string {
  if (claim.workload === "*") return "all workloads";
  return claim.each_of ? `each of ${claim.each_of.join(", ")}` : claim.workload;
}

/** One workload of a claim about each of several workloads, as a claim of its own. */
export function memberClaim(claim: Claim, workload: string): Claim {
  const { each_of: _, ...rest } = claim;
  return { ...rest, id: `${claim.id}--${workload}`, workload };
}

/** Paired repetitions a claim has: for a claim about each of several workloads, the fewest any of them has (0 when one is missing). */
export function pairedRepetitions(claim: Claim, samples: PairedSample[]): number {
  if (!claim.each_of) return samples.length;
  return Math.min(...claim.each_of.map((w) => samples.filter((s) => s.workload === w).length));
}

function matchesSide(r: ResultRecord, s: SideSelector): boolean {
  return (
    r.t === null &&
    r.metric === s.metric &&
    r.system === s.system &&
    sideHasWorkload(s, r.workload) &&
    (s.server === undefined || r.server === s.server) &&
    (s.variant === undefined || r.variant === s.variant) &&
    (s.concurrency === undefined || r.concurrency === s.concurrency)
  );
}

const mean = (v: number[]): number => v.reduce((s, x) => s + x, 0) / v.length;

function group<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    const g = m.get(k);
    if (g) g.push(x);
    else m.set(k, [x]);
  }
  return m;
}

/** Per repetition, one value of a side (repetitionValue: a tool's several values of the metric in one repetition count once, as their median). */
function byRepetition(rs: ResultRecord[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const [, g] of group(rs, (r) => String(r.repetition)))
    out.set(g[0].repetition, repetitionValue(g.map((r) => r.value)));
  return out;
}

/**
 * Pairs a and b by repetition within ONE run's measured records (the caller filters the run and leaves out
 * noisy cells). A repetition with several values of the metric (hyperfine's time_run) contributes their
 * median (repetitionValue). Workload "*": per repetition, the mean over the workloads both sides measured in that repetition
 * (never pooling samples across repetitions). When the claim does not pin them, the cell of each side is
 * the highest concurrency both sides ran, then the first server and variant by name.
 */
export function pairedSamples(records: ResultRecord[], claim: Claim): PairedSample[] {
  if (claim.each_of)
    return claim.each_of.flatMap((w) =>
      pairedSamples(records, memberClaim(claim, w)).map((s) => ({ ...s, workload: w })),
    );
  const { a: sa, b: sb } = claimSides(claim);
  const ra = records.filter((r) => matchesSide(r, sa));
  const rb = records.filter((r) => matchesSide(r, sb));
  const pairs: PairedSample[] = [];
  if (claim.workload === "*") {
    // per repetition and workload, each side's value (repetitionValue); then per repetition the mean over the shared workloads
    const cell = (rs: ResultRecord[]) => {
      const m = new Map<number, Map<string, number>>();
      for (const [, g] of group(rs, (r) => `${r.repetition}\u0000${r.workload}`)) {
        const byW = m.get(g[0].repetition) ?? m.set(g[0].repetition, new Map()).get(g[0].repetition)!;
        byW.set(g[0].workload, repetitionValue(g.map((r) => r.value)));
      }
      return m;
    };
    const ca = cell(ra);
    const cb = cell(rb);
    for (const [rep, wa] of [...ca.entries()].sort((x, y) => x[0] - y[0])) {
      const wb = cb.get(rep);
      if (!wb) continue;
      const shared = [...wa.keys()].filter((w) => wb.has(w));
      if (shared.length === 0) continue;
      pairs.push({ repetition: rep, a: mean(shared.map((w) => wa.get(w)!)), b: mean(shared.map((w) => wb.get(w)!)) });
    }
    return pairs;
  }
  const concs = (rs: ResultRecord[]) => new Set(rs.map((r) => r.concurrency));
  const cb = concs(rb);
  const common = [...concs(ra)].filter((k) => cb.has(k));
  if (common.length === 0) return pairs;
  const conc = Math.max(...common);
  const pick = (rs: ResultRecord[]) => {
    const at = rs.filter((r) => r.concurrency === conc);
    const key = (r: ResultRecord) => `${r.server}\u0000${r.variant}`;
    const first = [...new Set(at.map(key))].sort((x, y) => x.localeCompare(y))[0];
    return byRepetition(at.filter((r) => key(r) === first));
  };
  const pa = pick(ra);
  const pb = pick(rb);
  for (const [rep, a] of [...pa.entries()].sort((x, y) => x[0] - y[0])) {
    const b = pb.get(rep);
    if (b !== undefined) pairs.push({ repetition: rep, a, b });
  }
  return pairs;
}
