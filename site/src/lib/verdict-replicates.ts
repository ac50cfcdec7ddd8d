// A claim's replicate runs as the reproduce pages show them: the experiment of its chosen run combined
// (pipeline/lib/replicates.ts) and judged by the claim's rule, each replicate's own interval, the host types, the
// claim's other experiments beside it, and the published judgement they give from two replicates on.
import type { ResultRecord, RunManifest } from "./data.ts";
import type { ClaimVerdict, FdrMark } from "./verdicts.ts";
import {
  DEFAULT_JUDGE_OPTIONS,
  fmtRatio,
  judgeLogInterval,
  pairedSamples,
  type Verdict,
} from "../../../pipeline/lib/verdicts.ts";
import { claimReplicates, experimentsDisagree } from "../../../pipeline/lib/replicates.ts";
import { tQuantile } from "../../../pipeline/lib/stats.ts";
import type { Claim } from "../../../pipeline/schema/types.ts";

const MIN_REPETITIONS = DEFAULT_JUDGE_OPTIONS.minRepetitions;

export interface ReplicatesView {
  k: number;
  hosts: string[];
  ratio: number;
  lo: number;
  hi: number;
  /** a new run's ratio, 95 % (from 3 replicates on) */
  predLo?: number;
  predHi?: number;
  /** between-run standard deviation of the log ratio */
  tau: number;
  /** judged from the combined interval, "undecided" when host-dependent */
  verdict: Verdict;
  /**
   * Host types disagree: two different decided verdicts (reproduces, does not reproduce, tie) among the host types'
   * own combinations and the combination over all of them. The verdict is then undecided, scoped by host type.
   */
  hostDependent: boolean;
  /** the verdict the combined interval gives by itself (equal to verdict unless host-dependent) */
  intervalVerdict: Verdict;
  byHost: Array<{ host: string; k: number; ratio: number; verdict: Verdict }>;
  runIds: string[];
  /** the across-runs verdict under the study's false-discovery-rate control */
  fdr?: FdrMark;
  /** each replicate's own ratio with its single-run 95 % Student-t interval (the forest plot's rows) and its verdict alone */
  perRun: Array<{ run_id: string; host: string; n: number; ratio: number; lo: number; hi: number; verdict: Verdict }>;
  /** replicates whose own interval decides otherwise than the combination: host type, that verdict, how many runs */
  contrary: Array<{ host: string; verdict: Verdict; runs: number }>;
  /**
   * The claim's other experiments (runs under other settings: data size, duration, threads, repeat counts, ...),
   * newest first, each combined and judged, and whether its estimate disagrees with this one beyond both intervals.
   */
  others: Array<{
    differs: Array<{ key: string; here: string; there: string }>;
    k: number;
    hosts: number;
    ratio: number;
    lo: number;
    hi: number;
    verdict: Verdict;
    disagrees: boolean;
  }>;
  /** some other experiment's estimate disagrees with this one's beyond both intervals (replicates.ts experimentsDisagree) */
  scaleDependent: boolean;
}

/** The claim's replicates in the experiment of its chosen run, combined and judged. */
export function replicatesView(
  claim: Claim,
  study: string,
  anchor: RunManifest,
  runs: RunManifest[],
  counted: ResultRecord[],
  countedByRun: Map<string, ResultRecord[]>,
): ReplicatesView | undefined {
  const samplesOf = (m: RunManifest) => pairedSamples(countedByRun.get(m.run_id) ?? [], claim);
  const rep = claimReplicates(claim, study, anchor, runs, counted, samplesOf, MIN_REPETITIONS);
  if (!rep?.combined) return undefined;
  const c = rep.combined;
  const judge = (x: typeof c) => judgeLogInterval(claim, { n: x.k, m: x.m, h: x.h, level: x.level }).verdict;
  const byHost = rep.byHost.map((b) => ({
    host: b.host,
    k: b.combined.k,
    ratio: Math.exp(b.combined.m),
    verdict: judge(b.combined),
  }));
  const intervalVerdict = judge(c);
  const others = rep.others.map((o) => ({
    differs: o.differs,
    k: o.combined.k,
    hosts: o.combined.hosts.length,
    ratio: Math.exp(o.combined.m),
    lo: Math.exp(o.combined.m - o.combined.h),
    hi: Math.exp(o.combined.m + o.combined.h),
    verdict: judge(o.combined),
    disagrees: experimentsDisagree(c, o.combined),
  }));
  const perRun = rep.runs.map((r) => {
    const h = tQuantile(0.975, r.n - 1) * r.se;
    return {
      run_id: r.run_id,
      host: r.host,
      n: r.n,
      ratio: Math.exp(r.y),
      lo: Math.exp(r.y - h),
      hi: Math.exp(r.y + h),
      verdict: judgeLogInterval(claim, { n: r.n, m: r.y, h, level: 0.05 }).verdict,
    };
  });
  const decided = new Set(
    [intervalVerdict, ...byHost.map((b) => b.verdict)].filter((v) => v !== "undecided" && v !== "not measured"),
  );
  const hostDependent = byHost.length > 1 && decided.size > 1;
  return {
    k: c.k,
    hosts: c.hosts,
    ratio: Math.exp(c.m),
    lo: Math.exp(c.m - c.h),
    hi: Math.exp(c.m + c.h),
    ...(c.predH !== undefined ? { predLo: Math.exp(c.m - c.predH), predHi: Math.exp(c.m + c.predH) } : {}),
    tau: Math.sqrt(c.tau2),
    verdict: hostDependent ? "undecided" : intervalVerdict,
    intervalVerdict,
    hostDependent,
    byHost,
    runIds: rep.runs.map((r) => r.run_id),
    perRun,
    contrary: contraryRuns(perRun, hostDependent ? "undecided" : intervalVerdict),
    others,
    scaleDependent: others.some((o) => o.disagrees),
  };
}

/** Replicates deciding, alone, otherwise than `verdict`, counted by host type and verdict. */
function contraryRuns(perRun: ReplicatesView["perRun"], verdict: Verdict): ReplicatesView["contrary"] {
  const out: ReplicatesView["contrary"] = [];
  for (const r of perRun) {
    if (r.verdict === verdict || r.verdict === "undecided" || r.verdict === "not measured") continue;
    const seen = out.find((o) => o.host === r.host && o.verdict === r.verdict);
    if (seen) seen.runs++;
    else out.push({ host: r.host, verdict: r.verdict, runs: 1 });
  }
  return out;
}

/**
 * The published judgement of a claim with two replicate runs or more: the combined interval's verdict (random
 * effects, Hartung–Knapp; pipeline/lib/replicates.ts), undecided and scoped by host type when host types disagree.
 * The chosen run's sequential judgement stays in the row (runJudgement) and in the sentence.
 */
export function acrossJudgement(x: ReplicatesView, runWhy: string): Partial<ClaimVerdict> {
  const hosts = `${x.hosts.length} host type${x.hosts.length === 1 ? "" : "s"}`;
  const scoped = x.hostDependent
    ? `host-dependent, so undecided (${x.byHost.map((b) => `${b.host}: ${b.verdict}, ${fmtRatio(b.ratio)} over ${b.k} run${b.k === 1 ? "" : "s"}`).join("; ")})`
    : x.verdict;
  return {
    verdict: x.verdict,
    ratio: x.ratio,
    lo: x.lo,
    hi: x.hi,
    level: 0.05,
    relHalfWidth: x.hi / x.ratio - 1,
    // the run's sequential bookkeeping says nothing about the combination
    moreRepetitions: undefined,
    decisiveLogHalfWidth: undefined,
    sdLog: undefined,
    why: `The verdict combines the ${x.k} runs of this experiment on ${hosts} (random effects, Hartung–Knapp): ${scoped}. The newest of them alone: ${runWhy}`,
  };
}
