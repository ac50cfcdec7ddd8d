// Claim-driven sequential repetitions, a two-look group-sequential design (pipeline/lib/verdicts.ts
// twoLookPlan). Look 1: after a study's base repetitions every claim of its seed is judged on this run's
// paired repetitions at alpha1. If any is undecided, paired repetitions of just the cells the undecided
// claims need run (both sides, in a balanced visit order) up to the profile's maximum or until the study's
// time budget would be exceeded; no decision is taken between them. Look 2 judges those claims on all
// repetitions at alpha2 (a profile's time_limit_min also stops the block before it would push the whole
// run past that limit). alpha1 + alpha2 = alpha (Lan–DeMets Pocock-type spending), so stopping at look 1
// does not inflate the error rate; the plan is recorded in the manifest and the site judges with it.
import { loadStudyClaims } from "../lib/claims.ts";
import { cellKey } from "../lib/records.ts";
import { withoutExcludedGenerators } from "../lib/generator.ts";
import { serverRule, splitServer } from "../lib/servers.ts";
import type { ResultRecord } from "../lib/records.ts";
import type { Claim } from "../schema/types.ts";
import {
  cellMatchesSide,
  claimSides,
  judgeSequentialClaim,
  lookTwoCouldDecide,
  lookTwoLevel,
  memberClaim,
  pairedSamples,
  twoLookPlan,
} from "../lib/verdicts.ts";
import { belowScale } from "../lib/claim-run.ts";
import { median } from "../lib/stats.ts";
import { cellGaps } from "../lib/cell-gaps.ts";
import type { ClaimJudgement, LookPlan } from "../lib/verdicts.ts";
import type { RunContext } from "./context.ts";
import type { Cell, PlannedStudy } from "./plan.ts";
import { sortByVisits, studyCells, visitOrderByStudy } from "./plan.ts";
import type { StudyLifecycle } from "./visit.ts";
import { runVisit } from "./visit.ts";

type StudySequential = NonNullable<RunContextManifestSequential>[string];
type RunContextManifestSequential = RunContext["writer"]["manifest"]["sequential"];

/** Start-up and stop of a system around an added visit, when nothing measured says better. */
const VISIT_OVERHEAD_S = 10;

/** Kept free before a profile's time limit for what follows the last repetition: the deferred cleanups and the
 * records (7.6 s after the last cell of 20261128T165043Z-quick-vm). */
const END_OF_RUN_S = 30;

/**
 * What a visit of this system in this study has cost beyond its cells in this run: the median gap between the
 * cell before the visit and the visit's first cell (the previous system's stop, this one's start and checks).
 * First visits are left out: they prepare the study's data once. Undefined until a later visit has run.
 * (Measured: 1-6 s a visit in 20261128T165043Z-quick-vm, where the constant 10 s made the analytical block
 * expect ~51 s for a repetition that took ~26 s, and stop one repetition short of its budget.)
 */
export function visitOverheadS(cells: Cell[], study: string, system: string): number | undefined {
  const ours = (c?: Cell) => c?.study === study && c.system === system;
  const gaps = cellGaps(cells)
    .filter(
      ({ cell, prev }) =>
        prev && ours(cell) && cell.repetition > 1 && !(ours(prev) && prev.repetition === cell.repetition),
    )
    .map(({ gapS }) => gapS);
  return gaps.length ? median(gaps) : undefined;
}

/**
 * The run's records of one study that count for verdicts: records of ok cells only (noisy cells are kept but
 * not judged), and not of a cell whose generator dropped more than 1 % of its planned calls (generator.ts).
 */
export function judgedRecords(records: ResultRecord[], cells: Cell[], study: string): ResultRecord[] {
  const ok = new Set(cells.filter((c) => c.study === study && c.status === "ok").map(cellKey));
  return withoutExcludedGenerators(records.filter((r) => r.study === study && ok.has(cellKey(r))));
}

export function judgeStudy(
  ctx: RunContext,
  study: string,
  claims: Claim[],
  plan: LookPlan,
): Array<{ claim: Claim; j: ClaimJudgement }> {
  const recs = judgedRecords(ctx.records, ctx.plan.cells, study);
  const env = ctx.plan.studies[study]?.env;
  // a size this run's data cannot show (below the seed's scale) is not measured here: no repetitions are added for it
  return claims.map((claim) => {
    const j = judgeSequentialClaim(claim, pairedSamples(recs, claim), plan);
    return { claim, j: belowScale(claim, env, j) ?? j };
  });
}

/** The cells (of repetition 1's shape) the undecided claims need, both sides; only those that have measured at least once. */
function neededCells(ctx: RunContext, study: string, undecided: Claim[]): Cell[] {
  const measured = ctx.plan.cells.filter((c) => c.study === study && c.status === "ok");
  const seen = new Map<string, Cell>();
  for (const claim of undecided) {
    const { a, b } = claimSides(claim);
    for (const c of measured) {
      if (!cellMatchesSide(c, a) && !cellMatchesSide(c, b)) continue;
      const k = cellKey({ ...c, repetition: 0 });
      const prev = seen.get(k);
      if (!prev || c.repetition > prev.repetition) seen.set(k, c);
    }
  }
  return [...seen.values()];
}

/** Seconds one more repetition of these cells should take: their mean measured durations plus each system's visit overhead. */
function repetitionSeconds(ctx: RunContext, cells: Cell[]): number {
  let s = 0;
  for (const n of cells) {
    const same = ctx.plan.cells.filter(
      (c) => cellKey({ ...c, repetition: 0 }) === cellKey({ ...n, repetition: 0 }) && c.duration_s > 0,
    );
    s += same.reduce((t, c) => t + c.duration_s, 0) / Math.max(1, same.length);
  }
  const study = cells[0]?.study ?? "";
  for (const system of new Set(cells.map((c) => c.system)))
    s += visitOverheadS(ctx.plan.cells, study, system) ?? VISIT_OVERHEAD_S;
  return s;
}

async function addRepetition(
  ctx: RunContext,
  lc: StudyLifecycle,
  study: string,
  ps: PlannedStudy,
  needed: Cell[],
  rep: number,
  seed: number,
): Promise<void> {
  const keys = new Set(needed.map((c) => cellKey({ ...c, repetition: 0 })));
  const systems = [...new Set(needed.map((c) => c.system))].sort();
  const rule = serverRule(ps.study);
  for (const system of systems) {
    const only = (w: string, variant: string, conc: number) =>
      keys.has(
        cellKey({ study, workload: w, system, ...splitServer(rule, w, variant), concurrency: conc, repetition: 0 }),
      );
    ctx.plan.cells.push(...studyCells(study, ps, system, rep, only));
  }
  const visits = visitOrderByStudy([[study, systems]], rep, seed, rep);
  ctx.writer.manifest.order?.visits.push(...visits);
  sortByVisits(ctx.plan.cells, ctx.writer.manifest.order?.visits ?? visits, Object.keys(ctx.plan.studies));
  ctx.progress.addTotal(ctx.plan.cells.filter((c) => c.repetition === rep && c.study === study).length);
  ctx.writer.write();
  for (const v of visits) {
    if (ctx.interrupted()) return;
    await runVisit(ctx, lc, v);
  }
}

/** What of a claim is still open: a claim about each of several workloads repeats only its undecided workloads. */
function openParts(claim: Claim, j: ClaimJudgement): Claim[] {
  if (!claim.each_of || !j.members) return [claim];
  return j.members.filter((m) => m.verdict !== "reproduces").map((m) => memberClaim(claim, m.workload));
}

function summary(judged: Array<{ claim: Claim; j: ClaimJudgement }>): StudySequential["claims"] {
  return judged.map(({ claim, j }) => ({
    id: claim.id,
    verdict: j.verdict,
    n: j.n,
    ratio: j.ratio ?? null,
    lo: j.lo ?? null,
    hi: j.hi ?? null,
    why: j.why,
  }));
}

const minutes = (s: number) => Number((s / 60).toPrecision(3));
const pct = (a: number) => `${Number((a * 100).toPrecision(3))} %`;

function newRecord(ps: PlannedStudy, max: number, budgetS: number, plan: LookPlan): StudySequential {
  return {
    min_repetitions: ps.repetitions,
    max_repetitions: max,
    budget_s: budgetS,
    spent_s: 0,
    looks: 2,
    repetitions_added: 0,
    alpha_spending: {
      rule: "lan-demets-pocock",
      alpha: plan.alpha1 + plan.alpha2,
      base: plan.base,
      max: plan.max,
      alpha1: plan.alpha1,
      alpha2: plan.alpha2,
      exact: plan.exact === true,
    },
    method: `paired t interval on per-repetition log ratios; two looks (after ${plan.base} repetitions at ${pct(plan.alpha1)}; after the added ones spending ${pct(plan.alpha2)}, a nominal ${pct(lookTwoLevel(plan, plan.base, plan.max))} at ${plan.max} repetitions by the exact two-look boundary): Lan–DeMets Pocock-type alpha-spending of 5 %`,
    stopped: "",
    claims: [],
  };
}

/** Why no (more) repetitions are added, or "" to add one. */
function stopReason(
  ctx: RunContext,
  undecided: number,
  needed: Cell[],
  rep: number,
  max: number,
  spent: number,
  budgetS: number,
): string {
  if (undecided === 0) return "every measurable claim is decided";
  if (needed.length === 0) return "the undecided claims have no measured cells to repeat";
  const lookTwo = `look 2 judged the ${undecided} claim(s) undecided at look 1`;
  if (rep >= max) return `reached the maximum of ${max} repetitions; ${lookTwo}`;
  const next = repetitionSeconds(ctx, needed);
  if (spent + next > budgetS)
    return `the next repetition (~${Math.round(next)} s) would exceed the study's budget of ${budgetS} s (${Math.round(spent)} s spent); ${lookTwo}`;
  const limitMin = ctx.plan.profile.time_limit_min;
  const limitS = limitMin === undefined ? Infinity : limitMin * 60;
  if (ctx.runSeconds() + next + END_OF_RUN_S > limitS)
    return `the next repetition (~${Math.round(next)} s) would pass the profile's time limit of ${minutes(limitS)} min (the run has taken ${minutes(ctx.runSeconds())} min); ${lookTwo}`;
  return ctx.interrupted() ? "the run was interrupted" : "";
}

/** Runs the sequential loop of one study; records in the manifest why it stopped and every claim's judgement. */
export async function sequentialStudy(ctx: RunContext, lc: StudyLifecycle, study: string, seed: number): Promise<void> {
  const ps = ctx.plan.studies[study];
  const claims = loadStudyClaims(study)?.claims ?? [];
  if (!ps.sequential || claims.length === 0) return;
  const { maxRepetitions: max, budgetS } = ps.sequential;
  const plan = twoLookPlan(ps.repetitions, max);
  const all = ctx.writer.manifest.sequential ?? {};
  ctx.writer.manifest.sequential = all;
  const seq = all[study] ?? newRecord(ps, max, budgetS, plan);
  all[study] = seq;
  // Look 1 (deterministic from the base repetitions, so a resumed run finds the same undecided claims).
  const lookOne = judgeStudy(ctx, study, claims, { ...plan, alpha2: 0 });
  const open = lookOne.filter(({ j }) => j.verdict === "undecided");
  // Repetitions only for claims that look 2 could decide with the maximum (projected from look 1's spread):
  // a ratio sitting on a bound would spend the budget and stay undecided.
  const repeatable = open.filter(({ j }) => lookTwoCouldDecide(j, max, lookTwoLevel(plan, plan.base, max)));
  const undecided = repeatable.map(({ claim }) => claim);
  const hopeless = open.length - undecided.length;
  const needed = neededCells(
    ctx,
    study,
    repeatable.flatMap(({ claim, j }) => openParts(claim, j)),
  );
  let rep = Math.max(ps.repetitions, ...ctx.plan.cells.filter((c) => c.study === study).map((c) => c.repetition));
  const started = performance.now() - (seq.spent_s ?? 0) * 1000;
  let stop = "";
  if (undecided.length)
    ctx.progress.note(
      `${study}: look 1 left ${undecided.length} claim(s) undecided that look 2 could decide (${undecided.map((c) => c.id).join(", ")}); adding repetitions of ${needed.length} cell(s)`,
    );
  for (;;) {
    const spent = (performance.now() - started) / 1000;
    seq.spent_s = Math.round(spent);
    stop = stopReason(ctx, undecided.length, needed, rep, max, spent, budgetS);
    if (stop) {
      if (hopeless)
        stop = `${undecided.length === 0 && open.length ? "no repetitions added" : stop}; ${hopeless} claim(s) undecided at look 1 that ${max} repetitions could not decide at look 2's level (projected from look 1's spread) got none`;
      break;
    }
    rep++;
    seq.repetitions_added = (seq.repetitions_added ?? 0) + 1;
    ctx.writer.write();
    await addRepetition(ctx, lc, study, ps, needed, rep, seed);
  }
  seq.claims = summary(judgeStudy(ctx, study, claims, plan));
  seq.stopped = stop;
  ctx.writer.write();
  ctx.progress.note(`${study}: sequential repetitions stopped: ${stop}`);
}
