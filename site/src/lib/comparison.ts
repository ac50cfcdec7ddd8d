// One comparison, two summaries, side by side (issue 21): a claim's verdict (reproduce pages) takes the
// geometric mean of the paired per-repetition ratios (pipeline/lib/verdicts.ts), while the study pages
// rank systems by the median over repetitions. Both are right for their purpose but differ, so each
// page prints the other's figure beside its own, computed from the same run's records here.
import type { Claim, ClaimSide } from "./verdicts.ts";
import type { ResultRecord } from "./data.ts";
import { median } from "./stats.ts";

export interface MedianComparison {
  /** Oriented like the verdict: how many times better a is than b, by the medians over repetitions. */
  ratio: number;
  a: number;
  b: number;
  unit: string;
}

function sideValues(claim: Claim, side: ClaimSide, study: string, runId: string, records: ResultRecord[]): ResultRecord[] {
  return records.filter((r) => r.source === "measured" && r.run_id === runId && r.study === study && r.workload === claim.workload && r.metric === claim.metric && r.t === null
    && r.system === side.system && (side.variant === undefined || r.variant === side.variant) && (side.concurrency === undefined || r.concurrency === side.concurrency));
}

/** The claim's two sides in one run by their medians (undefined for an all-workloads claim or a side without records). */
export function medianComparison(claim: Claim, study: string, runId: string, records: ResultRecord[]): MedianComparison | undefined {
  if (claim.workload === "*") return undefined;
  const a = sideValues(claim, claim.a, study, runId, records);
  const b = sideValues(claim, claim.b, study, runId, records);
  if (!a.length || !b.length) return undefined;
  const ma = median(a.map((r) => r.value));
  const mb = median(b.map((r) => r.value));
  if (!(ma > 0 && mb > 0)) return undefined;
  return { ratio: claim.better === "higher" ? ma / mb : mb / ma, a: ma, b: mb, unit: a[0].unit };
}
