// Leave one run out over the committed data: for every claim and every experiment (runs of the same
// measurement settings, pipeline/lib/replicates.ts settingsKey) with at least 4 replicates, is each run's
// estimate inside the prediction interval of the others? Per study and overall, for the random-effects model
// and for the within-run errors alone (what a single run's interval assumes). Read at build time.
import type { ResultRecord, RunManifest, Study } from "./data.ts";
import { countedRecords } from "../../../pipeline/lib/claim-run.ts";
import { hostType, leaveOneOut, runEstimate, settingsKey, type RunEstimate } from "../../../pipeline/lib/replicates.ts";
import { pairedSamples } from "../../../pipeline/lib/verdicts.ts";
import { MIN_REPETITIONS } from "./verdicts.ts";

export interface Coverage {
  study: string;
  claims: number;
  model: { inside: number; cases: number };
  withinOnly: { inside: number; cases: number };
}

/** Each claim's replicate estimates, grouped by experiment (settings key). */
function experiments(study: Study, runs: RunManifest[], counted: ResultRecord[]): RunEstimate[][] {
  const out: RunEstimate[][] = [];
  for (const claim of study.claims?.claims ?? []) {
    if (claim.each_of) continue;
    const groups = new Map<string, RunEstimate[]>();
    for (const m of runs.filter((x) => x.status !== "running")) {
      const mine = counted.filter((r) => r.run_id === m.run_id);
      const samples = pairedSamples(mine, claim);
      if (samples.length < MIN_REPETITIONS) continue;
      const e = runEstimate(claim, samples, m.run_id, hostType(m.machine));
      if (!e) continue;
      const ws = claim.workload === "*" ? undefined : [claim.workload];
      const cs = mine
        .filter((r) => [claim.a.system, claim.b.system].includes(r.system) && (!ws || ws.includes(r.workload)))
        .map((r) => r.concurrency);
      const env = (m.config as { studies?: Record<string, { env?: Record<string, unknown> }> }).studies?.[study.name]
        ?.env;
      const key = settingsKey(env, cs);
      (groups.get(key) ?? groups.set(key, []).get(key)!).push(e);
    }
    out.push(...groups.values());
  }
  return out;
}

/** Coverage per study with claims (studies without a case are left out), then the total as study "all". */
export function replicateCoverage(studies: Study[], runs: RunManifest[], records: ResultRecord[]): Coverage[] {
  const rows: Coverage[] = [];
  for (const s of studies.filter((x) => x.claims)) {
    const counted = countedRecords(
      records.filter((r) => r.study === s.name),
      runs,
    );
    const groups = experiments(s, runs, counted);
    const model = leaveOneOut(groups);
    if (model.cases === 0) continue;
    rows.push({
      study: s.name,
      claims: groups.filter((g) => g.length >= 4).length,
      model,
      withinOnly: leaveOneOut(groups, { withinOnly: true }),
    });
  }
  const sum = (f: (c: Coverage) => { inside: number; cases: number }) => ({
    inside: rows.reduce((a, c) => a + f(c).inside, 0),
    cases: rows.reduce((a, c) => a + f(c).cases, 0),
  });
  return rows.length
    ? [
        ...rows,
        {
          study: "all",
          claims: rows.reduce((a, c) => a + c.claims, 0),
          model: sum((c) => c.model),
          withinOnly: sum((c) => c.withinOnly),
        },
      ]
    : [];
}
