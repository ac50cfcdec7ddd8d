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
  pairedRepetitions,
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
import { acrossJudgement, replicatesView, type ReplicatesView } from "./verdict-replicates.ts";
import { benjaminiHochberg, decisionP } from "../../../pipeline/lib/fdr.ts";
import { runAtSeedScale } from "./conditions.ts";

// claims.json's shape: pipeline/schema/claims.schema.json and its generated types. `samebox publish`
// checks each study's claims.json against it and carries it into studies.json (study.claims).
export type { Claim, ClaimSide, ClaimsFile, Verdict, ReplicatesView };
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
    const chosen = chooseRun(current, atScale, counted, {}, (m) =>
      runAtSeedScale(study, current, m, countedByRun.get(m.run_id) ?? []),
    );
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
    const replicates = replicatesView(claim, study.name, chosen.run, runs, counted, countedByRun);
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
