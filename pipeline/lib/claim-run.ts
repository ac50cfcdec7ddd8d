// Which run and which records a claim is judged from (the site's rule and the run report's; the runner judges
// its own run), and claims that depend on the data's scale. The judgement itself is verdicts.ts.
import type { Claim, ResultRecord } from "../schema/types.ts";
import { runCellKey } from "./servers.ts";
import { withoutExcludedGenerators } from "./generator.ts";
import {
  DEFAULT_JUDGE_OPTIONS,
  fmtRatio,
  judgeClaim,
  judgeSequentialClaim,
  pairedRepetitions,
  pairedSamples,
} from "./verdicts.ts";
import type { ClaimJudgement, JudgeOptions, PairedSample } from "./verdicts.ts";

/** A scale-dependent claim judged from data below the seed's scale: not measured, with our ratio there for information. */
export function belowScale(
  claim: Claim,
  studyEnv: Record<string, unknown> | undefined,
  j: ClaimJudgement,
): ClaimJudgement | undefined {
  const short = scaleShortfall(claim, studyEnv);
  if (!short) return undefined;
  return {
    verdict: "not measured",
    n: 0,
    ratio: j.ratio,
    why: `${short} (ours ${j.ratio !== undefined ? fmtRatio(j.ratio) : "—"} at this scale, for information)`,
  };
}

/** The env a run gave a study (its manifest's profile config), for scale-dependent claims. */
export function studyEnvOf(run: { config?: unknown }, study: string): Record<string, unknown> | undefined {
  const cfg = run.config as { studies?: Record<string, { env?: Record<string, unknown> }> } | undefined;
  return cfg?.studies?.[study]?.env;
}

/**
 * Why a run with this study env cannot judge a scale-dependent claim (claims.json `scale`: its env value is
 * below the seed's scale), or undefined when it can (or the claim does not depend on scale).
 */
export function scaleShortfall(claim: Claim, studyEnv: Record<string, unknown> | undefined): string | undefined {
  const sc = claim.scale;
  if (!sc) return undefined;
  const raw = studyEnv?.[sc.env];
  const v = raw === undefined || raw === "" ? sc.default : Number(raw);
  if (v !== undefined && Number.isFinite(v) && v >= sc.min) return undefined;
  return `measured at ${sc.env} ${v ?? "(unset)"}, below the seed's scale (${sc.env} ${sc.min}): ${sc.why}`;
}

type CellLike = Pick<ResultRecord, "study" | "workload" | "system" | "variant" | "concurrency" | "repetition"> & {
  server?: string;
};
type RunLike = { run_id: string; profile: string; status: string; cells: Array<CellLike & { status: string }> };

// A cell's variant <server>-<state> and its server give the same key as its records' server and state (servers.ts).
const cellKey = runCellKey;

/**
 * The records that count for verdicts: measured scalars whose cell (run, study, workload, system, variant,
 * concurrency, repetition) the run's manifest lists with status "ok". A cell with any other status (failed,
 * wrong_answer, skipped, or one the runner flagged, e.g. noisy) contributes nothing, nor does a cell whose
 * load generator dropped more than 1 % of its planned calls (generator.ts).
 */
export function countedRecords<R extends RunLike>(records: ResultRecord[], runs: R[]): ResultRecord[] {
  const ok = new Set<string>();
  for (const m of runs) for (const c of m.cells) if (c.status === "ok") ok.add(cellKey(c, m.run_id));
  return withoutExcludedGenerators(
    records.filter((r) => r.source === "measured" && r.t === null && ok.has(cellKey(r, r.run_id))),
  );
}

/**
 * The run a claim is judged from, among finished runs (`runs` newest first, `records` already counted):
 * the newest that measured both sides with at least minRepetitions paired repetitions (among those `prefer`
 * accepts, when it accepts any); else, among the runs
 * that measured both sides, the one with the most paired repetitions (a one-repetition catalogue or "ci"
 * smoke run never hides a run with three), the newest on a tie, a profile other than "ci" first. A run that
 * measured one side only is never chosen; runs are never pooled. Undefined when no run measured both.
 */
export function chooseRun<R extends RunLike>(
  claim: Claim,
  runs: R[],
  records: ResultRecord[],
  opts: JudgeOptions = {},
  prefer?: (run: R) => boolean,
): { run: R; samples: PairedSample[]; measuredRuns: number } | undefined {
  const min = opts.minRepetitions ?? DEFAULT_JUDGE_OPTIONS.minRepetitions;
  const byRun = new Map<string, ResultRecord[]>();
  for (const r of records) {
    const g = byRun.get(r.run_id);
    if (g) g.push(r);
    else byRun.set(r.run_id, [r]);
  }
  const measured = runs
    .filter((m) => m.status !== "running" && byRun.has(m.run_id))
    .map((run) => ({ run, samples: pairedSamples(byRun.get(run.run_id)!, claim) }))
    .map((x) => ({ ...x, n: pairedRepetitions(claim, x.samples) }))
    .filter((x) => x.n > 0);
  // measured is newest first; a stable sort keeps that order among equals
  const fallback = [...measured].sort(
    (x, y) => y.n - x.n || Number(x.run.profile === "ci") - Number(y.run.profile === "ci"),
  )[0];
  // `prefer` (the site: runs at the seed's scale) picks among the runs with enough repetitions first
  const chosen =
    (prefer && measured.find((x) => x.n >= min && prefer(x.run))) ?? measured.find((x) => x.n >= min) ?? fallback;
  return chosen && { run: chosen.run, samples: chosen.samples, measuredRuns: measured.length };
}

type SequentialRecord = {
  looks?: number;
  alpha_spending?: { base: number; max: number; alpha1: number; alpha2: number; exact?: boolean };
};

/**
 * A claim judged from one run's paired samples the way that run's runner judged it: with its two-look
 * alpha-spending plan (manifest.sequential[study].alpha_spending), else Bonferroni over its `looks` (runs
 * made before the plan; 1 look for a fixed-n run).
 */
export function judgeFromRun(
  claim: Claim,
  study: string,
  run: { sequential?: unknown },
  samples: PairedSample[],
): ClaimJudgement & { look?: 1 | 2 } {
  const seq = (run.sequential as Record<string, SequentialRecord> | undefined)?.[study];
  const sp = seq?.alpha_spending;
  if (sp)
    return judgeSequentialClaim(claim, samples, {
      base: sp.base,
      max: sp.max,
      alpha1: sp.alpha1,
      alpha2: sp.alpha2,
      exact: sp.exact === true,
    });
  return judgeClaim(claim, samples, { looks: seq?.looks ?? 1 });
}
