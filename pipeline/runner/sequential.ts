// Claim-driven sequential repetitions. After a study's base repetitions every claim of its seed is
// judged on this run's paired repetitions (pipeline/lib/verdicts.ts); for each claim still undecided,
// one more paired repetition of just the cells it needs runs (both sides, in a balanced visit order),
// until every claim is decided, the profile's maximum number of repetitions is reached, or the study's
// time budget would be exceeded. Stopping when decided does not inflate the error rate: the runner may
// look at most `looks` = max − base + 1 times, and every look is taken at alpha / looks (Bonferroni
// alpha-spending), so the chance that any look is wrong stays at most alpha (the same `looks` is
// recorded in the manifest and used by the site's verdicts).
import { loadStudyClaims } from "../lib/claims.ts";
import { cellKey } from "../lib/records.ts";
import type { ResultRecord } from "../lib/records.ts";
import type { Claim } from "../schema/types.ts";
import { claimSides, judgeClaim, pairedSamples } from "../lib/verdicts.ts";
import type { ClaimJudgement, SideSelector } from "../lib/verdicts.ts";
import type { RunContext } from "./context.ts";
import type { Cell, PlannedStudy } from "./plan.ts";
import { sortByVisits, studyCells, visitOrder } from "./plan.ts";
import type { StudyLifecycle } from "./visit.ts";
import { runVisit } from "./visit.ts";

type StudySequential = NonNullable<RunContextManifestSequential>[string];
type RunContextManifestSequential = RunContext["writer"]["manifest"]["sequential"];

/** Start-up and stop of a system around an added visit, when nothing measured says better. */
const VISIT_OVERHEAD_S = 10;


/** The run's records of one study that count for verdicts: records of ok cells only (noisy cells are kept but not judged). */
export function judgedRecords(records: ResultRecord[], cells: Cell[], study: string): ResultRecord[] {
  const ok = new Set(cells.filter((c) => c.study === study && c.status === "ok").map(cellKey));
  return records.filter((r) => r.study === study && ok.has(cellKey(r)));
}

function matchesSide(c: Cell, s: SideSelector): boolean {
  return (s.workload === "*" || c.workload === s.workload) && c.system === s.system
    && (s.variant === undefined || c.variant === s.variant) && (s.concurrency === undefined || c.concurrency === s.concurrency);
}

export function judgeStudy(ctx: RunContext, study: string, claims: Claim[], looks: number): Array<{ claim: Claim; j: ClaimJudgement }> {
  const recs = judgedRecords(ctx.records, ctx.plan.cells, study);
  return claims.map((claim) => ({ claim, j: judgeClaim(claim, pairedSamples(recs, claim), { looks }) }));
}

/** The cells (of repetition 1's shape) the undecided claims need, both sides; only those that have measured at least once. */
function neededCells(ctx: RunContext, study: string, undecided: Claim[]): Cell[] {
  const measured = ctx.plan.cells.filter((c) => c.study === study && c.status === "ok");
  const seen = new Map<string, Cell>();
  for (const claim of undecided) {
    const { a, b } = claimSides(claim);
    for (const c of measured) {
      if (!matchesSide(c, a) && !matchesSide(c, b)) continue;
      const k = cellKey({ ...c, repetition: 0 });
      const prev = seen.get(k);
      if (!prev || c.repetition > prev.repetition) seen.set(k, c);
    }
  }
  return [...seen.values()];
}

/** Seconds one more repetition of these cells should take: their mean measured durations plus a start/stop per system. */
function repetitionSeconds(ctx: RunContext, cells: Cell[]): number {
  let s = 0;
  for (const n of cells) {
    const same = ctx.plan.cells.filter((c) => cellKey({ ...c, repetition: 0 }) === cellKey({ ...n, repetition: 0 }) && c.duration_s > 0);
    s += same.reduce((t, c) => t + c.duration_s, 0) / Math.max(1, same.length);
  }
  return s + VISIT_OVERHEAD_S * new Set(cells.map((c) => c.system)).size;
}

async function addRepetition(ctx: RunContext, lc: StudyLifecycle, study: string, ps: PlannedStudy, needed: Cell[], rep: number, seed: number): Promise<void> {
  const keys = new Set(needed.map((c) => cellKey({ ...c, repetition: 0 })));
  const systems = [...new Set(needed.map((c) => c.system))].sort();
  for (const system of systems) {
    const only = (w: string, variant: string, conc: number) => keys.has(cellKey({ study, workload: w, system, variant, concurrency: conc, repetition: 0 }));
    ctx.plan.cells.push(...studyCells(study, ps, system, rep, only));
  }
  const visits = visitOrder(systems, rep, seed, rep);
  ctx.writer.manifest.order?.visits.push(...visits);
  sortByVisits(ctx.plan.cells, ctx.writer.manifest.order?.visits ?? visits, Object.keys(ctx.plan.studies));
  ctx.progress.addTotal(ctx.plan.cells.filter((c) => c.repetition === rep && c.study === study).length);
  ctx.writer.write();
  for (const v of visits) {
    if (ctx.interrupted()) return;
    await runVisit(ctx, lc, v);
  }
}

function summary(judged: Array<{ claim: Claim; j: ClaimJudgement }>): StudySequential["claims"] {
  return judged.map(({ claim, j }) => ({ id: claim.id, verdict: j.verdict, n: j.n, ratio: j.ratio ?? null, lo: j.lo ?? null, hi: j.hi ?? null, why: j.why }));
}

/** Runs the sequential loop of one study; records in the manifest why it stopped and every claim's judgement. */
export async function sequentialStudy(ctx: RunContext, lc: StudyLifecycle, study: string, seed: number): Promise<void> {
  const ps = ctx.plan.studies[study];
  const claims = loadStudyClaims(study)?.claims ?? [];
  if (!ps.sequential || claims.length === 0) return;
  const { maxRepetitions: max, budgetS } = ps.sequential;
  const looks = max - ps.repetitions + 1;
  const all = ctx.writer.manifest.sequential ?? {};
  ctx.writer.manifest.sequential = all;
  const seq = all[study] ?? {
    min_repetitions: ps.repetitions, max_repetitions: max, budget_s: budgetS, spent_s: 0, looks, repetitions_added: 0,
    method: `paired t interval on per-repetition log ratios; Bonferroni alpha-spending over ${looks} looks (each at 0.05/${looks})`, stopped: "", claims: [],
  };
  all[study] = seq;
  let rep = Math.max(ps.repetitions, ...ctx.plan.cells.filter((c) => c.study === study).map((c) => c.repetition));
  const started = performance.now() - (seq.spent_s ?? 0) * 1000;
  for (;;) {
    const judged = judgeStudy(ctx, study, claims, looks);
    seq.claims = summary(judged);
    const undecided = judged.filter(({ j }) => j.verdict === "undecided").map(({ claim }) => claim);
    const needed = neededCells(ctx, study, undecided);
    const spent = (performance.now() - started) / 1000;
    seq.spent_s = Math.round(spent);
    const stop = undecided.length === 0 ? "every measurable claim is decided"
      : needed.length === 0 ? "the undecided claims have no measured cells to repeat"
      : rep >= max ? `reached the maximum of ${max} repetitions with ${undecided.length} claim(s) undecided`
      : spent + repetitionSeconds(ctx, needed) > budgetS ? `the next repetition (~${Math.round(repetitionSeconds(ctx, needed))} s) would exceed the study's budget of ${budgetS} s (${Math.round(spent)} s spent) with ${undecided.length} claim(s) undecided`
      : ctx.interrupted() ? "the run was interrupted" : "";
    if (stop) {
      seq.stopped = stop;
      ctx.writer.write();
      ctx.progress.note(`${study}: sequential repetitions stopped: ${stop}`);
      return;
    }
    rep++;
    seq.repetitions_added = (seq.repetitions_added ?? 0) + 1;
    ctx.progress.note(`${study}: repetition ${rep} of ${needed.length} cell(s) for ${undecided.length} undecided claim(s): ${undecided.map((c) => c.id).join(", ")}`);
    await addRepetition(ctx, lc, study, ps, needed, rep, seed);
  }
}
