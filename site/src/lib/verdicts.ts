// "Does it reproduce?": each seed's claims (bench-scripts/studies/<study>/claims.json, format in
// bench-scripts/studies/CLAIMS.md, carried by publish into studies.json) beside samebox's measurement of the same comparison, with a verdict
// from pipeline/lib/verdicts.ts (paired per-repetition log ratios, Student-t interval). Each claim's experiment is
// that of its chosen run (the newest that measured both of its sides enough times, else the one with the most
// repetitions); its published verdict comes from every replicate run of that experiment combined
// (pipeline/lib/replicates.ts) once there are two, else from the chosen run alone under its sequential rule.
// Samples of different runs are never pooled. Read at build time; analysis pages stay free of JS.
import { runCatalogues, type ResultRecord, type RunManifest, type Study } from "./data.ts";
import {
  DEFAULT_JUDGE_OPTIONS,
  VERDICTS,
  claimHasWorkload,
  claimRegion,
  fmtRatio,
  judgeClaim,
  judgeLogInterval,
  pairedRepetitions,
  pairedSamples,
  regionText,
  workloadText,
  type ClaimJudgement,
  type Verdict,
} from "../../../pipeline/lib/verdicts.ts";
import {
  chooseRun,
  countedRecords,
  judgeFromRun,
  scaleShortfall,
  studyEnvOf,
} from "../../../pipeline/lib/claim-run.ts";
import type { Claim, ClaimSide, ClaimsFile } from "../../../pipeline/schema/types.ts";
import { serverVariantLabel as label, stateOf } from "../../../pipeline/lib/servers.ts";
import { specChanges } from "../../../pipeline/lib/claim-spec.ts";
import { claimReplicates, experimentsDisagree } from "../../../pipeline/lib/replicates.ts";
import { tQuantile } from "../../../pipeline/lib/stats.ts";
import { benjaminiHochberg, decisionP } from "../../../pipeline/lib/fdr.ts";
import { atSeedScale } from "../../../pipeline/lib/conditions.ts";

// claims.json's shape: pipeline/schema/claims.schema.json and its generated types. `samebox publish`
// checks each study's claims.json against it and carries it into studies.json (study.claims).
export type { Claim, ClaimSide, ClaimsFile, Verdict };
export { fmtRatio, regionText, claimRegion, workloadText, VERDICTS };
/** Below this many paired repetitions a claim has no interval (undecided). */
export const MIN_REPETITIONS = DEFAULT_JUDGE_OPTIONS.minRepetitions;

/** The claim as RUN ran it (the claims.json publish kept for that run, same id), else as the study has it now. */
function claimAsRun(claim: Claim, run: RunManifest, study: string): Claim {
  return runCatalogues()[run.run_id]?.[study]?.claims?.claims.find((c) => c.id === claim.id) ?? claim;
}

/**
 * One claim's row: the seed's ratio beside ours. verdict, ratio, lo, hi and level are the published judgement:
 * across runs (basis "runs") from two replicates on, else the chosen run's (basis "run"); `n` and `runJudgement`
 * are always the chosen run's.
 */
export interface ClaimVerdict extends ClaimJudgement {
  /** what verdict, ratio and interval rest on */
  basis?: "run" | "runs";
  /** the chosen run's own judgement (its sequential rule), whatever the basis */
  runJudgement?: Pick<ClaimJudgement, "verdict" | "ratio" | "lo" | "hi" | "n" | "level">;
  claim: Claim;
  /** How many times better a is than b as the seed published it (oriented by `better`). */
  publishedRatio: number;
  /** Where the claim holds, in words ("above 1× (a beats b)", "2.8× to 4.38×", "at least 43×"). */
  region: string;
  /** Whether an interval is shown (from minRepetitions paired repetitions on). */
  hasInterval: boolean;
  /** The run the claim is judged from (absent: no run measured both sides). */
  run?: RunManifest;
  /** Every replicate run of the same experiment combined (pipeline/lib/replicates.ts), judged by the same rule. */
  replicates?: ReplicatesView;
  /** The fields of the claim that differ between the specification its run was judged under and the study's current one. */
  specChanged?: string[];
  /** The study's false-discovery-rate control over its judged claims (pipeline/lib/fdr.ts): this verdict's p and whether BH keeps it. */
  fdr?: FdrMark;
  /** Each side's mean over the paired repetitions, with the cells' unit. */
  a?: { mean: number; unit: string };
  b?: { mean: number; unit: string };
}

export interface FdrMark {
  p: number;
  kept: boolean;
  /** how many of the study's claims were tested (judged with an interval) */
  tested: number;
}

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
function replicatesView(
  claim: Claim,
  study: string,
  anchor: RunManifest,
  runs: RunManifest[],
  counted: ResultRecord[],
): ReplicatesView | undefined {
  const rep = claimReplicates(
    claim,
    study,
    anchor,
    runs,
    counted,
    (m) =>
      pairedSamples(
        counted.filter((r) => r.run_id === m.run_id),
        claim,
      ),
    MIN_REPETITIONS,
  );
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
function acrossJudgement(x: ReplicatesView, runWhy: string): Partial<ClaimVerdict> {
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

/**
 * Whether a run measured the claim at the seed's scale (conditions.ts atSeedScale): its study env and the
 * concurrency of the claim's counted records in it (the sides' own where the claim pins it).
 */
function seedScaleRun(study: Study, claim: Claim, run: RunManifest, byRun: Map<string, ResultRecord[]>): boolean {
  const ws = claim.workload === "*" ? "*" : (claim.each_of ?? [claim.workload]);
  const pinned = [claim.a.concurrency, claim.b.concurrency].filter((c): c is number => c !== undefined);
  const concurrency = pinned.length
    ? pinned
    : (byRun.get(run.run_id) ?? [])
        .filter(
          (r) =>
            r.metric === claim.metric &&
            [claim.a.system, claim.b.system].includes(r.system) &&
            (ws === "*" || ws.includes(r.workload)),
        )
        .map((r) => r.concurrency);
  return atSeedScale(study, ws, { machine: run.machine, env: studyEnvOf(run, study.name), concurrency }) === true;
}

/** "a is `ratio` times better than b": a/b for higher-is-better metrics, b/a for lower-is-better. */
export function orientedRatio(a: number, b: number, better: "higher" | "lower"): number {
  return better === "higher" ? a / b : b / a;
}

function sideText(s: ClaimSide): string {
  return `${s.system}${label(s) ? ` (${label(s)})` : ""}`;
}

/** Why no run measured both sides: the newest run that planned a side's cells and what became of them. */
function missingWhy(claim: Claim, study: string, runs: RunManifest[], counted: ResultRecord[]): string {
  const finished = runs.filter((m) => m.status !== "running");
  if (!finished.some((m) => m.cells.some((c) => c.study === study))) return `no run of ${study} yet`;
  const parts: string[] = [];
  for (const s of [claim.a, claim.b]) {
    const planned = (c: RunManifest["cells"][number]) =>
      c.study === study &&
      c.system === s.system &&
      claimHasWorkload(claim, c.workload) &&
      (s.server === undefined || c.server === s.server) &&
      (s.variant === undefined || stateOf(c) === s.variant);
    const measuredIn = finished.find((m) =>
      counted.some(
        (r) =>
          r.run_id === m.run_id &&
          r.system === s.system &&
          r.metric === claim.metric &&
          claimHasWorkload(claim, r.workload) &&
          (s.server === undefined || r.server === s.server) &&
          (s.variant === undefined || r.variant === s.variant),
      ),
    );
    if (measuredIn) continue;
    const m = finished.find((x) => x.cells.some(planned));
    const cell = m?.cells.find((c) => planned(c) && c.status !== "ok");
    if (m && cell)
      parts.push(`${sideText(s)}: cell ${cell.status} in run ${m.run_id}${cell.reason ? ` — ${cell.reason}` : ""}`);
    else
      parts.push(
        `${sideText(s)} was not measured on ${claim.workload === "*" ? "any workload" : workloadText(claim)} (${claim.metric}) in any run`,
      );
  }
  return `${parts.length ? parts.join("; ") : `no single run measured both ${sideText(claim.a)} and ${sideText(claim.b)} on ${claim.workload === "*" ? "a common workload" : workloadText(claim)} (${claim.metric}); runs are never pooled`}.`;
}

export interface StudyVerdicts {
  study: Study;
  claims: ClaimsFile;
  rows: ClaimVerdict[];
  /** Each row's chosen run (the newest of its replicates), newest first. */
  runs: RunManifest[];
  counts: Record<Verdict, number>;
}

/**
 * Every claim of the study. Its chosen run (pipeline/lib/claim-run.ts chooseRun) is the newest finished run that
 * measured both of its sides with at least minRepetitions paired repetitions, else the run that measured both
 * with the most repetitions, undecided and saying so; a run that measured one side only is never used for that
 * claim. The chosen run fixes the experiment (its settings); from two replicate runs of it on, the published
 * verdict is theirs combined (acrossJudgement), else the chosen run's. `runs` newest first.
 */
export function studyVerdicts(study: Study, runs: RunManifest[], records: ResultRecord[]): StudyVerdicts | undefined {
  const claims = study.claims;
  if (!claims) return undefined;
  // Only the study's records of cells whose manifest status is "ok" count (pipeline/lib/verdicts.ts countedRecords).
  const counted = countedRecords(
    records.filter((r) => r.study === study.name),
    runs,
  );
  const minRepetitions = MIN_REPETITIONS;
  const countedByRun = new Map<string, ResultRecord[]>();
  for (const r of counted) {
    const g = countedByRun.get(r.run_id);
    if (g) g.push(r);
    else countedByRun.set(r.run_id, [r]);
  }
  const rows = claims.claims.map((current): ClaimVerdict => {
    // a scale-dependent size is judged only from runs at the seed's scale (claims.json `scale`)
    const atScale = current.scale ? runs.filter((m) => !scaleShortfall(current, studyEnvOf(m, study.name))) : runs;
    // runs at the seed's scale (study.json seed_conditions rows marked scale) first: theirs is the verdict featured
    const chosen = chooseRun(current, atScale, counted, {}, (m) => seedScaleRun(study, current, m, countedByRun));
    // Judged as the chosen run ran it: a claim edited since keeps, for an older run, the figures it was run against.
    const claim = chosen ? claimAsRun(current, chosen.run, study.name) : current;
    const publishedRatio = claim.published.ratio ?? orientedRatio(claim.published.a!, claim.published.b!, claim.better);
    const region = regionText(claim);
    const small = !chosen && claim.scale ? chooseRun(claim, runs, counted) : undefined;
    if (small) {
      const j = judgeClaim(claim, small.samples, { minRepetitions: 1 });
      const why = `Run ${small.run.run_id} ${scaleShortfall(claim, studyEnvOf(small.run, study.name))}. Ours at that scale: ${j.ratio !== undefined ? fmtRatio(j.ratio) : "—"} over ${small.samples.length} paired repetitions, for information only; no run measured it at the seed's scale.`;
      return { claim, publishedRatio, region, verdict: "not measured", n: 0, hasInterval: false, why };
    }
    if (!chosen) {
      return {
        claim,
        publishedRatio,
        region,
        verdict: "not measured",
        n: 0,
        hasInterval: false,
        why: missingWhy(claim, study.name, runs, counted),
      };
    }
    // Judge as the run's own sequential loop did, so the page's verdict is the one the runner stopped on:
    // its two-look alpha-spending plan; older runs: Bonferroni over `looks` (1 look: a fixed-n run).
    const j = judgeFromRun(claim, study.name, chosen.run, chosen.samples);
    const unit = counted.find((r) => r.run_id === chosen.run.run_id && r.metric === claim.metric)?.unit ?? "";
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    let why = `Run ${chosen.run.run_id}: ${j.why}.`;
    if (pairedRepetitions(claim, chosen.samples) < minRepetitions) {
      why += ` No run measured both sides ${minRepetitions} times; this run has the most paired repetitions of the ${chosen.measuredRuns === 1 ? "one run" : `${chosen.measuredRuns} runs`} that measured both (the newest on a tie; runs are never pooled).`;
    }
    const changed = specChanges(claim, current);
    const replicates = replicatesView(claim, study.name, chosen.run, runs, counted);
    const across = replicates && replicates.k >= 2 ? acrossJudgement(replicates, why) : undefined;
    return {
      ...j,
      claim,
      publishedRatio,
      region,
      why,
      ...(across ?? {}),
      basis: across ? "runs" : "run",
      runJudgement: { verdict: j.verdict, ratio: j.ratio, lo: j.lo, hi: j.hi, n: j.n, level: j.level },
      ...(changed.length ? { specChanged: changed } : {}),
      ...(replicates ? { replicates } : {}),
      run: chosen.run,
      hasInterval: across !== undefined || (j.lo !== undefined && j.hi !== undefined),
      // a claim about each of several workloads has no one mean per side (its workloads' units differ in size)
      ...(claim.each_of
        ? {}
        : {
            a: { mean: mean(chosen.samples.map((s) => s.a)), unit },
            b: { mean: mean(chosen.samples.map((s) => s.b)), unit },
          }),
    };
  });
  markFdr(rows);
  const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
  for (const r of rows) counts[r.verdict]++;
  const used = new Set(rows.map((r) => r.run?.run_id).filter(Boolean));
  return { study, claims, rows, runs: runs.filter((m) => used.has(m.run_id)), counts };
}

/** Log-scale interval of a row's featured judgement and of its across-runs combination, for decisionP. */
function featuredInterval(r: ClaimVerdict) {
  if (r.basis === "runs") return r.replicates!.hostDependent ? undefined : acrossInterval(r.replicates!);
  if (!r.hasInterval || r.level === undefined || !r.ratio || r.claim.each_of) return undefined;
  return {
    m: Math.log(r.ratio),
    h: Math.log(r.hi! / r.ratio),
    level: r.level,
    df: r.n - 1,
  };
}
function acrossInterval(x: ReplicatesView) {
  const df = x.k > 1 ? x.k - 1 : x.perRun[0].n - 1;
  return { m: Math.log(x.ratio), h: Math.log(x.hi / x.ratio), level: 0.05, df };
}

/**
 * Benjamini–Hochberg over the study's judged claims (pipeline/lib/fdr.ts), once for the published verdicts and
 * once for the verdicts across runs: each decided row says whether its decision is kept at a 5 % false
 * discovery rate. The verdicts themselves stay each claim's own rule.
 */
function markFdr(rows: ClaimVerdict[]): void {
  const mark = (ps: Array<number | undefined>, set: (i: number, m: FdrMark) => void) => {
    const kept = benjaminiHochberg(ps);
    const tested = ps.filter((p) => p !== undefined).length;
    ps.forEach((p, i) => {
      if (p !== undefined) set(i, { p, kept: kept[i], tested });
    });
  };
  mark(
    rows.map((r) => {
      const iv = featuredInterval(r);
      return iv && decisionP(r.claim, r.verdict, iv);
    }),
    (i, m) => (rows[i].fdr = m),
  );
  mark(
    rows.map((r) =>
      r.replicates && !r.replicates.hostDependent
        ? decisionP(r.claim, r.replicates.verdict, acrossInterval(r.replicates))
        : undefined,
    ),
    (i, m) => (rows[i].replicates!.fdr = m),
  );
}

export const verdictClass: Record<Verdict, string> = {
  reproduces: "v-yes",
  "does not reproduce": "v-no",
  tie: "v-tie",
  undecided: "v-undecided",
  "not measured": "v-none",
};

/** The colour of each verdict in charts (the badges' colours in site.css). */
export const verdictColor: Record<Verdict, string> = {
  reproduces: "#1f6b3a",
  "does not reproduce": "#a51c1c",
  tie: "#2b5c9e",
  undecided: "#8a5a00",
  "not measured": "#8a8f98",
};
