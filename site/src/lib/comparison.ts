// One comparison, two summaries, side by side: a claim's verdict (reproduce pages) takes the
// geometric mean of the paired per-repetition ratios (pipeline/lib/verdicts.ts), while the study pages
// rank systems by the median over repetitions. Both are right for their purpose but differ, so each
// page prints the other's figure beside its own, computed from the same run's records here.
import type { Claim, ClaimSide } from "./verdicts.ts";
import type { ResultRecord, RunManifest } from "./data.ts";
import { median } from "./stats.ts";

export interface MedianComparison {
  /** Oriented like the verdict: how many times better a is than b, by the medians over repetitions. */
  ratio: number;
  a: number;
  b: number;
  unit: string;
}

function sideValues(
  claim: Claim,
  side: ClaimSide,
  study: string,
  runId: string,
  records: ResultRecord[],
): ResultRecord[] {
  return records.filter(
    (r) =>
      r.source === "measured" &&
      r.run_id === runId &&
      r.study === study &&
      r.workload === claim.workload &&
      r.metric === claim.metric &&
      r.t === null &&
      r.system === side.system &&
      (side.server === undefined || r.server === side.server) &&
      (side.variant === undefined || r.variant === side.variant) &&
      (side.concurrency === undefined || r.concurrency === side.concurrency),
  );
}

/** The claim's two sides in one run by their medians (undefined for an all-workloads or each-of claim or a side without records). */
export function medianComparison(
  claim: Claim,
  study: string,
  runId: string,
  records: ResultRecord[],
): MedianComparison | undefined {
  if (claim.workload === "*" || claim.each_of) return undefined;
  const a = sideValues(claim, claim.a, study, runId, records);
  const b = sideValues(claim, claim.b, study, runId, records);
  if (!a.length || !b.length) return undefined;
  const ma = median(a.map((r) => r.value));
  const mb = median(b.map((r) => r.value));
  if (!(ma > 0 && mb > 0)) return undefined;
  return { ratio: claim.better === "higher" ? ma / mb : mb / ma, a: ma, b: mb, unit: a[0].unit };
}

export interface VersionDifference {
  system: string;
  ours: string;
  seed: string;
}

/** The claim's systems whose version in the run differs from the one the seed published (published records' system_version). */
export function versionDifferences(
  claim: Claim,
  study: string,
  run: RunManifest,
  records: ResultRecord[],
): VersionDifference[] {
  const out: VersionDifference[] = [];
  for (const system of new Set([claim.a.system, claim.b.system])) {
    const ours = run.systems[system]?.version;
    const seed = records.find(
      (r) => r.source === "published" && r.study === study && r.system === system && r.system_version,
    )?.system_version;
    if (ours && seed && ours !== seed) out.push({ system, ours, seed });
  }
  return out;
}
