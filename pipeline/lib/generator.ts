// Whether a cell measured the system under test or its load generator. Read from the cell's own records
// (the MCP studies' parsers record both sides' CPU over the measured window and the open loop's dropped
// arrivals), with two rules fixed before any run was judged by them:
// - excluded: the generator dropped more than DROP_LIMIT of the calls it planned (an open loop that
//   could not keep its schedule measured a different load than the one compared). The cell is kept and
//   shown, and left out of verdicts.
// - saturated (isolated cells: the run verb gave the generator CPUs of its own, recorded as loadgen_cpus):
//   the generator's CPU set was at least SATURATED busy over the measured window, so the generator's side,
//   not the server, set the rate. Excluded as above. The set's busy share counts the generator and the
//   dependencies the run verb pins beside it (mcp-servers' Redis and API service, DEPENDENCY_CPU_METRICS):
//   they take the generator's share of that set, and the server's CPUs stay partly idle while it is full.
// - generator-bound (shared cells): the generator spent at least as much CPU per call as the server it
//   measured while the two shared the machine's cores. The figure then says partly how much CPU the server
//   left to the generator; it stays (it is the seed's method where the seed's tool is the generator) and is
//   marked.
import type { ResultRecord } from "../schema/types.ts";
import { runCellKey } from "./servers.ts";

/** More than this fraction of planned calls dropped leaves a cell out of verdicts. */
export const DROP_LIMIT = 0.01;
/** An isolated generator's CPU set at least this busy was the bottleneck. */
export const SATURATED = 0.9;
/** CPU per 1,000 calls of the dependencies an isolated run pins with the generator (mcp-servers/_lib.sh). */
export const DEPENDENCY_CPU_METRICS = ["redis_cpu_per_1k_calls", "api_cpu_per_1k_calls"];

export interface GeneratorAssessment {
  /** The generator's CPU per call sent, µs (loadgen_cpu_per_call, else client_cpu_per_call). */
  generatorCpuPerCallUs?: number;
  /** The server's CPU per call, µs (server_cpu_per_1k_calls). */
  serverCpuPerCallUs?: number;
  /** The generator's CPU over the measured window, % of one core. */
  generatorCpuPct?: number;
  /** Isolated: the generator's and its pinned dependencies' CPU over the measured window, % of one core. */
  generatorSetCpuPct?: number;
  /** Calls the open loop planned but never sent, as a fraction of the planned ones; 0 for a closed loop. */
  droppedFraction?: number;
  /** Calls sent ÷ calls planned (1 − droppedFraction). */
  achievedOfPlanned?: number;
  /** The generator's own CPUs when the run isolated it (loadgen_cpus), else absent: shared cores. */
  generatorCpus?: number;
  /** Isolated and at least SATURATED busy on its own CPUs. */
  saturated: boolean;
  generatorBound: boolean;
  excluded: boolean;
  /** Why it is bound or excluded, in a sentence; absent when neither. */
  reason?: string;
}

const us = (x: number) => `${Math.round(x)} µs`;

/** One cell's assessment from its scalar records; undefined when the cell recorded nothing about its generator. */
export function assessGenerator(cellRecords: ResultRecord[]): GeneratorAssessment | undefined {
  const v = (metric: string) => cellRecords.find((r) => r.metric === metric && r.t === null)?.value;
  const gen = v("loadgen_cpu_per_call") ?? v("client_cpu_per_call");
  const serverPerK = v("server_cpu_per_1k_calls");
  const server = serverPerK === undefined ? undefined : serverPerK * 1000;
  const calls = v("calls");
  const dropped = v("dropped");
  if (gen === undefined && dropped === undefined) return undefined;
  // mcp-load counts a dropped arrival in calls (as an error): the planned calls are the calls.
  const droppedFraction = dropped !== undefined && calls ? dropped / calls : dropped !== undefined ? 0 : undefined;
  const ownCpus = v("loadgen_cpus");
  const busy = ownCpus === undefined ? undefined : generatorSetBusy(v);
  const saturated = ownCpus !== undefined && busy !== undefined && busy >= 100 * SATURATED * ownCpus;
  const dropping = droppedFraction !== undefined && droppedFraction > DROP_LIMIT;
  const excluded = dropping || saturated;
  const generatorBound = ownCpus === undefined && gen !== undefined && server !== undefined && gen >= server;
  const reasons: string[] = [];
  if (saturated)
    reasons.push(
      `the generator and the dependencies beside it kept its ${ownCpus} CPU${ownCpus === 1 ? "" : "s"} ${Math.round(busy!)} % busy (at least ${100 * SATURATED} % of ${100 * ownCpus!} %): saturated, left out of verdicts`,
    );
  if (dropping)
    reasons.push(
      `the generator dropped ${(100 * droppedFraction!).toFixed(1)} % of its planned calls (more than ${100 * DROP_LIMIT} %): left out of verdicts`,
    );
  if (generatorBound)
    reasons.push(
      `the generator used ${us(gen!)} of CPU per call, the server ${us(server!)}, on shared cores: generator-bound`,
    );
  return {
    ...(gen !== undefined ? { generatorCpuPerCallUs: gen } : {}),
    ...(server !== undefined ? { serverCpuPerCallUs: server } : {}),
    ...(v("loadgen_cpu_util") !== undefined ? { generatorCpuPct: v("loadgen_cpu_util") } : {}),
    ...(busy !== undefined ? { generatorSetCpuPct: busy } : {}),
    ...(droppedFraction !== undefined ? { droppedFraction, achievedOfPlanned: 1 - droppedFraction } : {}),
    ...(ownCpus !== undefined ? { generatorCpus: ownCpus } : {}),
    saturated,
    generatorBound,
    excluded,
    ...(reasons.length ? { reason: reasons.join("; ") } : {}),
  };
}

/**
 * % of one core the generator's CPU set was busy: the generator's own loadgen_cpu_util plus each pinned
 * dependency's CPU per 1,000 calls at the cell's call rate (throughput, calls/s over the same window).
 */
function generatorSetBusy(v: (metric: string) => number | undefined): number | undefined {
  const own = v("loadgen_cpu_util");
  if (own === undefined) return undefined;
  const rate = v("throughput");
  const deps = DEPENDENCY_CPU_METRICS.map((m) => v(m) ?? 0).reduce((a, b) => a + b, 0);
  return rate === undefined ? own : own + (deps * rate) / 10;
}

/** The key of the cell a record of run RUN_ID belongs to (servers.ts runCellKey). */
export function generatorCellKey(r: Parameters<typeof runCellKey>[0] & { run_id: string }): string {
  return runCellKey(r, r.run_id);
}

/** Each cell's assessment, by generatorCellKey, for the measured scalar records given. */
export function assessCells(records: ResultRecord[]): Map<string, GeneratorAssessment> {
  const byCell = new Map<string, ResultRecord[]>();
  for (const r of records) {
    if (r.source !== "measured" || r.t !== null) continue;
    const k = generatorCellKey(r);
    const g = byCell.get(k);
    if (g) g.push(r);
    else byCell.set(k, [r]);
  }
  const out = new Map<string, GeneratorAssessment>();
  for (const [k, rs] of byCell) {
    const a = assessGenerator(rs);
    if (a) out.set(k, a);
  }
  return out;
}

/** The records minus those of cells whose generator is excluded (DROP_LIMIT, SATURATED). */
export function withoutExcludedGenerators(records: ResultRecord[]): ResultRecord[] {
  const cells = assessCells(records);
  return records.filter((r) => !cells.get(generatorCellKey(r))?.excluded);
}
