// The seed's conditions beside ours on the site: for a verdict row (the rows that differ, beside the
// claim) and for a study page (the whole table for the run shown). Ours is read from the run's manifest
// and its records; the comparison itself is pipeline/lib/conditions.ts.
import type { ResultRecord, RunManifest, Study } from "./data.ts";
import type { ClaimVerdict } from "./verdicts.ts";
import {
  appliesTo,
  atSeedScale,
  conditionDifferences,
  conditionRow,
  type ConditionRow,
} from "../../../pipeline/lib/conditions.ts";
import type { Claim } from "../../../pipeline/schema/types.ts";
import { studyEnvOf } from "../../../pipeline/lib/claim-run.ts";
import { assessCells } from "../../../pipeline/lib/generator.ts";

export type { ConditionRow };

function claimWorkloads(c: Claim): string[] | "*" {
  return c.workload === "*" ? "*" : (c.each_of ?? [c.workload]);
}

/**
 * The concurrency the claim's cells ran at in one run: the sides' own when the claim pins it, else that of the
 * claim's measured records among `runRecords` (the run's records of the study).
 */
function claimConcurrency(claim: Claim, runRecords: ResultRecord[]): number[] {
  const pinned = [claim.a.concurrency, claim.b.concurrency].filter((c): c is number => c !== undefined);
  if (pinned.length) return pinned;
  const ws = claimWorkloads(claim);
  const systems = [claim.a.system, claim.b.system];
  return runRecords
    .filter(
      (r) =>
        r.source === "measured" &&
        r.metric === claim.metric &&
        systems.includes(r.system) &&
        (ws === "*" || ws.includes(r.workload)),
    )
    .map((r) => r.concurrency);
}

/**
 * Whether a run measured the claim at the seed's scale (pipeline/lib/conditions.ts atSeedScale), from its study env
 * and the claim's concurrency among `runRecords` (the run's records of the study).
 */
export function runAtSeedScale(study: Study, claim: Claim, run: RunManifest, runRecords: ResultRecord[]): boolean {
  const ctx = {
    machine: run.machine,
    env: studyEnvOf(run, study.name),
    concurrency: claimConcurrency(claim, runRecords),
  };
  return atSeedScale(study, claimWorkloads(claim), ctx) === true;
}

/** Beside a verdict: the conditions that matter and differ from the seed's, read from the verdict's run (none without a run). */
export function verdictConditions(study: Study, row: ClaimVerdict, records: ResultRecord[]): ConditionRow[] {
  if (!row.run) return [];
  const runId = row.run.run_id;
  return conditionDifferences(study, claimWorkloads(row.claim), {
    machine: row.run.machine,
    env: studyEnvOf(row.run, study.name),
    concurrency: claimConcurrency(
      row.claim,
      records.filter((r) => r.run_id === runId && r.study === study.name),
    ),
    repetitions: row.n,
  });
}

/** One row of a study page's conditions table, with the workloads it applies to. */
export interface StudyConditionRow extends ConditionRow {
  scope: string;
  /** part of the seed's scale (study.json `scale`: a verdict prefers runs with ours at least the seed's here) */
  scale: boolean;
}

/**
 * The study page's table: every condition row, ours from RUN (its records' concurrency for the row's
 * workloads, the most repetitions any of the study's cells reached); without a run, ours is not recorded.
 */
export function studyConditions(
  study: Study,
  run: RunManifest | undefined,
  records: ResultRecord[],
): StudyConditionRow[] {
  const mine = run
    ? records.filter((r) => r.run_id === run.run_id && r.study === study.name && r.source === "measured")
    : [];
  const repetitions = mine.length ? Math.max(...mine.map((r) => r.repetition)) : undefined;
  return (study.seed_conditions?.rows ?? []).map((def) => {
    const scoped = mine.filter((r) => appliesTo(def, [r.workload]));
    const row = conditionRow(study, def, {
      machine: run?.machine,
      env: run ? studyEnvOf(run, study.name) : undefined,
      concurrency: scoped.map((r) => r.concurrency),
      repetitions,
    });
    const scope = [
      def.workloads ? def.workloads.join(", ") : "every workload",
      def.not_workloads ? `except ${def.not_workloads.join(", ")}` : "",
    ]
      .filter(Boolean)
      .join(" ");
    return { ...row, scope, scale: def.scale === true };
  });
}

/** The load generator in a verdict's cells: how many were generator-bound, and how many were left out (generator.ts). */
export interface VerdictGenerators {
  cells: number;
  bound: number;
  excluded: number;
  /** The largest ratio of generator to server CPU per call among the bound cells. */
  worst?: { generatorUs: number; serverUs: number };
}

export function verdictGenerators(
  study: Study,
  row: ClaimVerdict,
  records: ResultRecord[],
): VerdictGenerators | undefined {
  if (!row.run) return undefined;
  const ws = claimWorkloads(row.claim);
  const sides = [row.claim.a, row.claim.b];
  const mine = records.filter(
    (r) =>
      r.run_id === row.run!.run_id &&
      r.study === study.name &&
      r.source === "measured" &&
      r.t === null &&
      (ws === "*" || ws.includes(r.workload)) &&
      sides.some(
        (s) =>
          s.system === r.system &&
          (s.server === undefined || s.server === r.server) &&
          (s.variant === undefined || s.variant === r.variant) &&
          (s.concurrency === undefined || s.concurrency === r.concurrency),
      ),
  );
  const assessed = [...assessCells(mine).values()];
  if (!assessed.length) return undefined;
  const bound = assessed.filter((a) => a.generatorBound);
  const worst = bound.reduce<VerdictGenerators["worst"]>((w, a) => {
    const ratio = a.generatorCpuPerCallUs! / a.serverCpuPerCallUs!;
    return !w || ratio > w.generatorUs / w.serverUs
      ? { generatorUs: a.generatorCpuPerCallUs!, serverUs: a.serverCpuPerCallUs! }
      : w;
  }, undefined);
  return {
    cells: assessed.length,
    bound: bound.length,
    excluded: assessed.filter((a) => a.excluded).length,
    ...(worst ? { worst } : {}),
  };
}
